"""Find the dice in a tray frame: segmentation by difference from the tray, then blob splitting and shape priors.

The tray is whatever most of the frame looks like locally, so the background is estimated by a wide median on a
downscaled copy (dice cover a small part of any window that wide). A pixel is foreground when its colour differs
from that background or when it sits among strong local edges (pips and die outlines, which also catch white dice
on a white tray). Long straight strips (tray walls) are removed. Touching dice are split in two, again and again
while a part looks like more than one die: k-means clusters the blob's pixels once into as many dice as it holds
(by area, or no more than its length when the frame's die size is a guess), and each cut falls between clusters,
along the length of the part being cut (a part of one cluster that still looks like several dice is clustered
afresh). Dice are convex, so a lone die-sized blob or a die-sized part of a split is filled to its
convex hull (a pale die on a pale tray shows only part of its outline). What comes out are *candidates*: the face
classifier (vision.recognise) has a "not a die" class that rejects tray marks and clutter.

Frames come at WORK_WIDTH pixels wide (the caller scales them); the mask is found at half that size, for speed,
and candidates are given back in work pixels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from companion.errors import DiceCompanionError

WORK_WIDTH = 640            # frames are read at this width; dice are ~25-60 px wide there
_BG_DOWNSCALE = 4           # the background is estimated at 1/4 size ...
_MASK_SCALE = 2             # the mask is found at half the work size (dice stay 12+ px wide) ...
_BG_MEDIAN, _BG_MEDIAN_PASSES = 5, 4   # ... by a 5 px median taken 4 times at 1/4 of that (reach ~130 work px)
_COLOUR_THRESHOLD = 22.0    # Lab distance from the tray that marks a die
_LIGHT_WEIGHT, _SHADOW_WEIGHT = 0.5, 0.6   # weights of a lighter / darker L than the tray's (shading, shadows)
_SHADOW_DEPTH = 40.0        # darkening up to this much is a shadow on the tray, not a die
_BRIGHT_TRAY = 120.0        # trays at least this light (median grey level) are taken as they are ...
_MAX_GAIN = 3.0             # ... darker ones have their contrasts scaled up, at most this much
_EDGE_THRESHOLD = 60.0      # Sobel magnitude of the gray image that marks a die's outline or pips
# Sizes below are in mask pixels (half the work size).
_MIN_SIDE, _MAX_SIDE = 7.0, 45.0    # plausible die side (real dice are 21-69 px at work size)
_HULL_SIDE, _HULL_SQUARENESS = 30.0, 0.7   # a blob at most this long and this square is filled to its hull
_WALL_LENGTH = 90           # foreground this long and straight (4+ dice) is a tray wall, not dice ...
_WALL_SLENDERNESS = 15      # ... when it is at least this many times longer than it is thick
_DEFAULT_SIDE = 19.0        # die side assumed when no blob in the frame looks like a single die
_SEVERAL_AREA = 1.7         # a blob this many typical dice big holds more than one die
_SEVERAL_ASPECT = 1.45      # ... as does one this elongated
_SEVERAL_FILL = 0.72        # ... or one that fills its min-area rect this poorly (L shapes)
_PAIR_AREA = 1.25           # a long or L-shaped blob is split only if it is this many typical dice big ...
_LONG_PAIR_ASPECT, _LONG_PAIR_AREA = 1.7, 0.9   # ... or this long for its width and this big
_HALF_AREA = 0.35           # a split is kept only if each part is at least this much of a typical die
_PART_HULL_AREA = 1.3       # a part whose convex hull is at most this many dice is taken as one die, filled
_SPLIT_DEPTH = 4            # halves of halves ... at most this deep (16 dice in one blob)
_MAX_DICE_PER_BLOB = 16     # k-means clusters at most this many dice in one blob
_COUNTING_SINGLES = 3       # single dice the die area must be measured on to count the dice in a blob by area
_KMEANS_SAMPLE = 600        # points k-means fits its centres on (plenty for a few dice)
_MIN_FILL = 0.45            # blob area / its min-area-rect area: dice are near-square and filled
_SQUARE3 = np.ones((3, 3), np.uint8)


_Rect = tuple[tuple[float, float], tuple[float, float], float]     # cv2.minAreaRect: centre, size, angle


class TrayRegionError(DiceCompanionError):
    """The calibrated tray region does not fit the frame."""


@dataclass(frozen=True)
class Candidate:
    """One blob that may be a die, in work-size pixels."""

    box: tuple[int, int, int, int]                                   # x, y, w, h (axis-aligned)
    rect: tuple[tuple[float, float], tuple[float, float], float]     # cv2.minAreaRect: centre, size, angle
    fill: float                                                      # blob area / rect area
    touches_edge: bool                                               # the blob meets the frame or tray edge

    @cached_property
    def side(self) -> float:
        return float(np.sqrt(self.rect[1][0] * self.rect[1][1]))

    @cached_property
    def squareness(self) -> float:
        w, h = self.rect[1]
        return float(min(w, h) / max(w, h, 1e-6))


def _tray_mask(shape: tuple[int, int], tray: tuple[int, int, int, int] | None) -> np.ndarray:
    """The tray region at mask size (255 inside) for a work frame of `shape`."""
    h, w = shape
    mask = np.zeros((h // _MASK_SCALE, w // _MASK_SCALE), np.uint8)
    if tray is None:
        mask[:] = 255
        return mask
    x, y, tw, th = (int(v) for v in tray)
    if tw <= 0 or th <= 0 or x < 0 or y < 0 or x + tw > w or y + th > h:
        raise TrayRegionError(f"tray region {tray} (x, y, w, h) does not fit inside the {w}x{h} frame")
    s = _MASK_SCALE
    mask[y // s:(y + th) // s, x // s:(x + tw) // s] = 255
    return mask


# BGR -> (lightness, red-green, yellow-blue): a cheap linear stand-in for Lab, on the 0..255 scale.
_OPPONENT = np.array([[1 / 3, 1 / 3, 1 / 3], [0.0, -0.5, 0.5], [-0.5, 0.25, 0.25]], np.float32)


def foreground_mask(image: np.ndarray) -> np.ndarray:
    """255 where the pixel probably belongs to a die, else 0, at half the size of the work-size BGR image."""
    h, w = image.shape[:2]
    half = cv2.resize(image, (w // _MASK_SCALE, h // _MASK_SCALE), interpolation=cv2.INTER_AREA)
    small = cv2.resize(half, (w // (_MASK_SCALE * _BG_DOWNSCALE), h // (_MASK_SCALE * _BG_DOWNSCALE)),
                       interpolation=cv2.INTER_AREA)
    background = cv2.resize(_wide_median(small), (half.shape[1], half.shape[0]),
                            interpolation=cv2.INTER_LINEAR)
    # Contrast is relative: on a dark tray a black die differs by fewer grey levels than on a white one, so on
    # a tray darker than _BRIGHT_TRAY differences and edges count up to _MAX_GAIN times more.
    tray_light = float(np.median(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)))
    gain = min(max(_BRIGHT_TRAY / max(tray_light, 1.0), 1.0), _MAX_GAIN)
    # The opponent transform is linear, so the difference of colours can be transformed once (gain folded in).
    # (OpenCV's 3x3 transform and extractChannel are vectorised; split and 2- or 1-row transforms are not.) The
    # float images are updated in place: fresh megabyte-sized temporaries cost more than the arithmetic.
    opponent = cv2.subtract(half, background, dtype=cv2.CV_32F)
    cv2.transform(opponent, _OPPONENT * gain, dst=opponent)
    lightness = cv2.extractChannel(opponent, 0)
    cv2.multiply(opponent, opponent, dst=opponent)
    hue_squared = cv2.transform(opponent, np.array([[0.0, 1.0, 1.0]], np.float32))
    # Shadows are darker tray of the same hue: darkening counts less than brightening or a change of hue.
    # (A scaled sum runs vectorised where a product with a scalar or a maximum with one does not.)
    shade = cv2.addWeighted(lightness, -_SHADOW_WEIGHT, lightness, 0.0, -_SHADOW_DEPTH * _SHADOW_WEIGHT)
    cv2.max(shade, cv2.addWeighted(lightness, _LIGHT_WEIGHT, lightness, 0.0, 0.0, dst=lightness), dst=shade)
    cv2.threshold(shade, 0.0, 0.0, cv2.THRESH_TOZERO, dst=shade)
    cv2.multiply(shade, shade, dst=shade)
    colour = cv2.compare(cv2.add(shade, hue_squared, dst=shade), _COLOUR_THRESHOLD ** 2, cv2.CMP_GT)

    gray = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
    gx, gy = cv2.spatialGradient(gray)      # the 3x3 Sobel responses both ways in one pass
    edges = cv2.compare(cv2.add(cv2.convertScaleAbs(gx, alpha=0.5), cv2.convertScaleAbs(gy, alpha=0.5)),
                        _EDGE_THRESHOLD / 2 / gain, cv2.CMP_GT)
    # Edges alone are thin lines: close them so a die's outline and pips fill its face.
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    # Sobel responds a pixel beyond the outline: pull the closed edges back in so neighbours stay apart.
    edges = cv2.erode(edges, _SQUARE3)

    mask = cv2.bitwise_or(colour, edges)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    # Tray walls and box rims are long straight strips that dice lean against: take them out so the dice
    # beside them stay separate blobs. (A row of touching dice is straight too, but it is far thicker for its
    # length: it stays.)
    walls = _slender(_walls(mask))
    if walls is not None:
        mask = cv2.bitwise_and(mask, cv2.bitwise_not(cv2.dilate(walls, _SQUARE3)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    return _fill_small_holes(mask)


def _wide_median(image: np.ndarray) -> np.ndarray:
    """A median _BG_MEDIAN px wide taken _BG_MEDIAN_PASSES times: it reaches as far as one 17 px median, but
    5 px medians run on OpenCV's sorting network, far cheaper than the histogram method wider ones need (and on
    trays crowded with dice it keeps more of the tray: measured, 20-dice virtual trays 90.8 -> 94.5% found).

    OpenCV filters a one-channel image about three times faster than a 3-channel one of the same size, so the
    channels are filtered side by side as one image, each with a margin that copies its edge column before every
    pass (what the default border does at an image edge): the result is the same as filtering each alone.
    """
    w = image.shape[1]
    reach = _BG_MEDIAN // 2
    panel = w + 2 * reach
    panels = cv2.hconcat([cv2.copyMakeBorder(channel, 0, 0, reach, reach, cv2.BORDER_REPLICATE)
                          for channel in cv2.split(image)])
    margins, edges = _panel_margins(image.shape[2], w, reach)
    for k in range(_BG_MEDIAN_PASSES):
        if k:
            panels[:, margins] = panels[:, edges]
        panels = cv2.medianBlur(panels, _BG_MEDIAN)
    return cv2.merge([panels[:, c * panel + reach:c * panel + reach + w] for c in range(image.shape[2])])


def _panel_margins(channels: int, width: int, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """For channels laid side by side, each `width` wide between margins `reach` wide: the columns of the
    margins, and for each the column of its panel's edge it copies."""
    panel = width + 2 * reach
    margins, edges = [], []
    for c in range(channels):
        for j in range(reach):
            margins += [c * panel + j, c * panel + reach + width + j]
            edges += [c * panel + reach, c * panel + reach + width - 1]
    return np.array(margins), np.array(edges)


def _walls(mask: np.ndarray) -> np.ndarray | None:
    """The mask's straight runs of at least _WALL_LENGTH px along a row or a column, or None if it has none.

    The frame edge does not lengthen a run (OpenCV's default border would count it as foreground, and took a
    column of dice at the frame edge for a wall). An opening by a line only ever keeps pixels of rows (columns)
    holding that many foreground pixels and treats each row (column) on its own: so only those are opened.
    """
    walls = None
    # Columns are handled as the rows of the transposed mask: OpenCV runs a line along rows far faster.
    for image, transposed in ((mask, False), (cv2.transpose(mask), True)):
        counts = cv2.reduce(image, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel()
        lines = np.flatnonzero(counts >= 255 * _WALL_LENGTH)
        if len(lines) == 0:
            continue
        found = np.zeros_like(image)
        found[lines] = _long_runs(image[lines], _WALL_LENGTH)
        if transposed:
            found = cv2.transpose(found)
        walls = found if walls is None else cv2.bitwise_or(walls, found, dst=walls)
    return walls


def _slender(walls: np.ndarray | None) -> np.ndarray | None:
    """The wall pieces at least _WALL_SLENDERNESS times as long as they are thick (None if there are none).

    A row of five or more touching dice gives runs as long as a wall's through its middle; but those runs make a
    band about half a die thick and a few dice long (on the train photos: 107 x 10.6 and 114 x 11.3 mask px,
    against 130 x 6.0 for the stubbiest wall), where a wall seen whole or in part is long and thin."""
    if walls is None:
        return None
    _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(walls, 8, cv2.CV_32S, cv2.CCL_BBDT)
    length = stats[:, [cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT]].max(axis=1)
    slender = length >= _WALL_SLENDERNESS * stats[:, cv2.CC_STAT_AREA] / np.maximum(length, 1)
    slender[0] = False      # the background
    if slender[1:].all():
        return walls
    if not slender.any():
        return None
    return np.where(slender[labels], 255, 0).astype(np.uint8)


def _long_runs(rows: np.ndarray, length: int) -> np.ndarray:
    """The opening of each row by a line `length` long, with nothing outside the rows (no run is lengthened by
    the edge)."""
    return cv2.morphologyEx(rows, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1)),
                            borderType=cv2.BORDER_CONSTANT, borderValue=0)


def _fill_small_holes(mask: np.ndarray) -> np.ndarray:
    """Fill die-sized holes (a pale face inside its outline), never a whole tray inside its rim; and fill a lone
    die-sized, squarish blob to its convex hull (dice are convex: a pale die on a pale tray shows as a broken
    ring or a C of outline, symbol and shaded sides)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return mask
    filled = mask.copy()
    fills = []
    for contour, parent in zip(contours, hierarchy[0, :, 3].tolist(), strict=True):
        if parent >= 0:
            if cv2.contourArea(contour) < _MAX_SIDE * _MAX_SIDE:
                fills.append(contour)
        elif len(contour) > 2:      # a lone pixel or a straight run of them is its own hull
            (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
            if max(rw, rh) <= _HULL_SIDE and min(rw, rh) >= _HULL_SQUARENESS * max(rw, rh):
                fills.append(cv2.convexHull(contour))
    cv2.drawContours(filled, fills, -1, 255, thickness=cv2.FILLED)
    return filled


def _k_means(points: np.ndarray, k: int, iterations: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deterministic k-means on pixel positions (x + iy, complex64): the k centres (x + iy), and the sample of the
    points they were fitted on with its cluster labels.

    The centres are fitted on at least _KMEANS_SAMPLE evenly spaced points (plenty for a few dice), starting from
    farthest points (each the sample point farthest from those chosen before, the first the farthest from the
    mean); cv2.kmeans starting from those labels needs no random start. (Positions as complex numbers: a distance
    is one call.)
    """
    sample = np.ascontiguousarray(points[::max(1, len(points) // _KMEANS_SAMPLE)])
    nearest = np.abs(sample - sample.mean())
    starts = np.empty(k, np.complex64)
    for i in range(k):
        starts[i] = sample[nearest.argmax()]
        distance = np.abs(sample - starts[i])
        nearest = distance if i == 0 else np.minimum(nearest, distance, out=nearest)
    labels = _nearest_centre(sample, starts).astype(np.int32).reshape(-1, 1)
    _, labels, centres = cv2.kmeans(sample.view(np.float32).reshape(-1, 2), k, labels,
                                    (cv2.TERM_CRITERIA_MAX_ITER, iterations, 0), 1, cv2.KMEANS_USE_INITIAL_LABELS)
    return centres.view(np.complex64).ravel(), sample, labels.ravel()


def _nearest_centre(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The index of the nearest centre for every point (positions as complex numbers)."""
    if len(centres) == 2:
        return (np.abs(points - centres[1]) < np.abs(points - centres[0])).view(np.int8)
    # OpenCV's row-wise argmin: numpy's along a short last axis costs several times more.
    return cv2.reduceArgMin(np.abs(points[:, None] - centres), 1).ravel()


def _aspect(rect: _Rect) -> float:
    (_, _), (rw, rh), _ = rect
    return max(rw, rh) / max(min(rw, rh), 1.0)


def _long_pair(area: float, aspect: float, die_area: float) -> bool:
    """Whether a blob no bigger than a die and a quarter is still two dice: twice as long as wide, or nearly (two
    touching dice whose outlines the mask shows only in part)."""
    return aspect >= _LONG_PAIR_ASPECT and area >= _LONG_PAIR_AREA * die_area


def _length_if_several(blob: np.ndarray, rect: _Rect, die_area: float) -> float | None:
    """The blob's length in widths (of its min-area rect) when it looks like several dice (long, L-shaped or
    ragged, or much bigger than one die), else None."""
    area = float(cv2.countNonZero(blob))
    aspect = _aspect(rect)
    if _long_pair(area, aspect, die_area):
        return aspect
    if area <= _PAIR_AREA * die_area:
        return None
    fill = area / max(rect[1][0] * rect[1][1], 1.0)
    several = area > _SEVERAL_AREA * die_area or aspect > _SEVERAL_ASPECT or fill < _SEVERAL_FILL
    return aspect if several else None


@dataclass(frozen=True)
class _Clusters:
    """A blob's pixels shared out among the dice k-means found in it (clustered once for the whole blob tree)."""

    labels: np.ndarray      # the blob's pixels: 1 + the index of their die's cluster; 0 elsewhere
    moments: np.ndarray     # per cluster (k, 6), of k-means' sample: point count, sums of x, y, x*x, y*y, x*y

    def principal_order(self, subset: np.ndarray) -> np.ndarray:
        """The clusters of `subset` in the order they lie along the principal axis of their pixels together."""
        n, sx, sy, sxx, syy, sxy = self.moments[subset].sum(axis=0)
        mx, my = sx / n, sy / n
        angle = 0.5 * np.arctan2(2 * (sxy / n - mx * my), (sxx / n - mx * mx) - (syy / n - my * my))
        means = self.moments[subset, 1:3] / self.moments[subset, :1]
        return subset[np.argsort(means @ np.array([np.cos(angle), np.sin(angle)]), kind="stable")]


def _clusters(blob: np.ndarray, length: float, die_area: float, area_counts_dice: bool) -> _Clusters:
    """The blob's pixels clustered into as many dice as it holds: as many as its area says when the die area was
    measured on enough single dice (area_counts_dice); else no more than it is long in widths (a guessed area
    miscounts)."""
    points = cv2.findNonZero(blob).reshape(-1, 2)
    by_area = round(len(points) / die_area)
    dice = min(max(by_area if area_counts_dice else min(by_area, round(length)), 2), _MAX_DICE_PER_BLOB)
    positions = points.astype(np.float32).view(np.complex64).ravel()      # x + iy
    centres, sample, sample_labels = _k_means(positions, dice)
    labels = np.zeros_like(blob)
    labels.ravel()[points @ np.array([1, blob.shape[1]], np.int32)] = _nearest_centre(positions, centres) + 1
    # The principal axes of groups of clusters need only their moments: k-means' sample tells them well enough.
    x, y = sample.real.astype(np.float64), sample.imag.astype(np.float64)
    moments = np.stack([np.bincount(sample_labels, weights=w, minlength=dice)
                        for w in (None, x, y, x * x, y * y, x * y)], axis=1)
    return _Clusters(labels, moments)


def _split(blob: np.ndarray, clusters: _Clusters, subset: np.ndarray, die_area: float
           ) -> list[tuple[np.ndarray, np.ndarray | None, np.ndarray]]:
    """The blob's two parts (each with its outline if known) and the clusters each holds, or [] when a part is
    too small to be a die.

    The clusters are shared out in two groups along the blob's length (so a row of three dice is cut between
    dice, not through the middle one): the first half of them, and the rest.
    """
    ordered = subset if len(subset) == 2 else clusters.principal_order(subset)
    first_dice, second_dice = ordered[:len(ordered) // 2], ordered[len(ordered) // 2:]
    in_second = np.zeros(256, np.uint8)
    in_second[second_dice + 1] = 255
    second = cv2.bitwise_and(cv2.LUT(clusters.labels, in_second), blob)
    parts = []
    for part in (cv2.subtract(blob, second), second):
        # The cut between two dice leaves thin bridges: open before judging and splitting further.
        part = cv2.morphologyEx(part, cv2.MORPH_OPEN, _SQUARE3)
        parts.append(_filled_if_one_die(part, die_area))
    if min(cv2.countNonZero(p) for p, _ in parts) < _HALF_AREA * die_area:
        return []
    return [(*parts[0], np.sort(first_dice)), (*parts[1], np.sort(second_dice))]


def _filled_if_one_die(part: np.ndarray, die_area: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The part filled to its convex hull when that hull is no bigger than one die (dice are convex: a pale die
    beside a coloured one shows as a hook of outline and shadow), else the part as it is; and the outline of
    its largest piece (None if it is empty). A filled part's outline is taken to be its hull (no second contour
    search): that polygon is what was filled, and a rect fitted to it is the rect of the filled piece unless
    another piece of the part touches the hull (rare; the outline then leaves that piece out)."""
    outline = _outline(part)
    if outline is None:
        return part, None
    hull = cv2.convexHull(outline)
    if cv2.contourArea(hull) > _PART_HULL_AREA * die_area:
        return part, outline
    filled = part.copy()
    cv2.drawContours(filled, [hull], -1, 255, thickness=cv2.FILLED)
    return filled, hull


def _outline(part: np.ndarray) -> np.ndarray | None:
    """The outer contour of the part's largest piece (None if the part is empty)."""
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return max(contours, key=cv2.contourArea) if contours else None


@dataclass(frozen=True)
class _Frame:
    """What the blobs of one frame are judged by (in mask pixels)."""

    shape: tuple[int, int]          # the mask's height and width
    region: np.ndarray | None       # the tray region (255 inside), None when it is the whole frame
    die_area: float                 # the area of one die
    area_counts_dice: bool          # die_area was measured on enough single dice to count dice by area


def _die_candidate(contour: np.ndarray, rect: _Rect, offset: tuple[int, int], frame: _Frame) -> Candidate | None:
    """The blob outlined by `contour` as one die, or None when it cannot be one (wrong size, or too hollow)."""
    candidate = _candidate_from(contour, rect, offset, frame)
    return candidate if candidate is not None and candidate.fill >= _MIN_FILL else None


def _candidate_from(contour: np.ndarray, rect: _Rect, offset: tuple[int, int], frame: _Frame) -> Candidate | None:
    area = cv2.contourArea(cv2.convexHull(contour))  # a die seen as an open ring of edges still fills its rect
    (cx, cy), (rw, rh), angle = rect
    if min(rw, rh) < _MIN_SIDE * 0.8 or max(rw, rh) > _MAX_SIDE * 1.5:
        return None
    fill = area / max(rw * rh, 1.0)
    x, y, w, h = cv2.boundingRect(contour)
    ox, oy = offset
    fh, fw = frame.shape
    x0, y0 = x + ox, y + oy
    touches = bool(x0 <= 0 or y0 <= 0 or x0 + w >= fw or y0 + h >= fh
                   or (frame.region is not None
                       and frame.region[max(y0 - 1, 0):y0 + h + 1, max(x0 - 1, 0):x0 + w + 1].min() == 0))
    # Back to work pixels (pixel centres: mask pixel i covers work pixels s*i .. s*i + s - 1).
    s = _MASK_SCALE
    centre = ((cx + ox + 0.5) * s - 0.5, (cy + oy + 0.5) * s - 0.5)
    return Candidate(box=(x0 * s, y0 * s, w * s, h * s), rect=(centre, (rw * s, rh * s), angle),
                     fill=float(fill), touches_edge=touches)


def _typical_die_area(stats: np.ndarray) -> tuple[float, int]:
    """The area of one die in this frame, the median of the blobs shaped like a single die, and how many blobs
    it was measured on (0: none looks like a single die, the area is a guess)."""
    w, h, area = (stats[1:, k].astype(np.float32) for k in (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA))
    side = np.maximum(w, h)
    single = (side >= 1.5 * _MIN_SIDE) & (side <= _MAX_SIDE) & (np.minimum(w, h) > 0.7 * side) & (area > 0.6 * w * h)
    if single.any():
        # A little above the median: dice cut by a wall or a shadow edge are smaller, never larger.
        return float(np.percentile(area[single], 60)), int(np.count_nonzero(single))
    return _DEFAULT_SIDE * _DEFAULT_SIDE * 0.9, 0


@dataclass(frozen=True)
class Blob:
    """A blob as one die, and its split in two when it looks like more than one (each half a Blob again; a half
    that fell into pieces has no whole, and a part for each piece).

    The reader lets the face classifier choose at every level: centred crops of real dice read clearly, halves
    of a die and crops spanning two dice do not.
    """

    whole: Candidate | None          # the blob as one die (None when it cannot be one: wrong size or shape)
    parts: tuple[Blob, ...] = ()     # its halves or pieces (empty when it looks like a single die)

    @property
    def candidates(self) -> list[Candidate]:
        """Every candidate in the tree (what the classifier reads to choose)."""
        return ([self.whole] if self.whole else []) + [c for part in self.parts for c in part.candidates]

    def choose(self, score: Callable[[Candidate], float]) -> tuple[list[Candidate], float]:
        """The dice in the tree, choosing at every level between the whole and its halves by mean score (the
        reader scores by the classifier: halves of one die and crops spanning two dice both read poorly).
        Returns the chosen candidates and their mean score."""
        whole = score(self.whole) if self.whole else 0.0
        if not self.parts:
            return ([self.whole] if self.whole else []), whole
        dice = [c for part in self.parts for c in part.choose(score)[0]]
        parts = float(np.mean([score(c) for c in dice])) if dice else 0.0
        if self.whole is not None and whole >= parts:
            return [self.whole], whole
        return dice, parts


def _separate_pieces(part: np.ndarray, die_area: float) -> list[np.ndarray]:
    """The pieces of a part of a split blob when it fell apart into several that may each hold a die (a cut
    along clusters, and the opening after it, can leave a part in pieces), else []. The part as one die would be
    its largest piece alone: choosing it would lose the others."""
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(part, 8, cv2.CV_32S, cv2.CCL_BBDT)
    big = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= _HALF_AREA * die_area]
    if len(big) < 2:
        return []
    return [cv2.compare(labels, i, cv2.CMP_EQ) for i in big]


def _blob_tree(mask: np.ndarray, offset: tuple[int, int], frame: _Frame, depth: int = 0,
               clusters: _Clusters | None = None, dice: np.ndarray | None = None,
               outline: np.ndarray | None = None) -> Blob:
    """The blob as one die and, when it looks like several, split in two again and again. The blob is clustered
    into dice once; its parts are split along those clusters (`dice`: the clusters the part holds), unless a part
    of one cluster still looks like several dice (the count was short): that part is clustered afresh."""
    if depth > 0:
        pieces = _separate_pieces(mask, frame.die_area)
        if pieces:
            return Blob(None, tuple(_blob_tree(piece, offset, frame, depth + 1) for piece in pieces))
    outline = _outline(mask) if outline is None else outline
    if outline is None:
        return Blob(None)
    rect = cv2.minAreaRect(outline)
    whole = _die_candidate(outline, rect, offset, frame)
    length = _length_if_several(mask, rect, frame.die_area) if depth < _SPLIT_DEPTH else None
    if length is None:
        return Blob(whole)
    if clusters is None or dice is None or len(dice) < 2:
        clusters = _clusters(mask, length, frame.die_area, frame.area_counts_dice)
        dice = np.arange(len(clusters.moments))
    return Blob(whole, tuple(_blob_tree(part, offset, frame, depth + 1, clusters, held, part_outline)
                             for part, part_outline, held in _split(mask, clusters, dice, frame.die_area)))


def find_blobs(image: np.ndarray, tray: tuple[int, int, int, int] | None = None) -> list[Blob]:
    """Blobs that may be dice in a work-size BGR frame, restricted to the tray region (x, y, w, h) if given."""
    region = None if tray is None else _tray_mask(image.shape[:2], tray)
    mask = foreground_mask(image)
    if region is not None:
        mask = cv2.bitwise_and(mask, region)
    # BBDT: the same components as the default labelling, with stats at a third of its cost.
    _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    die_area, singles = _typical_die_area(stats)
    frame = _Frame(mask.shape, region, die_area, singles >= _COUNTING_SINGLES)
    # Each component's outline from one pass over the mask: a blob too small to split needs nothing else.
    outlines = {}
    for contour in cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]:
        x0, y0 = contour[0, 0]
        outlines[int(labels[y0, x0])] = contour
    # Specks, and tray walls or whole arms (nothing die-like to split out of them), are passed over.
    side, area = stats[:, [cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT]].max(axis=1), stats[:, cv2.CC_STAT_AREA]
    kept = (side >= _MIN_SIDE) & (area >= 0.3 * die_area) & ~((area > 14 * die_area) & (side > 4 * _MAX_SIDE))
    kept[0] = False     # the background
    blobs: list[Blob] = []
    for i in np.flatnonzero(kept).tolist():
        x, y, w, h, area = stats[i].tolist()
        rect = cv2.minAreaRect(outlines[i]) if area <= _PAIR_AREA * die_area and i in outlines else None
        if rect is not None and not _long_pair(area, _aspect(rect), die_area):
            blob = Blob(_die_candidate(outlines[i], rect, (0, 0), frame))
        else:
            blob = _blob_tree(cv2.compare(labels[y:y + h, x:x + w], i, cv2.CMP_EQ), (x, y), frame)
        if blob.candidates:
            blobs.append(blob)
    return blobs
