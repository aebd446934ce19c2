"""`dice-companion teach`: learn a user's own die from a few camera shots of each face, store it as a model file.

    dice-companion teach OUT.json --face LABEL IMAGE [IMAGE ...] --face LABEL IMAGE [IMAGE ...] ... [--name NAME]

Each shot shows the tray with one or more dice all showing the face LABEL up (any symbol: a numeral, an X, a
logo). The reader's detector finds the dice; each one's classifier embedding, in all four quarter turns, is
stored as that face's look. `dice-companion read --dice OUT.json` then reads such dice by the nearest look.
Three or more shots per face, in different places and turns, make the reading sure more often.
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from vision.detect import WORK_WIDTH, find_candidates
from vision.models import DieKind, DieModel, Face, ModelError, save_model
from vision.recognise import crop_die, embed_crops, weights_fingerprint

MIN_SHOTS = 1


class TeachError(ModelError):
    """The shots given to `teach` cannot make a model."""


def _dice_crops(image: np.ndarray) -> list[np.ndarray]:
    h, w = image.shape[:2]
    scale = WORK_WIDTH / w
    work = image if scale == 1 else cv2.resize(image, (WORK_WIDTH, max(1, round(h * scale))),
                                               interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    candidates = [c for c in find_candidates(work) if not c.touches_edge]
    if not candidates:
        return []
    # Dice are the die-sized blobs: keep those near the median size (drops specks and clutter).
    median_side = float(np.median([c.side for c in candidates]))
    return [crop_die(work, c.rect[0], c.side, c.rect[2]) for c in candidates
            if 0.7 * median_side <= c.side <= 1.4 * median_side]


def face_looks(images: list[np.ndarray]) -> np.ndarray:
    """Embeddings (n, EMBED) of every die in the shots, each in its four quarter turns."""
    crops = [crop for image in images for crop in _dice_crops(image)]
    if not crops:
        return np.zeros((0, 0), np.float32)
    turned = [np.ascontiguousarray(np.rot90(crop, k)) for crop in crops for k in range(4)]
    return embed_crops(np.stack(turned))


def teach_model(name: str, shots: dict[str, list[np.ndarray]]) -> DieModel:
    """A model whose faces are the labels of `shots` (label -> images showing that face up)."""
    if len(shots) < 2:
        raise TeachError(f"a die needs at least 2 taught faces, got {len(shots)}")
    looks: dict[str, tuple[tuple[float, ...], ...]] = {}
    faces = []
    for label, images in shots.items():
        embeddings = face_looks(images)
        if len(embeddings) == 0:
            raise TeachError(f"no die found in the shots of face {label!r}: show the die on the tray, "
                             "whole and in focus, seen from above")
        appearance = f"taught:{label}"
        faces.append(Face(label=label, appearance=appearance))
        looks[appearance] = tuple(tuple(float(v) for v in e) for e in embeddings)
    return DieModel(name=name, kinds=(DieKind(name=name, faces=tuple(faces)),), looks=looks,
                    embedder=weights_fingerprint())


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
    counts = ", ".join(f"{f.label}: {len(model.looks[f.appearance]) // 4} dice" for f in model.faces)
    print(f"wrote {args.out}: die {name!r} with faces {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
