"""Cut training patches from virtual-tray renders (seeds below BENCH_SEED_START only; the benchmark uses the rest).

Same patches as extract_crops (the locator's view of each die, upright), labelled by the render's truth: the
face's class name ("1".."7", "X") or "none" for candidates that match no die. Cocked and stacked dice
are labelled "tilted" (not lying flat: the reader flags them); cut and blurred dice are left out (the reader
flags those by their box and sharpness).

    .venv/bin/python -m vision.training.render_crops OUT.npz [--trays 600]
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from vision.locate import find_dice
from vision.models import D6, EXCAPE
from vision.recognise import crop_die
from vision.training.extract_crops import PATCH, PATCH_SPAN
from vision.training.photos import label_candidates, save_patches
from vision.virtual_tray import DIE_COLOURS, PIP_COLOURS, render_tray

BENCH_SEED_START = 1_000_000    # seeds from here on are the benchmark's; training renders stay below
_HAZARD_SETS = (frozenset(), frozenset(), frozenset(), frozenset({"hand"}), frozenset({"blurred"}),
                frozenset({"cocked"}), frozenset({"stacked"}))


def check_training_seeds(first_seed: int, trays: int) -> None:
    """Refuse (SystemExit, with the reason) renders that would reach the benchmark's seeds: the figures that count
    are on trays the training never saw."""
    if first_seed + trays > BENCH_SEED_START:
        raise SystemExit(f"training renders must stay below seed {BENCH_SEED_START} (the benchmark's): "
                         f"{trays} trays from seed {first_seed} reach {first_seed + trays - 1}")


def class_name(appearance: str) -> str:
    kind, _, value = appearance.partition(":")
    return value if kind == "pips" else "X" if appearance == "symbol:cross" else "none"


def extract(trays: int, first_seed: int = 0, excape_faces: bool = False, die_colour: str | None = None,
            pip_colour: str | None = None) -> dict[str, np.ndarray]:
    """Patches from `trays` renders; excape_faces: Excape dice only, mostly showing 7 and X (rare otherwise);
    die_colour, pip_colour: every die of that colour (vision.virtual_tray.DIE_COLOURS), with pips of that colour
    (PIP_COLOURS), for more of a look the nets miss."""
    rng = np.random.default_rng(first_seed)
    patches: list[np.ndarray] = []
    labels: list[str] = []
    groups: list[int] = []   # the tray's seed per patch: validation holds out whole trays
    for k in range(trays):
        seed = first_seed + k
        model = EXCAPE if k % 2 or excape_faces else D6
        hazards = _HAZARD_SETS[k % len(_HAZARD_SETS)]
        size = (640, 480) if k % 3 else (800, 600)
        faces = None
        if excape_faces:
            faces = [str(f) for f in rng.choice(["7", "X", "7", "X", "1", "2", "3", "4", "5", "6"],
                                                int(rng.integers(2, 9)))]
        look = {key: value for key, value in (("die_colour", die_colour), ("pip_colour", pip_colour))
                if value is not None}
        rendered = render_tray(seed, model, hazards=hazards, size=size, faces=faces, **look)
        image = rendered.image
        scale = 640 / image.shape[1]
        if scale != 1:
            image = cv2.resize(image, (640, round(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        truth = [tuple(round(v * scale) for v in d.box) for d in rendered.dice]
        candidates = find_dice(image, faint=None)     # the candidates the committed nets learned from
        verdicts = label_candidates([c.box for c in candidates], truth)
        for c, verdict in zip(candidates, verdicts, strict=True):
            if verdict is False:
                continue
            hazards = rendered.dice[verdict].hazards if verdict is not None else frozenset()
            if hazards - {"cocked", "stacked"}:
                continue
            if verdict is None:
                label = "none"
            else:
                label = "tilted" if hazards else class_name(rendered.dice[verdict].appearance)
            patches.append(crop_die(image, c.rect[0], c.side, c.rect[2], size=PATCH, margin=PATCH_SPAN))
            labels.append(label)
        groups.extend([seed] * (len(patches) - len(groups)))
    return {"patches": np.stack(patches), "labels": np.array(labels), "groups": np.array(groups, np.int64)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--trays", type=int, default=600)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--excape-faces", action="store_true", help="Excape dice, mostly 7 and X")
    parser.add_argument("--die-colour", choices=DIE_COLOURS, help="every die this colour (default: each its own)")
    parser.add_argument("--pip-colour", choices=PIP_COLOURS, help="every die's pips this colour (default: each die "
                        "its own, never red)")
    args = parser.parse_args(argv)
    check_training_seeds(args.first_seed, args.trays)
    data = extract(args.trays, args.first_seed, args.excape_faces, args.die_colour, args.pip_colour)
    save_patches(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
