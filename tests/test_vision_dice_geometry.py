"""How located dice lie among themselves (vision.dice_geometry): the measures every check that compares a die with
the others rests on."""

from __future__ import annotations

import pytest

from vision.dice_geometry import (
    OVERLAP_FRACTION,
    clear_side,
    in_square,
    others_side,
    overlapping_dice,
    overlapping_pairs,
    rect_overlap,
    smaller_than_the_others,
    usual_side,
)
from vision.locate import LocatedDie


def _die(centre: tuple[float, float], side: float, angle: float = 0.0, faint: bool = False) -> LocatedDie:
    half = side / 2
    box = (round(centre[0] - half), round(centre[1] - half), round(side), round(side))
    return LocatedDie(box=box, rect=(centre, (side, side), angle), touches_edge=False, probability=0.9, faint=faint)


def test_a_point_is_in_a_turned_square_by_the_square_s_own_axes() -> None:
    upright = ((100.0, 100.0), (40.0, 40.0), 0.0)
    turned = ((100.0, 100.0), (40.0, 40.0), 45.0)
    assert in_square((100.0, 100.0), upright) and in_square((119.0, 81.0), upright)
    assert not in_square((121.0, 100.0), upright)
    # Near a corner of the upright square: outside the same square turned 45 degrees ...
    assert in_square((118.0, 118.0), upright) and not in_square((118.0, 118.0), turned)
    # ... and along the axis, past the upright square's side, inside the turned one (its corner points there).
    assert not in_square((124.0, 100.0), upright) and in_square((124.0, 100.0), turned)


def test_the_overlap_is_a_fraction_of_the_smaller_die() -> None:
    a = _die((100.0, 100.0), 40.0)
    assert rect_overlap(a, a) == pytest.approx(1.0)
    assert rect_overlap(a, _die((120.0, 100.0), 40.0)) == pytest.approx(0.5, abs=0.01)     # shifted half a side
    assert rect_overlap(a, _die((100.0, 100.0), 20.0)) == pytest.approx(1.0)       # a small die wholly inside
    assert rect_overlap(_die((100.0, 100.0), 20.0), a) == pytest.approx(1.0)       # either way round
    assert rect_overlap(a, _die((200.0, 100.0), 40.0)) == 0.0


def test_only_dice_overlapping_as_stacked_ones_do_are_pairs() -> None:
    dice = [_die((100.0, 100.0), 40.0), _die((300.0, 300.0), 40.0), _die((116.0, 100.0), 40.0),
            _die((338.0, 300.0), 40.0)]     # the last touches the second, overlapping it 0.05 of a die
    assert rect_overlap(dice[1], dice[3]) < OVERLAP_FRACTION
    assert overlapping_pairs(dice) == [(0, 2)]
    assert overlapping_dice(dice) == {0, 2}
    assert overlapping_pairs(dice[:1]) == [] and overlapping_dice([]) == set()


def test_the_usual_side_leaves_out_faint_dice_and_the_die_compared() -> None:
    dice = [_die((100.0, 100.0), 30.0), _die((200.0, 100.0), 40.0), _die((300.0, 100.0), 50.0),
            _die((400.0, 100.0), 90.0, faint=True)]
    assert clear_side(dice) == 40.0                     # the faint die is no measure of the dice's size
    assert others_side(dice, 0) == 45.0                 # the median of 40 and 50
    assert clear_side([dice[3]]) is None and clear_side([]) is None
    assert smaller_than_the_others(dice, 0) and not smaller_than_the_others(dice, 2)
    assert smaller_than_the_others([dice[2]], 0)        # a die alone: nothing to size it by
    # With no other die seen clearly, one seen faintly still measures the dice (a black 6 with yellow pips on felt).
    assert usual_side([dice[0], dice[3]], 0) == 90.0 and usual_side([dice[3], dice[0]], 0) == 30.0
    assert usual_side([dice[0], dice[1], dice[3]], 0) == 40.0      # a clear one is measure enough
    assert usual_side([dice[0]], 0) is None


def test_dice_too_far_apart_to_touch_share_nothing_as_opencv_measures_it() -> None:
    # rect_overlap answers pairs whose circumscribed circles are apart without OpenCV's clipping: the same answers,
    # near that distance too (two squares' corners meeting there, turned towards each other).
    import cv2
    import numpy as np

    def clipped(a: LocatedDie, b: LocatedDie) -> float:
        kind, points = cv2.rotatedRectangleIntersection(a.rect, b.rect)
        if kind == cv2.INTERSECT_NONE or points is None or len(points) < 3:
            return 0.0
        return cv2.contourArea(cv2.convexHull(points)) / min(a.side ** 2, b.side ** 2)

    rng = np.random.default_rng(5)
    for _ in range(2000):
        a = _die((200.0, 200.0), float(rng.uniform(20, 60)), float(rng.uniform(-90, 90)))
        b_side = float(rng.uniform(20, 60))
        reach = (a.side + b_side) / np.sqrt(2)           # the circles' radii summed: the early answer's edge
        direction = rng.uniform(0, 2 * np.pi)
        distance = float(rng.uniform(0.3, 1.2)) * reach
        b = _die((200 + distance * np.cos(direction), 200 + distance * np.sin(direction)), b_side,
                 float(rng.uniform(-90, 90)))
        assert rect_overlap(a, b) == pytest.approx(clipped(a, b), abs=1e-12)
    assert rect_overlap(_die((0.0, 0.0), 40.0, 45.0), _die((56.0, 0.0), 40.0, 45.0)) > 0    # corners meet past a side
    assert rect_overlap(_die((0.0, 0.0), 40.0, 45.0), _die((57.0, 0.0), 40.0, 45.0)) == 0
