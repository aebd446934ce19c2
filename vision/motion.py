"""When to read the tray: a small state machine over successive camera frames.

    "empty"   -> nothing to read (the last read found no dice)
    "rolling" -> something moves (dice tumbling, a hand in the tray), or it has not been still for long enough
    "settled" -> still for `still_frames` frames: read now (update() says read_now exactly once)
    "read"    -> the caller read the dice (mark_read) and they have not moved since

Motion re-arms it: after any movement the next settle gives one more read. It runs on every camera frame, so it is
kept cheap (the bench prints its ms a frame: 1.1-2.5 at 640x480 and 2.2-3.9 at 1280x960 on the dev machine's core in
session 42, 1.8 and 3.5 in session 43, never timed on a Pi): the frame (or the tray region of it) is shrunk to ~160
px of grey and compared with the previous frame, blurred once a change of the light is taken out; the changed
fraction of pixels decides. Sensor noise is ignored because the per-pixel threshold follows the noise actually
measured (median absolute difference), and changes of the light because they are taken out before thresholding, row
by row: auto exposure and a cloud change every row alike, and lamps pulsing on mains power (LED, fluorescent) make a
rolling-shutter camera see bands across its rows that move from frame to frame. Before session 42 only a change of
the whole frame's light was taken out: under such bands swinging 15% either way 48 of the bench's 80 throws were read
in mid-air or not at all (vision.watch_bench). Where pixels are clipped at the camera's top (a white tray at a band's
crest) a level only bounds its light, and a change counts beyond the bounds.

Motion alone is no new throw: a settle that looks as the frame last read did (a shadow or a sleeve passed over the
tray, a hand came in and touched nothing) is not read again, or the throw would count twice, once for the next
player. Between two throws the dice are picked up and thrown, and never come to rest exactly where they lay. Nor is a
settle that looks as the frame last read did moved whole, tray, walls and dice alike, or moved and turned a little
(someone knocked the table or the camera, and the view lies a few pixels off): thrown dice never land all shifted by
one step with the tray. A read asked for (request_read) is made whatever the tray looks like. Nor are dice the tracker
never saw move a throw: the first settle after it starts (or resets) is read, to know the tray, but flagged
`was_there`. After a power cut the last throw still lies in the tray, and its roll is in the journal already.

A hand is a big change reaching in over the edge of the view (rolling, hand=True). A hand that rests still in
the tray is caught once the tray is known empty: the frame the reader found empty becomes a reference, and a
settle that differs from it in one large area reaching in over the edge is not read (for at most `hand_patience`
frames, so a stale reference cannot block reading for ever). A settle read once the patience ran out, still
looking so, says `occupied`: what it shows may lie under a hand, and is no throw to count (companion.app).
That comparison is in colour (made only once the scene is still): in grey, a skin-toned arm can match green
felt or a grey wall, and the area it changes no longer reaches the edge. On 600 fresh virtual trays, a hand resting
by two dice was missed 43 times in grey, 4 in colour; two dice alone were called a hand once either way (a touching
pair at the edge of the view); twenty dice, which make rows reaching the edge, 23 times in grey, 44 in colour (the
games throw two).
Found empty, such a frame is the tray's look only in doubt: a hand may hide the dice. It is kept beside the
reference, not in its place, and a settle is occupied only when it differs so from both. A camera bumped since
the tray was seen empty is then known by its new empty look; a hand that hid the dice stops no later throw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, NamedTuple

import cv2
import numpy as np

from companion.errors import DiceCompanionError

MotionState = Literal["empty", "rolling", "settled", "read"]
# A frame whose levels (here shrunk and blurred; raw where vision.tray_region looks for the tray) all lie under this
# is black, all over 255 less it white (a sensor starting overexposed): no picture of the tray yet. Not a narrow
# range of grey: an empty tray of even felt filling the view, evenly lit, spans as little as 6 grey levels (virtual
# tray 4), and must be watched. Frames of an exposure ramp at 5% of full light reach 7-12 (20 virtual trays):
# skipped or compared, either way harmless (a change of exposure is taken out).
BLACK_LEVEL = 10.0
# A camera level at or above this is taken as clipped: the light there was at least that bright, by how much more
# the frame does not say (a white tray at the crest of a lamp's pulse, white pips). JPEG and the sensor's processing
# leave clipped areas a few levels under 255.
CLIPPED = 250
# How much brighter than the top a clipped pixel's light may have been, in levels (twice the top). A level of which a
# share s of the pixels was clipped lies between what it shows and s times this more. Bounds, not a floor alone: a
# dark die amid a clipped tray, its levels blurred with the tray's, still differs from the tray beyond both.
CLIPPED_EXCESS = 255.0
# The share of clipped pixels under which a level still measures the light's change along its row (_row_gains).
MEASURES_UNDER = 0.01
# In a row clipped all along in one frame (a white tray or strip beside it at a pulse's crest) the light's change is
# taken from the rows around it, though it may be the crest's: a level there counts as changed only if it is more
# than this many times brighter or darker than that gives. A die coming or going on a white tray still is (~5 times).
UNMEASURED_FACTOR = 2.0
# The most the view may have moved, as a share of its width or height, for a settle to count as the frame last read
# moved whole (the camera or the tray knocked, _moved_onto) rather than a new throw.
MOST_VIEW_SHIFT = 0.1
# The most the view may have turned (a knock turns a camera on its stand a little as it moves it, _turned_onto).
MOST_VIEW_TURN = math.radians(3.0)
# Lamps' bands are seen when the light's change between two frames, smoothed over BANDS_ROWS rows of the 160-px
# thumbnail, differs from row to row by this much (_bands_seen). Measured between still frames (30 throws a look,
# session 45): steady light 0.002 at most, a dim room (noise sigma 9) 0.017; lamps pulsing 5% a median of 0.10-0.14.
BANDS_SEEN, BANDS_ROWS = 0.03, 9


def shows_no_picture(image: np.ndarray) -> bool:
    """Whether an image is all black or all white (BLACK_LEVEL): a camera's first frames, a covered lens."""
    return float(image.max()) < BLACK_LEVEL or float(image.min()) > 255 - BLACK_LEVEL


class MotionError(DiceCompanionError):
    """The motion tracker was given something that is not a camera frame, or bad settings."""


@dataclass(frozen=True)
class MotionUpdate:
    state: MotionState
    read_now: bool             # run the reader on this frame, then call mark_read(number of dice found)
    changed_fraction: float    # of the (tray region's) pixels that changed since the previous frame
    hand: bool = False         # a change or occupation big enough to be a hand or arm in the tray
    still_frames: int = 0      # consecutive frames without motion, this one included
    was_there: bool = False    # read_now for what lay in the tray before anything moved: no throw seen happening
    occupied: bool = False     # read_now though something large still lay in the tray after hand_patience frames
    picture: bool = True       # False: the frame showed no picture (shows_no_picture) and was not compared


class MotionTracker:
    """Feed every camera frame to update(); read the dice when it says read_now; report back with mark_read().

    still_frames: frames without motion before reading. motion_threshold: fraction of changed pixels that counts
    as motion. hand_threshold: the fraction one changed area reaching in over the edge must cover to be a hand.
    occupied_threshold: the fraction one area reaching in over the edge that differs from the known empty tray
    must cover for a still scene to count as a hand resting in the tray (a die covers well under 1%).
    tray: optional (x, y, w, h) region of the frame to watch, e.g. from a calibration.
    """

    def __init__(self, still_frames: int = 3, motion_threshold: float = 0.0015, *, hand_threshold: float = 0.08,
                 occupied_threshold: float = 0.04, hand_patience: int = 30, width: int = 160,
                 min_pixel_threshold: float = 6.0, tray: tuple[int, int, int, int] | None = None) -> None:
        if isinstance(still_frames, bool) or not isinstance(still_frames, int) or still_frames < 1:
            raise MotionError(f"still_frames must be a whole number of frames >= 1, got {still_frames!r}")
        for name, value in (("motion_threshold", motion_threshold), ("hand_threshold", hand_threshold),
                            ("occupied_threshold", occupied_threshold)):
            if not 0 < value < 1:
                raise MotionError(f"{name} must be a fraction of the pixels between 0 and 1, got {value!r}")
        if hand_threshold <= motion_threshold:
            raise MotionError(f"hand_threshold ({hand_threshold}) must be above motion_threshold ({motion_threshold})")
        if not 16 <= width <= 1024:
            raise MotionError(f"width (of the shrunk frame) must be 16..1024 pixels, got {width!r}")
        if hand_patience < 0 or min_pixel_threshold <= 0:
            raise MotionError("hand_patience must be >= 0 and min_pixel_threshold > 0")
        if tray is not None and (len(tray) != 4 or tray[2] <= 0 or tray[3] <= 0):
            raise MotionError(f"tray must be (x, y, w, h) with positive width and height, got {tray!r}")
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self.hand_threshold = hand_threshold
        self.occupied_threshold = occupied_threshold
        self.hand_patience = hand_patience
        self.width = width
        self.min_pixel_threshold = min_pixel_threshold
        self.tray = None if tray is None else tuple(int(v) for v in tray)
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next settle is read (the tray's content is unknown)."""
        self._state: MotionState = "empty"
        self._previous: _Shot | None = None
        self._still = 0
        self._armed = True
        self._blocked = 0
        self._awaiting: _Settle | None = None      # the frame handed to the reader, until mark_read
        self._empty_reference: _Shot | None = None   # the tray read empty with nothing large lying in it
        self._empty_in_doubt: _Shot | None = None    # read empty past the patience (a hand over the dice?)
        self._last_read: _Shot | None = None  # the frame the reader read last, and the state it left
        self._last_read_state: MotionState = "empty"
        self._asked = False                         # request_read: read at the next settle, whatever it shows
        self._moved = False                         # motion seen since the start: what lies there was thrown since

    @property
    def state(self) -> MotionState:
        return self._state

    def request_read(self) -> None:
        """Read again at the next still frame, without waiting for motion (e.g. a player asks for a re-read)."""
        self._armed = True
        self._asked = True

    def mark_read(self, dice_found: int) -> None:
        """The reader has read the frame update() asked for: how many dice it found (0: the tray is empty)."""
        if isinstance(dice_found, bool) or not isinstance(dice_found, int | np.integer) or dice_found < 0:
            raise MotionError(f"dice_found must be a count >= 0, got {dice_found!r}")
        if dice_found == 0:
            self._state = "empty"
            if self._awaiting is not None and self._awaiting.occupied:
                self._empty_in_doubt = self._awaiting.colour
            elif self._awaiting is not None:
                self._empty_reference, self._empty_in_doubt = self._awaiting.colour, None
        else:
            self._state = "read"
        self._last_read = None if self._awaiting is None else self._awaiting.grey
        self._last_read_state = self._state
        self._awaiting = None

    def update(self, frame: np.ndarray) -> MotionUpdate:
        view = self._view(frame)
        small = _grey_shot(view, self.width)
        if shows_no_picture(_blurred(small.levels)):
            # No picture (a camera's first frames, black or white until its exposure settles; the lens covered):
            # nothing to compare. Else the tray's first picture after one is "motion", and the throw lying there
            # since before a power cut would be read as a new one.
            return MotionUpdate(self._state, False, 0.0, False, self._still, picture=False)
        previous, self._previous = self._previous, small
        if previous is None or previous.levels.shape != small.levels.shape:
            # First frame (or the camera changed size): nothing to compare with, so nothing is known to be still.
            self._still = 0
            return MotionUpdate(self._state, False, 0.0, False, 0)

        changed_mask = _changed_pixels(previous, small, self.min_pixel_threshold)
        changed = float(np.count_nonzero(changed_mask)) / changed_mask.size
        if changed > self.motion_threshold:
            self._still = 0
            self._armed = True
            self._moved = True
            self._blocked = 0
            self._state = "rolling"
            return MotionUpdate("rolling", False, changed, _reaches_in(changed_mask, self.hand_threshold), 0)

        self._still += 1
        if not self._armed or self._still < self.still_frames:
            # Still, but either already read (state stays) or not yet still for long enough.
            return MotionUpdate(self._state, False, changed, self._blocked > 0, self._still)

        colour = _colour_shot(view, self.width)
        occupied = self._looks_occupied(colour)
        if occupied and self._blocked < self.hand_patience:
            self._blocked += 1
            self._state = "rolling"
            return MotionUpdate("rolling", False, changed, True, self._still)

        self._armed = False
        self._blocked = 0
        if not self._asked and self._as_last_read(small, previous):
            # Something passed over the tray and the dice lie as they were read: the same throw, not a new one.
            self._state = self._last_read_state
            return MotionUpdate(self._state, False, changed, False, self._still)
        was_there = not self._moved and not self._asked
        self._asked = False
        self._state = "settled"
        self._awaiting = _Settle(small, colour, occupied)
        return MotionUpdate("settled", True, changed, False, self._still, was_there, occupied)

    def _as_last_read(self, small: _Shot, previous: _Shot) -> bool:
        """Does the still scene look as the frame last read did (no more pixels changed than still frames show), where
        it lay or moved whole (the camera or the tray knocked: every die moved with the view, none was thrown)?"""
        last = self._last_read
        if last is None or last.levels.shape != small.levels.shape:
            return False
        if self._looks_as(last, small):
            return True
        # Moved whole, then moved and turned. A new throw's settle fails both: 3.3-4.6 and 4.7 ms in session 45
        # (machine reference 2.6-2.9 ms, vision.bench.time_reference), once a throw. The turned look alone read
        # one more of 300 knocks that did not turn the view again. Under lamps' bands the motion is also sought on
        # the frames' rows evened (_rows_evened): the bands differ between the two frames, and would lead the
        # alignment; the frames are then compared as they are, the light's change taken out row by row. Not in
        # steady light, where evened rows lose turned knocks (99% -> 76% read once); under bands a new throw's
        # settle then costs ~15 ms instead of ~2 (session 45, reference 2.82 ms).
        found_on = [(last, small)]
        if _bands_seen(previous, small):
            found_on.append((_rows_evened(last), _rows_evened(small)))
        for before, after in found_on:
            shift = _phase_shift(before, after)          # where both looks start from
            if shift is None:
                continue
            for find in (_moved_onto, _turned_onto):
                motion = find(before, after, shift)
                if motion is not None and self._looks_as(*_laid_over(last, small, *motion)):
                    self._last_read = small          # the view as it now lies, for the next comparison
                    return True
        return False

    def _looks_as(self, before: _Shot, after: _Shot) -> bool:
        changed = _changed_pixels(before, after, self.min_pixel_threshold)
        return float(np.count_nonzero(changed)) / changed.size <= self.motion_threshold

    def _looks_occupied(self, colour: _Shot) -> bool:
        """Does the still scene (a colour thumbnail) differ from the known empty tray in one area, coming in over
        the edge, that is bigger than any die (or row of touching dice)? That is an arm and a hand. Asked of each
        empty look known (the reference, and the one in doubt): one the scene matches so closely clears it."""
        references = [r for r in (self._empty_reference, self._empty_in_doubt) if r is not None]
        if not references or any(r.levels.shape != colour.levels.shape for r in references):
            return False
        return all(_reaches_in(_changed_in_colour(r, colour, 3 * self.min_pixel_threshold), self.occupied_threshold)
                   for r in references)

    def _view(self, frame: np.ndarray) -> np.ndarray:
        """The frame, checked, cut to the tray region when one is set."""
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3) \
                or (frame.ndim == 3 and frame.shape[2] not in (1, 3, 4)) or frame.size == 0:
            got = (f"{frame.dtype} array of shape {frame.shape}" if isinstance(frame, np.ndarray)
                   else type(frame).__name__)
            raise MotionError(f"expected a camera frame: a uint8 BGR (h, w, 3) or grey (h, w) array, got {got}")
        if self.tray is not None:
            x, y, w, h = self.tray
            height, width = frame.shape[:2]
            x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)
            if x0 >= x1 or y0 >= y1:
                raise MotionError(f"tray region {self.tray} lies outside the {width}x{height} frame")
            frame = frame[y0:y1, x0:x1]
        if frame.ndim == 3 and frame.shape[2] == 4:
            frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
        return frame[..., 0] if frame.ndim == 3 and frame.shape[2] == 1 else frame


class _Shot(NamedTuple):
    """A frame as compared: its levels shrunk (float32; blurred only once the light's change is taken out, see
    _changed_pixels), and the share of each level's pixels that were clipped at the camera's top (per channel in
    colour; 0 where none)."""

    levels: np.ndarray
    clipped_share: np.ndarray

    def brightest(self) -> np.ndarray:
        """The brightest each level's light may have been: its clipped share that much brighter (CLIPPED_EXCESS)."""
        return self.levels + self.clipped_share * np.float32(CLIPPED_EXCESS)


class _Settle(NamedTuple):
    """A settle handed to the reader: its frame as compared from frame to frame, and with the empty tray."""

    grey: _Shot
    colour: _Shot
    occupied: bool          # it differed from every empty look known by one large area over the edge


def _grey_shot(view: np.ndarray, width: int) -> _Shot:
    """The view in grey, as compared from frame to frame; a pixel counts as clipped where any channel is."""
    grey = view if view.ndim == 2 else cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    levels = _shrunk(grey, width)
    if int(view.max()) < CLIPPED:       # no pixel clipped: no share to work out
        return _Shot(levels, np.zeros(levels.shape, np.float32))
    return _Shot(levels, _clipped_share(_clipped_anywhere(view), width))


def _clipped_anywhere(view: np.ndarray) -> np.ndarray:
    """255 where any channel of the view is clipped (CLIPPED or more), else 0.

    Every byte thresholded in one pass, then the channels merged by OpenCV's grey conversion: its weights are all
    over 1/255, so a pixel with any channel at 255 comes out nonzero, and one with none at 0. ~0.6 of the time of
    `cv2.inRange` over the channels (~1.0 against ~1.7 ms a 1280x960 frame), the same mask; numpy's max over the
    channels takes ~30 times as long."""
    clipped = cv2.threshold(view.reshape(view.shape[0], -1), CLIPPED - 1, 255, cv2.THRESH_BINARY)[1]
    if view.ndim == 2:
        return clipped
    merged = cv2.cvtColor(clipped.reshape(view.shape), cv2.COLOR_BGR2GRAY)
    return cv2.threshold(merged, 0, 255, cv2.THRESH_BINARY)[1]


def _colour_shot(view: np.ndarray, width: int) -> _Shot:
    """The view in colour (a grey view as one channel), as compared with the empty tray."""
    view = view if view.ndim == 3 else view[..., None]
    clipped = cv2.threshold(view, CLIPPED - 1, 255, cv2.THRESH_BINARY)[1].reshape(view.shape)
    return _Shot(_shrunk(view, width), _clipped_share(clipped, width))


def _shrunk(image: np.ndarray, width: int) -> np.ndarray:
    """The image shrunk to `width` pixels across (never enlarged), as float32: what is compared, once blurred."""
    height, full_width = image.shape[:2]
    if full_width > width:
        shrunk = cv2.resize(image, (width, max(1, round(height * width / full_width))), interpolation=cv2.INTER_AREA)
        image = shrunk.reshape(shrunk.shape[:2] + image.shape[2:])    # (OpenCV drops a single channel's axis)
    return image.astype(np.float32)


def _blurred(levels: np.ndarray) -> np.ndarray:
    """Shrunk levels blurred, so that sensor noise and a pixel's shift matter less (any number of channels)."""
    return cv2.GaussianBlur(levels, (5, 5), 1.2).reshape(levels.shape)


def _clipped_share(clipped: np.ndarray, width: int) -> np.ndarray:
    """The share (0..1) of each of the shrunk levels (_shrunk) made of clipped pixels of the image (255 in
    `clipped`, 0 elsewhere): the mask shrunk as the levels are."""
    return _shrunk(clipped, width) * np.float32(1 / 255)


def _changed_in_colour(before: _Shot, after: _Shot, min_threshold: float) -> np.ndarray:
    """Mask (uint8 0/1) of the pixels that changed beyond the noise in any channel (_changed_pixels on each)."""
    masks = [_changed_pixels(_Shot(before.levels[..., c], before.clipped_share[..., c]),
                             _Shot(after.levels[..., c], after.clipped_share[..., c]), min_threshold)
             for c in range(before.levels.shape[2])]
    return np.bitwise_or.reduce(masks)


def _changed_pixels(before: _Shot, after: _Shot, min_threshold: float) -> np.ndarray:
    """Mask (uint8 0/1) of the pixels that changed beyond the noise, after taking out a change of the light."""
    # The light's change is taken out before the levels are blurred: blurred first, the rows of a die's edge mixed
    # with the tray's rows above and below, which bands a fifth of the frame high light differently (lamps on 60 Hz
    # mains under a webcam that reads its rows out over a whole frame); under such bands swinging 30% either way
    # 12-20% of fresh throws were never read, the tray looking as if it moved (session 43).
    gains, measured = _row_gains(before, after)
    if not before.clipped_share.any() and not after.clipped_share.any():
        diff = _blurred(after.levels - before.levels * gains)      # most frames: every level exact, every row measured
    else:
        # Each level between what it shows and its brightest (clipped pixels); `before`'s in the light of `after`.
        # A row whose light change could not be measured (clipped all along in one frame) took its neighbours', and
        # the bands' crest may lie in it: its bounds widen by UNMEASURED_FACTOR either way. A change counts beyond.
        widen = np.where(measured, np.float32(1), np.float32(UNMEASURED_FACTOR))[:, None]
        low, high = _blurred(before.levels * (gains / widen)), _blurred(before.brightest() * (gains * widen))
        brightest, levels = _blurred(after.brightest()), _blurred(after.levels)
        diff = np.where(brightest < low, brightest - low, np.where(levels > high, levels - high, 0))
    deviation = np.abs(diff - np.float32(np.median(diff)))
    # Median absolute deviation: the noise level of the unchanged majority of pixels.
    noise = 1.4826 * float(np.median(deviation))
    threshold = max(min_threshold, 5.0 * noise)
    return (deviation > threshold).astype(np.uint8)


def _row_gains(before: _Shot, after: _Shot) -> tuple[np.ndarray, np.ndarray]:
    """The light's change from `before` to `after` along each row (a gain, (rows, 1)), and whether it was measured
    on that row.

    Auto exposure scales bright tray and dark dice alike; lamps pulsing on mains power (LED, fluorescent) light a
    rolling-shutter camera's rows at different moments of a pulse, and it sees bands across its rows that move from
    frame to frame. So the gain is found row by row: the median ratio of a row's pixels, over those clipped in
    neither frame (a die or an arm over less than half of the row does not move it); a row with none takes its
    neighbours' gain."""
    ratios = after.levels / np.maximum(before.levels, np.float32(1))
    if not before.clipped_share.any() and not after.clipped_share.any():
        # Most frames: every level measures its row (no mask, no interpolation to work out).
        ratios.sort(axis=1)
        count = ratios.shape[1]
        middle = (ratios[:, (count - 1) // 2] + ratios[:, count // 2]) / 2
        return middle[:, None], np.ones(len(ratios), bool)
    usable = (before.clipped_share < MEASURES_UNDER) & (after.clipped_share < MEASURES_UNDER)
    ratios = np.where(usable, ratios, np.float32(np.inf))
    ratios.sort(axis=1)
    counts = usable.sum(axis=1)
    measured = counts > 0
    rows = np.flatnonzero(measured)
    if len(rows) == 0:
        return np.ones((len(counts), 1), np.float32), measured
    known = counts[rows]
    middle = (ratios[rows, (known - 1) // 2] + ratios[rows, known // 2]) / 2
    return np.interp(np.arange(len(counts)), rows, middle).astype(np.float32)[:, None], measured


# A motion of the view found (_moved_onto, _turned_onto): the 2x3 matrix that lays `before` over `after`, the part of
# the view both show (with a margin), and whether the matrix is applied with WARP_INVERSE_MAP (_laid_over).
_Motion = tuple[np.ndarray, tuple[slice, slice], bool]


def _moved_onto(before: _Shot, after: _Shot, shift: tuple[float, float]) -> _Motion | None:
    """The shift that best lays `before` over `after`, found around phase correlation's `shift` (_phase_shift), and
    where they overlap with a margin; None when it moved by under a quarter of a level's pixel.

    The shift is whatever lines up most of the picture: for a throw made again, often the dice of one frame over the
    other's (they stand out most from a plain tray). Only a scene that then looks as still frames do, tray, walls and
    dice alike, moved whole. Phase correlation finds the shift to within ~0.4 of a level's pixel, too coarse to lay a
    die's edges over each other; the sum of squared differences, searched around it in quarter, then sixteenth
    pixels, finds it to within ~0.05."""
    dx, dy = shift
    height, width = before.levels.shape
    # What came into view at the edges was not in `before`; the search's and the interpolation's reach besides.
    mx, my = int(np.ceil(abs(dx))) + 3, int(np.ceil(abs(dy))) + 3
    inside = (slice(my, height - my), slice(mx, width - mx))
    matrix = _refined(np.float32([[1, 0, dx], [0, 1, dy]]), before, after, inside, inverse=False)
    if max(abs(matrix[0, 2]), abs(matrix[1, 2])) < 0.25:
        return None
    return matrix, inside, False


def _turned_onto(before: _Shot, after: _Shot, shift: tuple[float, float]) -> _Motion | None:
    """The motion (a turn and a shift, no scaling) that best lays `before` over `after`, found from phase
    correlation's `shift` (_phase_shift), and where they overlap with a margin; None when the turn is over
    MOST_VIEW_TURN, the shift over MOST_VIEW_SHIFT, or no such motion is found.

    A knock on the table turns a camera on its stand a little as it moves it: 1 degree moves a corner of the view
    ~1.7 of a level's pixels against its middle, and a view moved whole by a shift alone then no longer looks as still
    frames do (of 100 knocks turning the view up to 1 degree, 58 were read again as a throw; session 45). The turn
    comes from OpenCV's ECC alignment (findTransformECC, Euclidean), started from phase correlation's shift; its shift
    is then refined as _moved_onto refines its own, to lay strong edges (a white die on felt) over each other."""
    height, width = before.levels.shape
    # ECC's warp maps `after`'s pixels to `before`'s (it is applied with WARP_INVERSE_MAP): the shift reversed.
    start = np.float32([[1, 0, -shift[0]], [0, 1, -shift[1]]])
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
    try:
        _, warp = cv2.findTransformECC(_blurred(after.levels), _blurred(before.levels), start, cv2.MOTION_EUCLIDEAN,
                                       criteria, None, 1)
    except cv2.error:        # no convergence (a scene with nothing to align, or too different)
        return None
    turn = math.atan2(float(warp[1, 0]), float(warp[0, 0]))
    corners = np.float32([[0, 0, 1], [width, 0, 1], [0, height, 1], [width, height, 1]])
    reach = float(np.abs(corners @ warp.T - corners[:, :2]).max())     # the most any pixel of the view moved
    if abs(turn) > MOST_VIEW_TURN or reach > MOST_VIEW_SHIFT * width + abs(turn) * (width + height):
        return None
    margin = int(np.ceil(reach)) + 4
    if 2 * margin >= min(width, height):
        return None
    inside = (slice(margin, height - margin), slice(margin, width - margin))
    return _refined(warp, before, after, inside, inverse=True), inside, True


def _bands_seen(before: _Shot, after: _Shot) -> bool:
    """Whether the light's change from `before` to `after` differs along the rows by BANDS_SEEN or more, once smoothed
    over BANDS_ROWS rows (the sensor's noise out): lamps pulsing on mains power, seen as bands that move."""
    gains, _ = _row_gains(before, after)
    smoothed = cv2.blur(gains, (1, BANDS_ROWS))
    return float(smoothed.max() - smoothed.min()) >= BANDS_SEEN


def _rows_evened(shot: _Shot) -> _Shot:
    """The shot with each row scaled to the shot's median level (by its own median): lamps' bands out, and with them
    the light's slow change down the view, for finding the view's motion."""
    rows = np.maximum(np.median(shot.levels, axis=1), np.float32(1))
    whole = max(float(np.median(shot.levels)), 1.0)
    return _Shot(shot.levels * (np.float32(whole) / rows)[:, None], shot.clipped_share)


def _phase_shift(before: _Shot, after: _Shot) -> tuple[float, float] | None:
    """The shift that lays most of `before` over `after` (phase correlation of the blurred levels, to ~0.4 of a level's
    pixel); None for a colour shot, or beyond MOST_VIEW_SHIFT."""
    if before.levels.ndim != 2:
        return None
    height, width = before.levels.shape
    first, second = _blurred(before.levels), _blurred(after.levels)
    # (Copies: OpenCV 5.0's phaseCorrelate applies the window to the arrays it is given, in place.)
    (dx, dy), _ = cv2.phaseCorrelate(first.copy(), second.copy(), cv2.createHanningWindow((width, height), cv2.CV_32F))
    if abs(dx) > MOST_VIEW_SHIFT * width or abs(dy) > MOST_VIEW_SHIFT * height:
        return None
    return dx, dy


def _refined(matrix: np.ndarray, before: _Shot, after: _Shot, inside: tuple[slice, slice],
             inverse: bool) -> np.ndarray:
    """`matrix` (2x3, laying `before` over `after`; `inverse`: applied with WARP_INVERSE_MAP) with its shift searched
    around, in quarter, then sixteenth pixels, for the least sum of squared differences of the blurred levels."""
    first, second = _blurred(before.levels), _blurred(after.levels)[inside]

    def with_shift(shift: tuple[float, float]) -> np.ndarray:
        shifted = matrix.copy()
        shifted[0, 2] += shift[0]
        shifted[1, 2] += shift[1]
        return shifted

    def squared_difference(shift: tuple[float, float]) -> float:
        difference = second - _warped(first, with_shift(shift), inside, inverse)
        return float(np.vdot(difference, difference))

    best = (0.0, 0.0)
    for step in (0.25, 0.0625):
        best = min(((best[0] + i * step, best[1] + j * step) for i in range(-2, 3) for j in range(-2, 3)),
                   key=squared_difference)
    return with_shift(best)


def _warped(levels: np.ndarray, matrix: np.ndarray, inside: tuple[slice, slice], inverse: bool) -> np.ndarray:
    flags = cv2.INTER_LINEAR | (cv2.WARP_INVERSE_MAP if inverse else 0)
    return cv2.warpAffine(levels, matrix, (levels.shape[1], levels.shape[0]), flags=flags)[inside]


def _laid_over(before: _Shot, after: _Shot, matrix: np.ndarray, inside: tuple[slice, slice],
               inverse: bool) -> tuple[_Shot, _Shot]:
    """`before` warped by `matrix` and `after`, both cut to `inside`."""
    def laid(levels: np.ndarray) -> np.ndarray:
        return _warped(levels, matrix, inside, inverse)
    return (_Shot(laid(before.levels), laid(before.clipped_share)),
            _Shot(after.levels[inside], after.clipped_share[inside]))


def _reaches_in(changed: np.ndarray, min_fraction: float) -> bool:
    """Is there one changed area that comes in over the edge and covers at least min_fraction of the view?

    That is an arm and a hand; dice, even tumbling and blurred, change small separate patches.
    """
    count, _, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(changed, np.ones((3, 3), np.uint8)), 8)
    height, width = changed.shape
    for index in range(1, count):
        x, y, w, h, area = stats[index]
        touches_edge = x == 0 or y == 0 or x + w == width or y + h == height
        if touches_edge and area >= min_fraction * changed.size:
            return True
    return False
