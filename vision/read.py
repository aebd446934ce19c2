"""The whole reader: a BGR frame in, a TrayReading out (find the dice, read each face, judge whether to trust it).

A die is trusted ("sure") only when the classifier is sure of its face and nothing about the die itself casts
doubt on it: cut by the frame edge, a size outlier or overlapping another die (stacked), a top face that is not
square-on (cocked), or much blurrier than the rest (moving or out of focus). Any doubt, or a count that differs
from what the players rolled, makes the tray a "reroll" with a reason the players can act on.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.detect import WORK_WIDTH, Blob, Candidate, TrayRegionError, find_blobs
from vision.models import D6, DieModel
from vision.recognise import FaceGuess, crop_die, read_faces
from vision.result import UNKNOWN_FACE, DieReading, TrayReading

# Doubts about a die, from its shape and surroundings (work-size pixels).
STACKED_SIZE_RATIO = 1.35   # a die this much larger than the median die rests on another
OVERLAP_FRACTION = 0.25     # dice whose boxes overlap this much of the smaller one are stacked
COCKED_SQUARENESS = 0.72    # top face's rect sides ratio below this: seen at a slant
BLUR_RATIO = 0.25           # sharpness below this fraction of the tray's median die: blurred
BLUR_FLOOR = 40.0           # ... or below this absolute Laplacian variance, whatever the others look like


class ReadError(TrayRegionError):
    """The frame or the options given to the reader are invalid."""


@dataclass(frozen=True)
class _Die:
    candidate: Candidate
    guess: FaceGuess
    sharpness: float


def _check_image(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ReadError("expected a uint8 numpy image (BGR, or gray)")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ReadError(f"expected an image of shape (h, w, 3) BGR, got shape {image.shape}")
    if min(image.shape[:2]) < 32:
        raise ReadError(f"image of {image.shape[1]}x{image.shape[0]} px is too small to show dice")
    return image


def _sharpness(crop: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var())


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / max(min(a[2] * a[3], b[2] * b[3]), 1)


def _doubt(die: _Die, others: list[_Die], median_side: float, median_sharpness: float) -> str | None:
    c = die.candidate
    if c.touches_edge:
        return "cut by the frame edge"
    if c.side > STACKED_SIZE_RATIO * median_side or any(
            _overlap(c.box, o.candidate.box) > OVERLAP_FRACTION for o in others if o is not die):
        return "stacked"
    if c.squareness < COCKED_SQUARENESS:
        return "cocked"
    if die.sharpness < BLUR_FLOOR or die.sharpness < BLUR_RATIO * median_sharpness:
        return "blurred"
    if not die.guess.sure:
        return "unclear"
    return None


def _reading_order(dice: list[_Die]) -> list[_Die]:
    """Top to bottom in rows about a die high, left to right within a row: how players count dice."""
    if not dice:
        return dice
    side = float(np.median([d.candidate.side for d in dice]))
    return sorted(dice, key=lambda d: (round(d.candidate.rect[0][1] / side), d.candidate.rect[0][0]))


def _reroll_reason(readings: list[DieReading], expect: int | None) -> str | None:
    if expect is not None and len(readings) != expect:
        noun = "die" if expect == 1 else "dice"
        return f"expected {expect} {noun} but found {len(readings)}: roll again with all dice inside the tray"
    doubtful = [(i + 1, r.reason) for i, r in enumerate(readings) if not r.sure]
    if not doubtful:
        return None
    n = len(readings)
    parts = [f"die {i} of {n} is {reason}" if reason != "unclear" else f"die {i} of {n} cannot be read"
             for i, reason in doubtful]
    return "; ".join(parts) + ": re-roll"


def _score(die: _Die) -> float:
    return die.guess.confidence if die.guess.appearance is not None else 0.0


def _read_blobs(work: np.ndarray, blobs: list[Blob], model: DieModel) -> list[_Die]:
    """Read every blob; where a blob could be one die or several, keep the reading the classifier is surer of."""
    candidates = [c for blob in blobs for c in ([blob.whole] if blob.whole else []) + list(blob.parts)]
    if not candidates:
        return []
    crops = np.stack([crop_die(work, c.rect[0], c.side, c.rect[2]) for c in candidates])
    guesses = read_faces(crops, model)
    read = iter(_Die(c, g, _sharpness(crop)) for c, g, crop in zip(candidates, guesses, crops, strict=True))
    dice: list[_Die] = []
    for blob in blobs:
        whole = [next(read)] if blob.whole else []
        parts = [next(read) for _ in blob.parts]
        if whole and parts:
            # Halves of one die and crops spanning two dice both read poorly: the better mean wins.
            chosen = parts if np.mean([_score(d) for d in parts]) > _score(whole[0]) else whole
        else:
            chosen = whole or parts
        dice += [d for d in chosen if d.guess.appearance is not None]
    return dice


def read_tray(image: np.ndarray, model: DieModel = D6, *, tray: tuple[int, int, int, int] | None = None,
              expect: int | None = None) -> TrayReading:
    """Find and read every die in a BGR frame of any size.

    tray: the calibrated tray region (x, y, w, h) in pixels of `image`; dice outside it are ignored and a die
    touching its border counts as cut. expect: how many dice were rolled; another count means "reroll".
    Dice come in reading order (rows top to bottom, left to right).
    """
    image = _check_image(image)
    if expect is not None and expect < 0:
        raise ReadError(f"expect must be a number of dice (0 or more), got {expect}")
    h, w = image.shape[:2]
    scale = WORK_WIDTH / w
    work = image if scale == 1 else cv2.resize(image, (WORK_WIDTH, max(1, round(h * scale))),
                                               interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    work_tray = None if tray is None else tuple(round(v * scale) for v in tray)
    dice = _reading_order(_read_blobs(work, find_blobs(work, work_tray), model))

    readings: list[DieReading] = []
    if dice:
        median_side = float(np.median([d.candidate.side for d in dice]))
        median_sharpness = float(np.median([d.sharpness for d in dice]))
        for die in dice:
            reason = _doubt(die, dice, median_side, median_sharpness)
            x, y, bw, bh = die.candidate.box
            box = (round(x / scale), round(y / scale), round(bw / scale), round(bh / scale))
            face = model.label_of(die.guess.appearance) if die.guess.appearance else UNKNOWN_FACE
            sure = reason is None
            readings.append(DieReading(face=face if die.guess.sure else UNKNOWN_FACE,
                                       confidence=die.guess.confidence if sure else min(die.guess.confidence, 0.5),
                                       sure=sure, box=box, reason=reason))
    reason = _reroll_reason(readings, expect)
    return TrayReading(status="reroll" if reason else "ok", reason=reason, dice=tuple(readings))
