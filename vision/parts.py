"""A die seen in parts, and parts seen as dice: a big die the usual look saw only in pieces (found with the frame
shrunk), a dark die seen only by its pips (read again in a box grown around them), and the boxes that are a part of
a die read sure, that die seen twice, or one box over a cluster of dice, dropped."""

from __future__ import annotations

from statistics import median

import numpy as np

from vision.dice_geometry import OVERLAP_FRACTION, STACKED_SIZE_RATIO, in_square, rect_overlap
from vision.face_checks import LONE_PIP_OTHER_FACE, cut, other_face_probability
from vision.locate import LocatedDie, Spot, find_big_spots, located_dice
from vision.models import DieModel
from vision.read_dice import ReadDie, read_dice
from vision.recognise import face_net_for

# A die found again with the frame shrunk (vision.locate.find_big_spots) is a die the usual look missed, or saw only
# in parts (a dark die's pips, read as 1s or as no die), when every spot of the usual look inside it is at most
# PART_OF_BIG_DIE as big, and nothing else in doubt lies within BIG_APART of its sides from its centre: a spot
# there may be another part of it (the second pip of a big dark 2, whose first one the big spot sat on, read as a
# sure 1: 5 of 240 dice on 60 trays of big black 1s and 2s on dark felt at 1.2 -> 0), and two big spots side by
# side are such parts seen bigger. On the tuning sets (seeds 2,000,000+) it found 4 more of 1,184 virtual d6 dice
# (4 more read right) and 1 more of 500 Excape dice (2 more read right: one had been read unsure in parts), no
# hazard tray read otherwise; the parts were 0.48-0.67 of the big die, and at 0.6 one d6 and both Excape dice were
# lost. On those 60 trays of big dark dice, 45 -> 105 of 240 dice read right (111 without SAME_DIE_CENTRED).
PART_OF_BIG_DIE = 0.7
BIG_APART = 1.2

# A spot of the usual look within this much of the big die's side from its centre, and more than this part of its
# side, is the same die, the big box too big for it: read in that box, a marbled 3 the usual look left unsure was
# read as a sure 2 (Excape tuning tray 2,001,075). The parts seen were the pip of a 1 (centred, 0.49 of the side) or
# off the centre (0.25-0.47 of the side away).
# That holds only for a spot read as a die (a face, sure or not): a spot the classifier took for no die is never
# the die found whole (_in_place_of_parts). On 300 trays of two black dice on a dark tray (seeds 3,212,000+), 9 -> 6
# black 1s not found, and 15 -> 14 on the next 300; 1,000 virtual tuning trays of each model: 1 more d6 and 2 more
# Excape dice found and read right; the photos and 200 trays of each hazard (the hand's too) read as before.
SAME_DIE_CENTRED = (0.2, 0.6)

# A clear spot the classifier took for no die, at most PIP_SIZED of the median side of the dice read sure, may be the
# pip of a dark die whose body the locator hardly sees (a black 1 or 2 on dark felt): it is read again in a box
# GROWN_DIE times its own (with_grown_dice). On the tuning sets (seeds 2,000,000+) it found 2 more of 1,184 virtual
# d6 dice and 1 more of 500 Excape dice, then 4 more of 4,559 d6 dice and 2 more of 3,500 Excape dice on the next
# 1,000-1,750 trays; the held-out and other train-split photos and the hazard trays read exactly as before. On 120
# trays of black dice on felt (sides 50-80 px, mostly 1s and 2s; seeds 3,100,000+) 239 -> 290 of 480 dice read
# right, none wrong. Found there and on the tuning trays: without _part_of's rule (inside the grown box, a die-sized
# spot is no part of it) a black 2 read unsure was replaced by a sure 1 grown from one of its pips; a grown box
# overlapping a die read sure was that die again (Excape tuning tray 2,000,242: the 2 read twice).
PIP_SIZED = 0.7
GROWN_DIE = 2.0

# A die so grown is kept only if, cut GROWN_SEEN_WIDER times its side, it shows no other face of its model at least
# LONE_PIP_OTHER_FACE probable (_read_the_same_wider): the grown box is a guess at the die's size from a pip's. A
# black 3 on felt, boxed by its middle pip and grown to a box a little small for it, its corner pip half out of view,
# was read as a sure 2 in a throw accepted (felt throw 3,300,153; cut 1.5 times as wide, a 3 at 0.96; dropped, the
# 3 is found by the second locator and read right). That throw is the one the rule was made on. On 15 other sets no
# die was read otherwise: the photos; 1,000 d6 trays from 2,400,000 and 1,000 Excape trays from 2,410,000; 300
# marbled trays of each model; 1,300 felt throws from 3,200,000 and 3,270,000; 200 trays each with a stacked, cocked,
# cut or blurred die or a hand; 1,000 two-dice throws of each model. What it is worth on new data is unmeasured,
# beyond doing no harm there.
GROWN_SEEN_WIDER = 1.5

# Two such spots near each other (their centres within PAIR_REACH of the bigger one's box) are the two pips of one
# dark die (a 2, the corners of a 3) rather than two dice: the die is read once, at their midpoint, in a box
# PAIR_BOX times their distance apart (at least GROWN_DIE times a spot's box), and neither spot is grown alone
# (each one's grown box, off the die's centre, cut its other pip). On the 120 trays of black dice on felt above
# (seeds 3,100,000+), 243 -> 293 of 480 dice read right, the same 1 wrong; on 1,000 virtual tuning trays of each
# model (seeds 2,000,250+) 2 more of 4,559 d6 and 1 more of 2,000 Excape dice read right, none wrong; the held-out and
# other train-split photos and the hazard trays (cocked, stacked, blurred, hand) read as before. A box of 1.4 or 1.8
# times the distance read 289 and 283 of the 480 right; a reach of 2.5, 290.
PAIR_REACH = 2.0
PAIR_BOX = 1.6

# A die not read sure, at most PART_SIDE of a sure die's side and at least PART_INSIDE of it inside that die, is a
# part of it, not a die (without_parts_of_sure_dice).
PART_SIDE = 0.9
PART_INSIDE = 0.4

# A die read as a sure face is no die of its own either when it reads the same face as a bigger die read sure that it
# overlaps at least SEEN_TWICE (the locator peaked twice on one die), or when it is at most SURE_PART_SIDE of a bigger
# die read sure and at least SURE_PART_INSIDE inside it (a pip boxed apart and read as a 1, a corner of a 6 read as a
# 3): the die was called stacked. On 600 fresh virtual d6 trays (seeds 2,200,000+) 5 of the 18 dice not read right
# were such pairs (overlaps 0.72-1.0; parts 0.48-0.67 of the die's side), each now read right; so were 1 of 4,559 d6
# and 1 of 2,000 Excape dice on 1,000 tuning trays of each model, 1 and 2 dice of 1,000 two-dice throws of each model,
# 1 of 800 felt throws and 4 of 300 marbled d6 trays. The photos and 200 trays of each hazard read as before: on 200
# stacked trays no pair of dice read sure overlaps like that (a stacked pair's upper die is the bigger, and the lower
# one, mostly hidden, shows another face or none). With a part 0.8 inside, 3 of those dice stayed stacked.
SURE_PART_SIDE = 0.8
SURE_PART_INSIDE = 0.7
SEEN_TWICE = 0.7

# A box not read as a sure face is also a cluster's box (without_cluster_boxes) when its upright box holds the centres
# of two dice read sure whose boxes cover at least CLUSTER_COVERED of it: two dice touching corner to corner, one
# centre outside the box's die square (session 31: two pairs of touching black dice called stacked on black d6
# trays 4,380,000+ and 4,381,000+, their boxes covered 0.88 and 0.57). Covered less, the box holds more than those
# dice: a third die the locator did not find lay under one such box there (covered 0.40), and its tray, read with no
# count, would have been accepted without it. Rare: on 3,100 fresh trays (black d6 and Excape, felt throws, plain and
# marbled d6, stacked and hand hazards; 4,384,000-4,389,699) one box came to the test (0.75), its tray read alike.
CLUSTER_COVERED = 0.5


def without_cluster_boxes(dice: list[ReadDie]) -> list[ReadDie]:
    """The dice, less any not read as a sure face whose square holds the centres of two dice read sure (or whose box
    holds them and is half covered by theirs, CLUSTER_COVERED): the locator put one box over a cluster of dice, the
    classifier took it for a die it cannot read, and the dice in it, read sure, would otherwise be called stacked for
    overlapping it (on the train split's photos outside the held-out ones, 2 more of 1,172 dice read right; the
    held-out photos, tuning and hazard trays read as before).

    A box at the frame's edge the classifier is sure holds no die is such a box too (kept until now as a die the
    frame may cut, vision.read_dice.counts_as_die): a sure "none" is not a sure face. Two 4s side by side at the top of
    d6 tuning tray 2,000,997, under one such box, were called stacked."""
    def sure_face(die: ReadDie) -> bool:
        return die.guess.sure and die.guess.appearance is not None

    sure = [d.candidate for d in dice if sure_face(d)]

    def spans_sure_dice(die: ReadDie) -> bool:
        if sum(in_square(s.rect[0], die.candidate.rect) for s in sure) >= 2:
            return True
        held = [s for s in sure if _holds(die.candidate.box, s.rect[0])]
        return len(held) >= 2 and _covered(die.candidate.box, [s.box for s in held]) >= CLUSTER_COVERED

    return [d for d in dice if sure_face(d) or not spans_sure_dice(d)]


def _holds(box: tuple[int, int, int, int], point: tuple[float, float]) -> bool:
    return box[0] <= point[0] <= box[0] + box[2] and box[1] <= point[1] <= box[1] + box[3]


def _covered(box: tuple[int, int, int, int], others: list[tuple[int, int, int, int]]) -> float:
    """How much of `box` the `others` boxes cover together (0..1)."""
    x, y, w, h = box
    covered = np.zeros((max(h, 1), max(w, 1)), bool)
    for ox, oy, ow, oh in others:
        covered[max(oy - y, 0):max(oy + oh - y, 0), max(ox - x, 0):max(ox + ow - x, 0)] = True
    return float(covered.mean())


def without_parts_of_sure_dice(dice: list[ReadDie]) -> list[ReadDie]:
    """The dice, less any not read as a sure face that is smaller than a die read sure (PART_SIDE) and lies mostly
    inside it (PART_INSIDE): the locator boxed a pip or two of that die apart, the classifier could not read the
    part, and the die, read sure, would otherwise be called stacked for overlapping it. Less, too, a die read as a sure
    face that is a part of a bigger one read sure, or that die seen again (_seen_again).

    A stacked pair's lower die, mostly hidden, can look the same; its tray is then refused by the count (one die
    fewer than rolled), as are the many stacked trays whose lower die the locator does not find at all. On 1,000
    virtual d6 tuning trays (seeds 2,000,250+) 5 more of 4,559 dice were read right (the rule at 0.6 of the part
    inside and 0.85 of the side: 4); the Excape ones, the held-out and other train-split photos, 550 trays with a
    stacked pair and 200 with a cocked die read as before."""
    sure = [d for d in dice if d.guess.sure]
    # Of the dice read as a sure face, the bigger first: of a die and a part of it, or one die seen twice, the bigger
    # box is kept (it covers the die with its sides, as the labels box dice).
    kept: list[ReadDie] = []
    for die in sorted((d for d in sure if d.guess.appearance is not None), key=lambda d: -d.candidate.side):
        if not any(_seen_again(die, k) for k in kept):
            kept.append(die)
    kept_ids = {id(k) for k in kept}

    def keeps(die: ReadDie) -> bool:
        if die.guess.sure:
            return die.guess.appearance is None or id(die) in kept_ids
        return not any(die.candidate.side <= PART_SIDE * s.candidate.side and
                       rect_overlap(die.candidate, s.candidate) >= PART_INSIDE for s in sure)

    return [d for d in dice if keeps(d)]


def _seen_again(die: ReadDie, bigger: ReadDie) -> bool:
    """Whether a die read sure is a part of a bigger die read sure, or that die seen again (SURE_PART_SIDE,
    SEEN_TWICE)."""
    overlap = rect_overlap(die.candidate, bigger.candidate)
    if die.guess.appearance == bigger.guess.appearance and overlap >= SEEN_TWICE:
        return True
    return die.candidate.side <= SURE_PART_SIDE * bigger.candidate.side and overlap >= SURE_PART_INSIDE


def _part_of(spot: LocatedDie, big: LocatedDie) -> bool:
    """Whether a spot of the usual look may be a part of a big die seen with the frame shrunk, not the same die in
    a box too big for it (SAME_DIE_CENTRED)."""
    offset = np.hypot(spot.rect[0][0] - big.rect[0][0], spot.rect[0][1] - big.rect[0][1])
    limit = PART_OF_BIG_DIE if offset >= SAME_DIE_CENTRED[0] * big.side else SAME_DIE_CENTRED[1]
    return spot.side <= limit * big.side


def with_big_dice(work: np.ndarray, tray: tuple[int, int, int, int] | None, located: list[LocatedDie],
                  dice: list[ReadDie], model: DieModel) -> list[ReadDie]:
    """The dice read, with the big dice the frame shrunk shows (vision.locate.find_big_spots) in place of the spots
    the usual look saw inside them (_in_place_of_parts says when)."""
    sure = {d.candidate for d in dice if d.guess.sure}
    # The clear spots not read as a sure face (faint ones left unread are most often nothing: felt, a shadow).
    doubtful = [c for c in located if not c.faint and c not in sure]
    if not doubtful:
        return dice
    # Only the big spots over a doubtful one are squared up (a few, not every die of the frame again).
    spots = [s for s in find_big_spots(work, tray) if any(
        in_square(c.rect[0], (s.centre, (s.box_side, s.box_side), 0.0)) for c in doubtful)]
    return _in_place_of_parts(work, located, dice, model, located_dice(work, spots, tray))


def with_grown_dice(work: np.ndarray, tray: tuple[int, int, int, int] | None, located: list[LocatedDie],
                    dice: list[ReadDie], model: DieModel) -> list[ReadDie]:
    """The dice read, with a die GROWN_DIE times the box of a clear spot the classifier took for no die, when that
    spot is much smaller than the dice read sure (PIP_SIZED): the pip of a dark die with one or two pips on dark
    felt, whose body the locator hardly sees (a black 1 on green felt; neither look finds its outline), read again
    in a box the die's size around it; two such spots near each other, in one box between them (a black 2:
    grown_spots). _in_place_of_parts says when a die so read is kept."""
    sure = [d.candidate for d in dice if d.guess.sure]
    if not sure:
        return dice
    median_side = float(median([c.side for c in sure]))
    kept = {d.candidate for d in dice}
    dropped = [c for c in located if not c.faint and c not in kept and c.side <= PIP_SIZED * median_side
               and not any(in_square(c.rect[0], s.rect) for s in sure)]
    if not dropped:
        return dice
    spots = grown_spots(dropped)
    # A grown box over a die read sure is that die's side or pip, seen apart (the locator's box for the die a
    # little small or off its centre): the same die again.
    grown = [g for g in located_dice(work, spots, tray) if not any(rect_overlap(g, s) > 0 for s in sure)]
    return _in_place_of_parts(work, located, dice, model, grown, seen_wider=True)


def grown_spots(dropped: list[LocatedDie]) -> list[Spot]:
    """Where to read pip-sized spots again, and in how big a box: each pair near each other (PAIR_REACH) as one die
    between them (PAIR_BOX), each spot in no such pair on its own (GROWN_DIE)."""
    spots: list[Spot] = []
    paired: set[LocatedDie] = set()
    for i, a in enumerate(dropped):
        for b in dropped[i + 1:]:
            size = max(*a.box[2:], *b.box[2:])
            (ax, ay), (bx, by) = a.rect[0], b.rect[0]
            apart = float(np.hypot(ax - bx, ay - by))
            if apart <= PAIR_REACH * size:
                spots.append(Spot(((ax + bx) / 2, (ay + by) / 2), max(GROWN_DIE * size, PAIR_BOX * apart),
                                  min(a.probability, b.probability)))
                paired.update((a, b))
    return spots + [Spot(c.rect[0], GROWN_DIE * max(c.box[2:]), c.probability) for c in dropped if c not in paired]


def _in_place_of_parts(work: np.ndarray, located: list[LocatedDie], dice: list[ReadDie], model: DieModel,
                       candidates: list[LocatedDie], seen_wider: bool = False) -> list[ReadDie]:
    """The dice read, with each candidate die found by a second look (a big die, a grown one) in place of the spots
    of the usual look inside it, when:
    - each of those spots is a part of it (_part_of: much smaller, not the same die found whole), or a spot the
      classifier took for no die, and none was read as a sure face;
    - nothing else in doubt lies near it (BIG_APART);
    - it is no bigger beside the other dice read sure than a stacked pair would be (STACKED_SIZE_RATIO);
    - it reads as a sure face, inside the frame (a hand at the frame's edge, seen smaller, can look like a die cut by
      it), and does not overlap a die kept."""
    sure = {d.candidate for d in dice if d.guess.sure}
    # A spot the classifier took for no die is no die found whole, whatever its size: the box the locator gives a
    # black 1 on a dark tray is often ~0.7 of the die, around its pip, and read as no die; the big look finds the
    # die whole, read as a sure 1 (SAME_DIE_CENTRED would call it that spot again).
    read_as_dice = {d.candidate for d in dice}
    doubtful = [c for c in located if not c.faint and c not in sure]
    parts: dict[LocatedDie, list[LocatedDie]] = {}
    for big in candidates:
        inside = [c for c in located if in_square(c.rect[0], (big.rect[0], (big.side, big.side), 0.0))]
        others = [c.side for c in sure if c not in inside]
        if inside and all((_part_of(c, big) or c not in read_as_dice) and c not in sure for c in inside) and (
                not others or big.side <= STACKED_SIZE_RATIO * float(median(others))):
            parts[big] = inside
    parts = {big: inside for big, inside in parts.items() if not any(
        other is not big and other not in inside and
        np.hypot(other.rect[0][0] - big.rect[0][0], other.rect[0][1] - big.rect[0][1]) < BIG_APART * big.side
        for other in [*doubtful, *parts])}
    if not parts:
        return dice
    found = [d for d in read_dice(work, list(parts), model) if d.guess.sure and not d.candidate.touches_edge]
    if seen_wider and found:
        found = [d for d, keeps in zip(found, _read_the_same_wider(work, found, model), strict=True) if keeps]
    found.sort(key=lambda d: -d.candidate.probability)
    kept = list(dice)
    for big in found:
        others = [d for d in kept if d.candidate not in parts[big.candidate]]
        if all(rect_overlap(big.candidate, d.candidate) <= OVERLAP_FRACTION for d in others):
            kept = [*others, big]
    return kept


def _read_the_same_wider(work: np.ndarray, dice: list[ReadDie], model: DieModel) -> list[bool]:
    """For each die read as a sure face, whether it shows no other face of its model, LONE_PIP_OTHER_FACE or more
    probable, cut GROWN_SEEN_WIDER times its side (all the dice in one read)."""
    crops = cut(work, [d.candidate for d in dice], GROWN_SEEN_WIDER)
    other = other_face_probability(face_net_for(model), crops, model, [d.guess.appearance for d in dice])
    return [bool(p < LONE_PIP_OTHER_FACE) for p in other]
