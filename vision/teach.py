"""`dice-companion teach`: learn a user's own die from a few camera shots of each face, store it as a model file.

    dice-companion teach OUT.json --face LABEL IMAGE [IMAGE ...] --face LABEL IMAGE [IMAGE ...] ... [--name NAME]

Each shot shows the tray with one or more dice all showing the face LABEL up (any symbol: a numeral, an X, a
logo). The reader's detector finds the dice; each one's crop is kept (grey, at even contrast) as a look of that
face. `dice-companion read --dice OUT.json` then reads such dice by the kept crop they match best, in any quarter
turn (vision.recognise.template_scores). Each face needs 3 whole dice in its shots (MIN_LOOKS); more shots, in
different places and light, make the reading sure more often.
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from vision.detect import WORK_WIDTH, Blob, find_blobs
from vision.models import DieKind, DieModel, Face, ModelError, save_model
from vision.recognise import (
    CLASSES,
    TEMPLATE_FORMAT,
    TEMPLATE_SIZE,
    crop_die,
    face_templates,
    look,
    softmax,
    square_up,
)

# Each face needs this many whole dice in its shots: with fewer, a throw in another spot or light matches another
# face's looks better than its own (seen here: a J taught from 2 dice read, sure, as Q).
MIN_LOOKS = 3
TEACH_NOT_A_DIE = 0.75  # a candidate the net calls "none" at least this probably is not kept as a look
TEACH_SQUARENESS = 0.8  # nor one whose sides differ more than this (short side / long side)


class TeachError(ModelError):
    """The shots given to `teach` cannot make a model."""


def _die_likeness(blobs: list[Blob], work: np.ndarray) -> dict[int, float]:
    """How surely the net calls each candidate of every blob a die (1 - P(none))."""
    candidates = [c for blob in blobs for c in blob.candidates]
    if not candidates:
        return {}
    crops = np.stack([crop_die(work, c.rect[0], c.side, c.rect[2]) for c in candidates])
    # The net knows a die from tray rims, felt and halves of dice whatever its faces show.
    die_like = 1.0 - softmax(look(crops).logits)[:, CLASSES.index("none")]
    return {id(c): float(p) for c, p in zip(candidates, die_like, strict=True)}


def _dice_crops(image: np.ndarray) -> list[np.ndarray]:
    h, w = image.shape[:2]
    scale = WORK_WIDTH / w
    work = image if scale == 1 else cv2.resize(image, (WORK_WIDTH, max(1, round(h * scale))),
                                               interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    blobs = find_blobs(work)
    likeness = _die_likeness(blobs, work)
    # A taught look must be a whole die seen square-on: not cut, not half a die (long), not a die and its shadow.
    # Each blob as one die or as its parts, whichever the net finds more die-like (as the reader chooses).
    dice = [c for blob in blobs for c in blob.choose(lambda c: likeness[id(c)])[0]
            if not c.touches_edge and c.squareness >= TEACH_SQUARENESS and likeness[id(c)] > 1 - TEACH_NOT_A_DIE]
    if not dice:
        return []
    median_side = float(np.median([c.side for c in dice]))
    return [crop_die(work, c.rect[0], c.side, square_up(work, c.rect[0], c.side, c.rect[2]), size=TEMPLATE_SIZE)
            for c in dice
            if 0.8 * median_side <= c.side <= 1.25 * median_side]


def face_crops(images: list[np.ndarray]) -> np.ndarray:
    """A TEMPLATE_SIZE crop of every whole die in the shots, (n, TEMPLATE_SIZE, TEMPLATE_SIZE, 3)."""
    crops = [crop for image in images for crop in _dice_crops(image)]
    if not crops:
        return np.zeros((0, TEMPLATE_SIZE, TEMPLATE_SIZE, 3), np.uint8)
    return np.stack(crops)


def teach_model(name: str, shots: dict[str, list[np.ndarray]]) -> DieModel:
    """A model whose faces are the labels of `shots` (label -> images showing that face up)."""
    if len(shots) < 2:
        raise TeachError(f"a die needs at least 2 taught faces, got {len(shots)}")
    looks: dict[str, tuple[tuple[float, ...], ...]] = {}
    faces = []
    for label, images in shots.items():
        found = face_crops(images)
        if len(found) == 0:
            raise TeachError(f"no die found in the shots of face {label!r}: show the die on the tray, "
                             "whole and in focus, seen from above")
        if len(found) < MIN_LOOKS:
            raise TeachError(f"face {label!r}: only {len(found)} whole {'die' if len(found) == 1 else 'dice'} "
                             f"found in its shots, {MIN_LOOKS} needed: add shots of that face (dice flat, apart "
                             "from each other, whole in view)")
        appearance = f"taught:{label}"
        faces.append(Face(label=label, appearance=appearance))
        looks[appearance] = tuple(tuple(float(v) for v in row) for row in face_templates(found))
    return DieModel(name=name, kinds=(DieKind(name=name, faces=tuple(faces)),), looks=looks,
                    embedder=TEMPLATE_FORMAT)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dice-companion teach",
                                     description="Learn a custom die from camera shots of each face.")
    parser.add_argument("out", metavar="MODEL_FILE", help="where to write the model (JSON)")
    parser.add_argument("--face", nargs="+", action="append", required=True, metavar=("LABEL", "IMAGE"),
                        help="a face's label followed by one or more shots showing that face up")
    parser.add_argument("--name", help="the die's name (default: the model file's stem)")
    return parser


def main(argv: list[str]) -> int:
    from vision.cli import load_image

    args = _parser().parse_args(argv)
    groups: dict[str, list[str]] = {}
    for group in args.face:
        label, paths = group[0], group[1:]
        if not paths:
            raise TeachError(f"--face {label} needs at least one IMAGE after the label")
        if label in groups:
            raise TeachError(f"face {label!r} is given twice; put all its shots after one --face")
        groups[label] = paths
    shots: dict[str, list[np.ndarray]] = {}
    for label, paths in groups.items():
        images = []
        for path in paths:
            image = load_image(path)
            if isinstance(image, str):
                raise TeachError(f"{path}: {image}")
            images.append(image)
        shots[label] = images
    name = args.name or args.out.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    model = teach_model(name, shots)
    save_model(model, args.out)
    counts = ", ".join(f"{f.label}: {len(model.looks[f.appearance])} dice" for f in model.faces)
    print(f"wrote {args.out}: die {name!r} with faces {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
