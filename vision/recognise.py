"""Read one die's face from its crop, with a confidence, for any die model.

A convolutional net (trained dev-only by vision/training/train_faces.py, run here with OpenCV's dnn) scores every
built-in appearance ("pips:1".."pips:7", "symbol:cross"), "tilted" and "none" (not a die). Two nets share the work
(FaceCascade): a quick one, taught by the full one, reads every crop, and the full one reads again only the crops
the quick one is not near certain about, averaged on a die that looks marbled with a third net that learned marbled
dice (MarbledEnsemble). Only the appearances the model has compete. A face is "sure" only when its probability is
high and clearly beats every other class. A die not read with near certainty is read again turned a quarter (every
face looks the same after a quarter turn, so the two reads are two opinions), and stays sure only when both reads
agree. A die still unsure is looked at closer: cut wider, read in all eight ways a face can lie, and judged on their
mean.
Taught faces ("taught:NAME") are recognised by matching the crop against the kept crops of the taught dice (see
TEMPLATE_FORMAT), sure only when it matches one closely and clearly better than any other face's.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.models import DieModel, ModelError
from vision.nets import STANDARD_FLOOR, load_net

CROP_SIZE = 28          # classifier input side in pixels (a 40 px die keeps 3 px pips)
CROP_MARGIN = 1.15      # crop side / die side: a thin ring of tray shows the die's outline
EMBED = 64              # width of the net's last hidden layer (its "embedding" output)
# "tilted": a die not lying flat (cocked against another or the wall, or stacked on another), its top face not
# square-on; "none": not a die.
CLASSES: tuple[str, ...] = (*(f"pips:{n}" for n in range(1, 8)), "symbol:cross", "tilted", "none")
WEIGHTS = Path(__file__).resolve().parent / "weights" / "faces.onnx"

SURE_PROBABILITY = 0.6      # both reads must give the face at least this probability ...
SURE_MARGIN = 0.2           # ... and beat the next face, "tilted" and "none" by this much ...
# ... and leave "tilted" below this. Whether a die lies flat is the lying-flat check's job (vision.flat), which
# knows where the die lies in the frame; this bar only keeps a face the net half sees as tilted from standing on one
# read (a flat die above it is not lost: it gets a closer look). Tuned with the check in place, offline on the
# reader's own crops (held-out photos, 500 virtual d6 and 500 Excape tuning trays, 200 trays with a cocked die),
# together with CLOSER_LOOK_TILTED: at 0.3 / 0.3 they read 97.1 / 98.2 / 97.7% of the dice right and 4 cocked dice
# of 199 stood as a sure face, against 97.1 / 97.5 / 96.2% and 32 at 0.05 / 0.2 without the check. The closer
# look, ~9 ms a die, now runs on 1 die in 100 instead of 1 in 9.
SURE_TILTED = 0.3
# A face judged on several reads (the second, turned a quarter; the closer look's eight) must also have their mean
# give it SURE_CONFIDENCE: reads that each just clear SURE_PROBABILITY are a face the classifier is torn on, a marbled
# 3 whose middle pip a swirl hides read as a 2, a black 2 on felt one of whose pips the felt swallows read as a 1.
# Logged on the dice read sure (session 35), the dice whose mean fell from 0.6 to 0.65 held 3 of the 5 read sure and
# wrong on fresh ranges 4,810,000+ to 4,817,000+ (d6, Excape, marbled dice and felt throws, ~20,000 sure dice; the
# felt 2 in a throw accepted), beside 24 read right (0.65 to 0.7: 21, none wrong). Judged on fresh 4,830,000+ to
# 4,835,000+ (12,333 dice: felt and d6 throws, marbled d6, Excape, gold-pip Excape throws, hands): 15 -> 13 read
# wrong, 2 throws fewer accepted with a die wrong, 4 dice fewer read right; on the battery, 3 hazard dice read wrong
# made unsure, a felt throw more accepted, 3 of the train split's 1,487 photo dice left unsure. A first read alone
# is never final under SINGLE_READ_PROBABILITY (needs_second_read), so the bar is not asked of it.
SURE_CONFIDENCE = 0.65
# Faces that differ by one centre pip (Excape's 7 is the 6 plus the centre): when they are the two best guesses,
# a small smudge decides, so the winner must win by far more.
CLOSE_PAIRS = ({"pips:6", "pips:7"},)
CLOSE_MARGIN = 0.8
NOT_A_DIE = 0.8             # "none" at least this probable in both reads: a tray mark, not a die
# A built-in face at least this probable in the first read needs no second read. On the 1,224 held-out dice
# (real, virtual d6 and Excape) a second read of such dice turned no wrong read into an unsure one (the same 4
# dice were wrong with or without it); it only made right ones unsure. Skipping it halves the classifier's time on
# most frames. (Except for a 6 or a 7 of Excape: see needs_second_read.)
SINGLE_READ_PROBABILITY = 0.9
SECOND_READ_TURNS = 1       # the second read's quarter turns
# The quick net (16-32-64 channels, convolutions 1,1,2: about a third of the full net's time a crop), distilled from
# the full one (train_faces --teacher). Its read of a crop stands when its best class is at least QUICK_CERTAIN
# probable (among all CLASSES, so at least as probable among any model's faces); the full net reads every other
# crop, ~40% of a frame's. At 0.9 the cascade reads the held-out patches (real, virtual d6 and Excape) and whole
# held-out photos and virtual trays right and wrong as often as the full net alone; at 0.8 it still did on the
# patches, but missed a die and read one fewer right on the photos.
QUICK_WEIGHTS = WEIGHTS.with_name("faces_quick.onnx")
QUICK_CERTAIN = 0.9
# A second full net, trained otherwise, whose logits are averaged with the full net's on every crop the full net reads
# (FaceEnsemble): None, none committed (vision/training/README.md, "The face classifier": what was tried).
SECOND_WEIGHTS: Path | None = None
# A third net, the full one fine-tuned with marbled dice (gold, white, black and red pips) in its data, reads again
# every die read as a sure X (vision.face_checks.with_faces_cross_checked): the two nets above read the swirls of a
# marbled die with gold pips as a cross. As the reader's full net it read real photo dice worse (session 27).
CROSS_CHECK_WEIGHTS = WEIGHTS.with_name("faces_cross.onnx")
# ... and its logits are averaged with the full net's on every crop the full net reads that looks marbled: the colours
# of the crop's middle (MIDDLE px each way from its centre: the face, the outline and tray left out) spread at least
# MARBLED_SPREAD from their median chroma (CIELAB a*, b*, OpenCV's 8-bit scale) at their 60th percentile
# (colour_spread). A plain die's middle is its body and its pips; a marbled one's body is two resins. On the reader's
# crops (session 29, fresh ranges): marbled virtual dice median 20-21 (25th percentile 14-15), other virtual dice
# median 2, the train-split photos' dice median 7-8 and 95th percentile 17-18: the bar, set from these before any
# reading and the one tried, keeps nearly every real photo die out. Averaged on every crop instead, gold-pip d6 throws
# read far better but 4 held-out photo dice were lost and a d6 throw was accepted wrong. Gated, on fresh ranges:
# throws of two gold-pip marbled d6 (4,135,000+, 4,140,000+, 500 each) 1,579 -> 1,688 dice right, 28 -> 18 sure and
# wrong, 20 -> 13 throws accepted with a die wrong (one newly, 4,140,027: a 1 read as a 2); marbled d6 throws
# (4,136,000+, 4,141,000+) 1,978 -> 1,989 right, 3 -> 1 wrong; gold and marbled Excape throws (4,142,000+, 4,143,000+,
# 300 each) 1,086 -> 1,108 right; plain d6 trays (4,144,000+, 1,000) and felt throws (4,145,000+, 1,000) as before
# but for a die read and another missed with no count; the battery's photos, felt and Excape sets die for die as
# before, marbled d6 +5 dice, d6 +1, d6 throws +1, blurred -1, a hand's and a stacked die no longer sure and wrong
# (vision/training/README.md, "Session 29"). ~0.4 ms a bench speed frame (0.65 more crops).
MARBLED_SPREAD = 20.0
SPREAD_PERCENTILE = 60
MIDDLE = 9
# A fourth net, the fine one, reads a die cut at CROP_MARGIN at vision.centre_pip.CENTRE_SIZE (64 px, the crop the
# pip-layout checks fit) instead of CROP_SIZE: a die 40 px wide in the frame keeps its own pixels there, where the
# nets above see it shrunk to ~20 px and a marbled die's gold swirls look like pips. It learned from the reader's own
# crops of rendered dice (marbled, gold-pip, plain, on felt) and of the train split's photos, with their true faces
# (vision.training.train_fine), and reads only the faces of the built-in models (FINE_CLASSES). The reader asks it
# whether a colourful die's sure face is one it sees otherwise (vision.face_checks.with_fine_faces_checked), and
# which face a colourful die the other nets leave unsure shows (with_colourful_faces_read_finely).
FINE_WEIGHTS = WEIGHTS.with_name("faces_fine.onnx")
FINE_CLASSES: tuple[str, ...] = CLASSES[:CLASSES.index("symbol:cross") + 1]
# Faces one pip apart (Excape's 6 and 7) are always read by the full net: the quick net was at times near certain
# of a 7 on a 6 the full net doubted.
QUICK_NEVER_ALONE = frozenset().union(*CLOSE_PAIRS)
# ... and an X it reads, for any built-in model, stands only when the full net, reading the crop too, sees an X as
# well (else the full net's read stands): the quick net reads the gold pips of a marbled die as a cross. On 600 fresh
# Excape trays of marbled dice with gold pips (seeds 4,010,000+), 47 dice of pips were read as a sure X, many in
# trays then accepted; the quick net gave 27 of them X at 0.9 or more, and the full net, reading the same crops, gave
# 20 of those 27 under 0.6. Of the 544 true Xs read sure there and on 1,000 Excape tuning trays, the quick net was
# that sure of 434, and the full net gave 1 of those under 0.6. The full net's read alone left 2 true Xs in 2,000
# Excape dice unsure (its X at 0.67 and 0.87 on the tuning trays); when it agrees, the quick net's surer read stands
# (vision/training/README.md, "Session 27"). Two such misreads had shown up in random looks too (a 7 and a 2, fresh
# Excape trays 4,001,588 and 3,970,524). A d6 has no X: a die the quick net calls one gets no face of the model from
# it, only an unsure read, where the full net may see its face.
QUICK_CROSS_AGREED = frozenset({"symbol:cross"})
# ... and a crop that looks marbled (looks_marbled), which the quick net reads near certain but under
# QUICK_MARBLED_CERTAIN, is read by the full net too (there, beside the marbled net): the quick read stands only if the
# full net's best class is the same, else the full net's read stands. Session 52, on 1,500 fresh marbled Excape trays
# (8,860,000+): a marbled 2 read by the quick net alone as a sure 4 at 0.915, in a tray accepted, where the full net
# and the marbled net each read a 2 at 0.96 and 0.98. Of the 636 dice that look marbled read sure under 0.95 by the
# quick net alone on those trays and others (marbled d6 8,850,000+, 1,500 trays; marbled d6 and Excape 8,830,000+,
# 8,835,000+ and the battery's; gold-pip Excape 7,260,000+; Excape throws 3,230,000+), the full net named another class
# for that one die alone.
QUICK_MARBLED_CERTAIN = 0.95
# A built-in face the reads above leave unsure, and which the net sees neither cocked nor as no die, gets a closer
# look: the full net reads it in all eight ways a face can lie, and the mean of the eight decides (the same sure
# probability and margins). Eight noisy opinions averaged beat two that must each clear the bar: when it was added
# (before SURE_TILTED), on held-out photos (every 5th of the train split) it read 90.5% of the dice right against
# 88.9%, on 250 virtual d6 and Excape trays 94.4% and 96.0% against 93.8% and 95.4%, none more wrong (nor on the
# other 1,480 train-split dice). Its mean "tilted" must stay below CLOSER_LOOK_TILTED: without that bar, 2 more of
# 100 trays with a cocked die were accepted (before the lying-flat check; see SURE_TILTED for today's bar).
# Four of the eight views (two turns of the crop and of its mirror) read the photos and trays above exactly as the
# eight at half the time (~4.5 ms a die), but let one more of 150 trays with a cocked die through: eight it is.
# A die whose best face is below CLOSER_LOOK_FROM after the usual reads is not worth the eight reads (~9 ms): of 137
# closer looks on the train photos and 500 virtual trays, none below 0.43 ended sure, and a third were below 0.4.
CLOSER_LOOK_TILTED = 0.3
CLOSER_LOOK_FROM = 0.4
# The closer look reads the die cut wider than the usual reads (crop side / die side; CROP_MARGIN is 1.15): a die
# left undecided is often cut too tight, the locator's box a little small or off the top face's centre (a die seen
# in perspective), a pip at the crop's edge half there. On the tuning sets (held-out photos, 250 virtual d6 and 250
# Excape trays) the dice read right went 96.5 -> 98.1%, 97.0 -> 97.5% and 96.8 -> 97.0% at 1.3 (1.25: 97.5, 97.3,
# 97.4%; 1.4: 97.8, 97.5, 97.2%), none more read wrong and no more trays with a cocked die accepted (1 of 50).
# Cutting the second read wider too did worse (97.1, 97.4, 97.0%, and an Excape 6 read as a sure 7).
CLOSER_LOOK_MARGIN = 1.3


@dataclass(frozen=True)
class FaceGuess:
    appearance: str | None  # None: the crop is not a die (tray mark, clutter)
    confidence: float       # 0..1
    sure: bool
    tilted: bool = False    # the classifier sees a cocked die (never sure then)


def crop_die(image: np.ndarray, centre: tuple[float, float], side: float, angle: float,
             size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """A size x size BGR crop of the die at `centre` (x, y) with `side` pixels, turned upright by `angle` degrees.

    The located die's rect gives centre, side and angle (vision.locate: the angle from the die's own edges); after
    the turn its edges are axis-aligned, so pip layouts only vary by quarter turns.
    """
    if side <= 0:
        raise ValueError(f"die side must be positive, got {side}")
    scale = size / (side * margin)
    matrix = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), float(angle), scale)
    matrix[0, 2] += size / 2 - centre[0]
    matrix[1, 2] += size / 2 - centre[1]
    # Bilinear at every scale: warpAffine has no area averaging, and asked for INTER_AREA (as this crop was until
    # session 41, shrinking a die) it gives INTER_LINEAR's very pixels, at ~1.35 times the time (OpenCV 5.0).
    return cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def crops_to_blob(crops: np.ndarray) -> np.ndarray:
    """(N, h, w, 3) uint8 BGR crops -> (N, 3, h, w) float32: the network's input, each image in 0..1 brought to
    zero mean and unit contrast over all its channels and pixels (x - mean) / sqrt(variance + STANDARD_FLOOR), as
    the nets learned them (vision.training.export.standardise).

    Each image's mean and variance come from OpenCV's per-channel sums on its bytes, and the floats are made once
    and scaled in place: for the locator's half-size frame ~0.3 ms against ~2 ms for the same sums in float numpy
    arrays (the dev machine, one core), with the same result to ~1e-6."""
    if len(crops) == 0:
        return np.zeros((0, crops.shape[3], *crops.shape[1:3]), np.float32)
    stats = np.array([cv2.meanStdDev(crop) for crop in crops], np.float64).reshape(len(crops), 2, -1)
    means, deviations = stats[:, 0], stats[:, 1]
    mean = means.mean(axis=1)
    variance = (deviations * deviations + means * means).mean(axis=1) - mean * mean
    # The floor is on the variance of 0..1 values: in byte units, 255 ** 2 times it.
    gain = 1.0 / np.sqrt(np.maximum(variance, 0.0) + STANDARD_FLOOR * 255.0 ** 2)
    blob = crops.transpose(0, 3, 1, 2).astype(np.float32)
    blob -= mean.astype(np.float32)[:, None, None, None]
    blob *= gain.astype(np.float32)[:, None, None, None]
    return blob


class FaceNet:
    """An ONNX face classifier: logits over CLASSES per crop (the fine net: FINE_CLASSES, its crops CENTRE_SIZE)."""

    def __init__(self, weights: Path = WEIGHTS, what: str = "face classifier", engine: int | None = None) -> None:
        self._net = load_net(weights, what, engine)

    @property
    def name(self) -> str:
        """Its weights file's stem ("faces", "faces_quick", ...), as vision.nets names a net."""
        return self._net.name

    def run(self, crops: np.ndarray) -> np.ndarray:
        """(N, CROP_SIZE, CROP_SIZE, 3) uint8 crops -> logits (N, len(CLASSES))."""
        if len(crops) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        return self._net.run(crops_to_blob(crops), "logits").reshape(len(crops), -1)


class FaceClassifier(Protocol):
    def run(self, crops: np.ndarray) -> np.ndarray:
        """(N, CROP_SIZE, CROP_SIZE, 3) uint8 crops -> logits (N, len(CLASSES))."""
        ...


class FaceEnsemble:
    """Several face nets read as one: each crop's logits are the mean of theirs (nets trained apart err apart)."""

    def __init__(self, members: list[FaceClassifier]) -> None:
        if not members:
            raise ValueError("a face ensemble needs at least one net")
        self.members = members

    def run(self, crops: np.ndarray) -> np.ndarray:
        """(N, CROP_SIZE, CROP_SIZE, 3) uint8 crops -> the members' mean logits (N, len(CLASSES))."""
        return np.mean([member.run(crops) for member in self.members], axis=0).astype(np.float32)


class FaceCascade:
    """The quick net reads every crop; the full net reads again only those the quick one is not near certain of.

    Each crop's logits come from one net or the other; every use of them (guesses, "none", "tilted") goes through
    a softmax per crop, so rows of the two nets can sit side by side. The full net also reads every crop the quick
    one names a class of `full_reads` (its read then stands) or of `agreed_reads` (the quick read stands only if the
    full net's best class is the same), and, the same way, every crop that looks marbled read under `marbled_certain`.
    """

    def __init__(self, quick: FaceClassifier, full: FaceClassifier, certain: float = QUICK_CERTAIN,
                 full_reads: frozenset[str] = QUICK_NEVER_ALONE, agreed_reads: frozenset[str] = frozenset(),
                 marbled_certain: float = QUICK_MARBLED_CERTAIN) -> None:
        for name, bar in (("certainty threshold", certain), ("certainty threshold for marbled dice", marbled_certain)):
            if not 0.0 < bar <= 1.0:
                raise ValueError(f"the quick net's {name} must be within (0, 1], got {bar}")
        self.marbled_certain = marbled_certain
        unknown = sorted((full_reads | agreed_reads) - set(CLASSES))
        if unknown:
            raise ValueError(f"classes {unknown} are not among the classifier's {CLASSES}")
        self.quick, self.full, self.certain = quick, full, certain
        # By class (CLASSES order): whether the full net reads a crop the quick net names it, and whether the quick
        # read then stands when the full net agrees (lookups: np.isin on every pass cost more per frame).
        self._never_alone = np.array([c in full_reads or c in agreed_reads for c in CLASSES])
        self._agreed = np.array([c in agreed_reads for c in CLASSES])
        self.crops_read = self.crops_passed_on = 0     # how many crops came in, and how many the full net read

    def passed_on(self, logits: np.ndarray) -> np.ndarray:
        """Indices of the crops whose quick logits are not near certain, or name a class the quick net may not
        decide alone: the full net's share, as the logits alone tell it (run also passes on the crops that look
        marbled read under `marbled_certain`)."""
        return self._passed_on(softmax(logits))

    def _passed_on(self, probabilities: np.ndarray) -> np.ndarray:
        return np.flatnonzero((probabilities.max(axis=1) < self.certain)
                              | self._never_alone[probabilities.argmax(axis=1)])

    def _marbled_near_certain(self, crops: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
        """Indices of the crops the quick net would decide alone, read under `marbled_certain`, that look marbled
        (QUICK_MARBLED_CERTAIN): the full net reads them too, and the quick read stands only if it agrees."""
        best = probabilities.max(axis=1)
        near = np.flatnonzero((best >= self.certain) & (best < self.marbled_certain)
                              & ~self._never_alone[probabilities.argmax(axis=1)])
        return near[looks_marbled(crops[near])] if len(near) else near

    def run(self, crops: np.ndarray) -> np.ndarray:
        logits = np.array(self.quick.run(crops), np.float32)
        quick = softmax(logits)
        marbled = self._marbled_near_certain(crops, quick)
        again = np.union1d(self._passed_on(quick), marbled)
        if len(again):
            full = np.asarray(self.full.run(crops[again]), np.float32)
            best = quick[again].argmax(axis=1)
            agreed = ((quick[again].max(axis=1) >= self.certain) & (self._agreed[best] | np.isin(again, marbled))
                      & (full.argmax(axis=1) == best))
            logits[again[~agreed]] = full[~agreed]
        self.crops_read += len(crops)
        self.crops_passed_on += len(again)
        return logits


def colour_spread(crops: np.ndarray) -> np.ndarray:
    """(N, CROP_SIZE, CROP_SIZE, 3) uint8 BGR crops -> (N,) how widely the colours of each crop's middle spread:
    a percentile (SPREAD_PERCENTILE) of its pixels' chroma distances (CIELAB a*, b*) from their median
    (MARBLED_SPREAD)."""
    if len(crops) == 0:
        return np.zeros(0)
    chroma = _middle_chroma(crops)
    distances = np.linalg.norm(chroma - np.median(chroma, axis=1, keepdims=True), axis=2)
    return np.percentile(distances, SPREAD_PERCENTILE, axis=1)


def _middle_chroma(crops: np.ndarray) -> np.ndarray:
    """(N, CROP_SIZE, CROP_SIZE, 3) uint8 BGR crops -> (N, pixels, 2) float32: the CIELAB a*, b* of each crop's middle
    (MIDDLE px each way from its centre)."""
    n, size = len(crops), crops.shape[1]
    centre = size // 2
    middle = np.ascontiguousarray(crops[:, centre - MIDDLE:centre + MIDDLE, centre - MIDDLE:centre + MIDDLE])
    side = middle.shape[1]
    lab = cv2.cvtColor(middle.reshape(n * side, side, 3), cv2.COLOR_BGR2LAB).reshape(n, side * side, 3)
    return lab[:, :, 1:].astype(np.float32)


def looks_marbled(crops: np.ndarray, bar: float | None = None) -> np.ndarray:
    """(N, CROP_SIZE, CROP_SIZE, 3) uint8 BGR crops -> (N,) bool: colour_spread(crops) >= bar (by default
    MARBLED_SPREAD, the marbled ensemble's gate), the same
    answer at a fraction of its cost (a bench speed frame spent ~5% of its time in colour_spread, mostly in numpy's
    median, norm and percentile machinery for a few hundred values a crop).

    The percentile lies between the two order statistics around its rank, so each crop is decided by those two
    alone (np.partition), and only a crop whose bar falls between them is measured by colour_spread itself. The
    median and the distances are the operations np.median and np.linalg.norm do, in the same order and precision."""
    if bar is None:
        bar = MARBLED_SPREAD        # read when called: a test may move the gate
    if len(crops) == 0:
        return np.zeros(0, bool)
    chroma = _middle_chroma(crops)
    pixels = chroma.shape[1]
    # np.median of an even count: the mean (float32) of the two middle order statistics; of an odd count, the middle.
    half = pixels // 2
    if pixels % 2:
        median = np.partition(chroma, half, axis=1)[:, half]
    else:
        ordered = np.partition(chroma, (half - 1, half), axis=1)
        median = (ordered[:, half - 1] + ordered[:, half]) / np.float32(2)
    off = chroma - median[:, None, :]
    distances = np.sqrt(off[:, :, 0] * off[:, :, 0] + off[:, :, 1] * off[:, :, 1])
    # The percentile's rank, between two order statistics; at a whole rank, the two on either side of it (numpy's
    # own float sums may put its rank a hair either way).
    rank = SPREAD_PERCENTILE / 100 * (pixels - 1)
    below, above = max(math.floor(rank - 1e-9), 0), min(math.ceil(rank + 1e-9), pixels - 1)
    ordered = np.partition(distances, (below, above), axis=1)
    marbled = ordered[:, below] >= bar
    between = np.flatnonzero(~marbled & (ordered[:, above] >= bar))
    if len(between):
        marbled[between] = colour_spread(crops[between]) >= bar
    return marbled


class MarbledEnsemble:
    """The full net, its logits averaged with a net that learned marbled dice on the crops that look marbled
    (colour_spread at least MARBLED_SPREAD); every other crop read by the full net alone."""

    def __init__(self, full: FaceClassifier, marbled: FaceClassifier) -> None:
        self.full, self.marbled = full, marbled

    def run(self, crops: np.ndarray) -> np.ndarray:
        """(N, CROP_SIZE, CROP_SIZE, 3) uint8 crops -> logits (N, len(CLASSES))."""
        logits = np.array(self.full.run(crops), np.float32)
        marbled = np.flatnonzero(looks_marbled(crops))
        if len(marbled):
            logits[marbled] = (logits[marbled] + np.asarray(self.marbled.run(crops[marbled]), np.float32)) / 2
        return logits


@cache
def face_net() -> FaceCascade:
    """The shared classifier, its nets loaded on first use (never at import)."""
    full = FaceNet(WEIGHTS) if SECOND_WEIGHTS is None else FaceEnsemble([FaceNet(WEIGHTS), FaceNet(SECOND_WEIGHTS)])
    return FaceCascade(FaceNet(QUICK_WEIGHTS), MarbledEnsemble(full, cross_check_net()))


@cache
def cross_check_net() -> FaceNet:
    """The net that reads again the dice read as an X and, beside the full net, those that look marbled
    (CROSS_CHECK_WEIGHTS), loaded on first use (never at import)."""
    return FaceNet(CROSS_CHECK_WEIGHTS, "cross-check face classifier")


@cache
def fine_net() -> FaceNet:
    """The net that reads a colourful die again at CENTRE_SIZE, its face sure or not (FINE_WEIGHTS; its logits are over
    FINE_CLASSES), loaded on first use (never at import). OpenCV 5.0's classic engine runs it ~1.5-2 times as fast as
    the new one (1, 2 and 4 crops: 0.17, 0.33 and 0.64 ms against 0.26-0.36, 0.50 and 0.99 on the dev machine's core),
    with the same logits to 4e-6; OpenCV 5.1 has no classic engine, and runs it on the one it has."""
    return FaceNet(FINE_WEIGHTS, "fine face classifier", getattr(cv2.dnn, "ENGINE_CLASSIC", None))


@cache
def close_rivals(model: DieModel) -> frozenset[str]:
    """The model's faces that have a face one pip apart in the same model (Excape: the 6 and the 7; a d6: none);
    worked out once a model (needs_second_read asks it for every die)."""
    faces = {f.appearance for f in model.faces}
    return frozenset().union(*(pair for pair in CLOSE_PAIRS if pair <= faces))


def face_net_for(model: DieModel) -> FaceCascade:
    """The shared classifier as a model's dice are read: the full net always reads the faces of a close pair
    (QUICK_NEVER_ALONE) only when the model has both faces of the pair, and every crop the quick net reads as an X,
    which stands only if the full net sees an X too (QUICK_CROSS_AGREED). A d6 has no 7, and its 6s (a sixth of its
    dice) need not go to the full net when the quick one is near certain: the model's faces are judged among
    themselves, so a 7 the full net might see instead is no rival there. A taught model keeps the shared
    classifier as it is (its faces are matched as pictures, the net only tells dice from "none" and "tilted")."""
    shared = face_net()
    return shared if model.taught else _cascade_with_full_reads(shared, close_rivals(model), QUICK_CROSS_AGREED)


@cache
def _cascade_with_full_reads(shared: FaceCascade, full_reads: frozenset[str], agreed_reads: frozenset[str]
                             ) -> FaceCascade:
    """The shared cascade's nets, the full one always reading `full_reads` and `agreed_reads`: built once per set (a
    frame asks for it up to three times), and again when the shared nets are loaded again."""
    return FaceCascade(shared.quick, shared.full, shared.certain, full_reads, agreed_reads, shared.marbled_certain)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _check_builtin_faces(model: DieModel) -> None:
    unknown = [f.appearance for f in model.faces if f.appearance not in CLASSES]
    if unknown:
        raise ModelError(f"model {model.name!r} has faces {unknown} the classifier does not know; "
                         "expected pips:1..7 or symbol:cross (teach other faces with `dice-companion teach`)")


def _model_columns(model: DieModel) -> list[int]:
    """The CLASSES columns a built-in model's faces compete in: its faces in model order, then "tilted", "none"."""
    return [CLASSES.index(f.appearance) for f in model.faces] + [CLASSES.index("tilted"), CLASSES.index("none")]


# A face the model has not (a 7 or an X, read with the d6 model) seen at least this probable among every class, in
# the first look, makes a die unsure "unlike this game's dice" (foreign_faces; no die reads otherwise, sure or not:
# only the reason told changes). Excape trays read with the d6 model (fresh seeds 4,330,000+, 300 trays): each of
# the 152 7s and Xs was unsure before, mostly "cocked"; 150 are now said unlike (the first look gave 4 of them
# 0.74-0.88, the rest 0.9 or more). Marbled d6 trays (4,331,000+, 600): 7 dice looked foreign at 0.65-0.92; on the
# battery's marbled d6, 2 of 1,341 dice left unsure are now said unlike (a 6, its swirl taken for a 7's middle pip),
# 3 at 0.6. Near certain, so that a d6 is seldom told it is unlike a d6.
FOREIGN_CERTAIN = 0.9


def foreign_faces(logits: np.ndarray, model: DieModel) -> list[str | None]:
    """(N, len(CLASSES)) logits -> for each crop, the face of other dice the classifier sees on it at FOREIGN_CERTAIN
    or more among every class, when the model has no such face, else None. (The model's faces judged among
    themselves leave such a die unsure, mostly as "tilted".)"""
    probabilities = softmax(logits)
    own = {f.appearance for f in model.faces}
    faces = [k for k, c in enumerate(CLASSES) if c not in ("tilted", "none") and c not in own]
    best = probabilities.argmax(axis=1)
    return [CLASSES[b] if b in faces and probabilities[i, b] >= FOREIGN_CERTAIN else None
            for i, b in enumerate(best)]


def face_probabilities(logits: np.ndarray, model: DieModel) -> np.ndarray:
    """(N, len(CLASSES)) logits -> (N, faces + 2): the probabilities of a built-in model's faces (in model order),
    "tilted" and "none", judged among themselves (every other class left out)."""
    return softmax(logits[:, _model_columns(model)])


def _builtin_guesses(logits: list[np.ndarray], model: DieModel, by_mean: bool = False, mind_tilt: bool = True
                     ) -> list[FaceGuess]:
    """The face on each crop from its views' logits: sure only if every view gives the best face at least
    SURE_PROBABILITY, "tilted" staying below SURE_TILTED; or, by_mean (a closer look's many views), if their mean
    does, "tilted" staying below CLOSER_LOOK_TILTED; and, judged on more than one view, their mean giving it
    SURE_CONFIDENCE. Without mind_tilt, "tilted" is left out (its probability 0):
    for dice the lying-flat check is sure lie flat (vision.face_checks.judged_lying_flat)."""
    _check_builtin_faces(model)
    appearances = [f.appearance for f in model.faces]
    n = len(appearances)
    columns = _model_columns(model)
    if mind_tilt:
        views = [face_probabilities(view, model) for view in logits]
    else:
        views = [np.insert(softmax(view[:, columns[:n] + columns[-1:]]), n, 0.0, axis=1) for view in logits]
    mean = np.mean(views, axis=0)
    guesses = []
    for i in range(mean.shape[0]):
        if min(view[i, -1] for view in views) >= NOT_A_DIE:
            guesses.append(FaceGuess(None, float(mean[i, -1]), True))
            continue
        faces = mean[i, :n]
        order = np.argsort(faces)[::-1]
        best = int(order[0])
        runner_up = float(faces[order[1]]) if n > 1 else 0.0
        confidence = float(faces[best])
        if by_mean:
            agree = confidence >= SURE_PROBABILITY and float(mean[i, n]) < CLOSER_LOOK_TILTED
        else:
            agree = float(mean[i, n]) < SURE_TILTED and all(
                int(np.argmax(view[i, :n])) == best and view[i, best] >= SURE_PROBABILITY for view in views)
        tilted = float(mean[i, n]) > confidence
        margin = confidence - max(runner_up, float(mean[i, n]), float(mean[i, n + 1]))
        close = {appearances[best], appearances[int(order[1])]} in CLOSE_PAIRS if n > 1 else False
        # A first read alone under SINGLE_READ_PROBABILITY is never final: read again when it clears SURE_PROBABILITY.
        surely = len(views) == 1 or confidence >= SURE_CONFIDENCE
        sure = agree and not tilted and surely and margin >= (CLOSE_MARGIN if close else SURE_MARGIN)
        guesses.append(FaceGuess(appearances[best], confidence, sure, tilted))
    return guesses


# Taught faces are matched as pictures, not by the net (it knows pips, 7 and X, not a user's logo): each taught
# die is kept as its grey crop, and a new crop is compared with every kept one in its four quarter turns, at small
# shifts (the locator's centre is off by a pixel or two), by normalised correlation. That makes the match blind
# to brightness and contrast (light, exposure) but not to the symbol's shape; and the stored looks do not depend
# on the net's weights, so a retrained net keeps every taught die working.
TEMPLATE_SIZE = 40      # taught faces are compared on crops this big: a symbol's strokes need more pixels than pips
TEMPLATE_FORMAT = f"templates-{TEMPLATE_SIZE}-v1"     # what a model file's looks are (its "embedder" field)
# The part of a kept crop compared is its middle, the symbol (the face's edges look alike on every face), sought
# within the middle of a new crop, at every shift that fits (up to 4 px each way). Each kept crop is also tried a
# little turned and a little bigger and smaller: the locator's side, which sets a crop's scale, is a few percent off
# from die to die, and a big letter's middle seen at another scale is another shape (a J's hook matched a Q's bowl).
# Six card dice taught from fresh shots (three shots of two dice a face, as the benchmark teaches its die), 120 fresh
# throws each (3,385 dice, seeds 4,910,000+ and 4,920,000+): with a 23 px middle in 31 and no scales, 94.9% read
# right, 4 sure and wrong (Qs read as Js); with 29 in 37, these scales at every tilt, 99.6%, none wrong (29 in 37
# alone 95.3% of 554; scales 0.9 and 1.1, 99.1%; a 29 px middle at +-3 px 99.4%, 31 at +-4 px 98.7%); as kept below,
# with TAUGHT_SURE_SCORE, 99.4%, none wrong.
_TEMPLATE_INNER = 29
_TEMPLATE_SEARCH = 37
# Each kept crop is also tried turned by these degrees at its own size, and at these sizes unturned. (Every tilt at
# every size too read 7 more of ~8,700 fresh dice right, none less wrong, and took a taught frame ~1.3 times as long.)
_TEMPLATE_TILTS = (-12.0, 12.0)
_TEMPLATE_SCALES = (0.85, 0.92, 1.08, 1.15)
TAUGHT_SURE_SCORE = 0.85    # correlation with the best kept crop needed to be sure ...
TAUGHT_SURE_MARGIN = 0.12   # ... and by how much it must beat the best crop of any other face
# With the 29 px middle and the sizes above, a taught die read right matches its own face's looks at 0.89 or more
# (1st percentile; 0.94 on the benchmark's look), and the dice read wrong matched the other face at 0.76-0.81: white
# card dice on a light tray, Js seen in strong perspective read as Qs (4 of 1,732 fresh dice, 4 models from shots
# 4,950,000+, throws 4,960,000+, 34-42 px dice). At 0.6 until then (with the 23 px middle, right dice matched lower),
# 0.85 makes them unsure, for 14 dice read right there and 2 of 3,385 on the six fresh blue models above.
# A crop the net calls no die, matching no face's looks even this well, is no die (a shadow, a spot on the tray).
TAUGHT_DIE_SCORE = 0.6


def filter_each(images: np.ndarray, *filters: Callable[[np.ndarray], np.ndarray]) -> list[np.ndarray]:
    """3x3 filters applied to each of N same-size single-channel images (N, h, w) as if alone, each filter in one
    call on a single tall image where every image has its own mirrored border (what OpenCV does at an image edge),
    so no filter reaches into the neighbouring image: one call instead of N small ones."""
    n, h, w = images.shape
    # np.pad(mode="reflect") by hand: the same border at a tenth of its cost, a cost paid for every die of a frame.
    tall = np.empty((n, h + 2, w + 2), images.dtype)
    tall[:, 1:-1, 1:-1] = images
    tall[:, 0, 1:-1], tall[:, -1, 1:-1] = images[:, 1], images[:, -2]
    tall[:, :, 0], tall[:, :, -1] = tall[:, :, 2], tall[:, :, -3]
    tall = tall.reshape(n * (h + 2), w + 2)
    return [f(tall).reshape(n, h + 2, w + 2)[:, 1:-1, 1:-1] for f in filters]


def square_up_many(image: np.ndarray, centres: list[tuple[float, float]], sides: list[float],
                   angles: list[float]) -> np.ndarray:
    """Each die's angle, corrected by its own edges (the locator gives none; a rect may lean on a die seen in
    perspective). The face's outline and square symbols make edges at right angles, so the gradient directions,
    folded four-fold (their angle times four), point to the face's own turn. All the dice of one image at once
    (filter_each): each gets the angle it would get alone."""
    if not centres:
        return np.zeros(0)
    n, side = len(centres), TEMPLATE_SIZE
    crops = np.stack([crop_die(image, c, s, a, size=side, margin=1.3) for c, s, a in zip(centres, sides, angles,
                                                                                             strict=True)])
    grey = cv2.cvtColor(crops.reshape(n * side, side, 3), cv2.COLOR_BGR2GRAY).reshape(n, side, side)
    gx, gy = filter_each(grey.astype(np.float32), lambda tall: cv2.Sobel(tall, cv2.CV_32F, 1, 0),
                         lambda tall: cv2.Sobel(tall, cv2.CV_32F, 0, 1))
    # Each gradient's magnitude r times e^(4i direction), without trigonometry: with d = gx^2 - gy^2 and
    # p = gx gy, r^4 cos 4a = d^2 - 4 p^2 and r^4 sin 4a = 4 p d (twice the double-angle formulas).
    squared = np.maximum(gx * gx + gy * gy, 1e-12)
    d, p = gx * gx - gy * gy, gx * gy
    per_r3 = 1.0 / (squared * np.sqrt(squared))
    folded = ((d * d - 4 * p * p) * per_r3).sum(axis=(1, 2), dtype=np.float64) + \
        1j * (4 * p * d * per_r3).sum(axis=(1, 2), dtype=np.float64)
    edges = np.sqrt(squared).sum(axis=(1, 2), dtype=np.float64)
    # The crop was cut turned by its angle; its edges lean by the folded direction / 4 (degrees, -45..45). A crop
    # with no edges to speak of keeps its angle.
    turn = np.where(np.abs(folded) < 1e-6 * np.maximum(edges, 1.0), 0.0, np.degrees(np.angle(folded)) / 4)
    return np.asarray(angles, np.float64) + turn


def face_templates(crops: np.ndarray) -> np.ndarray:
    """(N, TEMPLATE_SIZE, TEMPLATE_SIZE, 3) uint8 crops -> (N, TEMPLATE_SIZE ** 2) grey crops at zero mean, unit
    contrast: what a model file keeps of each taught die (`dice-companion teach`)."""
    grey = np.asarray([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops], np.float32).reshape(len(crops), -1)
    grey -= grey.mean(axis=1, keepdims=True)
    return grey / np.maximum(grey.std(axis=1, keepdims=True), 1.0)


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6)


def _inner_templates(flat: np.ndarray) -> np.ndarray:
    """Kept crops (K, TEMPLATE_SIZE ** 2) -> their middles in four quarter turns, each also turned a little
    either way (the die's angle is a few degrees off on a die in perspective or beside its shadow) and a little
    bigger and smaller: (4 * (1 + len(_TEMPLATE_TILTS) + len(_TEMPLATE_SCALES)) * K, inner * inner), each row at
    zero mean and unit length."""
    side, lo = TEMPLATE_SIZE, (TEMPLATE_SIZE - _TEMPLATE_INNER) // 2
    squares = flat.reshape(-1, side, side)
    centre = ((side - 1) / 2, (side - 1) / 2)
    variants = [squares] + [
        np.stack([cv2.warpAffine(sq, cv2.getRotationMatrix2D(centre, angle, scale), (side, side),
                                 flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE) for sq in squares])
        for angle, scale in [(angle, 1.0) for angle in _TEMPLATE_TILTS] + [(0.0, scale) for scale in _TEMPLATE_SCALES]]
    middles = np.concatenate(variants)[:, lo:lo + _TEMPLATE_INNER, lo:lo + _TEMPLATE_INNER]
    turned = np.concatenate([np.rot90(middles, k, axes=(1, 2)) for k in range(4)])
    return _unit_rows(turned.reshape(len(turned), -1))


def check_taught_model(model: DieModel) -> None:
    """ModelError unless every taught face of the model has kept crops this reader can compare."""
    if model.embedder != TEMPLATE_FORMAT:
        raise ModelError(f"model {model.name!r} was taught by an older version of the reader "
                         f"({model.embedder or 'unrecorded'} looks, this reader keeps {TEMPLATE_FORMAT}): "
                         "teach the die again with `dice-companion teach`")
    faces = [f.appearance for f in model.faces]
    missing = [a for a in faces if not model.looks.get(a)]
    if missing:
        raise ModelError(f"model {model.name!r} stores no taught shots for {missing}; teach every face")
    bad = [a for a in faces if any(len(shot) != TEMPLATE_SIZE ** 2 for shot in model.looks[a])]
    if bad:
        raise ModelError(f"model {model.name!r}: the looks of {bad} are not {TEMPLATE_SIZE}x{TEMPLATE_SIZE} "
                         "crops; teach the die again")


def check_model(model: DieModel) -> None:
    """ModelError unless this reader can read every face of the model (the net's faces, or taught faces with kept
    crops it can compare): to call when a model is loaded, so a bad model file is refused at once, not at the
    first throw."""
    if model.taught:
        check_taught_model(model)
    else:
        _check_builtin_faces(model)


def face_template_sets(model: DieModel) -> list[np.ndarray]:
    """Per taught face of the model (in model.faces order), its kept crops as _inner_templates, then compared with
    every view of every die (look(..., templates=...)). Built once for the model last read with and kept (a few
    MB), not at every throw: by the model object itself, never by an equal one (models compare by name and faces,
    not by their looks, and a die taught again under its name must not be read by its old looks)."""
    cached = _template_sets_of
    if cached is not None and cached[0]() is model:
        return cached[1]
    check_taught_model(model)
    sets = [_inner_templates(np.asarray(model.looks[f.appearance], np.float32)) for f in model.faces]
    _remember_template_sets(model, sets)
    return sets


# The taught model last read with (by a weak reference: a model dropped is not kept alive) and its template sets.
_template_sets_of: tuple[weakref.ref, list[np.ndarray]] | None = None


def _remember_template_sets(model: DieModel, sets: list[np.ndarray]) -> None:
    global _template_sets_of
    _template_sets_of = (weakref.ref(model), sets)


def template_scores(crops: np.ndarray, template_sets: list[np.ndarray]) -> np.ndarray:
    """(N, faces): each (TEMPLATE_SIZE) crop's best correlation with any kept crop of each taught face, -1..1,
    given the faces' face_template_sets."""
    if crops.shape[1:3] != (TEMPLATE_SIZE, TEMPLATE_SIZE):
        raise ValueError(f"taught faces are compared on {TEMPLATE_SIZE} px crops, got {crops.shape[1:3]}")
    lo = (TEMPLATE_SIZE - _TEMPLATE_SEARCH) // 2
    grey = face_templates(crops).reshape(len(crops), TEMPLATE_SIZE, TEMPLATE_SIZE)[:, lo:lo + _TEMPLATE_SEARCH,
                                                                                   lo:lo + _TEMPLATE_SEARCH]
    windows = np.lib.stride_tricks.sliding_window_view(grey, (_TEMPLATE_INNER, _TEMPLATE_INNER), axis=(1, 2))
    # One 2-D product per face, rows being (crop, shift) pairs; by OpenCV's gemm, which keeps to the reader's
    # thread count, where numpy's BLAS would spin up threads that fight the camera loop for the Pi's cores.
    windows = _unit_rows(windows.reshape(-1, _TEMPLATE_INNER * _TEMPLATE_INNER).astype(np.float32))
    scores = np.empty((len(crops), len(template_sets)), np.float32)
    for j, templates in enumerate(template_sets):
        products = cv2.gemm(windows, templates, 1.0, None, 0.0, flags=cv2.GEMM_2_T)
        scores[:, j] = products.reshape(len(crops), -1).max(axis=1)
    return scores


def _taught_guesses(views: list[View], model: DieModel) -> list[FaceGuess]:
    """Taught faces by their best-matching kept crop; "none" still comes from the net.

    Not "tilted": the net never saw a user's symbols, and on a taught die's flat faces (letters, seen in perspective)
    it said "tilted" often: on 100 virtual tuning trays of the benchmark's lettered die, 37 of 455 flat dice were
    refused as cocked for it. Whether a taught die lies flat is left to the lying-flat check (vision.flat, trained
    on dice printed with other letters, digits and signs), as for every die: without the net's word, those trays
    read 97.1% of the dice right instead of 88.4%, and 1 of 60 trays with a cocked taught die was accepted (0 with
    it)."""
    faces = [f.appearance for f in model.faces]
    per_view = [view.matches for view in views]
    if any(m is None or m.shape[1] != len(faces) for m in per_view):
        raise ValueError(f"taught faces need each view's matches with the {len(faces)} faces' kept crops "
                         "(look(..., detail=..., templates=face_template_sets(model)))")
    scores = np.mean(per_view, axis=0)
    probabilities = [softmax(view.logits) for view in views]
    not_a_die = np.min([p[:, CLASSES.index("none")] for p in probabilities], axis=0)
    guesses = []
    for i in range(scores.shape[0]):
        order = np.argsort(scores[i])[::-1]
        best = int(order[0])
        margin = float(scores[i, best] - (scores[i, order[1]] if len(order) > 1 else -1.0))
        if not_a_die[i] >= NOT_A_DIE and scores[i, best] < TAUGHT_DIE_SCORE:
            guesses.append(FaceGuess(None, float(not_a_die[i]), True))
            continue
        confidence = float(np.clip(scores[i, best], 0.0, 1.0))
        agree = all(int(np.argmax(view[i])) == best for view in per_view)
        sure = agree and scores[i, best] >= TAUGHT_SURE_SCORE and margin >= TAUGHT_SURE_MARGIN
        guesses.append(FaceGuess(faces[best], confidence, bool(sure)))
    return guesses


@dataclass(frozen=True)
class View:
    """What some crops seen one way (as cut, or turned) give: the classifier's logits (N, len(CLASSES)), and when
    a model has taught faces, each die's template_scores (N, taught faces) against their kept crops."""

    logits: np.ndarray
    matches: np.ndarray | None = None

    def take(self, indices: list[int]) -> View:
        return View(self.logits[indices], None if self.matches is None else self.matches[indices])


def look(crops: np.ndarray, quarter_turns: int = 0, net: FaceClassifier | None = None,
         detail: np.ndarray | None = None, templates: list[np.ndarray] | None = None) -> View:
    """Run the classifier on the crops, turned by `quarter_turns` (every face reads the same turned); with
    `detail` (the same dice cut at TEMPLATE_SIZE) and a taught model's face_template_sets, match them too."""
    if (detail is None) != (templates is None):
        raise ValueError("detail crops and the taught faces' templates go together (both or neither)")
    net = net or face_net()
    matches = None if detail is None or templates is None else template_scores(_turned(detail, quarter_turns),
                                                                                 templates)
    return View(net.run(_turned(crops, quarter_turns)), matches)


def _turned(images: np.ndarray, quarter_turns: int) -> np.ndarray:
    """(N, h, w, ...) images each turned by `quarter_turns` quarter turns, contiguous for the net."""
    return images if quarter_turns % 4 == 0 else np.ascontiguousarray(np.rot90(images, quarter_turns, axes=(1, 2)))


def guesses(views: list[View], model: DieModel, mind_tilt: bool = True) -> list[FaceGuess]:
    """The face on each crop from one or more views of the same crops (sure only if all views agree); without
    mind_tilt, the net's "tilted" left out (a taught face never minds it)."""
    if model.taught:
        return _taught_guesses(views, model)
    return _builtin_guesses([v.logits for v in views], model, mind_tilt=mind_tilt)


def needs_second_read(guess: FaceGuess, model: DieModel) -> bool:
    """Whether a die's first-read guess must be confirmed by a second read: a sure face, unless a built-in face
    read with near certainty (a taught face's match score is no probability, so taught faces are always read
    twice). A 6 or a 7 of a model that has both is always read twice: one smudge or marbling swirl in the
    middle tells them apart (a marbled Excape 6 read as a 7 at p 0.92, whose quarter turn read 6). An unsure
    die cannot become sure by a second read (both must clear the bar): it gets a closer look instead."""
    return guess.sure and guess.appearance is not None and (
        model.taught or guess.confidence < SINGLE_READ_PROBABILITY or guess.appearance in close_rivals(model))


def confirm(first: View, crops: np.ndarray, model: DieModel, detail: np.ndarray | None = None,
            templates: list[np.ndarray] | None = None, net: FaceClassifier | None = None,
            wide: np.ndarray | None = None, mind_tilt: bool = True) -> list[FaceGuess]:
    """The final guesses for crops read once (`first`, judged on that read alone first): the dice that need it are read
    again turned a quarter (with their detail crops and the templates, for a taught model), and judged on both
    reads (the first one's template matches are reused, not computed again); the built-in faces still unsure then
    get a closer look (look_closer), on `wide`, the same dice cut at CLOSER_LOOK_MARGIN, or on `crops` as they are
    without it. Without mind_tilt, every judgement leaves the net's "tilted" out."""
    if wide is not None and wide.shape != crops.shape:
        raise ValueError(f"the wide crops must be the same dice at the same size: shape {wide.shape}, "
                         f"crops {crops.shape}")
    final = guesses([first], model, mind_tilt)
    again = [i for i, g in enumerate(final) if needs_second_read(g, model)]
    if again:
        second = look(crops[again], SECOND_READ_TURNS, net, detail=None if detail is None else detail[again],
                      templates=templates)
        for i, guess in zip(again, guesses([first.take(again), second], model, mind_tilt), strict=True):
            final[i] = guess
    undecided = [i for i, g in enumerate(final) if needs_closer_look(g, model)]
    if undecided:
        closer = crops if wide is None else wide
        for i, guess in zip(undecided, look_closer(closer[undecided], model, net, mind_tilt), strict=True):
            final[i] = guess
    return final


def needs_closer_look(guess: FaceGuess, model: DieModel) -> bool:
    """Whether a die is worth a closer look: a built-in face the reads could not decide on, but not far from it
    (CLOSER_LOOK_FROM); not a die the net sees cocked or stacked, nor a crop it calls no die at all."""
    return (not model.taught and not guess.sure and guess.appearance is not None and not guess.tilted
            and guess.confidence >= CLOSER_LOOK_FROM)


def _eight_ways(crops: np.ndarray) -> list[np.ndarray]:
    """The crops in the eight ways a square face can lie: four quarter turns, each also mirrored."""
    mirrored = np.ascontiguousarray(crops[:, :, ::-1])
    return [_turned(c, k) for c in (crops, mirrored) for k in range(4)]


def look_closer(crops: np.ndarray, model: DieModel, net: FaceClassifier | None = None, mind_tilt: bool = True
                ) -> list[FaceGuess]:
    """The faces of dice the usual reads left unsure, read by the full net in all eight ways a face can lie (pips,
    the 7 and the X look the same mirrored) and judged on the mean of the eight (_builtin_guesses by_mean)."""
    net = net or face_net()
    decisive = net.full if isinstance(net, FaceCascade) else net
    logits = decisive.run(np.concatenate(_eight_ways(crops)))      # one batch: a net call has its own overhead
    return _builtin_guesses(np.split(logits, 8), model, by_mean=True, mind_tilt=mind_tilt)


def read_faces(crops: np.ndarray, model: DieModel, net: FaceClassifier | None = None,
               wide: np.ndarray | None = None) -> list[FaceGuess]:
    """The face on each (CROP_SIZE x CROP_SIZE BGR) crop, among a built-in model's faces, or None for "not a die",
    read as the reader does, the closer look on `wide`, the same dice cut at CLOSER_LOOK_MARGIN, when given (taught
    faces also need TEMPLATE_SIZE crops: vision.read_dice.read_dice cuts all three)."""
    if len(crops) == 0:
        return []
    return confirm(look(crops, 0, net), crops, model, net=net, wide=wide)
