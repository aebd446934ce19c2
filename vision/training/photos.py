"""Load the real-photo set (../shared/data/tray-d6-photos): images, YOLO labels, train/test split.

Used by the training scripts and the benchmark; never at run time.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.result import box_iou

DEFAULT_PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tray-d6-photos"
FACES = ("1", "2", "3", "4", "5", "6")
PHOTO_SIDE = 640        # px, every photo's width and height
LABEL_FIXES = Path(__file__).resolve().with_name("label_fixes.toml")


@dataclass(frozen=True)
class LabelledDie:
    label: str                          # "1".."6"
    box: tuple[int, int, int, int]      # x, y, w, h in image pixels


@dataclass(frozen=True)
class LabelledPhoto:
    path: Path
    dice: tuple[LabelledDie, ...]

    def load(self) -> np.ndarray:
        image = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"cannot read photo {self.path}")
        return image


def read_labels(label_file: Path, width: int, height: int) -> tuple[LabelledDie, ...]:
    dice = []
    for line in label_file.read_text().split("\n"):
        if not line.strip():
            continue
        cls, cx, cy, w, h = line.split()
        bw, bh = float(w) * width, float(h) * height
        x, y = float(cx) * width - bw / 2, float(cy) * height - bh / 2
        dice.append(LabelledDie(str(int(cls) + 1), (round(x), round(y), round(bw), round(bh))))
    return tuple(dice)


@dataclass(frozen=True)
class LabelFix:
    """A die whose label in the dataset is not the face its photo shows (label_fixes.toml says how each was found)."""

    photo: str          # file name, e.g. IMG_20191209_095555.jpg
    split: str          # "train" or "test"
    die: int            # its line in labels/NAME.txt, from 0
    labelled: str       # the dataset's label
    shows: str          # the face the photo shows


class LabelFixError(ValueError):
    """label_fixes.toml is malformed, or no longer matches the dataset it fixes."""


def label_fixes(path: Path = LABEL_FIXES) -> list[LabelFix]:
    """The fixes of label_fixes.toml, each checked for sense (a split, two different faces)."""
    try:
        entries = tomllib.loads(path.read_text())["fix"]
        fixes = [LabelFix(str(e["photo"]), str(e["split"]), int(e["die"]), str(e["labelled"]), str(e["shows"]))
                 for e in entries]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise LabelFixError(f"cannot read the photo label fixes {path}: {err!r}") from err
    for fix in fixes:
        if fix.split not in ("train", "test") or not {fix.labelled, fix.shows} <= set(FACES) \
                or fix.labelled == fix.shows:
            raise LabelFixError(f"label fix for {fix.photo} in {path}: expected split train or test and two "
                                f"different faces 1-6, got split {fix.split!r}, labelled {fix.labelled!r}, "
                                f"shows {fix.shows!r}")
    return fixes


def with_label_fixes(photos: list[LabelledPhoto], split: str, fixes: list[LabelFix]) -> list[LabelledPhoto]:
    """The photos of one split, each die a fix names labelled as the face it shows; a fix that does not match the
    photos (no such photo or die, or another label than it expects) is refused (LabelFixError)."""
    by_name = {photo.path.name: k for k, photo in enumerate(photos)}
    fixed = list(photos)
    for fix in (f for f in fixes if f.split == split):
        if fix.photo not in by_name:
            raise LabelFixError(f"label fix for {fix.photo}: no such photo in the {split} split")
        photo = fixed[by_name[fix.photo]]
        if not 0 <= fix.die < len(photo.dice):
            raise LabelFixError(f"label fix for {fix.photo} die {fix.die}: the photo has {len(photo.dice)} "
                                "labelled dice; the dataset changed, check the fix again")
        if photo.dice[fix.die].label != fix.labelled:
            raise LabelFixError(f"label fix for {fix.photo} die {fix.die}: expected the dataset to label it "
                                f"{fix.labelled}, it says {photo.dice[fix.die].label}; the dataset changed, "
                                "check the fix again")
        dice = list(photo.dice)
        dice[fix.die] = replace(dice[fix.die], label=fix.shows)
        fixed[by_name[fix.photo]] = replace(photo, dice=tuple(dice))
    return fixed


def load_split(split: str, root: Path = DEFAULT_PHOTOS, fixed: bool = True) -> list[LabelledPhoto]:
    """Photos of split "train" or "test", with their labelled dice (the photos are 640x640); with `fixed`, each
    die of label_fixes.toml labelled as the face it shows."""
    names = [n.strip() for n in (root / f"split_{split}.txt").read_text().split("\n") if n.strip()]
    photos = []
    for name in names:
        stem = Path(name).stem
        photos.append(LabelledPhoto(root / "images" / f"{stem}.jpg",
                                    read_labels(root / "labels" / f"{stem}.txt", PHOTO_SIDE, PHOTO_SIDE)))
    return with_label_fixes(photos, split, label_fixes()) if fixed else photos


def side_by_side(photos: list[LabelledPhoto], columns: int = 2) -> tuple[np.ndarray, tuple[LabelledDie, ...]]:
    """The photos in one frame, `columns` cells of PHOTO_SIDE to a row and as many rows (a cell with no photo left
    black), with their dice in its pixels: what a camera `columns` times as far from such trays sees, at `columns`
    times the photos' resolution (its dice as many pixels as theirs, in a frame that much wider)."""
    if not 0 < len(photos) <= columns * columns:
        raise ValueError(f"{len(photos)} photos do not fill a frame of {columns}x{columns} photos")
    frame = np.zeros((columns * PHOTO_SIDE, columns * PHOTO_SIDE, 3), np.uint8)
    dice = []
    for k, photo in enumerate(photos):
        image = photo.load()
        if image.shape[:2] != (PHOTO_SIDE, PHOTO_SIDE):
            raise ValueError(f"photo {photo.path.name} is {image.shape[1]}x{image.shape[0]}, not "
                             f"{PHOTO_SIDE}x{PHOTO_SIDE}")
        x, y = PHOTO_SIDE * (k % columns), PHOTO_SIDE * (k // columns)
        frame[y:y + PHOTO_SIDE, x:x + PHOTO_SIDE] = image
        dice += [replace(d, box=(d.box[0] + x, d.box[1] + y, d.box[2], d.box[3])) for d in photo.dice]
    return frame, tuple(dice)


def save_patches(path: str, data: dict[str, np.ndarray]) -> None:
    """Write a training patch set (.npz) and print how many patches each label got."""
    np.savez_compressed(path, **data)
    values, counts = np.unique(data["labels"], return_counts=True)
    print(f"{len(data['labels'])} patches: " + ", ".join(f"{v}={c}" for v, c in zip(values, counts, strict=True)))


def held_out_groups(groups: np.ndarray, every: int = 5) -> np.ndarray:
    """The validation split carved out of the train split: every `every`-th photo (or virtual tray), held out
    whole, given each patch's photo index or tray seed. The test split is never used to decide anything."""
    if every < 2:
        raise ValueError(f"hold out every N-th photo with N >= 2, got {every}")
    return np.asarray(groups) % every == 0


def label_candidates(found: list[tuple[int, int, int, int]], truth: list[tuple[int, int, int, int]],
                     die_iou: float = 0.5, none_iou: float = 0.25) -> list[int | bool | None]:
    """For training: each found box's truth index when it clearly is that die (IoU >= die_iou), None when it
    clearly is no die (IoU < none_iou with every die), False when in between (half a die, two dice): skip it."""
    labels: list[int | bool | None] = []
    for box in found:
        scores = [box_iou(box, t) for t in truth]
        best = int(np.argmax(scores)) if scores else -1
        if scores and scores[best] >= die_iou:
            labels.append(best)
        elif not scores or scores[best] < none_iou:
            labels.append(None)
        else:
            labels.append(False)
    return labels
