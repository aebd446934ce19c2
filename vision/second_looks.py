"""Second looks by the second locator (vision.locate.second_locator, which learned more of the looks the first one
misses: dark dice on dark felt, pale dice on a pale tray): a die left unsure boxed again, two overlapping boxes seen
as the one die they cut in two, and dice found where none was read (a throw short of dice, a frame read with no
count, a dark frame with its shadows lifted)."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import cv2
import numpy as np

from vision.dice_geometry import (
    STACKED_SIZE_RATIO,
    clear_side,
    in_square,
    known_side,
    others_side,
    overlapping_pairs,
    rect_overlap,
)
from vision.face_checks import LONE_PIP_SMALL, second_look_around
from vision.flat import LYING_FLAT, NOT_FLAT
from vision.locate import PEAK_PROBABILITY, LocatedDie, find_dice, second_locator
from vision.models import DieModel
from vision.read_dice import ReadDie, read_dice

# A throw still short of dice after the second locator's look is looked at once more, by the same locator, in the
# frame with its shadows lifted (each pixel's brightness, 0..1, raised to SHADOWS_LIFTED): a black die on dark felt,
# that neither locator sees in the frame as it is, shows its outline there. Read in the frame as it is.
SHADOWS_LIFTED = 0.35

# With no count of the dice thrown, a dark frame (its median grey level, 0-255, under DARK_FRAME: a dark tray) is
# looked over by the second locator with its shadows lifted instead of as it is. Of the 14 dice missed on 2,000
# fresh d6 tuning trays read with no count (2,992,000+, 2,996,000+), every one lay on a frame of median grey 25-65,
# and the second locator saw 10 in the frame lifted, all read right. Instead of, not as well as: the same gains (+3,
# +3), and it costs no more (two fifths of the bench's frames are that dark). The battery's d6 and Excape trays +1
# each; Excape 2,993,000+ and 2,997,000+, the photos and the marbled sets as before; of 200 trays of each hazard
# read with no count, one die fewer found (a 2 beside a cocked die, 3,000,192) and nothing else otherwise.
DARK_FRAME = 80

# A die the classifier leaves unsure is boxed again by the second locator (with_doubtful_dice_boxed_again); a box is
# a second opinion when its centre is REBOX_SHIFT of the die's side away or more, or its side REBOX_SCALE times bigger
# or smaller, and it is kept when it reads as a sure face overlapping no other die beyond REBOXED_OVERLAP, at
# REBOXED_SURE or more, in a box no smaller than REBOXED_SMALLEST of the other dice's side (why those two: the
# function's docstring).
# Chosen on 600 virtual d6 trays from seed 2,700,000 (2,668 dice): 2,647 -> 2,656 read right, none wrong (with every
# box a second opinion: 2,659 and one tray accepted with a die read wrong; boxed again by the first locator: 2,653).
REBOX_SHIFT = 0.15
REBOX_SCALE = 1.2
REBOXED_OVERLAP = 0.1

# A die the second locator finds where none was read, with no count of the dice thrown or only in the frame with its
# shadows lifted, may overlap the dice read up to FOUND_OVERLAP (below OVERLAP_FRACTION, which calls two dice stacked):
# dice touching in a cluster, their sides seen in perspective, overlap 0.11-0.15 (three train-split photo dice missed
# at REBOXED_OVERLAP, found and read right at this bar; no other tuning set, fresh range or hazard tray read without a
# count read otherwise: vision/training/README.md, session 19).
FOUND_OVERLAP = 0.2
REBOXED_SURE = 0.8
REBOXED_SMALLEST = LONE_PIP_SMALL   # of the other dice's side: a box smaller may hold a part of a die, as a lone pip's

# Two more dice are boxed again (session 38), each refused for its box rather than its face:
# - one "cut by the frame edge" (or on the tray's rim) boxed EDGE_BOX_TOO_BIG times the other dice's side or more: a
#   box too big for a whole die reaches the edge from a die lying inside it (fresh Excape tray 5,261,697: a black 4
#   ten pixels from the edge, boxed at 1.3 times its side);
# - one read as a sure face that the lying-flat check calls cocked (NOT_FLAT), boxed under REBOXED_SMALLEST of the
#   other dice's side: a box too small shows the check the face without the die's outline (fresh Excape tray
#   5,263,369: a flat black 3 on felt boxed at 0.76 of the other die's side, called cocked at 0.79; boxed again at
#   its whole side, 0.001).
# The new box must pass every bar above, and goes through every check a die does, the lying-flat check included. On
# the battery (`tuning battery`, against session 37's code): felt throws +1 die, every other set die for die as
# before; 42 edge and 5 cocked dice came to a new box. Fresh ranges: felt throws 5,270,000+ and 5,272,000+ (2,000
# each) +4 dice (3 at the edge, 1 cocked), Excape 5,262,000+ (2,000 trays) +1 (cocked), 5,264,000+ as before; 600
# cut trays 5,281,000+ +1 die (not the cut one); 600 cocked trays 5,280,000+ as before. Judged after, on ranges no
# choice was made on: felt throws 5,292,000+ (2,000) +3 dice (1 at the edge, 2 cocked), Excape 5,290,000+ (2,000
# trays) as before. No die newly read wrong.
EDGE_BOX_TOO_BIG = 1.2


def with_doubtful_dice_boxed_again(work: np.ndarray, dice: list[ReadDie], model: DieModel) -> list[ReadDie]:
    """The dice read, each die the classifier left unsure (unclear, or seen tilted), each die at the frame's edge
    boxed much bigger than the other dice, and each die called cocked boxed much smaller than them (_boxed_amiss),
    replaced by the same die boxed again by the second locator, when that box differs from the first
    (_boxed_otherwise), reads as a sure face whole inside the frame, and overlaps no other die beyond REBOXED_OVERLAP.

    A die whose box sits off it (around the pip of a dark 2 on dark felt, on half a green 2 beside a yellow die) or
    is much too small or big for it shows the classifier part of a face, or a face and the tray: it is left unclear,
    and the throw re-rolled, where the die lies in plain view. The second locator, which learned twice the trays
    (more dark-on-felt and pale-on-pale ones), reading a window around the die (second_look_around), boxes many of
    them whole. A box like the first is no second opinion, only the same crop a little moved: read again, on a
    range of trays where every such box counted, one die more in 2,668 was read sure and wrong.

    A new box smaller than REBOXED_SMALLEST of the other dice's side may hold a part of a die, not a die: on a
    tuning tray of a stacked pair (3,001,158), the corner of the lower die, a 5 hidden but for a pip, boxed so, was
    read as a sure 1 (0.61 of the others' side; the dice boxed right on the tuning trays were 0.83-1.19). So a die
    with no other dice clearly seen beside it, nothing to size it by, is not boxed again. And a die boxed again is
    a second chance at a die already left unsure, so its face must be read at REBOXED_SURE or more, not at the usual
    sure bar: on the tuning trays, a blurred 4 boxed again read as a 1 at 0.61, a 5 half under a hand as a 3 at 0.62
    (each in a tray then accepted), where the dice boxed again and read right were read at 0.84-0.99 but for one
    (0.64, a black 2 on felt).

    The new box goes through every check a die does (the lying-flat check, a lone pip read as a 1, the overlap of
    stacked dice), so a die cocked, stacked or cut stays unsure. Its cost: ~0.3 ms and a read, for those dice
    only."""
    kept = list(dice)
    for k, read in enumerate(dice):
        die, usual = read.candidate, others_side([d.candidate for d in kept], k)
        if usual is None or die.faint or not _boxed_amiss(read, usual):
            continue
        others = [d.candidate for j, d in enumerate(kept) if j != k]
        boxes = [c for c in second_look_around(work, die) if _boxed_otherwise(c, die) and
                 c.side >= REBOXED_SMALLEST * usual]
        best = _best_read_again(work, boxes, model, others)
        if best is not None:
            kept[k] = best
    return kept


# A die the classifier leaves unsure, whole in view, is read again in boxes OTHER_SIZES_APART smaller and bigger than
# its own (with_unclear_dice_read_at_other_sizes), kept when both read the same sure face at REBOXED_SURE or more.
# Session 39: of the held-out train photos' three unclear dice, a dark 5 boxed 1.14 times its size (read as a 4 at
# 0.40) was read as a sure 5 at every size from 0.8 to 1.1 times the box but its own, and another at one size only.
# 0.1 chosen there, before any set was read with it. Battery: held-out photos, d6 trays, felt throws and marbled
# Excape +1 die each, every other set die for die as before. Fresh ranges, read with and without it: Excape
# 5,342,000+ and 5,354,000+ (1,000 trays each) +1 each; d6 5,340,000+ (1,000), felt throws 5,344,000+ and 5,352,000+
# (1,000 each), marbled d6 and Excape 5,349,000+ and 5,349,500+ (300 each), 600 trays each of cocked (5,346,000+,
# 5,356,000+), hand (5,347,000+, 5,358,000+), stacked (5,348,000+, 5,357,000+) and blurred dice (5,350,000+) as
# before, once the bigger box may overlap no other die beyond REBOXED_OVERLAP (without that bar, two Xs beside a
# hand read right, and a stacked pair's hidden 2 read as a sure 7 in a box over its neighbour, the tray refused).
OTHER_SIZES_APART = 0.1
# Only a die the lying-flat check finds flat, under UNCLEAR_FLAT, and not read as one of UNCLEAR_NOT_READ_AGAIN, is
# read again so. Judged at the session's end against its start on fresh ranges, without these two bars: a cocked
# Excape 7 the check put at 0.13, left unsure by the 7's own doubts, was read as a sure 7 at other sizes and its tray
# accepted (5,428,475); and three lower dice of stacked pairs, boxed with the upper die and left unsure by the X's own
# bars (its cross-check, CROSS_SURE), were read as sure Xs (5,429,000+, trays refused by the count). An X, whose
# strokes blur and hands make too, keeps its own bars; a die the check is not sure lies flat keeps its doubt. Cost on
# the battery: a 1 of the d6 throws, a marbled d6 3 and a marbled Excape X read before.
UNCLEAR_FLAT = 0.1
UNCLEAR_NOT_READ_AGAIN = ("symbol:cross",)
# A die so read that is boxed under REBOXED_SMALLEST of the other dice's side, and still unclear, is read so at their
# side too (SMALL_AT_THEIR_SIZE): a die boxed by its face's middle, a 1 that the lone pip's doubt then leaves unclear
# (a dark die with a red pip on the train photos, boxed at 0.67 of the others, read as a sure 1 at 1.2-1.5 times its
# box). Battery, against the reads at its own sizes alone (these figures, and those above, before the two bars
# above: their cost is said there): other photos, d6 trays, d6 throws, felt throws, marbled
# d6 and a cut tray's whole die +1 each (five 1s and a 3), every other set die for die as before. Judged on fresh
# ranges no choice was made on: felt throws 5,384,000+ +1 (a 3) and 5,382,000+ as before, Excape 5,388,000+ +1 (an
# X), d6 5,386,000+, Excape throws 5,395,000+ (1,000 each), marbled d6 5,394,000+ (300) and 600 trays each of hand,
# stacked, cocked and blurred dice (5,390,000+ to 5,393,000+) as before. Read at their side instead of its own, one
# die of the fresh Excape trays above was lost (a 7 read alike at its own sizes): both are tried, its own first.
SMALL_AT_THEIR_SIZE = True
# A die still unclear is then read in boxes SMALLER_BOXES times its side (UNCLEAR_IN_SMALLER_BOXES), as a flat die
# seen tilted is (below), keeping its own box: a box that takes in a neighbour's side or a shadow. On the battery's
# unclear dice, 3 of 9 read sure in both (marbled Excape 2s and 3s). Battery, against the looks above alone: marbled
# d6 +1, marbled Excape +2, touching throws +1; 2 stacked trays' upper dice read right, the trays refused as before.
# Fresh ranges: touching throws 5,412,000+ (1,000) +1, hand 5,411,000+ (600) +1 die (its tray refused for another),
# stacked 5,409,000+ (600) an upper die read right, no tray more accepted; marbled d6 5,408,000+ and Excape
# 5,408,500+ (300 each), cocked 5,410,000+ and blurred 5,420,000+ (600 each), felt throws 5,414,000+, d6 5,416,000+ and
# Excape 5,418,000+ (1,000 each) as before.
UNCLEAR_IN_SMALLER_BOXES = True

# A die the face net sees tilted, that the lying-flat check finds flat (under TILTED_BUT_FLAT), is read again in
# boxes SMALLER_BOXES times its side (with_flat_dice_seen_tilted_read_in_smaller_boxes). Session 39: the battery's
# dice resting together (touching throws) lost 7 flat dice as cocked, 6 of them called tilted by the face net with
# the check at 0.00-0.19; on 200 cocked trays the 137 cocked dice the face net called tilted were at 0.76 or more to
# the check (132 at 1.00). Battery: touching throws +4 dice (4 throws more accepted), every other set die for die as
# before. Fresh ranges, with and without it: touching throws 5,396,000+ (1,000) +2; d6 5,402,000+ (1,000 trays), felt
# throws 5,404,000+ (1,000), Excape 5,406,000+ (1,000) and 600 trays each of cocked (5,398,000+, 5,399,000+) and hand
# dice (5,401,000+) as before; 600 stacked trays (5,400,000+) 2 upper dice of a pair read right, no tray more
# accepted. No read in a smaller box may be called cocked (the check, shown less of the die's outline, put a flat 3
# of the tests' felt throw 5,292,420 at 0.77 there, and the throw was refused where it had been read right), and the
# die keeps its own box and measures (its box kept at 0.8, a 2 beside a big 6 made the 6 look stacked beside the
# median die: 5,402,157).
TILTED_BUT_FLAT = 0.2
SMALLER_BOXES = (0.8, 0.9)


def with_unclear_dice_read_at_other_sizes(work: np.ndarray, dice: list[ReadDie], model: DieModel) -> list[ReadDie]:
    """The dice read, each die the classifier left unsure (not seen tilted, found flat by the lying-flat check under
    UNCLEAR_FLAT, not read as an X, whole in view) replaced by the same die read in a box OTHER_SIZES_APART smaller
    and one as much bigger (same centre and turn), when both read the same face, sure, at REBOXED_SURE or more,
    neither box overlapping another die beyond REBOXED_OVERLAP: the read at the surer of the two.

    A box a little off a die's size shows the classifier a crop it reads less surely than the crops it learned; one
    box is an unlucky crop when the boxes either side of it agree. Both must agree, each read through every check a
    die goes through (the lying-flat check, a lone pip read as a 1), so a die unclear at every size stays unclear.
    A die boxed under REBOXED_SMALLEST of the other dice's side is then read so at their side (SMALL_AT_THEIR_SIZE),
    and a die still unclear in boxes SMALLER_BOXES times its side (UNCLEAR_IN_SMALLER_BOXES: a smaller box leaves out
    a neighbour's side; the die keeps its own box and measures, as in
    with_flat_dice_seen_tilted_read_in_smaller_boxes). Its cost: two to six reads for each such die only (none on the
    bench's d6 speed frames)."""
    if OTHER_SIZES_APART <= 0:
        return dice
    kept = list(dice)
    for k, die in enumerate(dice):
        c = die.candidate
        if (die.guess.sure or die.guess.appearance in (None, *UNCLEAR_NOT_READ_AGAIN) or die.guess.tilted
                or c.touches_edge or c.faint or die.not_flat >= UNCLEAR_FLAT):
            continue
        others = [d.candidate for j, d in enumerate(kept) if j != k]
        usual = others_side([d.candidate for d in kept], k)
        sides = [c.side]
        if SMALL_AT_THEIR_SIZE and usual is not None and c.side < REBOXED_SMALLEST * usual:
            sides.append(usual)
        for side in sides:
            agreed = _read_alike(work, c, [side * (1 - OTHER_SIZES_APART), side * (1 + OTHER_SIZES_APART)], model,
                                 others)
            if agreed is not None:
                kept[k] = agreed
                break
        else:
            # Unclear at every size around its own: a smaller box may leave out a neighbour's side or a shadow.
            if UNCLEAR_IN_SMALLER_BOXES:
                kept[k] = _read_in_smaller_boxes(work, die, model, others) or die
    return kept


def with_flat_dice_seen_tilted_read_in_smaller_boxes(work: np.ndarray, dice: list[ReadDie], model: DieModel
                                                     ) -> list[ReadDie]:
    """The dice read, each die the face net sees tilted that the lying-flat check finds flat (under TILTED_BUT_FLAT),
    whole in view, replaced by the same die read in boxes SMALLER_BOXES times its side (same centre and turn), when
    they all read the same face, sure, at REBOXED_SURE or more, none called cocked: the surest read's face, the die
    keeping its own box and measures.

    A flat die resting against another shows the face net, in its box, the other die's side, which it takes for a
    lean of its own; a smaller box leaves it out. Each read goes through every check a die goes through, the
    lying-flat check included, so a die the check calls cocked in the smaller box is not taken."""
    kept = list(dice)
    for k, die in enumerate(dice):
        c = die.candidate
        if not die.guess.tilted or die.not_flat >= TILTED_BUT_FLAT or c.touches_edge or c.faint:
            continue
        others = [d.candidate for j, d in enumerate(kept) if j != k]
        kept[k] = _read_in_smaller_boxes(work, die, model, others) or die
    return kept


def _read_in_smaller_boxes(work: np.ndarray, die: ReadDie, model: DieModel, others: list[LocatedDie]
                           ) -> ReadDie | None:
    """The die with the face its boxes SMALLER_BOXES times its side read alike (_read_alike), None when they do not.
    Boxes smaller than the die's own overlap its neighbours less than it did: no bar on that here. The die keeps its
    box and measures: a smaller box is where it is read, not how big it is (beside the others' sides, a die's side
    tells a stacked pair's box: fresh d6 tray 5,402,157's big 6 was called stacked when a 2 beside it was kept at 0.8
    of its box)."""
    c = die.candidate
    agreed = _read_alike(work, c, [c.side * f for f in SMALLER_BOXES], model, others, apart=False)
    return None if agreed is None else replace(die, guess=agreed.guess)


def _read_alike(work: np.ndarray, die: LocatedDie, sides: list[float], model: DieModel, others: list[LocatedDie],
                apart: bool = True) -> ReadDie | None:
    """The die read in a box of each of the `sides` (its centre and turn), each read beside the `others`, when all
    read the same face, sure, at REBOXED_SURE or more, none called cocked by the lying-flat check (and, when
    `apart`, none overlapping another die beyond REBOXED_OVERLAP): the surest read; None otherwise."""
    boxes = [replace(die, rect=(die.rect[0], (side, side), die.rect[2])) for side in sides]
    reads = [read_dice(work, [box], model, beside=others) for box in boxes]
    if all(len(r) == 1 and r[0].guess.sure and r[0].guess.confidence >= REBOXED_SURE and r[0].not_flat < NOT_FLAT and
           (not apart or all(rect_overlap(r[0].candidate, o) <= REBOXED_OVERLAP for o in others)) for r in reads) and \
            len({r[0].guess.appearance for r in reads}) == 1:
        return max((r[0] for r in reads), key=lambda d: d.guess.confidence)
    return None


# A faint die the first look left out for lying near a die it saw clearly (vision.locate.FAINT_APART: a second peak on
# that die, as a rule) is looked at again once the dice are read, where no die was read
# (with_faint_dice_beside_the_others). Session 39: on the train split's photos, four dice wedged between others were
# missed so, each a faint spot read as a sure face (a marbled 1, a 2, a 3, a 4); with no count their photos were
# accepted without them. Battery: held-out and other photos +1 die each (the 4 overlaps a die read by 0.24, beyond
# FOUND_OVERLAP; the 3 is boxed at 0.76 of the dice's side, under REBOXED_SMALLEST), every virtual set die for die
# as before. Fresh ranges, with and without it: d6 5,366,000+ (1,000 trays) +1, felt
# throws 5,370,000+ (1,000) lost a 2 boxed too big by a faint spot and called cocked (the second locator, asked for
# the throw short, had boxed it whole: a die the check calls cocked is not taken since), Excape 5,368,000+, touching
# throws 5,376,000+, marbled d6 5,375,000+ and 600 trays each of hand, stacked and cocked dice (5,372,000+,
# 5,373,000+, 5,374,000+) as before. Judged after that bar, on ranges no choice was made on: felt throws 5,378,000+
# (1,000) +3 dice (dark 2s beside the other die), d6 5,380,000+ as before. It costs ~0.1 quick-net crops a bench
# speed frame.
FAINT_SPOTS_LOOKED_AGAIN = True


def with_faint_dice_beside_the_others(work: np.ndarray, left_out: list[LocatedDie], dice: list[ReadDie],
                                      model: DieModel) -> list[ReadDie]:
    """The dice read, with each faint die the first look left out for lying near a die it saw clearly (`left_out`:
    vision.locate.find_dice_and_faint_left_out), where no die was read: read as a sure face at REBOXED_SURE or more,
    whole in the frame, at REBOXED_SMALLEST of the dice's side or more, overlapping no die read beyond FOUND_OVERLAP
    (the bars of a die the second locator finds with no count), and not called cocked by the lying-flat check (a
    faint spot's box may be too big for its die: a throw short of it is still looked over by the second locator)."""
    if not FAINT_SPOTS_LOOKED_AGAIN or not left_out:
        return dice
    usual = clear_side([d.candidate for d in dice if d.guess.sure])
    if usual is None:
        return dice
    kept = [d.candidate for d in dice]
    new = [c for c in left_out if c.side >= REBOXED_SMALLEST * usual
           and not any(in_square(c.rect[0], k.rect) or in_square(k.rect[0], c.rect) for k in kept)
           and all(rect_overlap(c, k) <= FOUND_OVERLAP for k in kept)]
    found = [d for d in read_dice(work, new, model, beside=kept) if d.guess.sure and d.guess.confidence >= REBOXED_SURE
             and d.guess.appearance is not None and not d.candidate.touches_edge and d.not_flat < NOT_FLAT]
    return _joined(dice, found, FOUND_OVERLAP)


def with_overlapping_boxes_seen_as_one(work: np.ndarray, dice: list[ReadDie], model: DieModel) -> list[ReadDie]:
    """The dice read, each two that overlap as stacked dice do (OVERLAP_FRACTION) replaced by one die, when the
    second locator, reading a window around the bigger one (second_look_around), boxes a die that holds both their
    centres, is no smaller than REBOXED_SMALLEST and no bigger than STACKED_SIZE_RATIO of the other dice's side, and
    reads as a sure face at REBOXED_SURE or more, whole inside the frame, overlapping no other die beyond
    REBOXED_OVERLAP.

    A dark die on dark felt, or a marbled one, is often boxed twice by the locator, each box on a part of it (two
    pips of a 2, the two halves of a 6), and the two boxes, overlapping, were called a stacked pair: on d6 and Excape
    tuning trays 2,800,000+ and 2,810,000+, 5 of the 14 dice not read right but found. The whole die is no pair. A
    stacked pair is: the box holding both is as big as two dice (STACKED_SIZE_RATIO), or reads as no sure face.
    Chosen there (+3 and +2 dice read right); then judged on the battery (black pairs on felt +4, two-dice throws +1
    each; the photos and 200 trays of each hazard read as before, stacked ones too) and on fresh ranges (d6
    2,950,000+ +1, Excape 2,960,000+ +2, felt throws 3,290,000+ +4; no die newly read wrong anywhere). It costs a
    window and a read for each overlapping pair only."""
    pairs = overlapping_pairs([d.candidate for d in dice])
    kept = list(dice)
    gone: set[int] = set()
    for i, j in pairs:
        if i in gone or j in gone:
            continue
        a, b = dice[i].candidate, dice[j].candidate
        rest = [d.candidate for k, d in enumerate(kept) if k not in (i, j) and k not in gone]
        usual = clear_side(rest)
        if usual is None:
            continue
        bigger = a if a.side >= b.side else b
        boxes = [c for c in second_look_around(work, bigger) if in_square(a.rect[0], c.rect) and
                 in_square(b.rect[0], c.rect) and c.side >= REBOXED_SMALLEST * usual and
                 c.side <= STACKED_SIZE_RATIO * usual]
        best = _best_read_again(work, boxes, model, rest)
        if best is not None:
            kept[i] = best
            gone.add(j)
    return [d for k, d in enumerate(kept) if k not in gone]


def _best_read_again(work: np.ndarray, boxes: list[LocatedDie], model: DieModel, others: list[LocatedDie]
                     ) -> ReadDie | None:
    """Of a die's boxes from a second look, the one the locator is surest of among those that read as a sure face
    at REBOXED_SURE or more, whole inside the frame, overlapping none of the `others` beyond REBOXED_OVERLAP (read
    beside them: the checks comparing a die with the others see them); None when there is none."""
    found = [d for d in read_dice(work, boxes, model, beside=others) if
             d.guess.sure and d.guess.confidence >= REBOXED_SURE and d.guess.appearance is not None and
             not d.candidate.touches_edge and all(rect_overlap(d.candidate, o) <= REBOXED_OVERLAP for o in others)]
    return max(found, key=lambda d: d.candidate.probability) if found else None


def _boxed_amiss(die: ReadDie, usual: float) -> bool:
    """Whether a die read may owe its doubt to its box (the other dice's side `usual`): left unsure by the classifier
    inside the frame; at the frame's edge, boxed EDGE_BOX_TOO_BIG times them or more; read sure but called cocked by
    the lying-flat check, boxed under REBOXED_SMALLEST of them."""
    box = die.candidate
    if box.touches_edge:
        return box.side >= EDGE_BOX_TOO_BIG * usual
    if not die.guess.sure:
        return True
    return die.not_flat >= NOT_FLAT and box.side < REBOXED_SMALLEST * usual


def _boxed_otherwise(box: LocatedDie, die: LocatedDie) -> bool:
    """Whether a second box is the same die boxed otherwise: each holds the other's centre, and its centre is
    REBOX_SHIFT of the first box's side away or more, or its side is REBOX_SCALE times bigger or smaller."""
    if not (in_square(die.rect[0], box.rect) and in_square(box.rect[0], die.rect)):
        return False
    offset = np.hypot(box.rect[0][0] - die.rect[0][0], box.rect[0][1] - die.rect[0][1])
    return offset >= REBOX_SHIFT * die.side or not 1 / REBOX_SCALE < box.side / die.side < REBOX_SCALE


def with_dice_the_second_locator_finds(work: np.ndarray, tray: tuple[int, int, int, int] | None, dice: list[ReadDie],
                                       model: DieModel, count_known: bool = True, shadows_lifted: bool = False,
                                       thresholds: tuple[float, ...] = (PEAK_PROBABILITY,), thrown: int | None = None
                                       ) -> list[ReadDie]:
    """The dice read, with each die the second locator (vision.locate.second_locator) finds where none was read,
    when it reads as a sure face inside the frame and overlaps no die read: asked when fewer dice were found than
    were thrown, so a throw read whole reads as before, and for every frame whose dice thrown are not known
    (count_known False: `dice-companion read` without --expect), where a die missed cannot be told from a die not
    thrown.

    Without a count, a die it finds must pass the bars of a die boxed again (with_doubtful_dice_boxed_again): a side
    at least REBOXED_SMALLEST of the dice read sure (a frame with none is not looked at again), its face read at
    REBOXED_SURE or more, and an overlap with the dice read of FOUND_OVERLAP at most (with a count, none; at
    REBOXED_OVERLAP, a real die touching another was found on the train split's photos, +1 of 1,172, and no hazard
    tray read with no count otherwise; at FOUND_OVERLAP, 3 more). Its first finds (d6 tuning trays 2,800,000+,
    1,000, read with no count): 4,436 -> 4,445 of 4,462 dice right, nearly all of them dark 1s and 2s on dark felt
    that the locator gives no peak; no die newly read wrong there, on the battery's count-less sets (d6, Excape,
    marbled, photos: +3, +1, +1, 0) or on its hazard trays read with no count; on fresh ranges (d6 2,900,000+,
    Excape 2,910,000+) 4,372 -> 4,380 of 4,401 and 1,990 -> 1,992 of 2,000. It costs a count-less frame the second
    locator's run, ~1.5-2 ms (the table always knows the count), on dark frames and where the locator's map peaked
    beyond the dice read (_read_frame).

    Where none was read: its centre in no kept die's square, and no kept die's centre in its square (a spot the
    first look dropped, a pip it took for no die, does not count: that is where a dark die on felt is missed). The
    new dice are read beside the dice kept (not read again), so that the checks that compare a die with the others
    (a lone pip boxed small and read as a 1: doubted_ones) see them: read alone, one pip of a black 2 boxed by the
    second locator stood as a sure 1 (hazard tuning tray 3,000,192).

    Read expecting the dice thrown (in brackets: the reader before the second locator and its view around a small 1,
    LONE_PIP_AROUND): of 800 throws of two black dice on felt (seeds 3,200,000+), 1,515 (1,471) of 1,600 dice right
    and 722 (686) throws accepted, none with a die read wrong (from 3,210,000: 1,523 (1,480), 728 (692), one wrong
    both ways, a 4 read as a 2); of 1,000 two-dice throws of each model (3,220,000+, 3,230,000+), d6 1,994 (1,990)
    and Excape 1,993 (1,989) of 2,000 right; 1,000 tuning trays of each model (2,000,250+) 4,545 (4,542) of 4,559
    and 1,992 (1,991) of 2,000, a fresh range (2,200,000+) 4,498 (4,497) of 4,517 and 1,991 (1,990) of 2,000; the
    train split's photos as before; no tray with a cocked, stacked, cut or blurred die accepted (200 each), as
    before. Of 200 trays with a hand in them, 2 more dice were read sure and wrong, both partly under the hand (a 6
    showing three pips), neither in a tray accepted; at the table the motion tracker holds back a tray a hand rests
    in (vision.motion).

    shadows_lifted: look in the frame with its dark tones spread apart (SHADOWS_LIFTED), for a throw still short of
    dice after the look in the frame as it is, and instead of that look for a dark frame read with no count
    (DARK_FRAME); the dice found are read in the frame as it is, and must clear the bars of a die boxed again, as
    without a count. Chosen on 800 felt throws (seeds 3,310,000+: of 41 dice both looks missed, 27 were seen lifted,
    25 of them read right, none wrong); on the battery, felt throws (3,200,000+) 1,543 -> 1,556 of 1,600 dice right
    and 749 -> 762 throws accepted, every other set die for die as before (without the bars, a hand tray was
    accepted with the pip of a half-hidden 2 read as a 1); on 1,200 fresh felt throws (3,340,000+) 2,301 -> 2,319 of
    2,400 and 1,112 -> 1,130 accepted, none wrong; 200 fresh trays of each hazard as before but one die more found
    on the cocked trays. It costs only throws still short, ~1.5 ms.

    A throw short of dice with no die read sure (both dice missed, or the one found left unsure) has no die to measure
    the lifted look's finds against; until session 33 it was not looked at, and the throw was refused. Its finds are now
    measured die against die (_as_big_as_the_others): each must be boxed at REBOXED_SMALLEST of the biggest other die
    the looks see (a pip boxed alone is smaller than its die), and a lone find, with nothing to be measured against, is
    not taken (a black Excape 1 boxed with a side's pips, read as a sure 2). At a table that knows its dice
    (vision.dice_geometry.known_side, read_tray's die_side) they are measured against the side its earlier throws
    showed instead, and a lone find is taken when as big (session 34). thresholds: the centre probabilities a find
    needs, each looked at in turn, from the one run of the net, while fewer than the `thrown` dice are read (all of them
    when `thrown` is None); a throw still short after the lifted look is looked at once more there with FAINT_PEAK
    (read.py): of 65 dice still missed on 2,000 fresh felt throws (4,420,000+), 32 gave the lifted look no spot of
    PEAK_PROBABILITY, and looking at FAINT_PEAK at once, beside the dice the usual bar finds, lost 5 dice it had found
    (a fainter, bigger spot swallowing them). Chosen on felt throws 4,420,000+ and 4,430,000+ (2,000 each) and black
    Excape pairs on felt 4,450,000+ (1,000); judged on fresh ones (before -> after): felt 4,470,000+ 3,890 -> 3,910 of
    4,000 dice right, 1,901 -> 1,918 throws accepted, the 3 accepted wrong as before, and 4,500,000+ 3,887 -> 3,910,
    1,896 -> 1,912, the 1 as before; black Excape 4,480,000+ 1,917 -> 1,932 of 2,000, 936 -> 948 accepted, none wrong;
    d6 pairs on felt of any colour 4,510,000+ +1 die; 400 trays each of hands (4,440,000+), cocked (4,520,000+) and
    stacked (4,530,000+) dice +2, +1 and 0 dice, none newly wrong or accepted. On the battery's sets read with a count:
    felt throws 1,560 -> 1,569 of 1,600 (766 -> 773 accepted), Excape throws 1,993 -> 1,995, a hand and a stacked tray
    one die more each, nothing else otherwise. The faint look costs a read of the dice it finds, for a throw still short
    only.

    Its cost: the second locator's run over the whole frame, and a read of each die it finds where none was read."""
    # A die found with no count, or only in the frame with its shadows lifted, must clear a die boxed again's bars.
    boxed_again_bars = not count_known or shadows_lifted
    if not count_known and clear_side([d.candidate for d in dice if d.guess.sure]) is None:
        return dice         # with no count, nothing to measure the finds against
    seen_in = _with_shadows_lifted(work) if shadows_lifted else work
    seen = second_locator().maps(seen_in)
    for threshold in thresholds:
        dice = _with_finds(work, seen_in, seen, tray, dice, model, boxed_again_bars, threshold)
        if thrown is not None and len(dice) >= thrown:
            break
    return dice


def _with_finds(work: np.ndarray, seen_in: np.ndarray, seen: tuple[np.ndarray, float],
                tray: tuple[int, int, int, int] | None, dice: list[ReadDie], model: DieModel, boxed_again_bars: bool,
                threshold: float) -> list[ReadDie]:
    """One look of with_dice_the_second_locator_finds: the dice read, with the dice found in `seen_in` (the second
    locator's maps of it, `seen`) at `threshold`, on its bars."""
    usual = clear_side([d.candidate for d in dice if d.guess.sure]) if boxed_again_bars else None
    if boxed_again_bars and usual is None:
        usual = known_side()            # no die read sure: the side the table's earlier throws showed, if known
    # A throw short of dice with none read sure, at a table that does not know its dice yet, is measured die against
    # die (_as_big_as_the_others).
    measured_among_themselves = boxed_again_bars and usual is None
    kept_candidates = [d.candidate for d in dice]
    new = [c for c in find_dice(seen_in, tray, threshold=threshold, faint=None, net=second_locator(), seen=seen,
                                wanted=lambda centre: not any(in_square(centre, k.rect) for k in kept_candidates))
           if not any(in_square(k.rect[0], c.rect) for k in kept_candidates)]
    # A spot inside a bigger one of the second locator's is a part of that die (a pip): the bigger one is the die.
    new = [c for c in new if not any(o.side > c.side and in_square(c.rect[0], o.rect) for o in new)]
    if usual is not None:
        new = [c for c in new if c.side >= REBOXED_SMALLEST * usual]
    elif measured_among_themselves:
        new = [c for c in new if _as_big_as_the_others(c, [o for o in new if not o.faint] + kept_candidates)]
    if not new:
        return dice
    found = [d for d in read_dice(work, new, model, beside=kept_candidates) if
             d.guess.sure and d.guess.appearance is not None and not d.candidate.touches_edge and
             (not boxed_again_bars or d.guess.confidence >= REBOXED_SURE)]
    # With no count, a die joins touching its neighbours (a little overlap, FOUND_OVERLAP) but no more.
    return _joined(dice, found, FOUND_OVERLAP if boxed_again_bars else 0.0)


def _joined(dice: list[ReadDie], found: list[ReadDie], overlap: float) -> list[ReadDie]:
    """The dice read, then each die found, the one the locator is surest of first, that overlaps none of them (nor a
    find already joined) beyond `overlap`."""
    kept = list(dice)
    for die in sorted(found, key=lambda d: -d.candidate.probability):
        if all(rect_overlap(die.candidate, k.candidate) <= overlap for k in kept):
            kept.append(die)
    return kept


def _as_big_as_the_others(die: LocatedDie, others: list[LocatedDie]) -> bool:
    """Whether a die is boxed at least REBOXED_SMALLEST of the biggest of the other dice (itself among them or not),
    in a throw with no die read sure and seen clearly to measure it against: a pip boxed alone is smaller than its
    die, and a die with no other beside it has nothing to be measured against (a lone find, a 1 boxed with a side's
    pips, read as a 2)."""
    sides = [d.side for d in others if d is not die]
    return bool(sides) and die.side >= REBOXED_SMALLEST * max(sides)


@cache
def _shadows_lift_table() -> np.ndarray:
    """The byte table of SHADOWS_LIFTED (cv2.LUT), made once."""
    return np.round(255.0 * (np.arange(256) / 255.0) ** SHADOWS_LIFTED).astype(np.uint8)


def is_dark(work: np.ndarray, tray: tuple[int, int, int, int] | None = None) -> bool:
    """Whether a work frame, inside the tray region if given, is dark (DARK_FRAME), judged on every 4th pixel of
    every 4th row."""
    if tray is not None:
        x, y, w, h = tray
        work = work[y:y + h, x:x + w]
    return _median_byte(cv2.cvtColor(work[::4, ::4], cv2.COLOR_BGR2GRAY)) < DARK_FRAME


def _median_byte(grey: np.ndarray) -> float:
    """np.median of a uint8 image, from its histogram: the same value (the mean of the two middle values for an even
    count), without sorting ~20,000 bytes (np.median was ~2% of a bench speed frame)."""
    count = grey.size
    if count == 0:
        return float("nan")
    cumulative = np.cumsum(cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel().astype(np.int64))
    low, high = np.searchsorted(cumulative, [(count - 1) // 2 + 1, count // 2 + 1])
    return (float(low) + float(high)) / 2


def _with_shadows_lifted(work: np.ndarray) -> np.ndarray:
    """The work frame with its dark tones spread apart (SHADOWS_LIFTED), for the second locator's look at dark
    dice."""
    return cv2.LUT(work, _shadows_lift_table())


# A die left unsure after every look, that the lying-flat check finds likely flat (LYING_FLAT to LIKELY_FLAT), is read
# again with the face net's "tilted" left out, and kept when its face is then read at LIKELY_FLAT_SURE or more, the
# bar of any second chance (REBOXED_SURE). A flat die seen in perspective, or beside a die whose side shows, is
# "tilted" to the face net while the check gives it 0.01-0.1 (session 38). Not in read_dice, beside the check's sure
# bar (LYING_FLAT): read there, a true 1 boxed small was read sure at once, never boxed again at its whole side, and
# the 2 beside it, whose pip was read as a 1, was no longer doubted against it (felt throw 5,180,413, a Mexx nobody
# threw). Once every look is done, a die read again is read beside the others. Against the code before: the battery's
# other train-split photos +2 dice (two flat dice called cocked), felt throws +2, Excape and touching throws +1 each,
# the rest die for die but 13 more stacked dice read sure (2 wrong; every such tray refused, as before); fresh ranges
# felt throws 5,292,000+ (2,000) +5, d6 5,294,000+ (1,000 trays) +1, cocked trays 5,322,000+ (2,000) +1 flat die and
# no tray more accepted, Excape 5,324,000+ (2,000) and hand trays 5,330,000+ (600) die for die, stacked trays
# 5,332,000+ (600) no tray more accepted (7 more stacked dice read sure and wrong). With no bar on the new face, a
# marbled 1 beside a white 4 (fresh d6 5,294,119) was read as a 2 at 0.68, its crop taking in the neighbour's pip.
LIKELY_FLAT = 0.1
LIKELY_FLAT_SURE = 0.8


def with_likely_flat_dice_read_again(work: np.ndarray, dice: list[ReadDie], model: DieModel) -> list[ReadDie]:
    """The dice read, each die still unsure whole inside the frame that the lying-flat check finds likely flat
    (LIKELY_FLAT) replaced by the same die read again beside the others, the face net's "tilted" left out, when its
    face is then read at LIKELY_FLAT_SURE or more (through every check a die read goes through)."""
    kept = list(dice)
    for k, die in enumerate(dice):
        c = die.candidate
        if (die.guess.sure or die.guess.appearance is None or c.touches_edge or c.faint
                or not LYING_FLAT <= die.not_flat < LIKELY_FLAT):
            continue
        others = [d.candidate for j, d in enumerate(kept) if j != k]
        again = read_dice(work, [c], model, beside=others, lying_flat=LIKELY_FLAT, sure_from=LIKELY_FLAT_SURE)
        if again and again[0].guess.sure and again[0].guess.confidence >= LIKELY_FLAT_SURE:
            kept[k] = again[0]
    return kept
