"""Reading located dice: each die's crop read by the classifier and confirmed (vision.recognise), its face checked
(vision.face_checks), its blur and its lean measured (vision.blur, vision.flat); and the verdict on each die read:
sure, or why not (cut by the frame's edge, stacked, blurred, cocked, unclear)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.blur import SYMBOL_SIZE, blurred, edge_measures, symbol_isotropy
from vision.dice_geometry import STACKED_SIZE_RATIO
from vision.face_checks import (
    cut,
    doubted_ones,
    doubted_parts,
    judged_lying_flat,
    lying_still,
    made_unsure,
    with_colourful_faces_read_finely,
    with_faces_cross_checked,
    with_fine_faces_checked,
    with_middle_pips_judged,
    with_twos_middles_judged,
)
from vision.flat import NOT_FLAT, not_flat
from vision.locate import LocatedDie
from vision.models import DieModel
from vision.recognise import (
    CLOSER_LOOK_MARGIN,
    TEMPLATE_SIZE,
    FaceGuess,
    confirm,
    crop_die,
    face_net_for,
    face_template_sets,
    foreign_faces,
    guesses,
    look,
    square_up_many,
)

CUT_NOT_A_DIE = 0.97        # a die at the frame edge is kept as a cut die unless "none" is at least this probable
TILTED_STACK_RATIO = 1.2    # a die seen tilted, this much larger than the median: stacked

# A die read as a sure X (Excape's cross) below CROSS_SURE is unsure: blur and a hand make strokes, and on fresh hazard
# trays (seeds 3,003,600+ and 3,004,700+, 200 each) a smeared white 2, its two pips two streaks, was read as an X at
# p 0.78 and half of a 6 under a hand at 0.76, each in a throw accepted. Of 842 flat X dice read sure on the tuning
# sets (1,000 Excape trays, 1,000 two-dice throws, 300 marbled trays, the hazard trays' other dice), one was below
# 0.8 (0.77); of the hazard dice read as a sure X, 7 of 21 were (0.66-0.79).
CROSS_SURE = 0.8

# ... and a die read as an X whose symbol's edges do not run every way (vision.blur.symbol_isotropy under
# CROSS_ISOTROPY) is called blurred: an X's two strokes cross at right angles, a smear runs one way. On a fresh range
# of trays with a blurred die (3,010,000+, 200) three were accepted with the smeared die read as an X at p 0.87-0.93.
# The bar was first on the die's whole-crop isotropy (the blur check's, outline and sides included, 0.65); on 2,000
# Excape tuning trays (2,993,000+, 2,999,000+) it called 4 of 775 flat X dice read at p 0.8 or more blurred
# (0.60-0.65: an X die's sides seen in perspective run one way). Judged on the symbol, those 775 dice are at 0.678 or
# more, and the 31 smeared dice read as an X at p 0.6 or more on 1,000 blurred trays (3,003,000+, 3,010,000+,
# 3,010,200+) at 0.417 or less (the whole crop: 0.602 and 0.576): the bar sits between.
CROSS_ISOTROPY = 0.55

# ... and a die read as an X is cocked when the lying-flat check doubts it a little (CROSS_LEANING_NOT_FLAT, far
# under NOT_FLAT) and its symbol's edges run unevenly (under CROSS_LEANING_ISOTROPY): a cross seen leaning is
# foreshortened, its right angles squashed, and the classifier still reads it as a sure X. Two weak cues of a lean
# that agree. Of the trays with a cocked die the reader accepted, most held a cocked X read sure: 6 of 8 on fresh
# range 3,840,000+ (600 trays), 8 of 14 on 3,860,000+ (1,000); the lying-flat check gave those Xs p 0.01-0.70.
# Chosen on those and 3,000,000+ (600), and on the flat dice of Excape trays 2,000,250+, 2,999,000+, 3,850,000+
# (1,000 each), two-dice throws 3,230,000+ (1,000) and marbled Excape 2,005,300+ (300). Of the 1,618 flat Xs read
# sure there, 114 (7%) had the check at p 0.1 or more (marbling, the sides seen in perspective) and their symbols
# were 0.70 or more (marbling breaks a symbol's edges too); one is called cocked (0.72, p 0.11). The 18 cocked Xs
# read sure and not called cocked had symbols of 0.59-0.98; 10 are called cocked. A bar of 0.85 would catch 14, and
# call 3 flat Xs cocked.
CROSS_LEANING_NOT_FLAT = 0.1
CROSS_LEANING_ISOTROPY = 0.75
# ... or when the check doubts it more (CROSS_TILTED_NOT_FLAT) and its symbol's edges run less unevenly still (under
# CROSS_TILTED_ISOTROPY). Session 38, fresh cocked trays 5,310,000+, 5,312,000+ (1,500 each), 5,318,000+ and
# 5,320,000+ (2,000 each): of their 523 cocked Xs, 17 were read as a sure X and not doubted (the check 0.08-0.68,
# symbols 0.75-0.96), most in trays then accepted. At 0.2 and 0.85 this catches 8 of them; of the 1,837 flat Xs of
# fresh Excape trays 5,314,000+ and 5,316,000+ (2,000 each) and of those cocked trays it calls one cocked (0.34,
# 0.84). (At 0.1 and 0.85: 10 caught, 4 flat called cocked; at 0.1 and 0.9: 13 and 10.) Judged after, on ranges no
# choice was made on (this rule and the next together): 2,000 cocked trays 5,322,000+ accepted 18 -> 12 (5 cocked Xs
# caught), Excape trays 5,324,000+ (2,000), two-dice throws 5,326,000+ (2,000) and marbled trays 5,328,000+ (600) die
# for die as before; the battery's Excape trays and throws lost a flat X each (called cocked), a stacked die was read
# sure (its tray refused), the rest die for die.
CROSS_TILTED_NOT_FLAT = 0.2
CROSS_TILTED_ISOTROPY = 0.85

# A die read as a sure X whose symbol is crisp (symbol isotropy CROSS_FLAT_ISOTROPY or more) is not cocked by the
# lying-flat check alone under CROSS_FLAT_NOT_FLAT: a cross seen leaning is foreshortened, one seen square is not,
# and the check, which sees the die's outline and the tray around it, calls some flat Xs cocked at 0.7-0.9 (the
# sides of a die seen in perspective, a neighbour's shadow). Session 38: the 33 cocked Xs of the trays above that
# the check put at 0.7-0.9 had symbols of 0.57-0.89; the flat Xs it called cocked there, 0.85-0.99, five of the
# seven 0.95 or more (fresh Excape 5,300,000+ and the trays above). On 5,300,000+ (2,000 trays) 3 flat Xs more read
# right; on the cocked trays 5,322,000+ no tray more accepted than with the rule above alone.
CROSS_FLAT_ISOTROPY = 0.95
CROSS_FLAT_NOT_FLAT = 0.9

# The reason told of a die showing a face the game's dice have not (ReadDie.foreign): a die of another game, or one
# whose look fools the classifier (a marbled 6's swirl for a 7's middle pip), so said as what it looks like.
FOREIGN_DIE = "unlike this game's dice"
# The reasons told of a die at the calibrated tray region's edge, or beyond it (vision.tray_region, vision.read).
ON_RIM = "on the tray's rim"
OUTSIDE_TRAY = "outside the tray"


@dataclass(frozen=True)
class ReadDie:
    """A located die as read: where the locator put it, the face the classifier settled on, and the measures the
    verdict on it weighs (doubt)."""

    candidate: LocatedDie
    guess: FaceGuess
    sharpness: float        # of its edges (vision.blur.edge_measures), to compare with the other dice's
    isotropy: float         # how evenly its edges run every way (vision.blur): a smear runs one way
    not_flat: float = 0.0   # the lying-flat check's probability that the die is cocked (vision.flat)
    symbol_isotropy: float = 1.0    # of a die read as an X only (vision.blur.symbol_isotropy; CROSS_ISOTROPY)
    foreign: str | None = None      # a face of other dice its first look sees surely (vision.recognise.foreign_faces)
    outside: bool = False           # it lies outside the calibrated tray region (vision.read: a throw short of dice)


def doubt(die: ReadDie, overlaps_another: bool, median_side: float, median_sharpness: float) -> str | None:
    """Why a die read is not to be trusted (the reason the players are told), or None when it is: outside the tray,
    cut by the frame's edge or on the tray's rim, stacked (much bigger than the frame's median die, or overlapping
    another), blurred, cocked, or unclear."""
    c = die.candidate
    if die.outside:
        return OUTSIDE_TRAY
    if c.touches_edge:
        return ON_RIM if c.on_rim else "cut by the frame edge"
    if c.side > STACKED_SIZE_RATIO * median_side or overlaps_another:
        return "stacked"
    # Blur is measured on the die's own pixels, before the classifier's "tilted" is believed: a smeared die
    # looks tilted to the net, and "blurred" tells the players what to do (let the dice settle, mind the light).
    if blurred(die.isotropy, die.sharpness / max(median_sharpness, 1e-6), die.sharpness) or (
            die.guess.appearance == "symbol:cross" and die.symbol_isotropy < CROSS_ISOTROPY):
        return "blurred"
    if not die.guess.sure and die.foreign is not None:
        # A 7 or an X thrown for a d6 game: the model's faces alone called it "tilted", and the players were told to
        # roll again a die they should not be throwing.
        return FOREIGN_DIE
    if die.guess.tilted or (die.not_flat >= NOT_FLAT and not _square_cross(die)) or _leaning_cross(die):
        # Not lying flat: a die resting on another looks bigger (nearer the camera), a leaning one does not.
        return "stacked" if c.side > TILTED_STACK_RATIO * median_side else "cocked"
    if not die.guess.sure:
        return "unclear"
    return None


def _leaning_cross(die: ReadDie) -> bool:
    """Whether a die read as an X shows a lean in both the lying-flat check and its symbol (CROSS_LEANING_*, or
    CROSS_TILTED_*)."""
    return die.guess.appearance == "symbol:cross" and (
        (die.not_flat >= CROSS_LEANING_NOT_FLAT and die.symbol_isotropy < CROSS_LEANING_ISOTROPY)
        or (die.not_flat >= CROSS_TILTED_NOT_FLAT and die.symbol_isotropy < CROSS_TILTED_ISOTROPY))


def _square_cross(die: ReadDie) -> bool:
    """Whether a die read as a sure X shows its symbol square on, crisp enough to overrule the lying-flat check's
    doubt under CROSS_FLAT_NOT_FLAT (CROSS_FLAT_ISOTROPY)."""
    return (die.guess.sure and die.guess.appearance == "symbol:cross" and die.not_flat < CROSS_FLAT_NOT_FLAT
            and die.symbol_isotropy >= CROSS_FLAT_ISOTROPY)


def counts_as_die(die: ReadDie) -> bool:
    """A die is what the classifier calls a face; at the frame edge also what it merely doubts is a die (half a
    die outside the frame looks like little else, and must be reported, not dropped). A faint die (vision.locate:
    a spot the locator hardly sees) only when read as a sure face, whole inside the frame."""
    if die.candidate.faint:
        return die.guess.appearance is not None and die.guess.sure and not die.candidate.touches_edge
    if die.guess.appearance is not None:
        return True
    return die.candidate.touches_edge and not die.candidate.on_rim and die.guess.confidence < CUT_NOT_A_DIE


def read_dice(work: np.ndarray, located: list[LocatedDie], model: DieModel,
              beside: list[LocatedDie] | None = None, lying_flat: float | None = None,
              sure_from: float = 0.0) -> list[ReadDie]:
    """Read every located die once, keep those the classifier takes for dice, then confirm their faces
    (vision.recognise.confirm: a second read, turned a quarter, of those that need one, and a closer look, cut
    wider, at those still undecided). beside: dice already read, not read again, that the checks comparing a die with
    the others see too (a lone pip boxed smaller than the other dice: doubted_ones). lying_flat, sure_from: a die
    left unsure that the lying-flat check puts under `lying_flat` (by default vision.flat.LYING_FLAT) is judged again
    without the face net's "tilted", its new face kept from `sure_from` when the check put it at LYING_FLAT or more
    (vision.face_checks.judged_lying_flat)."""
    if not located:
        return []
    crops = cut(work, located)
    if model.taught:
        turns = square_up_many(work, [c.rect[0] for c in located], [c.side for c in located],
                               [c.rect[2] for c in located])
        detail = np.stack([crop_die(work, c.rect[0], c.side, turn, size=TEMPLATE_SIZE)
                           for c, turn in zip(located, turns, strict=True)])
        templates = face_template_sets(model)       # built once for the whole frame
    else:
        detail = templates = None
    net = face_net_for(model)
    first = look(crops, net=net, detail=detail, templates=templates)
    read = [ReadDie(c, g, 0.0, 1.0) for c, g in zip(located, guesses([first], model), strict=True)]
    kept = [i for i, d in enumerate(read) if counts_as_die(d)]
    if not kept:
        return []
    located_kept = [located[i] for i in kept]
    # The kept dice cut wider, their whole outline in view: for the closer look, and to judge blur by.
    wide = cut(work, located_kept, CLOSER_LOOK_MARGIN)
    first_kept, crops_kept = first.take(kept), crops[kept]
    final = confirm(first_kept, crops_kept, model, detail=None if detail is None else detail[kept],
                    templates=templates, net=net, wide=wide)
    sharpness, isotropy = edge_measures(wide)
    # The check's own measure for each die whose exact lean is weighed below the cocked bar: one left unsure (judged
    # again if the check is sure it lies flat) and one read as an X (doubted at a slight lean); the first look for
    # the others (vision.flat). A taught die's every die is measured by the check for taught dice.
    leaning = not_flat(work, located_kept, taught=True) if model.taught else not_flat(
        work, located_kept, [not guess.sure or guess.appearance == "symbol:cross" for guess in final])
    foreign = [None] * len(kept) if model.taught else foreign_faces(first_kept.logits, model)
    if not model.taught:
        compared = [*located_kept, *(beside or [])]
        judged = judged_lying_flat(first_kept, final, leaning, crops_kept, wide, model, net, lying_flat, sure_from)
        judged = with_colourful_faces_read_finely(work, located_kept, crops_kept, judged, foreign,
                                                  lying_still(leaning, isotropy), model)
        final = doubted_ones(work, compared, judged, model, net)
        final = doubted_parts(work, compared, final, model, net)
        final = made_unsure(final, {k for k, guess in enumerate(final) if guess.sure and
                                     guess.appearance == "symbol:cross" and guess.confidence < CROSS_SURE})
        final = with_middle_pips_judged(work, located_kept, first_kept, final, model)
        final = with_twos_middles_judged(work, located_kept, final, model)
        final = with_faces_cross_checked(crops_kept, final, model)
        final = with_fine_faces_checked(work, located_kept, crops_kept, final, model)
    dice = [ReadDie(read[i].candidate, guess, float(sharp), float(iso), float(lean), foreign=other) for
            i, guess, sharp, iso, lean, other in zip(kept, final, sharpness, isotropy, leaning, foreign, strict=True)]
    return with_symbols_judged(work, [d for d in dice if counts_as_die(d)])


def with_symbols_judged(work: np.ndarray, dice: list[ReadDie]) -> list[ReadDie]:
    """The dice, each read as an X with the isotropy of its symbol's edges (CROSS_ISOTROPY), cut for it at
    SYMBOL_SIZE: a crop and its edge filters for each X only."""
    crosses = [k for k, d in enumerate(dice) if d.guess.appearance == "symbol:cross"]
    if not crosses:
        return dice
    crops = cut(work, [dice[k].candidate for k in crosses], CLOSER_LOOK_MARGIN, SYMBOL_SIZE)
    judged = list(dice)
    for k, value in zip(crosses, symbol_isotropy(crops), strict=True):
        judged[k] = replace(dice[k], symbol_isotropy=float(value))
    return judged
