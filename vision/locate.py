"""Find the dice in a frame with a small learned locator: where each die's centre is, and how big it is.

A fully convolutional net (trained dev-only by vision/training/train_locator.py, run here with OpenCV's dnn) reads
the work frame at INPUT_SCALE and gives, every STRIDE input pixels, the probability that a die's centre lies there,
the die's size and the centre's offset within the cell (the "objects as points" recipe). Dice are the local maxima
of the centre map above PEAK_PROBABILITY, and fainter ones away from them that the classifier must confirm
(FAINT_PEAK). Touching dice stay apart (each has its own centre), a pale die on a pale tray is found by its outline
and shading, and a die's shadow is no part of it: where the colour-and-edge detector this replaced lost dice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from companion.errors import DiceCompanionError
from vision.nets import load_net
from vision.recognise import crops_to_blob, square_up_many

WORK_WIDTH = 640        # frames are read at this width; dice are ~25-60 px wide there
INPUT_SCALE = 0.5       # the locator reads the work frame at half size (dice 12-30 px there)
STRIDE = 4              # input pixels per output cell
OUTPUTS = 4             # output maps: centre logit, log size, x and y offsets within the cell
SIDE_UNIT = 32.0        # the net's size output is log(box side / SIDE_UNIT), box side in work pixels
# A local maximum of the centre map at least this probable is a die. Lower finds hardly more: at 0.2 the tuning
# sets (held-out photos, 250 virtual d6 and 250 Excape trays) gave 0, 4 and 0 more dice, but 3, 9 and 7 more false
# ones and more dice seen twice (stacked): read right 96.5 -> 94.9%, 97.0 -> 96.8%, 96.8 -> 96.2%.
PEAK_PROBABILITY = 0.3
# A fainter peak, at least FAINT_PEAK and farther than FAINT_APART of a die side from every die found above, is a
# faint die: the reader keeps it only if the classifier reads it as a sure face, whole inside the frame (a dark die
# with one or two pips on dark felt often peaks there). On the tuning sets it found 3 more dice of 1,184 on 250
# virtual d6 trays and 1 of 500 on 250 Excape trays, each then read right, with no die read that is not there (on
# 1,100 tuning trays, nor on 100 with a hand in them) and no more trays with a hazard accepted. At FAINT_APART 0.9 it
# also found a real die squeezed between two others, but took the far half of a big dark die, split in two by the
# locator, for a sure 1 beside it.
FAINT_PEAK = 0.15
FAINT_APART = 1.2
# A die's square, grown to this much of its side each way from its centre, claims the locator's cells around it
# (strongest_unclaimed_peak): a die's own centre peak spreads over a cell or two beyond its middle.
CLAIMED_REACH = 0.6
BIG_DICE_SHRINK = 2.0  # the second look for big dice (find_big_spots) reads the work frame this much smaller
SAME_DIE = 0.45         # box sides: a smaller spot this near a bigger one's centre may be part of it (_one_per_die)
EDGE_REACH = 2.0        # work pixels: a die's box this near the frame's edge may be cut by it
# ... its box's middle EDGE_CORE, that is: the locator's box side is the die's within about 15% (5th-95th percentile
# 0.89-1.15 of the true box on 200 virtual tuning trays), and a box 15% too big made whole dice 3-5 px from the
# edge cut. With the middle 0.85, 6 more of 4,559 d6 dice of 1,000 tuning trays (seeds 2,000,250+) and 1 more of
# 1,172 train-split photo dice were read right; on 400 tuning trays with a die cut by the edge (seeds 3,002,000+)
# every cut die still stood unsure or was not found (0.8 and 0.9 read the d6 trays alike).
EDGE_CORE = 0.85
WEIGHTS = Path(__file__).resolve().parent / "weights" / "locator.onnx"
# A second locator, trained on twice the trays with more of the looks the first misses (dark dice on dark felt, pale
# dice on a pale tray, big dice): the reader asks it only when it has found fewer dice than were thrown
# (vision.second_looks.with_dice_the_second_locator_finds). As the only locator it found more dice but read others
# worse: the face and lying-flat nets learned on the crops cut where the first one puts dice
# (vision/training/README.md).
SECOND_WEIGHTS = WEIGHTS.with_name("locator_second.onnx")


class TrayRegionError(DiceCompanionError):
    """The calibrated tray region does not fit the frame."""


@dataclass(frozen=True)
class Spot:
    """One die the locator sees, in work-size pixels."""

    centre: tuple[float, float]
    box_side: float         # the side of the square box covering the die (as the labels box dice: sides included)
    probability: float


def to_locator_scale(work: np.ndarray) -> tuple[np.ndarray, float]:
    """The work frame at the locator's scale, sides rounded up to a multiple of STRIDE (the frame's last row and
    column repeated), and the scale from work to locator pixels."""
    h, w = work.shape[:2]
    sw, sh = max(STRIDE, round(w * INPUT_SCALE)), max(STRIDE, round(h * INPUT_SCALE))
    small = cv2.resize(work, (sw, sh), interpolation=cv2.INTER_AREA)
    pad_h, pad_w = -sh % STRIDE, -sw % STRIDE
    if pad_h or pad_w:
        small = cv2.copyMakeBorder(small, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
    return small, sw / w


def decode(maps: np.ndarray, scale: float, threshold: float = PEAK_PROBABILITY) -> list[Spot]:
    """The dice in the net's output (OUTPUTS, h, w): centre logits, log size, x and y offsets; scale: work to
    locator pixels (sizes are learned at INPUT_SCALE; the frame's rounding to whole pixels shifts it a little)."""
    return _one_per_die(_peaks(maps, scale, threshold))


def _peaks(maps: np.ndarray, scale: float, threshold: float) -> list[Spot]:
    """Every local maximum of the centre map of at least `threshold`, as a spot (row by row, as numpy finds them)."""
    heat = _sigmoid(maps[0])
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(peaks)
    cxs = (xs + maps[2, ys, xs].astype(np.float64)) * STRIDE / scale
    cys = (ys + maps[3, ys, xs].astype(np.float64)) * STRIDE / scale
    sides = SIDE_UNIT * INPUT_SCALE / scale * np.exp(maps[1, ys, xs]).astype(np.float64)
    return [Spot((float(cx), float(cy)), float(side), float(p))
            for cx, cy, side, p in zip(cxs, cys, sides, heat[ys, xs], strict=True)]


def _one_per_die(spots: list[Spot]) -> list[Spot]:
    """The spots, less a smaller one whose centre lies well inside a bigger spot's die when it is the only one
    there: the map of a die far bigger than most the net learned on can peak twice, and the second peak, off the
    die's centre and with a smaller box, would be read as a second die cut out of the first (a taught Q read,
    sure, as the J its lower right resembles). A big spot over several smaller ones is a box spanning a cluster of
    dice: they are kept, and the classifier rejects the big one."""
    if len(spots) < 2:
        return spots
    centres = np.array([s.centre for s in spots])
    sides = np.array([s.box_side for s in spots])
    distances = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    inside = (distances < SAME_DIE * sides[:, None]) & (sides[None, :] < sides[:, None])    # [big, small]
    parts = {int(np.flatnonzero(row)[0]) for row in inside if np.count_nonzero(row) == 1}
    return [s for k, s in enumerate(spots) if k not in parts]


def _sigmoid(logits: np.ndarray | float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, np.float32)))


class Locator:
    """The ONNX locator: a work frame in, its output maps out."""

    def __init__(self, weights: Path = WEIGHTS, what: str = "dice locator") -> None:
        self._net = load_net(weights, what)

    def maps(self, work: np.ndarray) -> tuple[np.ndarray, float]:
        """The output maps (OUTPUTS, h, w) for a work frame, and the scale from work to the net's input pixels."""
        small, scale = to_locator_scale(work)
        maps = self._net.run(crops_to_blob(small[None]))
        return maps.reshape(OUTPUTS, small.shape[0] // STRIDE, small.shape[1] // STRIDE), scale

    def spots(self, work: np.ndarray, threshold: float = PEAK_PROBABILITY, faint: float | None = None,
              seen: tuple[np.ndarray, float] | None = None) -> list[Spot]:
        """The peaks of at least `threshold`; with `faint`, then the fainter ones of at least `faint` too, decoded
        on their own (so they never change which of the clear ones are kept), from one run of the net (`seen`:
        that run's maps(work), when the caller has them already)."""
        maps, scale = self.maps(work) if seen is None else seen
        if faint is None or faint >= threshold:
            return decode(maps, scale, threshold)
        # The clear peaks are among the faint ones: the map is searched once.
        every = _peaks(maps, scale, faint)
        clear = _one_per_die([s for s in every if s.probability >= threshold])
        return clear + [s for s in _one_per_die(every) if s.probability < threshold]


@cache
def locator() -> Locator:
    """The shared locator (WEIGHTS), loaded on first use (never at import)."""
    return Locator(WEIGHTS)


@cache
def second_locator() -> Locator:
    """The second locator (SECOND_WEIGHTS), loaded on first use (never at import)."""
    return Locator(SECOND_WEIGHTS, "second dice locator")


@dataclass(frozen=True)
class LocatedDie:
    """A die the reader reads, in work-size pixels: the square of its top face (as the classifier's crop is cut)."""

    box: tuple[int, int, int, int]                                   # x, y, w, h covering the die (in the frame)
    rect: tuple[tuple[float, float], tuple[float, float], float]     # centre, (side, side), turn in degrees
    touches_edge: bool                                               # its box reaches the frame's or tray's edge
    probability: float                                               # how surely the locator sees a die there
    faint: bool = False                                              # a faint peak (FAINT_PEAK): a die only if read
    # Its box reaches the calibrated tray region's edge, not the frame's: the die is on the tray's rim, whole in view
    # (a die the frame's edge cuts may show too little to be read as a die; one on the rim shows all of it).
    on_rim: bool = False

    @property
    def side(self) -> float:
        return self.rect[1][0]


def to_work(image: np.ndarray, width: int = WORK_WIDTH) -> tuple[np.ndarray, float]:
    """The frame at `width` (the reader's and the locator's scale: WORK_WIDTH, unless its dice would be too small or
    too big there, vision.read), and the scale from frame to work pixels."""
    h, w = image.shape[:2]
    scale = width / w
    if scale == 1:
        return image, 1.0
    size = (width, max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR), scale


def check_tray(tray: tuple[int, int, int, int], width: int, height: int) -> None:
    """TrayRegionError unless the tray region (x, y, w, h) lies inside a width x height frame."""
    x, y, tw, th = tray
    if tw <= 0 or th <= 0 or x < 0 or y < 0 or x + tw > width or y + th > height:
        raise TrayRegionError(f"tray region {tray} (x, y, w, h) does not fit inside the {width}x{height} frame")


def _touches_edge(box: tuple[float, float, float, float], width: int, height: int,
                  tray: tuple[int, int, int, int] | None) -> bool:
    """Whether a die's box reaches the frame's (or the tray's) edge: the die may be cut by it."""
    x, y, w, h = box
    left, top, right, bottom = (0, 0, width, height) if tray is None else (
        tray[0], tray[1], tray[0] + tray[2], tray[1] + tray[3])
    return x <= left + EDGE_REACH or y <= top + EDGE_REACH or x + w >= right - EDGE_REACH or \
        y + h >= bottom - EDGE_REACH


def find_dice(work: np.ndarray, tray: tuple[int, int, int, int] | None = None,
              threshold: float = PEAK_PROBABILITY, faint: float | None = FAINT_PEAK,
              net: Locator | None = None, wanted: Callable[[tuple[float, float]], bool] | None = None,
              seen: tuple[np.ndarray, float] | None = None) -> list[LocatedDie]:
    """The dice the locator sees in a work-size frame, inside the tray region (x, y, w, h, work pixels) if given:
    its peaks of at least `threshold`, then the faint dice (LocatedDie.faint: peaks of at least `faint`, away from
    every other die; None: none).

    The net gives a die's centre and the side of the box covering it; its turn comes from its own edges
    (vision.recognise.square_up_many), and the side of its turned square from the box (a square of side s turned by a
    has a box s (|cos a| + |sin a|) wide). net: the locator to ask (by default the reader's, `locator()`).
    wanted: only the spots whose centre it accepts are made dice, and weighed against the faint ones (a caller that
    wants no die where it has one already skips their turn, a crop and two filters each). seen: the net's maps of
    this frame (Locator.maps), when the caller has them already."""
    return find_dice_and_faint_left_out(work, tray, threshold, faint, net, wanted, seen)[0]


def find_dice_and_faint_left_out(work: np.ndarray, tray: tuple[int, int, int, int] | None = None,
                                 threshold: float = PEAK_PROBABILITY, faint: float | None = FAINT_PEAK,
                                 net: Locator | None = None,
                                 wanted: Callable[[tuple[float, float]], bool] | None = None,
                                 seen: tuple[np.ndarray, float] | None = None
                                 ) -> tuple[list[LocatedDie], list[LocatedDie]]:
    """find_dice's dice, and the faint dice it left out for lying within FAINT_APART of a die seen clearly (a second
    peak on that die, or a die beside it that the locator hardly sees: vision.second_looks tells them apart)."""
    if tray is not None:
        check_tray(tray, work.shape[1], work.shape[0])
    every = [s for s in (net or locator()).spots(work, threshold, faint, seen)
             if _in_tray(s, tray) and (wanted is None or wanted(s.centre))]
    dice = located_dice(work, every, tray, threshold)
    clear = [d for d in dice if not d.faint]
    apart = [d.faint and all(
        np.hypot(d.rect[0][0] - c.rect[0][0], d.rect[0][1] - c.rect[0][1]) > FAINT_APART * max(c.side, d.side)
        for c in clear) for d in dice]
    return (clear + [d for d, a in zip(dice, apart, strict=True) if a],
            [d for d, a in zip(dice, apart, strict=True) if d.faint and not a])


def strongest_unclaimed_peak(seen: tuple[np.ndarray, float], dice: list[LocatedDie],
                             tray: tuple[int, int, int, int] | None = None) -> float:
    """The highest centre probability of the net's maps (Locator.maps) in the cells that lie inside the tray region
    (if given) but in no die's square grown to CLAIMED_REACH of its side each way from its centre: how strongly
    the locator saw a die where none was kept (0 when every cell is claimed)."""
    maps, scale = seen
    rows, cols = maps.shape[1:]
    xs = (np.arange(cols) + 0.5) * STRIDE / scale      # each cell's centre, in work pixels
    ys = (np.arange(rows) + 0.5) * STRIDE / scale
    free = np.ones((rows, cols), bool)
    if tray is not None:
        free &= ((ys >= tray[1]) & (ys < tray[1] + tray[3]))[:, None] & ((xs >= tray[0]) & (xs < tray[0] + tray[2]))
    for die in dice:
        (cx, cy), reach = die.rect[0], CLAIMED_REACH * die.side
        free &= ~((np.abs(ys - cy) <= reach)[:, None] & (np.abs(xs - cx) <= reach)[None, :])
    return float(_sigmoid(maps[0][free]).max()) if free.any() else 0.0


def find_big_spots(work: np.ndarray, tray: tuple[int, int, int, int] | None = None) -> list[Spot]:
    """The clear spots of the locator on the work frame shrunk by BIG_DICE_SHRINK, in work pixels: a die much bigger
    than the dice it learned on (a camera near the tray) looks to it, at its usual scale, like a few small things,
    and a dark die's pips like dice of their own; at this scale it is a die. (located_dice makes them dice.)"""
    h, w = work.shape[:2]
    if tray is not None:
        check_tray(tray, w, h)
    small = cv2.resize(work, (max(STRIDE, round(w / BIG_DICE_SHRINK)), max(STRIDE, round(h / BIG_DICE_SHRINK))),
                       interpolation=cv2.INTER_AREA)
    grow = w / small.shape[1]
    spots = [Spot((s.centre[0] * grow, s.centre[1] * grow), s.box_side * grow, s.probability)
             for s in locator().spots(small)]
    return [s for s in spots if _in_tray(s, tray)]


def _in_tray(spot: Spot, tray: tuple[int, int, int, int] | None) -> bool:
    return tray is None or inside_tray(spot.centre, tray)


def inside_tray(point: tuple[float, float], tray: tuple[int, int, int, int]) -> bool:
    """Whether a point (x, y) lies in the tray region (x, y, w, h): where a die's centre must be to be read."""
    return tray[0] <= point[0] < tray[0] + tray[2] and tray[1] <= point[1] < tray[1] + tray[3]


def located_dice(work: np.ndarray, spots: list[Spot], tray: tuple[int, int, int, int] | None = None,
                 threshold: float = PEAK_PROBABILITY) -> list[LocatedDie]:
    """The dice at the spots of a work frame (faint: below `threshold`), each turned square from its own edges."""
    h, w = work.shape[:2]
    # The box takes in the die's sides seen in perspective: its edges are sought within most of it.
    angles = square_up_many(work, [s.centre for s in spots], [s.box_side / 1.2 for s in spots], [0.0] * len(spots))
    dice = []
    for spot, angle in zip(spots, angles, strict=True):
        cx, cy = spot.centre
        turn = np.radians(angle)
        side = spot.box_side / (abs(np.cos(turn)) + abs(np.sin(turn)))
        half = spot.box_side / 2
        x0, y0 = max(0.0, cx - half), max(0.0, cy - half)
        x1, y1 = min(float(w), cx + half), min(float(h), cy + half)
        core = EDGE_CORE * half
        middle = (cx - core, cy - core, 2 * core, 2 * core)
        at_frame_edge = _touches_edge(middle, w, h, None)
        on_rim = tray is not None and not at_frame_edge and _touches_edge(middle, w, h, tray)
        dice.append(LocatedDie(box=(round(x0), round(y0), round(x1 - x0), round(y1 - y0)),
                               rect=((cx, cy), (side, side), float(angle)), touches_edge=at_frame_edge or on_rim,
                               probability=spot.probability, faint=spot.probability < threshold, on_rim=on_rim))
    return dice
