"""How the located dice of a frame lie among themselves: how much two overlap, whether a point lies in a die's
square, the usual side of the dice seen clearly. The reader's checks compare each die with the others by these.
Plain geometry on vision.locate.LocatedDie: no net, no image."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from statistics import median

import cv2
import numpy as np

from vision.locate import LocatedDie

# A die this much larger than the median die is stacked: its box takes in two dice. (A die resting on another is
# only a few percent nearer a camera looking down from above the tray; on the tuning sets resting dice reached 1.42
# times the median, their sides seen in perspective, and 1.48 in a real mixed set.) At 1.35 it called 3 of 1,184
# dice of 250 virtual d6 tuning trays and 2 real dice of the held-out photos stacked; at 1.5 none, for one more die
# of 248 on 150 stacked tuning trays read as a sure face, and no more such trays accepted (1).
STACKED_SIZE_RATIO = 1.5

# Dice whose turned rects overlap more than this part of the smaller one are stacked. At 0.35, a stacked tuning tray
# (3,001,028) was accepted with a die read wrong: a black 2 resting on a green 5, the 5 hidden but for a corner, and
# one pip of the 2 boxed on its own with that corner and read as a sure 1 (the count of dice right by chance); the two
# boxes overlapped 0.315. At 0.3: no stacked tray of 200 accepted (1 before), for 1 of 1,172 train-split photo dice
# and 1 of 4,559 virtual d6 tuning dice newly called stacked (touching pairs); the held-out photos, 1,000 Excape
# tuning trays, 1,000 two-dice throws of each model and 200 trays of each other hazard read as before.
OVERLAP_FRACTION = 0.3


def rect_overlap(a: LocatedDie, b: LocatedDie) -> float:
    """Area shared by two dice's turned rects, as a fraction of the smaller one."""
    (ax, ay), (aw, ah), _ = a.rect
    (bx, by), (bw, bh), _ = b.rect
    # Rects whose circumscribed circles are apart share nothing: most pairs a frame asks about, answered without
    # OpenCV's polygon clipping (the answer it would give, 0).
    if math.hypot(ax - bx, ay - by) > (math.hypot(aw, ah) + math.hypot(bw, bh)) / 2:
        return 0.0
    kind, points = cv2.rotatedRectangleIntersection(a.rect, b.rect)
    if kind == cv2.INTERSECT_NONE or points is None or len(points) < 3:
        return 0.0
    shared = cv2.contourArea(cv2.convexHull(points))
    return shared / max(min(a.rect[1][0] * a.rect[1][1], b.rect[1][0] * b.rect[1][1]), 1.0)


def overlapping_dice(dice: list[LocatedDie]) -> set[int]:
    """Indices of the dice whose turned rects overlap another's by more than OVERLAP_FRACTION."""
    return {k for pair in overlapping_pairs(dice) for k in pair}


def overlapping_pairs(dice: list[LocatedDie]) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, in that order, of dice whose turned rects overlap by more than OVERLAP_FRACTION of
    the smaller one, as stacked dice do.

    Only pairs near enough to touch are intersected (0.75 > half the diagonal of a square, relative to its
    side), found for all pairs at once."""
    if len(dice) < 2:
        return []
    centres = np.array([d.rect[0] for d in dice])
    sides = np.array([d.side for d in dice])
    reach = (sides[:, None] + sides[None, :]) * 0.75
    near = (np.abs(centres[:, None, :] - centres[None, :, :]) <= reach[..., None]).all(axis=2)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True)
            if rect_overlap(dice[i], dice[j]) > OVERLAP_FRACTION]


def others_side(located: list[LocatedDie], k: int) -> float | None:
    """The median side of the dice other than located[k] that the locator sees clearly; None when there are none."""
    return clear_side([d for j, d in enumerate(located) if j != k])


def clear_side(located: list[LocatedDie]) -> float | None:
    """The median side of the dice the locator sees clearly (a faint die is no measure of the dice's size); None
    when there are none."""
    sides = [d.side for d in located if not d.faint]
    return float(median(sides)) if sides else None


# The dice's side as the throws read before this one showed it, in pixels of the frame being read: set by
# vision.read.read_tray for one read (dice_side_known), None when not known.
_KNOWN_SIDE: ContextVar[float | None] = ContextVar("known_side", default=None)


@contextmanager
def dice_side_known(side: float | None) -> Iterator[None]:
    """Within it, usual_side knows the dice's side to be at least `side` (pixels of the frame being read; None: not
    known)."""
    token = _KNOWN_SIDE.set(side)
    try:
        yield
    finally:
        _KNOWN_SIDE.reset(token)


def known_side() -> float | None:
    """The dice's side known from earlier throws (dice_side_known), None when not known."""
    return _KNOWN_SIDE.get()


def usual_side(located: list[LocatedDie], k: int) -> float | None:
    """The side a die's box is measured against to tell one pip, or a part of a die, boxed as a die from a whole one:
    the other dice's (others_side; those the locator sees faintly when it sees none clearly), or the dice's side
    known from earlier throws (dice_side_known) when bigger or
    when there are no other dice. Of two dice that are each boxed by one pip, neither is smaller than the other: a
    table that has read these dice before knows how big they are."""
    seen, known = others_side(located, k), known_side()
    if seen is None:
        # No other die the locator sees clearly: one it sees faintly still shows how big the dice are. A black 6 with
        # yellow pips on felt, faint to it and read as a sure 6, was no measure, and one pip of the 2 beside it, boxed
        # at 0.63 of its side, was read as a 1 in a throw accepted (5,171,356; session 37).
        others = [d.side for j, d in enumerate(located) if j != k]
        seen = float(median(others)) if others else None
    if known is None:
        return seen
    return known if seen is None else max(seen, known)


def smaller_than_the_others(located: list[LocatedDie], k: int) -> bool:
    """Whether located[k] is boxed smaller than the dice's usual side (usual_side), or is alone with no side known: a
    box that may hold one pip of a die, not the whole die."""
    usual = usual_side(located, k)
    return usual is None or located[k].side < usual


def in_square(point: tuple[float, float], rect: tuple[tuple[float, float], tuple[float, float], float]) -> bool:
    """Whether a point lies inside a turned rect (centre, (w, h), degrees)."""
    (cx, cy), (w, h), angle = rect
    turn = np.radians(angle)
    dx, dy = point[0] - cx, point[1] - cy
    along, across = dx * np.cos(turn) + dy * np.sin(turn), -dx * np.sin(turn) + dy * np.cos(turn)
    return abs(along) < w / 2 and abs(across) < h / 2
