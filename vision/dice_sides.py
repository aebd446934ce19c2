"""The dice's side as a table's throws show it, throw after throw.

At a table the camera, the tray and the dice stay put: after a few throws the companion knows how big its dice look.
A throw read on its own has only its own dice to measure each die by, and when every die of it is boxed by one pip
(a black 2 on dark felt, whose body the locator hardly sees, beside a black 1) none is smaller than the others: the
2's pip boxed alone reads as a sure 1, and the throw counts as a Mexx nobody threw. Read with the side this memory
gives (vision.read.read_tray's die_side), a pip boxed under it is cut wider, at the side the dice have
(vision.face_checks.doubted_ones), and the 2's other pip comes into view.
"""

from __future__ import annotations

from collections import deque
from statistics import median

from vision.result import TrayReading

# The dice remembered: the last ten throws of two. A new set of dice, or a camera moved, is the usual size again
# after half as many throws (the median), and forget() starts afresh at once.
REMEMBERED = 20
# Dice remembered before a side is given: two throws of two. (A side from one die could be one die's odd box.)
NEEDED = 4
# A 1 may be boxed by its one pip: its side is no measure of the dice's.
NOT_A_MEASURE = "1"


class DiceSides:
    """The median side of the last REMEMBERED dice counted sure (not 1s), in pixels of the frames they were read in;
    None until NEEDED are remembered."""

    def __init__(self) -> None:
        self._sides: deque[float] = deque(maxlen=REMEMBERED)

    def remember(self, reading: TrayReading) -> None:
        """Remember the dice of a throw the game counts (status "ok") read as a sure face other than 1."""
        if reading.status == "ok":
            self._sides.extend(measures(reading))

    def forget(self) -> None:
        """Start afresh: the frames' size changed, the tray was found again, or other dice are thrown."""
        self._sides.clear()

    @property
    def side(self) -> float | None:
        return float(median(self._sides)) if len(self._sides) >= NEEDED else None


def measures(reading: TrayReading) -> list[float]:
    """The sides of a reading's dice that measure the dice (pixels of its frame): those read as a sure face other
    than 1, whatever the reading's status."""
    return [d.side for d in reading.dice if d.sure and d.face != NOT_A_MEASURE and d.side > 0]


def measured_side(reading: TrayReading) -> float | None:
    """The median side of a reading's dice that measure the dice (measures), None when none does."""
    sides = measures(reading)
    return float(median(sides)) if sides else None
