"""The whole reader: a BGR frame in, a TrayReading out (find the dice, read each face, judge whether to trust it).

The locator (vision.locate) finds the dice; the classifier (vision.recognise) reads each one's face. When a spot
the locator sees is left in doubt, it looks again at the frame shrunk, for dice too big for its usual scale, and
reads a small spot it took for no die again in a box twice its size (a dark die seen only by its pip). A die is
trusted ("sure") only when the classifier is sure of its face and nothing about the die itself casts doubt on it:
cut by the frame edge, a size outlier or overlapping another die (stacked), not lying flat (cocked: the lying-flat
check, vision.flat, or the classifier sees it tilted, unless the check is sure it lies flat), or much blurrier than
the rest (moving or out of focus: vision.blur).
Any doubt, or a count that differs from what the players rolled, makes the tray a "reroll" with a reason the
players can act on.

This module runs the looks in order (_read_frame) and words the verdict; each look is a module of its own:
- vision.read_dice: reading located dice (classifier, blur, lying-flat check) and the verdict on each die;
- vision.face_checks: the checks that can overturn a face read (lying flat, Excape's 6 and 7, a lone pip or a
  part of a die read as a whole one);
- vision.parts: a big die seen in parts, a dark die seen by its pips, parts and clusters boxed as dice;
- vision.second_looks: the second locator's looks (a die boxed again, dice the first look missed);
- vision.dice_geometry: how the dice lie among themselves (overlaps, the usual die size)."""

from __future__ import annotations

import math
from dataclasses import replace
from statistics import median

import cv2
import numpy as np

from companion.errors import DiceCompanionError
from vision.dice_geometry import dice_side_known, overlapping_dice, usual_side
from vision.dice_sides import measured_side
from vision.face_checks import doubted_ones
from vision.flat import first_look_net, flat_net, taught_flat_net
from vision.locate import (
    FAINT_PEAK,
    PEAK_PROBABILITY,
    WORK_WIDTH,
    check_tray,
    find_dice,
    find_dice_and_faint_left_out,
    inside_tray,
    locator,
    second_locator,
    strongest_unclaimed_peak,
    to_work,
)
from vision.models import D6, DieModel
from vision.parts import with_big_dice, with_grown_dice, without_cluster_boxes, without_parts_of_sure_dice
from vision.read_dice import FOREIGN_DIE, ReadDie, doubt, read_dice
from vision.recognise import cross_check_net, face_net, face_net_for, fine_net
from vision.result import UNKNOWN_FACE, DieReading, TrayReading, match_boxes
from vision.second_looks import (
    is_dark,
    with_dice_the_second_locator_finds,
    with_doubtful_dice_boxed_again,
    with_faint_dice_beside_the_others,
    with_flat_dice_seen_tilted_read_in_smaller_boxes,
    with_likely_flat_dice_read_again,
    with_overlapping_boxes_seen_as_one,
    with_unclear_dice_read_at_other_sizes,
)

# The reader works on the frame 640 px wide (vision.locate.WORK_WIDTH), whatever its height: a strip 40 px wide and
# 3,000 tall became a 640x48,000 work frame (a `read` process peaked at 1 GB, and found nothing), one 3,000 wide and
# 40 tall a 640x9 one (read as "0 dice, ok"). A camera frame is 4:3 or 16:9, upright or on its side; a 21:9 one is
# 2.3 to 1.
MAX_ASPECT = 3.0
MIN_SIDE = 32        # px, the shortest side taken: a thumbnail's dice are a few pixels, their upscaled blur no die

# The nets learned dice ~25-60 px wide in the work frame (vision.locate.WORK_WIDTH wide). A camera mounted higher, or
# over a bigger tray, shows the dice smaller; one closer, bigger. A frame is read at WORK_WIDTH first; when that
# reading fails (with a count: a throw read whole, its count right, stands) and its dice measure off WORK_SIDES there
# (the table's side, read_tray's die_side, or the median side of the dice the reading read as a sure face other than
# 1, vision.dice_sides.measured_side), the frame is read again scaled to bring them to the nearer of
# WORK_SIDES_AIMED, within WORK_WIDTHS (a 1280x960 camera frame at up to its own resolution, a 640x480 one
# enlarged), at most RESCALED_READS times. Chosen on fresh virtual trays (session 46, 80 trays a size, read at fixed
# widths): dice 14-20 px and 70-95 px read far better brought to ~40 px (14-17 px: 88.7% -> 99.2% right; 80-95 px:
# 83.5% -> 99.7%), dice 20-29 and 50-62 px as well either way. The bounds come from what the measure is:
# - the lower one, from the train split's photos. Read at their own 640 px their dice measure 23-41 px (the reader's
#   side is a real die's top face) and read as well as ever; four of them side by side in a 1280 px frame (a camera
#   twice as far), at 640 px wide their dice measure 21-24 px, a box no smaller than the locator gives, and 47% of
#   those dice were read right. At 28, 52 single photos were read again enlarged, a die fewer right and one read
#   wrong: real dice read best near their own resolution (OWN_WIDTH_REACH);
# - the upper one, from black dice on felt: a 64 px die measured 73 px alone in its throw, and a frame shrunk to bring
#   that to 38 px lost both dice's pips (tests/test_vision_read.py, 4,430,785). Shrunk to 56 px they read as before.
# Black dice on felt boxed by their pips measure 22-25 px where they are 28-37 px: read again enlarged, 4 throws of
# 800 accepted before were refused (fresh throws 6,802,000+), hence a throw read whole stands.
# Judged on fresh trays no bound was chosen on (80 a size, 60 at 1280x960, read expecting their dice): 640x480 frames
# of dice 14-17 px 79.8% -> 94.2% right (throws accepted 45 -> 73, a die read wrong -> none), 80-95 px 87.4% -> 98.1%
# (45 -> 72, one wrong -> none); 1280x960 frames of dice 28-34 px 77.4% -> 97.1% (27 -> 58). Dice of the usual sizes
# read as before on the tuning battery and 5,000 fresh trays and throws, but for 4 dice more read right and, in
# stacked trays, 1 and 2 more dice of the pairs read sure and wrong (the trays refused for their count, none accepted;
# vision/training/README.md, session 46).
WORK_SIDES = (25.0, 70.0)
WORK_SIDES_AIMED = (38.0, 56.0)
WORK_WIDTHS = (320, 1920)   # 1920: three times WORK_WIDTH; the locator's time grows with the square
RESCALED_READS = 2
# Taught dice are matched to crops of the dice they were taught from (vision.recognise.template_scores), at the scale
# both were cut: `teach` and the reader bring them to 38 px, big ones too. Within WORK_SIDES, card dice 58-66 px in
# 640x480 frames read 92.9% right, brought to 38 px 99.8% (fresh trays 6,882,000+, taught from 6,880,000+, 100 throws
# a size; 70-84 px 72.0% -> 98.5%); 24-32 px as before, within two dice (session 47).
TAUGHT_WORK_SIDES = (25.0, 50.0)
TAUGHT_WORK_SIDES_AIMED = (38.0, 38.0)
# Taught dice read less surely off these sides in the work frame, however they are read then (brought to
# TAUGHT_WORK_SIDES_AIMED from any size): what the players are told (seen_off_size). Fresh throws of two card dice,
# count known, 3 models a size each taught from 3 shots a face, 40 throws a model (session 49, 7,410,000-7,482,139;
# dice of throws accepted with their faces): 32-36 px in 1280x960 frames 86.7%, 36-40 px 94.2%, 40-44 px 99.2%,
# 44-50 px 100%; in 640x480 frames 26-30 px 95.8%, 30-34 and 34-38 px 97.5%, 38-44 px 96.7%. Session 47's (one
# model a size, 12 shots, 100 throws): 24-28 px in 1280x960 frames 74.6%, 38-44 px 99.8%, 100-120 px 99.8%; in
# 640x480 frames 24-28 px 97.8%, 34-42 px 99.4%, 58-66 px 98.9%, 70-84 px 97.1%, 84-100 px 97.9%. Judged by
# TAUGHT_WORK_SIDES (25-50) until then, dice 40-50 px in 1280x960 frames were called small and 100-120 px big.
TAUGHT_SEEN_SIDES = (20.0, 70.0)
# A throw read whole at WORK_WIDTH stands (the count rule), unless the table knows its dice are off WORK_SIDES there
# and the reading's boxes are over this many times their side (_boxed_over): then it is read again at their scale.
# Fresh table runs of d6 18-22 px in 1280x960 frames (200 throws, 7,040,000+): 4 throws accepted with a 5 read as a 6
# in boxes twice the die -> none, as many accepted; six other sizes, the usual ones too, throw for throw the same.
BOXED_OVER = 1.4
# A throw read whole at WORK_WIDTH, its count right, whose dice are boxed under this there is read closer too: at the
# camera frame's own resolution when it has more pixels, else enlarged BOXED_SMALL_ENLARGED times; and each die the
# two readings read as other faces surely is unsure (_unsure_where_torn). A camera far above the tray shows dice
# 13-17 px wide at work, and the locator boxed them 27-31 px there with their shadows, read as other faces at p
# 0.65-0.96 (a 5 as a 6, a 6 or a 2 as a 4, a 7 as a 6); a table learning its dice's side from such throws learned it
# too big for BOXED_OVER to doubt them. Chosen on table runs of two-dice d6 throws (session 49; 3-5 tables of 100
# throws a size, 7,500,000+), throws accepted with a face not thrown: in 1280x960 frames 22-26 px 1 -> 0, 26-30 px
# 2 -> 0, 30-34 px 1 -> 0; in 640x480 frames 14-17 px 3 -> 0; no other throw refused (40-80 px in 1280x960 frames,
# 18-24 px in 640x480, black dice on felt). Judged on fresh ones (vision/training/README.md, session 49): in
# 1280x960 frames 15 -> 3 of 4,300 throws, 12 fewer accepted, as many with their faces as before; in 640x480 frames
# 6 -> 4 of 2,700, 2 fewer accepted. Real dice shrunk into a 640 px frame, read with their count: the train split's
# photos, dice read sure and wrong 4 -> 2 at 0.6 of their size and 4 -> 3 at 0.75, as many read right; the test
# split's (judged), as before at 0.6, and at 0.75 one die read right made unsure, none wrong before or after. Read
# twice, a throw costs ~15 ms more in 1280x960 frames (dice 40-50 px nearly every throw, 50-64 px 26 of 60, 64-80 px
# none), ~26 ms in 640x480 ones (4 of the bench's 40 speed frames read with their count).
BOXED_SMALL = 32.0
BOXED_SMALL_ENLARGED = 2
# ... its dice matched to the other reading's at this IoU: a die boxed twice its side with its shadow and the die's
# own box overlap at ~0.25 (fresh throw 7,000,062: 0.27).
BOXED_SMALL_MATCH = 0.1
# A frame shrunk for its big dice: its dice matched to the first reading's at this IoU, as the benchmark matches a box
# to its label (vision.result.match_boxes' usual bar).
SHRUNK_MATCH = 0.3
# A frame whose dice's scale is within this of its own resolution is read at it, as the camera gave it: resampled,
# real dice read worse (a marbled 2 of the train split four to a 1280 frame was read at 1,152 px wide as a sure 3,
# its swirl a pip; at 1,280, as a 2).
OWN_WIDTH_REACH = 1.25


class ReadError(DiceCompanionError):
    """The frame or the options given to the reader are invalid."""


def checked_image(image: np.ndarray) -> np.ndarray:
    """The image as the reader takes it (BGR, uint8), or ReadError: not a uint8 image, a shape that is no image, too
    small to show dice, or too long and narrow to be a photo of the tray (MAX_ASPECT)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ReadError("expected a uint8 numpy image (BGR, or gray)")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ReadError(f"expected an image of shape (h, w, 3) BGR, got shape {image.shape}")
    h, w = image.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise ReadError(f"image of {w}x{h} px is too small to show dice")
    if max(h, w) > MAX_ASPECT * min(h, w):
        raise ReadError(f"image of {w}x{h} px is {max(h, w) / min(h, w):.1f} times as long as it is wide: expected a "
                        f"photo of the tray (its sides at most {MAX_ASPECT:g} to 1)")
    return image


def _reading_order(dice: list[ReadDie]) -> list[ReadDie]:
    """Top to bottom in rows about a die high, left to right within a row: how players count dice."""
    if not dice:
        return dice
    # By the boxes the players are shown (a die and its sides seen in perspective), not the top faces read.
    height = float(median([d.candidate.box[3] for d in dice]))
    return sorted(dice, key=lambda d: (round((d.candidate.box[1] + d.candidate.box[3] / 2) / height),
                                       d.candidate.box[0] + d.candidate.box[2] / 2))


def _where(box: tuple[int, int, int, int], width: int, height: int) -> str:
    """Where a die lies in the frame, in words players can look for ("top left", "centre", ...)."""
    cx, cy = (box[0] + box[2] / 2) / width, (box[1] + box[3] / 2) / height
    row = "top" if cy < 1 / 3 else "bottom" if cy > 2 / 3 else ""
    column = "left" if cx < 1 / 3 else "right" if cx > 2 / 3 else ""
    return " ".join(p for p in (row, column) if p) or "centre"


def _reroll_reason(readings: list[DieReading], expect: int | None, width: int, height: int) -> str | None:
    n = len(readings)
    parts = []
    if expect is not None and n != expect:
        parts.append(f"expected {expect} {'die' if expect == 1 else 'dice'} but found {n}")
    for i, r in enumerate(readings):
        if r.sure:
            continue
        what = "cannot be read" if r.reason == "unclear" else f"is {r.reason}"
        parts.append(f"die {i + 1} of {n} ({_where(r.box, width, height)}) {what}")
    if not parts:
        return None
    advice = ("throw this game's dice, every die flat inside the tray" if any(r.reason == FOREIGN_DIE for r in readings)
              else "roll again with every die flat inside the tray")
    return "; ".join(parts) + ": " + advice


def _read_frame(work: np.ndarray, tray: tuple[int, int, int, int] | None, model: DieModel,
                expect: int | None = None) -> list[ReadDie]:
    """Find and read the dice of a work frame; when a clear spot is left in doubt, look again for big dice, then for
    dark dice seen only by a pip; box each die left unsure again with the second locator; read a die still unclear
    in boxes of other sizes, and a flat die seen tilted in smaller ones (vision.second_looks, session 39); look again
    at the faint dice the first look left out beside a die it saw clearly, where no die was read (session 39); doubt a
    sure 1 of the first read again beside the dice found after it (with_ones_doubted_again); read again, the face
    net's "tilted" left out, a die still unsure that the lying-flat check finds likely flat
    (with_likely_flat_dice_read_again); when fewer dice are found than the `expect` thrown, or the dice thrown are
    not known, ask the second locator (a dark frame read with no count, in the frame with its shadows lifted; a frame
    not dark only when the locator's map peaks at FAINT_PEAK or more where no die was read), and a throw still short
    of dice again in the frame with its shadows lifted, then there for spots as faint as FAINT_PEAK
    (vision.second_looks, session 33) (none of these second looks for a taught die: its faces are matched to crops
    cut at the die's size, and a die in a box too big for it matched another face, sure, in the tests, where the face
    net learned dice at many sizes).

    With no count, a frame not dark whose locator map stays under FAINT_PEAK outside every die read is not looked
    over again: on the tuning sets the second locator added no die to such a frame. Read with the look over every
    frame, it added dice to 7 frames not dark, each where the map peaked at 0.29 or more, and to 13 dark ones (the
    battery's count-less sets; fresh ranges d6 3,440,000+ and Excape 3,450,000+, 1,000 trays each, marbled
    3,460,000+ and 3,465,000+, 300 each). Half of those virtual frames skip the look (536 of 1,000 d6, 542 Excape),
    ~1.5 ms each; on the real photos the map peaks beyond the dice in nearly every frame (a tray's rim, dice in a
    cluster), and they are looked over as before. Every battery set reads die for die as before. A dark frame is
    always looked over: of 600 count-less trays of black dice on felt (3,470,000+), the second locator added dice to
    81, and 4 of those peaked under FAINT_PEAK (0.10-0.149) beyond the dice read."""
    seen = locator().maps(work)
    located, left_out = find_dice_and_faint_left_out(work, tray, seen=seen)
    first = read_dice(work, located, model)
    if model.taught:
        return without_parts_of_sure_dice(without_cluster_boxes(first))
    dice = with_grown_dice(work, tray, located, with_big_dice(work, tray, located, first, model), model)
    dice = with_doubtful_dice_boxed_again(work, dice, model)
    dice = with_unclear_dice_read_at_other_sizes(work, dice, model)
    dice = with_flat_dice_seen_tilted_read_in_smaller_boxes(work, dice, model)
    dice = with_overlapping_boxes_seen_as_one(work, without_parts_of_sure_dice(without_cluster_boxes(dice)),
                                              model)
    dice = with_faint_dice_beside_the_others(work, left_out, dice, model)
    dice = with_ones_doubted_again(work, first, dice, model)
    dice = with_likely_flat_dice_read_again(work, dice, model)
    if expect is None:
        dark = is_dark(work, tray)
        if not dark and strongest_unclaimed_peak(seen, [d.candidate for d in dice], tray) < FAINT_PEAK:
            return dice
        return with_dice_the_second_locator_finds(work, tray, dice, model, count_known=False, shadows_lifted=dark)
    if len(dice) < expect:
        dice = with_dice_the_second_locator_finds(work, tray, dice, model)
    if len(dice) < expect:
        # In the frame with its shadows lifted: its spots of PEAK_PROBABILITY, then, still short, of FAINT_PEAK.
        dice = with_dice_the_second_locator_finds(work, tray, dice, model, shadows_lifted=True,
                                                  thresholds=(PEAK_PROBABILITY, FAINT_PEAK), thrown=expect)
    if len(dice) < expect and tray is not None:
        dice = with_dice_outside_the_tray(work, tray, seen, dice, model, expect - len(dice))
    return dice


def with_ones_doubted_again(work: np.ndarray, first: list[ReadDie], dice: list[ReadDie], model: DieModel
                            ) -> list[ReadDie]:
    """The dice, each sure 1 of the first read doubted again (vision.face_checks.doubted_ones) beside every die read
    since, when those make the dice's usual side bigger than the first read's dice did: a die found later (the frame
    shrunk for big dice, a die grown from its parts, one boxed again) may be the one whose pip was boxed as a 1, and
    against the first read's dice alone (pips boxed as dice, all of a size) that 1 was no smaller than the others."""
    # A die the later looks left as it was is the same object: its place in the first read, by identity.
    earlier = {id(die): j for j, die in enumerate(first)}
    ones = [k for k, die in enumerate(dice)
            if id(die) in earlier and die.guess.sure and die.guess.appearance == "pips:1"]
    if not ones or all(id(die) in earlier for die in dice):
        return dice
    before = [d.candidate for d in first]
    now = [d.candidate for d in dice]
    grown = [k for k in ones if (usual_side(now, k) or 0.0) > (usual_side(before, earlier[id(dice[k])]) or 0.0)]
    if not grown:
        return dice
    compared = [now[k] for k in grown] + [c for k, c in enumerate(now) if k not in grown]
    judged = doubted_ones(work, compared, [dice[k].guess for k in grown], model, face_net_for(model))
    again = list(dice)
    for k, guess in zip(grown, judged, strict=True):
        again[k] = replace(dice[k], guess=guess)
    return again


def with_dice_outside_the_tray(work: np.ndarray, tray: tuple[int, int, int, int], seen: tuple[np.ndarray, float],
                               dice: list[ReadDie], model: DieModel, missing: int) -> list[ReadDie]:
    """The dice read, and up to `missing` more that the locator sees outside the tray region (centres outside it; its
    maps of the frame, `seen`) and the classifier reads as a sure face, the most surely seen first, each said to be
    outside the tray: a die rolled off onto the table. Asked only of a throw short of dice: a spare die left beside
    the tray is no die of the throw, and a whole throw inside the tray is read without a look beyond it."""
    beyond = find_dice(work, None, faint=None, seen=seen, wanted=lambda centre: not inside_tray(centre, tray))
    found = [d for d in read_dice(work, beyond, model) if d.guess.sure and d.guess.appearance is not None]
    found.sort(key=lambda d: -d.candidate.probability)
    return dice + [replace(d, outside=True) for d in found[:missing]]


def _work_tray(tray: tuple[int, int, int, int], scale: float, width: int, height: int) -> tuple[int, int, int, int]:
    """The tray region in work pixels, kept inside the work frame (rounding may push it a pixel out)."""
    x, y = min(round(tray[0] * scale), width - 1), min(round(tray[1] * scale), height - 1)
    return x, y, max(1, min(round(tray[2] * scale), width - x)), max(1, min(round(tray[3] * scale), height - y))


def load_nets() -> None:
    """Load every net the reader uses, each checked as it loads (vision.nets), now rather than at the first throw: a
    bad install is refused when the companion starts, not in the middle of a game."""
    locator()
    second_locator()
    face_net()
    cross_check_net()
    fine_net()
    flat_net()
    first_look_net()
    taught_flat_net()


def read_tray(image: np.ndarray, model: DieModel = D6, *, tray: tuple[int, int, int, int] | None = None,
              expect: int | None = None, die_side: float | None = None) -> TrayReading:
    """Find and read every die in a BGR frame of any size.

    tray: the calibrated tray region (x, y, w, h) in pixels of `image`; dice outside it are ignored and a die
    touching its border counts as cut. expect: how many dice were rolled; another count means "reroll".
    die_side: the dice's side in pixels of `image` as earlier throws at this table showed them
    (vision.dice_sides.DiceSides): a die boxed much smaller may be one pip of a die, even when every die of the
    throw is boxed so (vision.dice_geometry.usual_side); a frame read badly at WORK_WIDTH whose dice are off
    WORK_SIDES there is read again at their scale (taught dice: off TAUGHT_WORK_SIDES, their side as taught when the
    table knows none, DieModel.side_fraction); one whose dice nothing measures, boxed small or not found, at the
    frame's own resolution; and a throw read whole at WORK_WIDTH whose boxes are over BOXED_OVER times a known side
    off WORK_SIDES there (dice boxed with their shadows) does not stand, and is read again at that side. A throw read
    whole at WORK_WIDTH whose dice are boxed under BOXED_SMALL there is read closer too (the frame's own resolution,
    or enlarged), and a die the two readings read as other faces is unsure.
    Dice come in reading order (rows top to bottom, left to right).
    """
    image = checked_image(image)
    if expect is not None and expect < 0:
        raise ReadError(f"expect must be a number of dice (0 or more), got {expect}")
    if die_side is not None and not (math.isfinite(die_side) and die_side > 0):
        raise ReadError(f"die_side must be a side in pixels (more than 0), got {die_side}")
    h, w = image.shape[:2]
    if tray is not None:
        check_tray(tray, w, h)
    width = WORK_WIDTH
    reading = first = _read_at(image, width, model, tray, expect, die_side)
    known = _side_known(die_side, model, w)
    for _ in range(RESCALED_READS):
        if expect is not None and reading.status == "ok" and not _boxed_over(reading, die_side, width / w):
            break           # a throw read whole, its count right, stands (at the table, the most of them)
        # The dice's side, known or as this reading shows it: off WORK_SIDES, read again at their scale (a die much
        # smaller than them is boxed too big: it may take two).
        side = _side_seen(reading, width / w) if known is None else known * width / w
        scaled = rescaled(width, side, w, model.taught)
        if side is None and width == WORK_WIDTH < w and _seen_small_or_not_at_all(reading, width / w):
            scaled = min(w, WORK_WIDTHS[1])     # no measure: read at the camera's own pixels
        if scaled == width:
            break
        width = scaled
        reading = _read_at(image, width, model, tray, expect, die_side)
    if width < WORK_WIDTH:
        return _unsure_where_torn(reading, first, expect, w, h, SHRUNK_MATCH)
    if expect is not None and reading.status == "ok" and _boxed_small(reading, width, w):
        # A throw read whole, its count right, its dice boxed small: looked at closer too.
        closer = _read_at(image, _closer_width(w), model, tray, expect, die_side)
        return _unsure_where_torn(reading, closer, expect, w, h, BOXED_SMALL_MATCH)
    return reading


def _unsure_where_torn(reading: TrayReading, other: TrayReading, expect: int | None, width: int, height: int,
                       min_iou: float) -> TrayReading:
    """The reading, each of its dice unsure that the `other` reading of the same frame, at another scale, read as
    another face surely (its dice matched at `min_iou`): a die read so at two scales is one neither read can be
    trusted on.

    - A frame shrunk for its big dice, against the first reading (at WORK_WIDTH): a lone big die read again smaller
      was boxed on a part of it, and two pips of a 4 read as a sure 2 (fresh tray 6,821,052, session 46). Not for a
      frame enlarged for its small dice after a reading at WORK_WIDTH failed: those are the reads that fail (on the
      train split's photos four to a frame, asking it there too left 11 more dice unclear, and read 96.44% of the
      dice right instead of 95.70%).
    - A throw read whole at WORK_WIDTH with its dice boxed small (_boxed_small), against the frame read closer: at its
      own resolution, or enlarged when it has no more pixels (_closer_width)."""
    matched = match_boxes([d.box for d in reading.dice], [d.box for d in other.dice], min_iou)
    torn = {i for i, j in matched.items()
            if reading.dice[i].sure and other.dice[j].sure and reading.dice[i].face != other.dice[j].face}
    if not torn:
        return reading
    # Told as any die the reader cannot read: "cannot be read".
    dice = [replace(d, face=UNKNOWN_FACE, confidence=min(d.confidence, 0.5), sure=False, reason="unclear")
            if i in torn else d for i, d in enumerate(reading.dice)]
    reason = _reroll_reason(dice, expect, width, height)
    return TrayReading(status="reroll" if reason else "ok", reason=reason, dice=tuple(dice))


def seen_off_size(side: float, frame_width: int, taught: bool = False) -> str | None:
    """Whether dice `side` px wide in frames `frame_width` px wide look "small" or "big" to the reader, read less
    surely than at the usual sizes; None when they are read as well. Said to the players (the table's advice,
    `read`'s line, `teach`), so the camera is moved while it is easy.

    Built-in dice: off the sides their nets read best in the work frame (WORK_SIDES), where a frame is read again at
    their scale: the bench's size rows read 96-97% of such dice right against 99.65% at the usual sizes, and at a
    table about one throw in 100 was accepted with a face not thrown (vision/training/README.md, sessions 46-47; in
    1280x960 frames, 15 of 4,300 before BOXED_SMALL, 3 since, session 49).

    Taught dice: off TAUGHT_SEEN_SIDES there. They are matched to pictures at 38 px, brought there from the sides
    the camera gives them (TAUGHT_WORK_SIDES), and read as well down to 20 px in the work frame."""
    return _off_sides(side * WORK_WIDTH / frame_width, TAUGHT_SEEN_SIDES if taught else WORK_SIDES)


def _off_sides(side: float, sides: tuple[float, float]) -> str | None:
    """Whether dice `side` px wide in the work frame are under ("small") or over ("big") `sides` there, or within them
    (None): WORK_SIDES or TAUGHT_WORK_SIDES where a frame is read again at their scale (rescaled, _boxed_over),
    WORK_SIDES or TAUGHT_SEEN_SIDES for what the players are told (seen_off_size)."""
    low, high = sides
    return "small" if side < low else "big" if side > high else None


def rescaled(width: int, side: float | None, own: int | None = None, taught: bool = False) -> int:
    """The width of the work frame to read at, when the dice are `side` px (None: not known) in one `width` px wide:
    `width`, unless they are off WORK_SIDES there (TAUGHT_WORK_SIDES for `taught` dice); then the width that makes
    them the nearer of WORK_SIDES_AIMED (TAUGHT_WORK_SIDES_AIMED), within WORK_WIDTHS, or the frame's `own` width when
    that is within OWN_WIDTH_REACH of it."""
    off = None if side is None else _off_sides(side, TAUGHT_WORK_SIDES if taught else WORK_SIDES)
    if off is None:
        return width
    aims = TAUGHT_WORK_SIDES_AIMED if taught else WORK_SIDES_AIMED
    aimed = aims[0] if off == "small" else aims[1]
    scaled = int(np.clip(round(width * aimed / side), *WORK_WIDTHS))
    if own is not None and own / OWN_WIDTH_REACH <= scaled <= own * OWN_WIDTH_REACH:
        return own
    return scaled


def _boxed_over(reading: TrayReading, die_side: float | None, scale: float) -> bool:
    """Whether a reading's boxes are far bigger (BOXED_OVER) than the dice's side the table knows (`die_side`, frame
    pixels), when that side is off WORK_SIDES in the work frame (`scale` of the frame's): dice too small for the
    locator there are boxed with their shadows, or two at a time, and read as the faces such boxes show."""
    return (die_side is not None and _off_sides(die_side * scale, WORK_SIDES) is not None and bool(reading.dice)
            and _median_box(reading) > BOXED_OVER * die_side)


def _seen_small_or_not_at_all(reading: TrayReading, scale: float) -> bool:
    """Whether a reading that gives no measure of its dice (none read surely) found none, or boxes under WORK_SIDES
    (in work pixels, `scale` of the frame's): dice so small that none reads surely, or none is found. Such a frame,
    bigger than the work frame, is read again at its own resolution: no die measures by how much to enlarge it, and
    the camera's own pixels are the most there is. (Small unsure boxes are no measure, _side_seen: a pip of a dark die
    is one. Read at the camera's resolution, such a die is not enlarged past it.) Fresh d6 in 1280x960 frames, 22-26 px
    (11-13 px at 640), read expecting their dice: 73.7% right, 43 of 60 throws accepted, against 85.5% and 53; 26-30
    px 87.1% against 91.0% (6,974,000+, session 47). Dice of the usual sizes at 1280x960 did not come here: 850 fresh
    throws and trays (two-dice d6, Excape and black-on-felt throws; cocked, stacked, hand, blurred) read the same
    (6,980,000+, 6,981,000+)."""
    return not reading.dice or _median_box(reading) * scale < WORK_SIDES[0]


def _boxed_small(reading: TrayReading, width: int, frame_width: int) -> bool:
    """Whether a reading at WORK_WIDTH of a frame at least that wide has its dice boxed under BOXED_SMALL there: dice
    that may be much smaller than their boxes."""
    return width == WORK_WIDTH <= frame_width and bool(reading.dice) and \
        _median_box(reading) * width / frame_width < BOXED_SMALL


def _closer_width(frame_width: int) -> int:
    """The width a throw boxed small (_boxed_small) is read at too: the frame's own, when it has more pixels than the
    work frame (within WORK_WIDTHS), else the work frame enlarged BOXED_SMALL_ENLARGED times."""
    return min(frame_width, WORK_WIDTHS[1]) if frame_width > WORK_WIDTH else BOXED_SMALL_ENLARGED * WORK_WIDTH


def _side_known(die_side: float | None, model: DieModel, width: int) -> float | None:
    """The dice's side in pixels of a frame `width` px wide, known before it is read: the table's (read_tray's
    die_side), else, for taught dice, their side in the shots they were taught from (DieModel.side_fraction). A throw
    of taught dice read at a scale they were not taught at reads few of them surely, and those few are no measure: a
    sure die boxed over two dice made card dice 15-18 px wide look 30 px (fresh throws 6,881,004 and 6,881,022,
    session 47)."""
    if die_side is not None:
        return die_side
    return None if model.side_fraction is None else model.side_fraction * width


def _median_box(reading: TrayReading) -> float:
    """The median side of a reading's dice's boxes, in pixels of its frame (it has dice)."""
    return float(median(d.side for d in reading.dice))


def _side_seen(reading: TrayReading, scale: float) -> float | None:
    """The dice's side in work pixels (`scale` of the frame's) as a reading shows it: that of its dice read as a sure
    face other than 1 (vision.dice_sides.measured_side); with none, the median box when that is over WORK_SIDES (dice
    that big are seldom read surely). Never the boxes of dice left unsure when small: one pip of a dark die boxed
    alone is, and a frame enlarged for it would show the pip as big as a die."""
    side = measured_side(reading)
    if side is None and reading.dice:
        boxes = _median_box(reading) * scale
        return boxes if boxes > WORK_SIDES[1] else None
    return None if side is None else side * scale


def _read_at(image: np.ndarray, width: int, model: DieModel, tray: tuple[int, int, int, int] | None,
             expect: int | None, die_side: float | None) -> TrayReading:
    """read_tray's reading of the image from a work frame `width` px wide."""
    h, w = image.shape[:2]
    work, scale = to_work(image, width)
    work_tray = None if tray is None else _work_tray(tray, scale, work.shape[1], work.shape[0])
    with dice_side_known(None if die_side is None else die_side * scale):
        dice = _reading_order(_read_frame(work, work_tray, model, expect))

    readings: list[DieReading] = []
    if dice:
        median_side = float(median([d.candidate.side for d in dice]))
        median_sharpness = float(median([d.sharpness for d in dice]))
        overlapping = overlapping_dice([d.candidate for d in dice])
        for k, die in enumerate(dice):
            reason = doubt(die, k in overlapping, median_side, median_sharpness)
            box, side = in_image(die, scale)
            if die.guess.appearance is None:     # a cut die the classifier could not call a die at all
                face, confidence = UNKNOWN_FACE, 1.0 - die.guess.confidence
            else:
                face = model.label_of(die.guess.appearance) if die.guess.sure else UNKNOWN_FACE
                confidence = die.guess.confidence
            sure = reason is None
            readings.append(DieReading(face=face, confidence=confidence if sure else min(confidence, 0.5),
                                       sure=sure, box=box, reason=reason, side=side))
    reason = _reroll_reason(readings, expect, w, h)
    return TrayReading(status="reroll" if reason else "ok", reason=reason, dice=tuple(readings))


def in_image(die: ReadDie, scale: float) -> tuple[tuple[int, int, int, int], float]:
    """A die read in a work frame `scale` times the image: its box (x, y, w, h) and its side in pixels of the image,
    as its DieReading gives them."""
    x, y, w, h = die.candidate.box
    return (round(x / scale), round(y / scale), round(w / scale), round(h / scale)), float(die.candidate.side / scale)
