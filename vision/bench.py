"""`dice-companion bench vision`: accuracy, speed and memory of the reader, printed as a table.

Accuracy sets: the real photos' test split (../shared/data/tray-d6-photos, never used for training or tuning;
each die labelled as the face it shows, vision/training/label_fixes.toml, and tallied again with the dataset's labels)
and virtual-tray renders of `d6` and `excape` from seeds the training never used (BENCH_SEED_START on), with no
hazards (every die should be read), of Excape dice of the look read worst (WEAK_LOOK: marbled, gold pips), and of
card-letter dice that `teach` learned from three virtual shots a face each (seeds just below BENCH_SEED_START, which
the training never reaches either), each read on new throws; and dice far smaller or bigger than the nets learned
(SIZE_SETS, the test split's photos four to a frame: a camera twice as far, and the card die taught and thrown
under a camera far above the tray, TAUGHT_FAR). A die counts as found when a
reading's box overlaps its labelled box (IoU >= MATCH_IOU, one-to-one); read correctly = found, sure and the right
face; silently wrong = sure and the wrong face; flagged unsure = found but not sure; false dice = readings that match
no die.
Hazards: virtual trays each with one die cocked, stacked (two dice), cut by the frame edge, blurred or outside the
tray (on the table beside it, read with the tray's region calibrated: the box of its rim as drawn), d6 and Excape in
turn, and the taught card die cocked, read with the number of dice thrown (as the companion reads): the hazard dice
must come out unsure or not be found, and no such tray may be accepted ("ok") - a tray accepted with a cocked die in
it is a wrong throw counted in the game.
Throws: two dice at a time, d6 of any look and black on dark felt (the Mex table's hardest look), Excape's dice of
any look, and d6 resting against each other, read expecting two as the companion's tables read a throw: dice read
right and silently wrong, throws accepted, and throws accepted whose faces are not those thrown (the game counts
another throw).
Speed: median ms per frame of read_tray on one core (cv2.setNumThreads(1)) at 640x480 and 1280x960 over 40 frames
of 2-20 dice, each read SPEED_READS times, its 90th percentile and its median by number of dice, and the motion
tracker's per frame (it sees every camera frame; read_tray runs once a throw), and that median as a multiple of a
fixed workload timed in the same run (time_reference), which days on a machine of changing speed can be compared by;
also the median over frames of each frame's fastest read, the read other processes disturbed least (as timeit
advises for comparing code: the steadiest figure from run to run on a shared machine, not the one a busy Pi gives).
And where a 640x480 frame's time goes: each net's CPU ms and inputs a frame (vision.nets.tallied), and the rest.
Watching throws (vision.watch_bench): the motion tracker on whole throws frame by frame, two on one tray, plain, black
on felt, a hand throwing, and under lamps pulsing on mains power: throws read exactly once with their dice at rest.
Calibration: the tray region vision.tray_region finds in virtual trays with and without walls in view, against the
box of each tray's rim as drawn (RenderedTray.rim): how often it is within IoU CALIBRATION_IOU, how often short of the
floor and its walls (the harmful way: dice against a wall would be called on the rim), and its ms a frame.
Memory: the peak resident size (VmHWM) of a fresh `dice-companion read` process reading 1280x960 frames (the
reader alone, as the companion runs it), and of this bench process (reader, renderer and data).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice_sides import DiceSides
from vision.models import BUILTIN_MODELS, D6, EXCAPE, DieKind, DieModel, Face
from vision.nets import NetTally, tallied
from vision.read import read_tray
from vision.result import DieReading, TrayReading, match_boxes
from vision.training.photos import DEFAULT_PHOTOS
from vision.watch_bench import WATCH_HEADER, WATCH_SEEDS_EACH, WATCH_SETS, WATCH_STILL_FRAMES, watch_set

MATCH_IOU = 0.3
BENCH_SEED_START = 1_000_000    # same constant as vision.training.render_crops: training renders stay below


def match_reading(reading: TrayReading, boxes: list[tuple[int, int, int, int]]
                  ) -> tuple[dict[int, DieReading], list[DieReading]]:
    """The dice of a reading against labelled boxes, as every figure here counts them: {box index: its die read}
    for the dice found (IoU >= MATCH_IOU, one-to-one), and the dice read where no labelled die is."""
    matches = match_boxes([d.box for d in reading.dice], boxes, MATCH_IOU)
    found = {j: reading.dice[i] for i, j in matches.items()}
    return found, [d for i, d in enumerate(reading.dice) if i not in matches]


@dataclass
class Tally:
    name: str
    dice: int = 0
    found: int = 0
    correct: int = 0
    silently_wrong: int = 0
    unsure: int = 0
    false_dice: int = 0
    frames: int = 0
    wrong_examples: list[str] = field(default_factory=list)
    unsure_reasons: Counter[str] = field(default_factory=Counter)   # why the dice found were left unsure

    def add(self, reading: TrayReading, truth: list[tuple[str, tuple[int, int, int, int]]], where: str) -> None:
        self.frames += 1
        self.dice += len(truth)
        found, elsewhere = match_reading(reading, [box for _, box in truth])
        self.found += len(found)
        self.false_dice += len(elsewhere)
        for j, die in found.items():
            if not die.sure:
                self.unsure += 1
                self.unsure_reasons[die.reason or "unclear"] += 1
            elif die.face == truth[j][0]:
                self.correct += 1
            else:
                self.silently_wrong += 1
                self.wrong_examples.append(f"{where}: read {die.face} for a {truth[j][0]} at {die.box}")

    def row(self) -> str:
        def pct(n: int) -> str:
            return f"{100 * n / self.dice:6.2f}%" if self.dice else "    -  "

        return (f"| {self.name:<23} | {self.frames:>6} | {self.dice:>5} | {pct(self.found)} | {pct(self.correct)} | "
                f"{pct(self.silently_wrong)} ({self.silently_wrong}) | {pct(self.unsure)} | {self.false_dice:>5} |")

    def why_not_read(self) -> str:
        """The dice not read right, by why: not found, or unsure by the reason given to the players."""
        reasons = [f"{self.dice - self.found} not found", *(f"{n} {reason}" for reason, n in
                                                             self.unsure_reasons.most_common())]
        return f"{self.name}: {', '.join(reasons)}"


HEADER = ("| set                     | frames |  dice |   found | correct | silently wrong | unsure  | false |\n"
          "|-------------------------|--------|-------|---------|---------|----------------|---------|-------|")


def run_real_photos(root: Path) -> tuple[Tally, Tally]:
    """The test split's photos, each read once and tallied twice: each die labelled as the face it shows (the
    dataset's labels with vision/training/label_fixes.toml applied: the figures that count), and with the dataset's
    own labels, so that both stay on record."""
    from vision.training.photos import label_fixes, load_split, with_label_fixes

    fixed, own = Tally("real photos, test split"), Tally("  the dataset's labels")
    photos = load_split("test", root, fixed=False)
    for photo, as_given in zip(with_label_fixes(photos, "test", label_fixes()), photos, strict=True):
        reading = read_tray(photo.load(), D6)
        fixed.add(reading, [(d.label, d.box) for d in photo.dice], photo.path.name)
        own.add(reading, [(d.label, d.box) for d in as_given.dice], photo.path.name)
    return fixed, own


def run_real_photos_far(root: Path) -> Tally:
    """The test split's photos four to a 1280x1280 frame (vision.training.photos.side_by_side), each frame read once
    with no count: real dice as a camera twice as far from the tray shows them, at twice the photos' resolution (the
    reader's work frame at 640 px wide shows them 15-22 px: vision.read, WORK_SIDES)."""
    from vision.training.photos import load_split, side_by_side

    tally = Tally("real photos, 4 a frame")
    photos = load_split("test", root)
    for k in range(0, len(photos), 4):
        frame, dice = side_by_side(photos[k:k + 4])
        tally.add(read_tray(frame, D6), [(d.label, d.box) for d in dice], photos[k].path.name)
    return tally


def virtual_trays(model: DieModel, count: int, size: tuple[int, int] = (640, 480), first: int = BENCH_SEED_START,
                  **look: object) -> Iterator[tuple[str, np.ndarray, list[tuple[str, tuple[int, int, int, int]]]]]:
    from vision.virtual_tray import render_tray

    for k in range(count):
        seed = first + k
        rendered = render_tray(seed, model, size=size, **look)
        yield f"seed {seed}", rendered.image, [(d.label, d.box) for d in rendered.dice]


# A user's own die for the "taught" row: four faces printed with card letters, taught from TAUGHT_SHOTS shots of
# two dice per face (as `dice-companion teach` would be given), then read on new throws of the same die. Taught
# TAUGHT_MODELS times, from other shots each, each model reading an equal share of the row's dice: how well a die is
# read depends on its shots (until session 36 the row taught one model, which read none of its dice wrong where
# another taught alike, from fresh shots, read 20 of 1,334 wrong).
TAUGHT_LABELS = ("A", "K", "Q", "J")
TAUGHT_SHOTS = 3
TAUGHT_MODELS = 5
# One user's die in one user's tray under one camera: its colours and size stay; where it lands, the light, blur
# and noise change.
TAUGHT_LOOK = {"tray": "felt", "die_colour": "blue", "pip_colour": "white", "die_size": (34.0, 42.0)}
# The card die as the renderer draws it (the taught model is learned from its shots, never given this).
CARD_DIE = DieModel("cards", (DieKind("cards", tuple(Face(label, f"taught:{label}") for label in TAUGHT_LABELS)),))


# The look read worst of those found (session 27): marbled dice with gold pips. The random looks rarely draw it (a
# marbled die's pips must stand out in luminance on both its resins there), so the virtual rows hardly see it; its
# own row shows whether a change helps or hurts it (vision/training/README.md, "Session 27"). Excape, whose X the
# nets take gold pips on marbling for.
WEAK_LOOK = {"die_colour": "marbled", "pip_colour": "gold"}
WEAK_LOOK_SEED_START = BENCH_SEED_START + 800_000

# Dice far from the side the nets learned (vision.read, WORK_SIDES): a camera mounted high, or over a big tray, shows
# them small; one close to the tray, big. Virtual d6 trays read with no count, --size-trays each: name, frame size,
# die_size (vision.virtual_tray.Look).
SIZE_SETS = (("d6 small, 15-20 px", (640, 480), (15.0, 20.0)),
             ("d6 small, 1280: 30-40 px", (1280, 960), (30.0, 40.0)),
             ("d6 big, 75-95 px", (640, 480), (75.0, 95.0)))
SIZE_SEED_START = BENCH_SEED_START + 400_000
# The taught card die under a camera far above the tray: taught TAUGHT_MODELS times from shots of it there (as the
# taught row, from other shots each: models taught alike read 79-98% of such dice right), and read on throws after
# SIZE_SETS' (session 47). Name, frame size, die_size.
TAUGHT_FAR = ("taught, 1280: 30-36 px", (1280, 960), (30.0, 36.0))

HAZARD_NAMES = ("cocked", "stacked", "cut", "blurred", "outside")
# The reader is timed on SPEED_FRAMES_EACH frames (--speed-frames) of each of these numbers of dice: the figure is
# the median over all of them. (It was one frame of each until 2026-12-01: the median was then the 5-dice frame's
# time, which a die needing the closer look, ~9 ms, could double; the first frame of each count is still that one.)
SPEED_DICE = (2, 5, 8, 12, 20)
SPEED_FRAMES_EACH = 8
# Each timed frame is read this many times (3 until session 23): the median of every read, and each frame's fastest.
SPEED_READS = 5
HAZARD_SEED_START = BENCH_SEED_START + 600_000
# The taught card die thrown cocked has a row of its own (session 37): its faces are matched to pictures, and whether
# it lies flat rests on the lying-flat check alone, the face net's "tilted" not being asked of a user's symbols
# (vision.recognise._taught_guesses). Judged by the d6 and Excape dice's check, ~2% of fresh such trays were accepted,
# against ~0.5% of theirs; it has its own check since (vision.flat.TAUGHT_WEIGHTS).
TAUGHT_HAZARD = "cocked"
TAUGHT_HAZARD_SEED_START = HAZARD_SEED_START + 10_000 * len(HAZARD_NAMES)


@dataclass
class HazardTally:
    hazard: str
    trays: int = 0
    dice: int = 0           # dice with the hazard
    flagged: int = 0        # found and unsure
    missed: int = 0         # not found (the count then differs: the tray is re-rolled all the same)
    read_sure: int = 0      # found and read as a sure face
    accepted: int = 0       # trays read "ok" despite the hazard

    def row(self) -> str:
        return (f"| {self.hazard:<14} | {self.trays:>5} | {self.dice:>11} | {self.flagged:>7} | {self.missed:>9} | "
                f"{self.read_sure:>9} | {self.accepted:>14} |")


HAZARD_HEADER = ("| hazard         | trays | hazard dice | flagged | not found | read sure | trays accepted |\n"
                 "|----------------|-------|-------------|---------|-----------|-----------|----------------|")


# Throws as the companion's tables read them: two dice, read expecting two (vision.read asks its second locator for a
# die missing from such a throw). Name, model, look, run: 0, each throw drawn alone (its dice of any size); n, runs of
# n throws of one set of dice, read with the side the run's throws before showed (vision.dice_sides), as a table reads
# throw after throw of its dice.
# Excape's throws too: the table reads both games' throws (its rows' seeds follow in THROW_SETS' order). And two dice
# that come to rest against each other (Look.touching, four throws in five), the one nearer the camera hiding a part
# of the other, as real dice often do.
BLACK_ON_FELT = {"die_colour": "black", "tray": "felt"}
THROW_SETS = (("d6, any look", D6, {}, 0), ("black d6 on dark felt", D6, BLACK_ON_FELT, 0),
              ("excape, any look", EXCAPE, {}, 0), ("black d6 on felt, runs", D6, BLACK_ON_FELT, 10),
              ("d6 resting together", D6, {"touching": True}, 0))
# A run's dice: their side drawn as the renderer draws a tray's (25-60 px at 640x480, each die within 7% of it).
RUN_DIE_SIDES = (25.0, 60.0)
RUN_DIE_SPREAD = 0.07


def run_die_size(seed: int) -> tuple[float, float]:
    """The renderer's die_size for a run of throws of one set of dice whose first throw is `seed`."""
    side = float(np.random.default_rng(seed).uniform(*RUN_DIE_SIDES))
    return side * (1 - RUN_DIE_SPREAD), side * (1 + RUN_DIE_SPREAD)
THROW_SEED_START = BENCH_SEED_START + 700_000
CALIBRATION_SEED_START = BENCH_SEED_START + 900_000
CALIBRATION_IOU = 0.95
THROW_DICE = 2


def faces_are(reading: TrayReading, labels: list[str]) -> bool:
    """Whether a reading's faces, all told, are the labelled dice's: what the game counts of an accepted throw. The
    faces, not where they lie: a 1 boxed by its pip alone is a 1 all the same, and a die read twice where another is
    missed is a throw counted as another though each face read is some die's."""
    return sorted(d.face for d in reading.dice) == sorted(labels)


@dataclass
class ThrowTally(Tally):
    """A Tally of throws (its frames), each read as the table reads a throw, and of the throws the game would count."""

    accepted: int = 0           # throws read "ok": the game counts them
    accepted_wrong: int = 0     # ... whose faces are not those thrown: a throw the game counts as another

    @property
    def throws(self) -> int:
        return self.frames

    def add(self, reading: TrayReading, truth: list[tuple[str, tuple[int, int, int, int]]], where: str = "") -> None:
        super().add(reading, truth, where)
        if reading.status == "ok":
            self.accepted += 1
            self.accepted_wrong += not faces_are(reading, [label for label, _ in truth])

    def row(self) -> str:
        def pct(n: int, of: int) -> str:
            return f"{100 * n / of:6.2f}%" if of else "    -  "

        return (f"| {self.name:<23} | {self.throws:>6} | {self.dice:>5} | {pct(self.correct, self.dice)} | "
                f"{pct(self.silently_wrong, self.dice)} ({self.silently_wrong}) | {pct(self.accepted, self.throws)} | "
                f"{self.accepted_wrong:>14} |")


THROW_HEADER = ("| throws of two dice      | throws |  dice | correct | silently wrong | accepted | accepted wrong |\n"
                "|-------------------------|--------|-------|---------|----------------|----------|----------------|")


def run_throws(index: int, throws: int) -> ThrowTally:
    """Throws of THROW_DICE dice of THROW_SETS[index], each read expecting them, as the table reads a throw."""
    from vision.virtual_tray import render_tray

    name, model, look, run = THROW_SETS[index]
    tally = ThrowTally(name)
    sides, die_size = DiceSides(), None
    for k in range(throws):
        seed = THROW_SEED_START + 10_000 * index + k
        if run and k % run == 0:            # another table's dice: another size, nothing remembered of them
            sides.forget()
            die_size = run_die_size(seed)
        rendered = render_tray(seed, model, n_dice=THROW_DICE, **look, **({"die_size": die_size} if run else {}))
        reading = read_tray(rendered.image, model, expect=THROW_DICE, die_side=sides.side)
        if run:
            sides.remember(reading)
        tally.add(reading, [(d.label, d.box) for d in rendered.dice], f"seed {seed}")
    return tally


# Throws as the camera films them (vision.virtual_tray.roll_frames), read from the still frames the table's motion
# tracker waits for (the config's still_frames) and the frame before them, which each matched: their mean, as the
# table reads a throw since session 44 (vision.settled), against the last frame alone, as it did before. In a dim
# room, where a camera's noise is high (sigma 9 levels) and black dice on dark felt are the reader's hardest case.
STILL_LOOK = {"die_colour": "black", "tray": "felt", "noise": 9.0}
STILL_SEED_START = THROW_SEED_START + 50_000


def run_still_throws(throws: int) -> tuple[ThrowTally, ThrowTally]:
    """Throws of two black d6 on felt in a dim room, each read from its last still frame alone and from the mean of
    its still frames (vision.settled), expecting two dice."""
    from vision.settled import settled_picture
    from vision.virtual_tray import render_tray, roll_frames

    still = WATCH_STILL_FRAMES + 1
    last, mean = ThrowTally("felt, dim: one frame"), ThrowTally("felt, dim: frames' mean")
    for k in range(throws):
        seed = STILL_SEED_START + k
        frames = roll_frames(seed, D6, n_dice=THROW_DICE, rolling=2, still=still, **STILL_LOOK)
        truth = [(d.label, d.box) for d in render_tray(seed, D6, n_dice=THROW_DICE, **STILL_LOOK).dice]
        last.add(read_tray(frames[-1], D6, expect=THROW_DICE), truth, f"seed {seed}")
        mean.add(read_tray(settled_picture(frames[-still:]), D6, expect=THROW_DICE), truth, f"seed {seed}")
    return last, mean


def run_hazards(hazard: str, trays: int, taught: bool = False) -> HazardTally:
    """Trays with one hazard, each read expecting the dice thrown: d6 and Excape in turn, or (taught) the card die,
    its TAUGHT_MODELS models in turn, in its look."""
    from vision.virtual_tray import render_tray

    tally = HazardTally(f"{hazard}, taught" if taught else hazard)
    if taught:
        first, look = TAUGHT_HAZARD_SEED_START, TAUGHT_LOOK
        dice = [taught_die(k) for k in range(min(trays, TAUGHT_MODELS))]
    else:
        first, look = HAZARD_SEED_START + 10_000 * HAZARD_NAMES.index(hazard), {}
        dice = [(D6, D6), (EXCAPE, EXCAPE)]
    for k in range(trays):
        drawn, model = dice[k % len(dice)]
        rendered = render_tray(first + k, drawn, hazards=frozenset({hazard}), **look)
        tray = rendered.rim if hazard == "outside" else None
        reading = read_tray(rendered.image, model, tray=tray, expect=len(rendered.dice))
        tally.trays += 1
        tally.accepted += reading.status == "ok"
        matched = {j: i for i, j in match_boxes([d.box for d in reading.dice], [d.box for d in rendered.dice],
                                                MATCH_IOU).items()}
        for j, die in enumerate(rendered.dice):
            if hazard not in die.hazards:
                continue
            tally.dice += 1
            if j not in matched:
                tally.missed += 1
            elif reading.dice[matched[j]].sure:
                tally.read_sure += 1
            else:
                tally.flagged += 1
    return tally


@cache
def taught_die(taught: int = 0, size: tuple[int, int] = (640, 480),
               die_size: tuple[float, float] = TAUGHT_LOOK["die_size"]) -> tuple[DieModel, DieModel]:
    """The card die as the renderer draws it, and the model `teach` learns from its shots (the `taught`-th set of
    shots: 0 to TAUGHT_MODELS - 1 for the taught row; TAUGHT_MODELS on for the die seen small, in `size` frames, its
    dice `die_size`). Taught once a run: the taught row and the taught hazard row read the same models."""
    from vision.teach import teach_model
    from vision.virtual_tray import render_tray

    shots = {label: [render_tray(BENCH_SEED_START - 10_000 + 100 * taught + 10 * k + j, CARD_DIE,
                                 faces=[label, label], size=size, **{**TAUGHT_LOOK, "die_size": die_size}).image
                     for j in range(TAUGHT_SHOTS)] for k, label in enumerate(TAUGHT_LABELS)}
    return CARD_DIE, teach_model("cards", shots)


def run_taught(dice: int) -> Tally:
    """The card die taught TAUGHT_MODELS times, each model reading its share of `dice` on throws of its own."""
    tally = Tally(f"taught {'-'.join(TAUGHT_LABELS)}, {TAUGHT_MODELS} dice")
    for taught in range(TAUGHT_MODELS):
        share = dice * (taught + 1) // TAUGHT_MODELS
        if tally.dice >= share:
            continue                    # (a few dice only: the models before read this one's share)
        drawn, model = taught_die(taught)
        throws = virtual_trays(drawn, 10 * dice, first=BENCH_SEED_START + 1_000 * taught, **TAUGHT_LOOK)
        _read_into(tally, model, ((f"die {taught + 1}, {where}", image, truth) for where, image, truth in throws),
                   share)
    return tally


def run_taught_far(trays: int) -> Tally:
    """The card die taught TAUGHT_MODELS times under a camera far above the tray (TAUGHT_FAR), each model reading its
    share of `trays` throws of its own."""
    name, size, die_size = TAUGHT_FAR
    tally = Tally(name)
    for k in range(TAUGHT_MODELS):
        drawn, model = taught_die(TAUGHT_MODELS + k, size, die_size)
        share = trays * (k + 1) // TAUGHT_MODELS - trays * k // TAUGHT_MODELS
        throws = virtual_trays(drawn, share, size, SIZE_SEED_START + 10_000 * len(SIZE_SETS) + 1_000 * k,
                               **{**TAUGHT_LOOK, "die_size": die_size})
        _read_into(tally, model, ((f"die {k + 1}, {where}", image, truth) for where, image, truth in throws), None)
    return tally


def run_set(name: str, model: DieModel, frames: Iterator, expect_dice: int | None = None) -> Tally:
    return _read_into(Tally(name), model, frames, expect_dice)


def _read_into(tally: Tally, model: DieModel, frames: Iterator, until_dice: int | None) -> Tally:
    """Read each frame into the tally, until it holds `until_dice` dice (None: every frame)."""
    for where, image, truth in frames:
        tally.add(read_tray(image, model), truth, where)
        if until_dice is not None and tally.dice >= until_dice:
            break
    return tally


@dataclass(frozen=True)
class FrameTimes:
    """read_tray's milliseconds over a set of frames (time_frames)."""

    wall_ms: float              # median of every read, wall clock
    cpu_ms: float               # median of every read, this process's CPU time
    per_frame: list[float]      # each frame's median CPU ms
    fastest_ms: float           # median over frames of each frame's fastest read (CPU)


@dataclass
class CalibrationTally:
    trays: int = 0
    walled: int = 0          # trays whose rim is in view (else the floor fills the frame)
    close: int = 0           # region within CALIBRATION_IOU of the rim's box
    short: int = 0           # region short of the floor grown 8 px a side (as far as the rim): dice by a wall on it
    seconds: float = 0.0

    def line(self) -> str:
        return (f"tray calibration (vision.tray_region) on {self.trays} virtual 640x480 trays, {self.walled} with "
                f"walls in view: region within IoU {CALIBRATION_IOU} of the rim {self.close / self.trays:.1%}, short "
                f"of the floor and walls {self.short}, {1000 * self.seconds / self.trays:.1f} ms a frame")


def run_calibration(trays: int) -> CalibrationTally:
    from vision.result import box_iou
    from vision.tray_region import find_tray_region
    from vision.virtual_tray import render_tray

    tally = CalibrationTally()
    for k in range(trays):
        rendered = render_tray(CALIBRATION_SEED_START + k, D6 if k % 2 else EXCAPE)
        start = time.process_time()
        region = find_tray_region(rendered.image)
        tally.seconds += time.process_time() - start
        (fx, fy, fw, fh), (rx, ry, rw, rh), (x, y, w, h) = rendered.floor, rendered.rim, region
        needed = (max(rx, fx - 8), max(ry, fy - 8), min(rx + rw, fx + fw + 8), min(ry + rh, fy + fh + 8))
        tally.trays += 1
        tally.walled += rendered.rim != (0, 0, *rendered.image.shape[1::-1])
        tally.close += box_iou(region, rendered.rim) >= CALIBRATION_IOU
        tally.short += x > needed[0] + 2 or y > needed[1] + 2 or x + w < needed[2] - 2 or y + h < needed[3] - 2
    return tally


def time_frames(images: list[np.ndarray], model: DieModel, repeats: int = SPEED_READS,
                expects: list[int] | None = None) -> FrameTimes:
    """Milliseconds of read_tray per frame over the images, each read `repeats` times: the median of every read,
    wall clock and this process's CPU time (which other processes on a busy machine inflate less); each image's
    median CPU ms (a die the reader must look at closer costs a frame several ms); and the median over images of
    each one's fastest read. expects: the dice thrown in each image, read as the table reads a throw (with no count,
    the reader also asks its second locator for dice it may have missed:
    vision.second_looks.with_dice_the_second_locator_finds)."""
    wall, cpu = [], []
    for k, image in enumerate(images):
        expect = None if expects is None else expects[k]
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            read_tray(image, model, expect=expect)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    by_image = 1000 * np.reshape(cpu, (len(images), repeats))
    return FrameTimes(1000 * float(np.median(wall)), 1000 * float(np.median(cpu)),
                      [float(t) for t in np.median(by_image, axis=1)], float(np.median(by_image.min(axis=1))))


@dataclass
class TimeByNet:
    """Where the reader's time goes on a set of frames: each net's CPU ms and inputs a frame, and the rest."""

    frames: int
    nets: dict[str, NetTally]
    total_seconds: float

    def __str__(self) -> str:
        per = 1000 / self.frames
        nets = [f"{name} {t.seconds * per:.2f} ({t.inputs / self.frames:.2f})"
                for name, t in sorted(self.nets.items(), key=lambda item: -item[1].seconds)]
        rest = self.total_seconds - sum(t.seconds for t in self.nets.values())
        return ", ".join([*nets, f"outside the nets {rest * per:.2f}"])


def time_by_net(images: list[np.ndarray], model: DieModel) -> TimeByNet:
    """Each image read once more, every net's passes counted and timed (vision.nets.tallied), by weights file."""
    with tallied() as nets:
        start = time.process_time()
        for image in images:
            read_tray(image, model)
        total = time.process_time() - start
    return TimeByNet(len(images), dict(nets), total)


def time_reference(repeats: int = 15) -> float:
    """Median CPU milliseconds of a fixed workload that never changes with the reader (a 7x7 filter over a 640x480
    float image and a 256x256 matrix product, as OpenCV does them on one core): a ruler for this machine's speed that
    day. The reader's ms divided by it can be compared between days; its ms alone cannot (this shared machine ran the
    same reader at 8 and at 16 ms a frame on different days)."""
    rng = np.random.default_rng(0)
    image = rng.random((480, 640), dtype=np.float32)
    kernel = rng.random((7, 7), dtype=np.float32)
    matrix = rng.random((256, 256), dtype=np.float32)
    times = []
    for _ in range(repeats):
        start = time.process_time()
        cv2.filter2D(image, -1, kernel)
        cv2.gemm(matrix, matrix, 1.0, None, 0.0)
        times.append(time.process_time() - start)
    return 1000 * float(np.median(times))


def time_tracker(images: list[np.ndarray], repeats: int = 20) -> float:
    """Median CPU milliseconds of one MotionTracker update per frame (the images in turn, so the dice seem to move):
    the cost of every camera frame, where read_tray runs once a throw, when the dice have settled."""
    from vision.motion import MotionTracker

    tracker = MotionTracker()
    times = []
    for _ in range(repeats):
        for image in images:
            start = time.process_time()
            tracker.update(image)
            times.append(time.process_time() - start)
    return 1000 * float(np.median(times))


_PEAK_PROBE = """
import sys
from vision.cli import main
main(sys.argv[1:])
# /proc/self/status belongs to this program's own memory map; ru_maxrss would also count the parent it was forked
# from. VmHWM: the peak resident set; RssAnon and RssFile: what is resident at the end, the process's own memory and
# the pages mapped from files (the libraries' code and data).
# Where there is no /proc (macOS), the peak alone, from ru_maxrss: bytes there, KB on Linux.
import os
status = {}
if os.path.isfile("/proc/self/status"):
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
if "VmHWM" in status:
    print("peak-kb", *(status.get(k, " nan").split()[0] for k in ("VmHWM", "RssAnon", "RssFile")), file=sys.stderr)
else:
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("peak-kb", peak // 1024 if sys.platform == "darwin" else peak, "nan", "nan", file=sys.stderr)
"""


@dataclass(frozen=True)
class ReaderMemory:
    """A `read` process's memory in MB: its peak resident set, and at its end the part of it that is its own and the
    part mapped from files. The file-mapped pages (OpenCV's and numpy's libraries, ~40-80 MB) are shared with every
    process that maps the same files and dropped first when memory runs short; how many of a library's pages the
    kernel maps varies with how it holds the file in its page cache (session 40: the same cv2 library, byte for byte,
    mapped 15 MB of code in one venv and 2 MB in another on the same machine), so the peak moves by tens of MB from
    one install to the next while the process's own memory does not."""

    peak: float
    own: float
    files: float

    def __str__(self) -> str:
        if self.own != self.own or self.files != self.files:     # NaN: the system does not tell (no /proc)
            return f"{self.peak:.0f} MB (its own and the libraries' parts not told by this system)"
        return (f"{self.peak:.0f} MB (at its end {self.own:.0f} MB its own, {self.files:.0f} MB mapped from the "
                f"libraries' files, shared and reclaimable)")


def reader_memory(frames: list[np.ndarray]) -> ReaderMemory:
    """The memory of a fresh process that only reads the frames (written as PNG files) with `read`."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for k, frame in enumerate(frames):
            path = Path(folder) / f"frame{k}.png"
            cv2.imwrite(str(path), frame)
            paths.append(str(path))
        done = subprocess.run([sys.executable, "-c", _PEAK_PROBE, "--json", *paths], check=True, text=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "OMP_NUM_THREADS": "1"})
    kb = [line.split()[1:4] for line in done.stderr.splitlines() if line.startswith("peak-kb ")]
    peak, own, files = (float(v) / 1024 for v in kb[-1]) if kb else (float("nan"),) * 3
    return ReaderMemory(peak, own, files)


def _how_many(text: str) -> int:
    """An option's count of dice, trays or throws: a whole number, 0 or more (0 skips its row or table). A negative
    count used to read nothing and print an empty row, as if it had been measured."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more, got {text!r}")
    return value


def _watched_cases(text: str) -> int:
    """--watched-throws: a count (_how_many) no bigger than a watched set's range of seeds."""
    value = _how_many(text)
    if value > WATCH_SEEDS_EACH:
        raise argparse.ArgumentTypeError(f"at most {WATCH_SEEDS_EACH} cases a set (its seeds), got {value}")
    return value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dice-companion bench vision", description=__doc__.split("\n")[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS, help="the tray-d6-photos folder")
    parser.add_argument("--virtual-dice", type=_how_many, default=2000, help="dice per virtual set (default 2000)")
    parser.add_argument("--taught-dice", type=_how_many, default=500,
                        help="dice read with a model taught from a few virtual shots (0: skip that row)")
    # 200, not fewer: a hazard tray accepted about once in 100 (a cocked die read sure) must show up here.
    parser.add_argument("--hazard-trays", type=_how_many, default=200,
                        help="virtual trays per hazard (cocked, stacked, cut, blurred, outside, and the taught "
                             "die cocked; 0: skip that table)")
    parser.add_argument("--weak-look-dice", type=_how_many, default=1000,
                        help="Excape dice of the look read worst, marbled with gold pips (0: skip that row)")
    parser.add_argument("--throws", type=_how_many, default=500,
                        help="throws of two dice per throw set, read as the table reads them (0: skip that table)")
    parser.add_argument("--watched-throws", type=_watched_cases, default=40,
                        help=f"cases of two throws per watched set, the motion tracker on every frame (0: skip; at "
                             f"most {WATCH_SEEDS_EACH}, the set's seeds)")
    parser.add_argument("--calibration-trays", type=_how_many, default=400,
                        help="virtual trays the tray calibration is measured on (0: skip that line)")
    parser.add_argument("--size-trays", type=_how_many, default=200,
                        help="virtual trays per set of dice far smaller or bigger than usual (d6, and the taught "
                             "card die seen small), and the real photos four to a frame (0: skip those rows)")
    parser.add_argument("--speed-frames", type=int, default=SPEED_FRAMES_EACH,
                        help=f"frames timed per number of dice ({', '.join(map(str, SPEED_DICE))}; "
                             f"default {SPEED_FRAMES_EACH})")
    parser.add_argument("--show-wrong", action="store_true", help="list every silently wrong die")
    args = parser.parse_args(argv)
    if args.speed_frames < 1:
        parser.error(f"--speed-frames must be at least 1, got {args.speed_frames}")
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    tallies: list[Tally] = []
    real = as_labelled = None
    if (args.photos / "split_test.txt").is_file():
        real, as_labelled = run_real_photos(args.photos)
        tallies.append(real)
    else:
        print(f"(no real photos at {args.photos}: that row is skipped)")
    for model in (D6, EXCAPE):
        tallies.append(run_set(f"virtual {model.name}", model,
                               virtual_trays(model, 10 * args.virtual_dice), expect_dice=args.virtual_dice))
    if args.weak_look_dice:
        weak = virtual_trays(EXCAPE, 10 * args.weak_look_dice, first=WEAK_LOOK_SEED_START, **WEAK_LOOK)
        tallies.append(run_set("excape, marbled, gold", EXCAPE, weak, expect_dice=args.weak_look_dice))
    if args.taught_dice:
        tallies.append(run_taught(args.taught_dice))
    if args.size_trays:
        if real is not None:
            tallies.append(run_real_photos_far(args.photos))
        tallies += [run_set(name, D6, virtual_trays(D6, args.size_trays, size, SIZE_SEED_START + 10_000 * k,
                                                    die_size=die_size))
                    for k, (name, size, die_size) in enumerate(SIZE_SETS)]
        tallies.append(run_taught_far(args.size_trays))

    hazard_tallies = ([*(run_hazards(hazard, args.hazard_trays) for hazard in HAZARD_NAMES),
                       run_hazards(TAUGHT_HAZARD, args.hazard_trays, taught=True)] if args.hazard_trays else [])
    throw_tallies = ([*(run_throws(k, args.throws) for k in range(len(THROW_SETS))), *run_still_throws(args.throws)]
                     if args.throws > 0 else [])
    watch_tallies = [watch_set(k, args.watched_throws) for k in range(len(WATCH_SETS))] if args.watched_throws else []
    calibration = run_calibration(args.calibration_trays) if args.calibration_trays else None

    from vision.virtual_tray import render_tray

    speed_rows = []
    thrown = [n for n in SPEED_DICE for _ in range(args.speed_frames)]
    for size in ((640, 480), (1280, 960)):
        frames = [render_tray(BENCH_SEED_START + 500_000 + k + 10 * j, D6, size=size, n_dice=n).image
                  for k, n in enumerate(SPEED_DICE) for j in range(args.speed_frames)]
        speed_rows.append((size, time_frames(frames, D6), time_tracker(frames)))
        if size == (640, 480):
            counted = time_frames(frames, D6, expects=thrown)
            spent = time_by_net(frames, D6)
    reference_ms = time_reference()
    read_process = reader_memory(frames)
    # ru_maxrss is in KB on Linux, in bytes on macOS.
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)

    print(HEADER)
    for tally in tallies:
        print(tally.row())
        if tally is real and as_labelled is not None:
            print(as_labelled.row())
    print("dice not read right, why:")
    for tally in tallies:
        print(f"  {tally.why_not_read()}")
    if hazard_tallies:
        print()
        print(HAZARD_HEADER)
        for hazard_tally in hazard_tallies:
            print(hazard_tally.row())
    if throw_tallies:
        print()
        print(THROW_HEADER)
        for throw_tally in throw_tallies:
            print(throw_tally.row())
    if watch_tallies:
        print()
        print(WATCH_HEADER)
        for watch_tally in watch_tallies:
            print(watch_tally.row())
    print()
    if calibration is not None:
        print(calibration.line())
    for (w, h), times, tracker_ms in speed_rows:
        by_dice = np.median(np.reshape(times.per_frame, (len(SPEED_DICE), args.speed_frames)), axis=1)
        print(f"ms per frame at {w}x{h} (one core, {len(times.per_frame)} frames of 2-20 dice, each read "
              f"{SPEED_READS} times, median): {times.wall_ms:.1f} wall clock, {times.cpu_ms:.1f} CPU, 90th percentile "
              f"{np.percentile(times.per_frame, 90):.1f} CPU (median CPU by dice in the frame: "
              f"{', '.join(f'{n}: {t:.1f}' for n, t in zip(SPEED_DICE, by_dice, strict=True))}); each frame's "
              f"fastest read: {times.fastest_ms:.1f} CPU; the motion tracker on every camera frame: "
              f"{tracker_ms:.1f} CPU; median CPU in machine references: {times.cpu_ms / reference_ms:.1f}")
        if (w, h) == (640, 480):
            print(f"  the same frames read as the table reads a throw, the dice thrown known (no second locator for "
                  f"a throw read whole): {counted.cpu_ms:.1f} CPU, 90th percentile "
                  f"{np.percentile(counted.per_frame, 90):.1f} CPU, each frame's fastest read: "
                  f"{counted.fastest_ms:.1f} CPU; in machine references: {counted.cpu_ms / reference_ms:.1f}")
            print(f"  where a frame's time goes with no count (one more read of each frame, CPU ms a frame, the "
                  f"inputs a frame in brackets): {spent}")
    print(f"machine reference (time_reference: a fixed filter and matrix product on one core, to compare days by): "
          f"{reference_ms:.2f} ms CPU")
    print(f"peak memory of a `dice-companion read` process on these 1280x960 frames: {read_process}")
    print(f"peak memory of this bench process (reader, renderer, data): {peak_mb:.0f} MB")
    print(f"models: {', '.join(BUILTIN_MODELS)}; die found = box IoU >= {MATCH_IOU}")
    if args.show_wrong:
        for tally in tallies:
            for line in tally.wrong_examples:
                print(f"silently wrong [{tally.name}] {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
