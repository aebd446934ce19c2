"""Crops for training the lying-flat check (vision/flat.py): dice as the reader finds them, flat or cocked.

Each die is located as the reader locates it (vision.locate.find_dice on the work frame), matched to its label,
and cut at the scale of a CUT_FOR px crop but wider (PATCH px at FLAT_CROP_MARGIN * PATCH / CUT_FOR), with its
ramp plane, so training can shift, scale and turn it and still cut the net's crop with the die where the reader puts
it.

Real photos: the train split of ../shared/data/tray-d6-photos (the test split is never read here), every die
flat; every 5th photo is held out for validation (`photos.held_out_groups`). Virtual trays: seeds below
BENCH_SEED_START, d6 and Excape, most with one cocked die (the positive examples: no real photo shows one), at
640x480 and 1280x960; with --lettered, dice printed with letters, digits and signs instead (as a user's own
die). Stacked and cut dice are left out: the reader judges them by their size, overlap and the frame's edge, and a
die resting flat on another is flat.

    .venv/bin/python -m vision.training.flat_data OUT.npz [--trays 2500] [--first-seed 500000] [--no-real] [--lettered]
        [--die-colour marbled] [--pip-colour red] [--touching]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from vision.flat import FLAT_CROP_MARGIN, ramp
from vision.locate import find_dice, to_work
from vision.models import D6, EXCAPE, DieKind, DieModel, Face
from vision.recognise import crop_die
from vision.result import match_boxes
from vision.training.photos import load_split
from vision.training.render_crops import check_training_seeds
from vision.virtual_tray import DIE_COLOURS, PIP_COLOURS, render_tray

PATCH = 48      # stored crop side: room to shift and scale the net's crop
# The net's input side the patches are cut for: a PATCH patch holds a die at the scale of a CUT_FOR px crop cut
# FLAT_CROP_MARGIN die sides wide (train_flat rescales it for a net of another input size). Fixed, so that patch
# files stay valid whatever vision.flat.FLAT_CROP_SIZE is.
CUT_FOR = 32
_MARGIN = FLAT_CROP_MARGIN * PATCH / CUT_FOR
_HAZARDS = (frozenset({"cocked"}),) * 6 + (frozenset(), frozenset(), frozenset({"blurred"}), frozenset({"hand"}))
# Symbols for dice like a user's own (`dice-companion teach`): the check must not take an unfamiliar face for a
# lean. Not A, K, Q or J: the benchmark's taught die shows those.
_SYMBOLS = (*"BCDEFGHLMNPRSTUVWYZ0123456789", "10", "20", "?!", "$", "%", "#")


def lettered_model(rng: np.random.Generator) -> DieModel:
    """A die printed with 4-6 random symbols (as the renderer prints a taught face: its label)."""
    labels = rng.choice(len(_SYMBOLS), int(rng.integers(4, 7)), replace=False)
    faces = tuple(Face(_SYMBOLS[i], f"taught:{_SYMBOLS[i]}") for i in labels)
    return DieModel("lettered", (DieKind("lettered", faces),))


def die_patches(image: np.ndarray, labels: list[tuple[tuple[int, int, int, int], int | None]]
                ) -> tuple[list[np.ndarray], list[np.ndarray], list[int]]:
    """The located dice of a frame that match a labelled die whose label is not None: their PATCH crops (BGR
    uint8), ramps (float32) and labels (1: not lying flat)."""
    work, scale = to_work(image)
    located = find_dice(work, faint=None)     # the dice the committed check learned from
    boxes = [tuple(round(v * scale) for v in box) for box, _ in labels]
    crops, ramps, kinds = [], [], []
    for i, j in match_boxes([d.box for d in located], boxes, 0.3).items():
        kind = labels[j][1]
        if kind is None:
            continue
        die = located[i]
        crops.append(crop_die(work, die.rect[0], die.side, die.rect[2], size=PATCH, margin=_MARGIN))
        ramps.append(ramp((work.shape[1], work.shape[0]), die, PATCH, _MARGIN))
        kinds.append(kind)
    return crops, ramps, kinds


def _label(hazards: frozenset[str]) -> int | None:
    if hazards & {"stacked", "cut"}:
        return None
    return int("cocked" in hazards)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--trays", type=int, default=2500)
    parser.add_argument("--first-seed", type=int, default=500_000)
    parser.add_argument("--no-real", action="store_true", help="virtual trays only")
    parser.add_argument("--lettered", action="store_true", help="trays of dice printed with letters, digits and "
                        "signs (as a user's own die), instead of d6 and Excape dice")
    parser.add_argument("--die-colour", choices=DIE_COLOURS, help="every die this colour (default: each its own), "
                        "for more of a look the check misjudges")
    parser.add_argument("--pip-colour", choices=PIP_COLOURS, help="every die's pips this colour (default: each die "
                        "its own, never red)")
    parser.add_argument("--touching", action="store_true", help="dice placed beside another rest against it (a flat "
                        "die beside another must not pass for one leaning on it)")
    args = parser.parse_args(argv)
    check_training_seeds(args.first_seed, args.trays)
    look = {key: value for key, value in (("die_colour", args.die_colour), ("pip_colour", args.pip_colour))
            if value is not None} | ({"touching": True} if args.touching else {})

    crops: list[np.ndarray] = []
    ramps: list[np.ndarray] = []
    kinds: list[int] = []
    groups: list[int] = []
    real: list[bool] = []

    def add(found: tuple[list[np.ndarray], list[np.ndarray], list[int]], group: int, is_real: bool) -> None:
        crops.extend(found[0])
        ramps.extend(found[1])
        kinds.extend(found[2])
        groups.extend([group] * len(found[2]))
        real.extend([is_real] * len(found[2]))

    if not args.no_real:
        for k, photo in enumerate(load_split("train")):
            add(die_patches(photo.load(), [(d.box, 0) for d in photo.dice]), k, True)
    for k in range(args.trays):
        seed = args.first_seed + k
        model = lettered_model(np.random.default_rng(seed)) if args.lettered else EXCAPE if k % 3 == 1 else D6
        rendered = render_tray(seed, model, hazards=_HAZARDS[k % len(_HAZARDS)],
                               size=(1280, 960) if k % 4 == 3 else (640, 480), **look)
        add(die_patches(rendered.image, [(d.box, _label(d.hazards)) for d in rendered.dice]), seed, False)
    np.savez_compressed(args.out, crops=np.array(crops, np.uint8), ramps=np.array(ramps, np.float16),
                        labels=np.array(kinds, np.int64), groups=np.array(groups, np.int64),
                        real=np.array(real, bool))
    print(f"{len(kinds)} dice ({sum(kinds)} not lying flat, {sum(real)} from photos) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
