"""Is a die blurred? Measures of its crop's edges, apart from reading its face.

A die still moving is smeared along its motion: its edges point one way (one-sided). A die out of focus has little
fine detail for its contrast (soft), judged against the other dice of the same frame. Both are measured on each die
cut wider than the classifier's crop (vision.recognise.CLOSER_LOOK_MARGIN), all the dice of a frame at once.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from vision.recognise import filter_each

# Blur is judged on each die cut wider (CLOSER_LOOK_MARGIN), its whole outline in view: cut tight, a crop can clip
# the outline on one side, and a resting die's edges then look one-sided (a 1, with little else to show, most of
# all). Edges this one-sided, weighted towards the crop's middle (BLUR_WINDOW): smeared by motion.
MOTION_ISOTROPY = 0.39
BLUR_RATIO = 0.1            # sharpness below this fraction of the tray's median die: out of focus
SOMEWHAT_ONE_SIDED, SOMEWHAT_SOFT = 0.55, 0.36   # both at once: blurred too
# The edges counted with a Gaussian weight this wide (sigma, in crop sides) about the crop's centre: the wide crop's
# corners often hold a neighbouring die's straight edge or the tray's wall, and a dark die with dark pips (little
# edge of its own) then looked smeared. Weighted so, with the bars above (chosen on the 200 photos of the train
# split, 1,479 resting dice, 120 virtual tuning trays and 150 tuning trays with a blurred die, seeds 3,003,000+),
# 2 resting real dice are called blurred instead of 11 (0.42, 0.1, 0.65, 0.36 unweighted), no virtual one, and 77
# of the 84 blurred dice found instead of 78; the held-out photos read 98.1 -> 98.4% right, 250 virtual d6
# tuning trays one die more, the hazard trays (cocked, stacked, blurred, hand) exactly as before. Unweighted,
# MOTION_ISOTROPY 0.38 had let a blurred die of the benchmark's trays stand as a sure face.
BLUR_WINDOW = 0.3
# Somewhat one-sided and this soft in itself (sharpness, not relative to the frame's other dice) is blurred too: a die
# alone in its frame is its own median, so a lone smeared die was judged by its isotropy only. On a fresh hazard tray
# (3,003,870) a lone purple 3 smeared into three streaks (sharpness 0.23, isotropy 0.43) was read as a sure 6 and
# accepted. Of 6,020 resting dice read sure on the tuning sets (the train split's photos, 500 d6 and 500 Excape trays,
# 400 felt throws), none is under both bars (under 0.25 alone: 30); the tuning trays' blurred dice were all flagged
# or left unclear already.
SOFT_IN_ITSELF = 0.25
# A symbol's own edges (an X's two strokes, which cross at right angles) are judged on the die cut at SYMBOL_SIZE
# pixels (the classifier's 28 px crop leaves a stroke a pixel or two wide) and weighted SYMBOL_WINDOW of the crop's
# side about its middle: the die's outline and its sides seen in perspective, which run one way, weigh little there.
SYMBOL_SIZE = 48
SYMBOL_WINDOW = 0.2


def _gray_stack(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The crops' gray levels (N, h, w) and their x and y Sobel and Laplacian responses, each crop on its own
    (vision.recognise.filter_each)."""
    n, h, w = crops.shape[:3]
    gray = cv2.cvtColor(crops.reshape(n * h, w, 3), cv2.COLOR_BGR2GRAY).reshape(n, h, w).astype(np.float32)
    gx, gy, laplacian = filter_each(gray, lambda tall: cv2.Sobel(tall, cv2.CV_32F, 1, 0),
                                    lambda tall: cv2.Sobel(tall, cv2.CV_32F, 0, 1),
                                    lambda tall: cv2.Laplacian(tall, cv2.CV_32F))
    return gray, gx, gy, laplacian


def _isotropy(gx: np.ndarray, gy: np.ndarray, window: float = BLUR_WINDOW) -> np.ndarray:
    """How evenly each crop's edges point in all directions, 0..1 (the structure tensor's eigenvalue ratio, its
    pixels weighted by _centre_weights `window` of the side wide), from the crops' Sobel responses (N, h, w).

    A die at rest has edges both ways (its outline, round pips); motion smears away the edges along the motion,
    whatever the die's colour or contrast.
    """
    weights = _centre_weights(*gx.shape[1:], window)
    xx, yy, xy = ((a * b * weights).sum(axis=(1, 2), dtype=np.float64) for a, b in ((gx, gx), (gy, gy), (gx, gy)))
    spread = np.hypot((xx - yy) / 2, xy)
    largest, smallest = (xx + yy) / 2 + spread, (xx + yy) / 2 - spread
    return np.where(largest > 0, smallest / np.where(largest > 0, largest, 1.0), 1.0)


@cache
def _centre_weights(h: int, w: int, window: float) -> np.ndarray:
    """(h, w) Gaussian weights about the middle of a crop, `window` of its side wide."""
    y, x = np.mgrid[0:h, 0:w]
    sigma = window * (h + w) / 2
    return np.exp(-((x - (w - 1) / 2) ** 2 + (y - (h - 1) / 2) ** 2) / (2 * sigma * sigma)).astype(np.float32)


def _sharpness(gray: np.ndarray, laplacian: np.ndarray) -> np.ndarray:
    """Fine detail relative to contrast (Laplacian variance / gray variance) of each crop: low when out of
    focus."""
    return laplacian.var(axis=(1, 2)) / (gray.var(axis=(1, 2)) + 25.0)


def edge_measures(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, h, w, 3) BGR crops of dice -> each crop's sharpness (_sharpness) and edge isotropy (_isotropy)."""
    gray, gx, gy, laplacian = _gray_stack(crops)
    return _sharpness(gray, laplacian), _isotropy(gx, gy)


def symbol_isotropy(crops: np.ndarray) -> np.ndarray:
    """(N, SYMBOL_SIZE, SYMBOL_SIZE, 3) BGR crops of dice -> how evenly the edges of each die's middle, its symbol,
    point in all directions (_isotropy over SYMBOL_WINDOW)."""
    if crops.shape[1:3] != (SYMBOL_SIZE, SYMBOL_SIZE):
        raise ValueError(f"a symbol's edges are judged on {SYMBOL_SIZE} px crops, got {crops.shape[1:3]}")
    _, gx, gy, _ = _gray_stack(crops)
    return _isotropy(gx, gy, SYMBOL_WINDOW)


def blurred(isotropy: float, relative_sharpness: float, sharpness: float | None = None) -> bool:
    """Whether a die's edges say it is blurred: one-sided (moving), soft beside the frame's other dice (out of
    focus; `relative_sharpness` is its sharpness over the frame's median die's), or somewhat one-sided and somewhat
    soft beside them, or soft in itself (`sharpness`, when given: SOFT_IN_ITSELF)."""
    somewhat_one_sided = isotropy < SOMEWHAT_ONE_SIDED
    return isotropy < MOTION_ISOTROPY or relative_sharpness < BLUR_RATIO or (
        somewhat_one_sided and relative_sharpness < SOMEWHAT_SOFT) or (
        somewhat_one_sided and sharpness is not None and sharpness < SOFT_IN_ITSELF)
