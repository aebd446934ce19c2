"""Cut training patches from the real photos' train split: one upright patch per labelled die, plus negatives.

A patch is PATCH px square around a die, turned upright by its rect and showing PATCH_SPAN die sides, so
the trainer can rotate, shift and rescale it before cutting the classifier's CROP_SIZE input from its middle.
Dice the locator finds are cut where the locator puts them (what the reader will see); dice it misses are cut
from their labelled box. Candidates that match no die become "none" examples (tray marks, clutter, walls).

    .venv/bin/python -m vision.training.extract_crops OUT.npz [--split train]
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from vision.locate import find_dice
from vision.recognise import CROP_MARGIN, CROP_SIZE, crop_die
from vision.result import match_boxes
from vision.training.photos import label_candidates, load_split, save_patches

PATCH = 96          # patch side in pixels (a die ~42 px: enough for crops up to 48 px)
PATCH_SPAN = 2.3    # die sides the patch spans
DIE_PX = PATCH / PATCH_SPAN  # a die's side inside a patch


def _patch(image: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> np.ndarray:
    return crop_die(image, centre, side, angle, size=PATCH, margin=PATCH_SPAN)


def centred_crop(patch: np.ndarray, crop_size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """The crop the reader itself cuts of the die in the middle of a patch (upright, centred, no jitter); with
    margin CLOSER_LOOK_MARGIN, the one its closer look reads."""
    scale = crop_size / (DIE_PX * margin)
    matrix = cv2.getRotationMatrix2D((PATCH / 2, PATCH / 2), 0.0, scale)
    matrix[:, 2] += crop_size / 2 - PATCH / 2
    return cv2.warpAffine(patch, matrix, (crop_size, crop_size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)


def extract(split: str, negatives_per_photo: int = 6, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    patches: list[np.ndarray] = []
    labels: list[str] = []
    sides: list[float] = []
    groups: list[int] = []   # the photo each patch comes from: validation holds out whole photos
    for photo_index, photo in enumerate(load_split(split)):
        image = photo.load()
        # Every die the reader would read; what matches no labelled die (tray marks, clutter) is "none".
        candidates = find_dice(image, faint=None)     # the candidates the committed nets learned from
        truth = [d.box for d in photo.dice]
        verdicts = label_candidates([c.box for c in candidates], truth)
        seen: set[int] = set()
        for c, verdict in zip(candidates, verdicts, strict=True):
            if verdict is False:
                continue
            patches.append(_patch(image, c.rect[0], c.side, c.rect[2]))
            sides.append(c.side)
            if verdict is None:
                labels.append("none")
            else:
                labels.append(photo.dice[verdict].label)
                seen.add(verdict)
        for j, die in enumerate(photo.dice):
            if j not in seen:   # missed by the locator: cut from the labelled box
                x, y, w, h = die.box
                side = 0.9 * float(np.sqrt(w * h))
                patches.append(_patch(image, (x + w / 2, y + h / 2), side, 0.0))
                sides.append(side)
                labels.append(die.label)
        # Plain tray and clutter at random places, die-sized.
        h, w = image.shape[:2]
        for _ in range(negatives_per_photo):
            side = float(rng.uniform(28, 48))
            centre = (float(rng.uniform(side, w - side)), float(rng.uniform(side, h - side)))
            box = (round(centre[0] - side / 2), round(centre[1] - side / 2), round(side), round(side))
            if match_boxes([box], truth, min_iou=0.05):
                continue
            patches.append(_patch(image, centre, side, float(rng.uniform(0, 90))))
            labels.append("none")
            sides.append(side)
        groups.extend([photo_index] * (len(patches) - len(groups)))
    return {"patches": np.stack(patches), "labels": np.array(labels), "sides": np.array(sides, np.float32),
            "groups": np.array(groups, np.int64)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--split", default="train", choices=["train"])
    args = parser.parse_args(argv)
    data = extract(args.split)
    save_patches(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
