"""The dice's side a table remembers from its throws (vision.dice_sides), and the reader reading with it."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pytest

from vision.dice_geometry import dice_side_known, usual_side
from vision.dice_sides import NEEDED, REMEMBERED, DiceSides
from vision.locate import LocatedDie
from vision.read import ReadError, read_tray
from vision.result import DieReading, TrayReading


def _throw(*dice: tuple[str, bool, float], status: Literal["ok", "reroll"] = "ok") -> TrayReading:
    return TrayReading(status=status, dice=tuple(DieReading(face, 0.9, sure, (0, 0, 1, 1), side=side)
                                                 for face, sure, side in dice))


def test_the_side_is_the_median_of_the_dice_counted_sure_that_are_not_ones() -> None:
    sides = DiceSides()
    sides.remember(_throw(("3", True, 40.0), ("5", True, 42.0)))
    assert sides.side is None                                   # one throw: too few to know the dice by
    sides.remember(_throw(("1", True, 20.0), ("6", True, 44.0)))      # a 1 may be boxed by its pip: not a measure
    sides.remember(_throw(("2", False, 10.0), ("4", True, 41.0)))     # nor is a die left unsure
    sides.remember(_throw(("2", True, 90.0), ("4", True, 90.0), status="reroll"))   # nor a throw not counted
    assert NEEDED == 4 and sides.side == 41.5
    sides.forget()
    assert sides.side is None


def test_only_the_last_dice_are_remembered_so_other_dice_are_soon_known() -> None:
    sides = DiceSides()
    for _ in range(REMEMBERED // 2):
        sides.remember(_throw(("3", True, 60.0), ("5", True, 60.0)))
    for _ in range(REMEMBERED // 4 + 1):                        # smaller dice thrown from now on
        sides.remember(_throw(("3", True, 30.0), ("5", True, 30.0)))
    assert sides.side == 30.0


def _die(side: float, faint: bool = False) -> LocatedDie:
    return LocatedDie(box=(0, 0, round(side), round(side)), rect=((0.0, 0.0), (side, side), 0.0), touches_edge=False,
                      probability=0.9, faint=faint)


def test_a_die_is_measured_by_the_others_or_the_side_known_whichever_is_bigger() -> None:
    pair = [_die(30.0), _die(32.0)]
    assert usual_side(pair, 0) == 32.0
    with dice_side_known(45.0):
        assert usual_side(pair, 0) == 45.0                       # two pips boxed alone: neither measures the other
        assert usual_side([_die(30.0)], 0) == 45.0               # a die alone in the tray
        assert usual_side([_die(30.0), _die(60.0)], 0) == 60.0   # bigger dice than before: they say so
        with dice_side_known(None):
            assert usual_side(pair, 0) == 32.0
        assert usual_side(pair, 0) == 45.0
    assert usual_side(pair, 0) == 32.0 and usual_side([_die(30.0)], 0) is None


@pytest.mark.parametrize("side", [0.0, -3.0, math.nan, math.inf])
def test_a_side_that_is_no_side_is_a_clear_error(side: float) -> None:
    with pytest.raises(ReadError, match=f"die_side must be a side in pixels \\(more than 0\\), got {side}"):
        read_tray(np.zeros((480, 640, 3), np.uint8), die_side=side)
