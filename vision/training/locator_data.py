"""Frames and die boxes for training the dice locator (vision/locate.py), at the locator's input scale.

Real photos: the train split of ../shared/data/tray-d6-photos (the test split is never read here), every 5th
photo held out for validation (`photos.held_out_groups`). Virtual trays: d6 and Excape renders from seeds below
BENCH_SEED_START, a share of them with a hazard (a cocked, stacked, cut or blurred die, a hand in the tray), at
640x480 and 1280x960. Each frame is brought to the reader's work width (vision.locate.to_work) and then to the
locator's scale (vision.locate.to_locator_scale), as the reader does; boxes follow.

    .venv/bin/python -m vision.training.locator_data OUT.pkl [--trays 2400] [--first-seed 300000] [--hard] [--touching]
"""

from __future__ import annotations

import argparse
import pickle
import sys

import numpy as np

from vision.locate import to_locator_scale, to_work
from vision.models import D6, EXCAPE
from vision.training.photos import load_split
from vision.training.render_crops import check_training_seeds

_HAZARDS = (frozenset(), frozenset(), frozenset(), frozenset(), frozenset({"cocked"}), frozenset({"stacked"}),
            frozenset({"cut"}), frozenset({"blurred"}), frozenset({"hand"}), frozenset({"cocked", "stacked"}))


def _frame(image: np.ndarray, boxes: list[tuple[int, int, int, int]], source: str, group: int) -> dict:
    work, scale = to_work(image)
    small, small_scale = to_locator_scale(work)
    factor = scale * small_scale
    return {"image": small, "boxes": np.array([[v * factor for v in b] for b in boxes], np.float32).reshape(-1, 4),
            "source": source, "group": group}


def real_frames() -> list[dict]:
    return [_frame(photo.load(), [d.box for d in photo.dice], "real", k)
            for k, photo in enumerate(load_split("train"))]


# Looks the locator found hardest (on tuning trays its misses were dark dice showing one or two pips on dark
# trays, pale dice on pale trays, and dice far bigger than most): with --hard every tray has one, in turn.
_DARK_DICE = ("black", "purple", "green", "blue")
_PALE_DICE = ("white", "ivory", "yellow")


def hard_look(k: int, rng: np.random.Generator, size: tuple[int, int]) -> dict:
    """Tray k's hard look (render_tray's **look): dark on dark, pale on pale, or big dice."""
    scale = size[0] / 640
    kind = k % 3
    if kind == 0:
        return {"tray": "felt", "die_colour": str(rng.choice(_DARK_DICE))}
    if kind == 1:
        return {"tray": "light", "die_colour": str(rng.choice(_PALE_DICE))}
    return {"die_size": (50.0 * scale, 75.0 * scale)}


def virtual_frames(trays: int, first_seed: int, hard: bool = False, touching: bool = False) -> list[dict]:
    from vision.virtual_tray import render_tray  # the renderer is only needed here, not by the reader

    check_training_seeds(first_seed, trays)
    frames = []
    for k in range(trays):
        seed = first_seed + k
        model = EXCAPE if k % 3 == 1 else D6
        size = (1280, 960) if k % 4 == 3 else (640, 480)
        look = hard_look(k, np.random.default_rng(seed), size) if hard else {}
        if touching:        # dice resting against each other (vision.virtual_tray.Look.touching)
            look["touching"] = True
        rendered = render_tray(seed, model, hazards=_HAZARDS[k % len(_HAZARDS)], size=size, **look)
        frames.append(_frame(rendered.image, [d.box for d in rendered.dice], "virtual", seed))
    return frames


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--trays", type=int, default=2400)
    parser.add_argument("--first-seed", type=int, default=300_000)
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--hard", action="store_true", help="every tray in a hard look: dark dice on a dark tray, "
                        "pale dice on a pale one, or big dice")
    parser.add_argument("--touching", action="store_true", help="dice placed beside another rest against it")
    args = parser.parse_args(argv)
    frames = ([] if args.no_real else real_frames()) + virtual_frames(args.trays, args.first_seed, args.hard,
                                                                      args.touching)
    with open(args.out, "wb") as f:
        pickle.dump(frames, f)
    dice = sum(len(f["boxes"]) for f in frames)
    print(f"wrote {args.out}: {len(frames)} frames, {dice} dice")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
