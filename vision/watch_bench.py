"""Watching throws: the motion tracker (vision.motion) on whole throws as the camera sees them, frame by frame.

Each case is two throws on one tray, as at the table: two dice thrown (after a hand reaching in and out, for the
hand set), left at rest, then picked up and three dice thrown. The tracker must ask for exactly one read of each throw,
on a frame where its dice are at rest: a read while they still move reads a throw nobody threw, a throw not read
holds the game up, and a throw read twice is counted twice. The sets: dice of any look, black dice on dark felt
(the least contrast a throw makes), a hand throwing, and lamps that pulse on mains power (LED, fluorescent), whose
light swings by the given share either way; a rolling-shutter camera sees the pulses as bands across the frame that
move from frame to frame (vision.virtual_tray.Flicker: each case draws the bands' period and step), and a knock on
the table once the first throw was read, which leaves the view a few pixels off (and turned a little, in the last set)
and throws nothing. Each settle is read as the table reads it, from the mean of its still frames (vision.settled),
expecting the dice thrown: a throw is read right when it was read once, at rest, and accepted with the faces thrown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.config import VisionConfig
from vision.models import D6, EXCAPE, DieModel

# The bench's range for these (vision.bench.BENCH_SEED_START + 950,000 on, 1,000 a set): no tool tunes on it.
WATCH_SEED_START = 1_950_000
WATCH_SEEDS_EACH = 1_000
# As the table's tracker is set up: the config's default (systemd/config.toml, [vision] still_frames).
WATCH_STILL_FRAMES = VisionConfig().still_frames
WATCH_ROLLING, WATCH_STILL, WATCH_HAND = 6, 10, 6
WATCH_SIZE = (640, 480)
# The bands' height, in frame heights: from a fifth of the frame to longer than it (the pulse over the sensor's
# readout); short bands, a tenth to under a third: 60 Hz mains (120 pulses a second) under a webcam that reads its rows
# out over the whole frame time (1/30 s: a quarter of the frame), or a slower readout still.
BANDS, SHORT_BANDS = (0.2, 1.5), (0.1, 0.3)
FELT = {"die_colour": "black", "tray": "felt"}
# name, model, renderer look, a hand's frames before each throw, the lamps' swing either way (0: steady light), the
# range the bands' height is drawn from, and whether the table is knocked once the first throw lies read (None: not;
# else the most degrees the knock turns the view): the view shakes, then stays 3-16 pixels off each way, and turned up
# to that much about its middle, every die with it (no throw: a read then reads the first throw twice)
WATCH_SETS: tuple[tuple[str, DieModel, dict, int, float, tuple[float, float], float | None], ...] = (
    ("d6, steady light", D6, {}, 0, 0.0, BANDS, None),
    ("black d6 on felt", D6, FELT, 0, 0.0, BANDS, None),
    ("excape, a hand throws", EXCAPE, {}, WATCH_HAND, 0.0, BANDS, None),
    ("d6, lamps pulsing 5%", D6, {}, 0, 0.05, BANDS, None),
    ("d6, lamps pulsing 15%", D6, {}, 0, 0.15, BANDS, None),
    ("d6, lamps pulsing 30%", D6, {}, 0, 0.30, BANDS, None),
    ("black felt, lamps 15%", D6, FELT, 0, 0.15, BANDS, None),
    ("excape, hand, lamps 15%", EXCAPE, {}, WATCH_HAND, 0.15, BANDS, None),
    ("felt, short bands 30%", D6, FELT, 0, 0.30, SHORT_BANDS, None),
    ("d6, the table knocked", D6, {}, 0, 0.0, BANDS, 0.0),
    ("d6, knocked, turned 2°", D6, {}, 0, 0.0, BANDS, 2.0),
)
WATCH_HEADER = ("| throws watched          | throws | read once, at rest | not read | read twice | read moving "
                "| read right |\n"
                "|-------------------------|--------|--------------------|----------|------------|-------------"
                "|------------|")


@dataclass
class WatchTally:
    name: str
    throws: int = 0
    once_at_rest: int = 0
    missed: int = 0
    twice: int = 0
    while_moving: int = 0
    read_right: int = 0         # read once at rest, and that read accepted with the faces thrown
    examples: list[str] | None = None

    def add(self, reads: list[int], rest_from: int, where: str, right: bool = False, said: str = "") -> None:
        """One throw: the frames (from its first) the tracker asked to read, and its first frame at rest; `right`:
        whether its one read was accepted with the faces thrown (`said`: what it read, for the examples)."""
        self.throws += 1
        moving = any(frame < rest_from for frame in reads)
        self.while_moving += moving
        if not reads:
            self.missed += 1
        elif len(reads) > 1:
            self.twice += 1
        elif not moving:
            self.once_at_rest += 1
            self.read_right += right
        if self.examples is not None and (moving or len(reads) != 1):
            self.examples.append(f"{where}: read at frames {reads}, at rest from {rest_from}")
        elif self.examples is not None and not right:
            self.examples.append(f"{where}: read once at rest, {said}")

    def row(self) -> str:
        def share(count: int) -> str:
            return f"{100 * count / self.throws:6.1f}%" if self.throws else "    - "
        return (f"| {self.name:<23} | {self.throws:6d} | {share(self.once_at_rest):>18} | {share(self.missed):>8} | "
                f"{share(self.twice):>10} | {share(self.while_moving):>11} | {share(self.read_right):>10} |")


def watch_set(index: int, cases: int, keep_examples: bool = False, first: int = WATCH_SEED_START) -> WatchTally:
    """WATCH_SETS[index] on `cases` cases of two throws each, seeds from `first` + WATCH_SEEDS_EACH * index."""
    if not 0 <= cases <= WATCH_SEEDS_EACH:
        raise ValueError(f"watched cases per set must be 0..{WATCH_SEEDS_EACH}, got {cases}")
    import cv2

    from vision.bench import faces_are  # (here: vision.bench imports this module)
    from vision.motion import MotionTracker
    from vision.read import read_tray
    from vision.settled import SettledFrames
    from vision.virtual_tray import Flicker, render_tray, roll_frames

    def knocked(dx: float, dy: float, turn: float) -> np.ndarray:
        """The view moved by (dx, dy) pixels and turned `turn` degrees about its middle."""
        middle = (WATCH_SIZE[0] / 2, WATCH_SIZE[1] / 2)
        return cv2.getRotationMatrix2D(middle, turn, 1.0) + np.float64([[0, 0, dx], [0, 0, dy]])

    name, model, look, hand, depth, heights, knock = WATCH_SETS[index]
    tally = WatchTally(name, examples=[] if keep_examples else None)
    for case in range(cases):
        seed = first + WATCH_SEEDS_EACH * index + case
        flicker = None
        if depth:
            # Bands moving by up to half a pulse a frame (30 frames a second on 50 Hz mains: a third).
            rng = np.random.default_rng(seed)
            flicker = Flicker(depth, float(rng.uniform(*heights)), float(rng.uniform(0.0, 0.5)))
        view = None
        if knock is not None:
            rng = np.random.default_rng(seed)
            dx, dy = rng.uniform(3, 16, 2) * rng.choice([-1, 1], 2)
            turn = float(rng.uniform(-knock, knock))
            view = knocked(dx, dy, turn)
        throws = [roll_frames(seed, model, n_dice=n, size=WATCH_SIZE, rolling=WATCH_ROLLING, still=WATCH_STILL,
                              hand_frames=hand, flicker=flicker, view=None if n == 2 else view, **look)
                  for n in (2, 3)]
        if view is not None:
            # The first throw seen through the view shaken, then left off; the second was thrown into the view so
            # left. (Drawn so, not warped from the frames drawn: the lamps' bands and the noise stay on the sensor.)
            at_rest = {"model": model, "n_dice": 2, "size": WATCH_SIZE, "rolling": 0, "flicker": flicker, **look}
            throws[0] = (throws[0] + roll_frames(seed, still=1, view=knocked(-dx, 2 * dy, -turn), **at_rest)
                         + roll_frames(seed, still=WATCH_STILL, view=view, **at_rest))
        tracker, settled = MotionTracker(still_frames=WATCH_STILL_FRAMES), SettledFrames()
        for number, (frames, dice) in enumerate(zip(throws, (2, 3), strict=True)):
            thrown = [d.label for d in render_tray(seed, model, n_dice=dice, size=WATCH_SIZE, **look).dice]
            reads, readings = [], []
            for index_in_throw, frame in enumerate(frames):
                update = tracker.update(frame)
                settled.add(frame, update)
                if update.read_now:
                    reads.append(index_in_throw)
                    readings.append(read_tray(settled.picture(update), model, expect=dice))
                    tracker.mark_read(dice)
            said = ", ".join(f"{r.status} {sorted(r.faces)}" for r in readings) + f" for {sorted(thrown)}"
            right = len(readings) == 1 and readings[0].status == "ok" and faces_are(readings[0], thrown)
            tally.add(reads, hand + WATCH_ROLLING, f"seed {seed} throw {number + 1}", right, said)
    return tally
