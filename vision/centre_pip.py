"""Is there a pip in the middle of a die's face? Excape's 6 and 7 differ only there (the 7 is the six layout plus
the centre pip), and the face classifier, which sees the whole face, is at its weakest between them: a marbled 6's
swirl in the middle looks like a pip to it.

Measured on the die's crop, turned upright (vision.recognise.crop_die): the six layout's four corner pips are found
first, by the face's size and place in the crop that make them most alike and most unlike the body between them and
the middle (a die's box holds its sides seen in perspective, so its top face may be smaller and off-centre); the
colours there are the pips' and the body's. The middle is a pip when its colour is near the pips', body when it is as
far from them as the body is. When the fit does not show a clear six layout (two of the side positions pips, two
body), there is no answer. The same fit tells a 5's layout (every side position body, the middle a pip), which a
marbled 5 read as a 7 shows.

A 2 and a 3 differ only there too: a 2's layout (two opposite corners pips, the rest of the face body) is fitted the
same way, and its middle measured between the pips' colour and the body's (two_layout_middles), for a 3 whose middle
pip is half lost in a marbled die's swirl.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import cv2
import numpy as np

from vision.recognise import CROP_MARGIN

CENTRE_SIZE = 64            # the die cut this big (and at vision.recognise.CROP_MARGIN) to look at its pips
# The face's side as a fraction of the box's (CROP_MARGIN apart), and its centre's shift in crop pixels, tried: the
# shifts up to NEAR_SHIFT first, the farther ones only when no face near the box's middle fits clearly. A die seen in
# perspective near the frame's edge shows its sides in its box, its top face smaller and up to ~10 px (of 64) off
# the box's middle. Fitted within 4 px, a purple 6's middle fell on a pip (fresh Excape tray 3,490,436: its sure 6
# made unsure; BODY_NOT_PIP refuses that fit, and the farther shifts find its face). Of synthetic 6s and 7s at 0.8 of
# the box, shifted up to 10 px each way (121 shifts, tests/test_vision_centre_pip.py), 59 were judged right fitted
# within 4 px, 91 so, none fewer. Taking the best fit of every shift at once judged all 121, but lost a marbled 6
# the near fit judges right (fresh Excape tray 3,140,508) and, on 1,244 sixes and sevens of the tuning trays below,
# judged two 7s as 6s. Near first, on those trays (Excape 2,000,250+, 3,580,000+, 3,590,000+, 1,000 each; marbled
# 2,005,300+, 3,585,000+, 300 each): 1,155 -> 1,164 judged, none wrong; 5s showing a 5's layout 522 -> 531 of 553.
FACE_FRACTIONS = tuple(np.round(np.arange(0.55, 1.0001, 0.05), 2))
FACE_SHIFTS = tuple(range(-8, 9, 2))
NEAR_SHIFT = 4
PIP_OFFSET = 0.25           # a corner or side pip's distance from the face's middle, in face sides (vision.models)
# Colour distances (CIELAB, OpenCV's 8-bit scale) in units of the pips' contrast with the body (their colours'
# distance), which must be MIN_CONTRAST at least. A clear six layout: the corner pips alike and the body points
# between them alike (the farthest from their mean within CORNERS_ALIKE and BODY_ALIKE), one pair of side positions
# pips (both within SIDE_PIPS), the other body (both farther than SIDE_BODY). The middle is a pip within MIDDLE_PIP,
# body beyond MIDDLE_BODY. Chosen on 1,000 Excape tuning trays (2,997,000+ and 2,999,000+, 500 each): of 317 sixes
# and sevens, 300 judged, all right, the others left without an answer; the middle of a 6 at 0.96 or more but for
# 5%, of a 7 at 0.17 or less but for 5%. The contrast and body bars came from 600 trays with a hand in them
# (3,004,000+ and 3,004,300+): a black 6 on dark felt whose crop was not turned upright (the points fell on its
# body and between its pips: contrast 31, body points 2.55 apart) was judged a 7, a 5 half seen a 6 (15, 1.71);
# the 376 dice judged right there and on the Excape trays had a contrast of 58 or more, body points 0.94 or less.
MIN_CONTRAST = 40.0
BODY_ALIKE = 1.2
# ... and every body point farther than BODY_NOT_PIP from the pips' colour: a face fitted astray can have a body
# point on a pip and still pass BODY_ALIKE (the purple 6 above: 0.38). Of the 1,244 sixes and sevens of the tuning
# trays above, fitted within 4 px, those judged had every body point 0.55 or more from the pips (all but 1% of them
# 0.74 or more), so the bar took no answer from them.
BODY_NOT_PIP = 0.5
CORNERS_ALIKE = 0.5
SIDE_PIPS = 0.35
SIDE_BODY = 0.65
MIDDLE_PIP = 0.35
MIDDLE_BODY = 0.65


@cache
def _sample_offsets(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each tried face (fraction, shift x, shift y): the crop pixels (x, y) of its 4 corner pips, 4 body points
    halfway to the middle, 4 side positions (left, right, top, bottom) and the middle: (faces, 13) each; and whether
    it is shifted at most NEAR_SHIFT each way: (faces,)."""
    layout = [(u, v) for u in (-1, 1) for v in (-1, 1)] + [(u / 2, v / 2) for u in (-1, 1) for v in (-1, 1)] + [
        (-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)]
    units = np.array(layout, np.float32)
    middle = (size - 1) / 2
    xs, ys, near = [], [], []
    for fraction in FACE_FRACTIONS:
        reach = PIP_OFFSET * fraction * size / CROP_MARGIN
        for dx in FACE_SHIFTS:
            for dy in FACE_SHIFTS:
                xs.append(np.round(middle + dx + units[:, 0] * reach))
                ys.append(np.round(middle + dy + units[:, 1] * reach))
                near.append(max(abs(dx), abs(dy)) <= NEAR_SHIFT)
    clip = (0, size - 1)
    return (np.clip(np.array(xs), *clip).astype(np.intp), np.clip(np.array(ys), *clip).astype(np.intp),
            np.array(near))


def _smoothed_lab(crop: np.ndarray) -> np.ndarray:
    """An upright BGR crop -> its colours in CIELAB (float32), each pixel the mean of its 3 x 3 neighbourhood: what
    the layout fits sample."""
    return cv2.blur(cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32), (3, 3))


def _layout_distances(lab: np.ndarray) -> np.ndarray | None:
    """A crop's _smoothed_lab -> the 13 sample points of the best-fitting face (_sample_offsets: 4 corners, 4 body
    points, left, right, top, bottom, middle) as colour distances from its corner pips' colour, in units of the pips'
    contrast with the body; None when the corners and body points do not fit a face clearly (MIN_CONTRAST,
    CORNERS_ALIKE, BODY_ALIKE, BODY_NOT_PIP). The best face near the box's middle (NEAR_SHIFT) is taken when it fits
    clearly, else the best of all."""
    xs, ys, near = _sample_offsets(CENTRE_SIZE)
    far = _distances_if_clear(_best_fitting_face(lab, xs[near], ys[near]))
    return far if far is not None else _distances_if_clear(_best_fitting_face(lab, xs, ys))


def _best_fitting_face(lab: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The 13 samples (Lab) of the face, among those sampled at (xs, ys) (_sample_offsets), whose corner pips are
    most alike and most unlike the body points between them, which are most alike."""
    samples = lab[ys, xs]                                   # (faces, 13, 3)
    corners, between = samples[:, 0:4], samples[:, 4:8]
    pip, body = corners.mean(axis=1), between.mean(axis=1)
    fit = (np.linalg.norm(pip - body, axis=1) - np.abs(corners - pip[:, None]).sum(axis=2).mean(axis=1)
           - 0.5 * np.abs(between - body[:, None]).sum(axis=2).mean(axis=1))
    return samples[int(np.argmax(fit))]


def _distances_if_clear(samples: np.ndarray) -> np.ndarray | None:
    """A fitted face's 13 samples (Lab) -> their colour distances from its corner pips' colour, in units of the pips'
    contrast with the body; None when it does not fit a face clearly."""
    corners, between = samples[0:4], samples[4:8]
    pip, body = corners.mean(axis=0), between.mean(axis=0)
    contrast = float(np.linalg.norm(pip - body)) + 1e-3
    alike = np.abs(corners - pip).sum(axis=1).max() / contrast
    body_alike = np.abs(between - body).sum(axis=1).max() / contrast
    body_not_pip = np.linalg.norm(between - pip, axis=1).min() / contrast
    clear = (contrast >= MIN_CONTRAST and alike < CORNERS_ALIKE and body_alike < BODY_ALIKE
             and body_not_pip > BODY_NOT_PIP)
    return np.linalg.norm(samples - pip, axis=1) / contrast if clear else None


class FaceLayout(NamedTuple):
    """What a die's upright crop shows of its pips' layout (face_layouts)."""

    middle: bool | None     # its middle a pip (True) or body (False) in a clear six layout; None: no clear answer
    five: bool              # a clear 5's layout: the corner and middle pips, every side position body
    lab: np.ndarray | None = None   # the crop's _smoothed_lab, kept for seven_fit

    @property
    def seven_and_fewer_pips(self) -> tuple[float, dict[int, float]]:
        """How well its face fits a 7's layout and each layout of fewer pips within it (the module's
        seven_and_fewer_pips; -inf and none without a crop). Worked out when asked, for the sure 7s that show no clear
        middle (~3.5 ms a crop)."""
        return (-np.inf, {}) if self.lab is None else seven_and_fewer_pips(self.lab)

    @property
    def seven_fit(self) -> float:
        """How well its face fits a 7's layout at best (the module's seven_fit; 0 or more: it does; -inf without a
        crop). Worked out when asked (~1.3 ms a crop, more than the six layout's fit): the reader asks it of few dice,
        a sure 7 read under vision.face_checks.SEVEN_SHOWN_BELOW that shows no clear middle."""
        return -np.inf if self.lab is None else seven_fit(self.lab)


def face_layouts(crops: np.ndarray) -> list[FaceLayout]:
    """(N, CENTRE_SIZE, CENTRE_SIZE, 3) upright BGR crops of dice cut at CROP_MARGIN -> for each, from one fit of its
    face: whether its middle holds a pip where the crop shows a clear six layout (a 6 or a 7), and whether it clearly
    shows a 5's layout instead (SIDE_BODY at every side position: a die read as a 7 that shows it is a 5 whose
    marbling the classifier took for the 7's side pips), and, when asked, how well it fits a 7's layout
    (FaceLayout.seven_fit)."""
    if crops.ndim != 4 or crops.shape[1:] != (CENTRE_SIZE, CENTRE_SIZE, 3):
        raise ValueError(f"the middle pip is judged on {CENTRE_SIZE} px BGR crops, got shape {crops.shape}")
    layouts = []
    for crop in crops:
        lab = _smoothed_lab(crop)
        far = _layout_distances(lab)
        layouts.append(FaceLayout(None, False, lab) if far is None else
                       FaceLayout(_middle_in_six_layout(far), _five_layout(far), lab))
    return layouts


# A 7's layout: the four corners, one pair of side positions and the middle are pips; the body points between the
# corners and the other pair of side positions are body.
_SEVEN_LAYOUTS = tuple(([0, 1, 2, 3, *pips, 12], [4, 5, 6, 7, *body]) for pips, body in (((8, 9), (10, 11)),
                                                                                            ((10, 11), (8, 9))))


def seven_fit(lab: np.ndarray) -> float:
    """A crop's _smoothed_lab -> how well its face fits a 7's layout: over the faces tried (_sample_offsets, near and
    far) and both turns of the layout, the best of the smallest margin by which each pip position is nearer the pips'
    colour than the body's, and each body position nearer the body's than the pips', in units of the pips' contrast
    with the body (MIN_CONTRAST at least). 0 or more: the face shows a 7, each of its positions on the right side;
    below 0 one position at least is not (a 4's middle, a 3's corner, a 6's middle); -inf: no face with the contrast.
    Unlike the six layout's fit (_layout_distances), the body need not be of one colour, nor the pips: a marbled die's
    swirls and gold pips pass when every position sides with its own."""
    xs, ys, _ = _sample_offsets(CENTRE_SIZE)
    samples = lab[ys, xs]
    best = -np.inf
    for pip_at, body_at in _SEVEN_LAYOUTS:
        pips, body = samples[:, pip_at], samples[:, body_at]
        pip, body_colour = pips.mean(axis=1), body.mean(axis=1)
        contrast = np.linalg.norm(pip - body_colour, axis=1)
        pips_side = (np.linalg.norm(pips - body_colour[:, None], axis=2)
                     - np.linalg.norm(pips - pip[:, None], axis=2)).min(axis=1)
        body_side = (np.linalg.norm(body - pip[:, None], axis=2)
                     - np.linalg.norm(body - body_colour[:, None], axis=2)).min(axis=1)
        margin = np.minimum(pips_side, body_side) / np.maximum(contrast, 1e-3)
        margin = margin[contrast >= MIN_CONTRAST]
        if len(margin):
            best = max(best, float(margin.max()))
    return best


# The layouts of fewer pips within a 7's (_SEVEN_LAYOUTS) that a marbled die's swirls can make a 7 of: the 6 (its
# side pips left and right, or above and below), the 5 (corners and middle) and the 4 (corners). Each: the pip
# positions and the body positions among _sample_offsets' 13 points.
_FEWER_THAN_SEVEN = {
    6: (([0, 1, 2, 3, 8, 9], [4, 5, 6, 7, 10, 11, 12]), ([0, 1, 2, 3, 10, 11], [4, 5, 6, 7, 8, 9, 12])),
    5: (([0, 1, 2, 3, 12], [4, 5, 6, 7, 8, 9, 10, 11]),),
    4: (([0, 1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11, 12]),),
}
# A layout of fewer pips is fitted with each position where a 7 has a pip and it has body taken at the pixel nearest
# the pips' colour within MIDDLE_REACH of the point (_reach_offsets): a 7's pip drawn a little off its point, or a face
# seen in perspective, counts against the fewer pips, while a 6's middle or a 4's sides are body throughout.
_SEVEN_ONLY = (8, 9, 10, 11, 12)
MIDDLE_REACH = 3            # crop px (of CENTRE_SIZE); a pip is ~7 px wide there
_REACH_BATCH = 32           # faces whose pixels within reach are weighed at a time (_layout_fit)


@cache
def _reach_offsets(size: int) -> tuple[np.ndarray, np.ndarray]:
    """For each tried face (_sample_offsets) and each of _SEVEN_ONLY's points, the crop pixels (x, y) within
    MIDDLE_REACH of the point: (faces, len(_SEVEN_ONLY), n) each."""
    xs, ys, _ = _sample_offsets(size)
    reach = [(dx, dy) for dx in range(-MIDDLE_REACH, MIDDLE_REACH + 1) for dy in range(-MIDDLE_REACH, MIDDLE_REACH + 1)
             if dx * dx + dy * dy <= MIDDLE_REACH * MIDDLE_REACH]
    points = list(_SEVEN_ONLY)
    return (np.clip(xs[:, points, None] + np.array([dx for dx, _ in reach]), 0, size - 1),
            np.clip(ys[:, points, None] + np.array([dy for _, dy in reach]), 0, size - 1))


def _layout_fit(samples: np.ndarray, pip_at: list[int], body_at: list[int],
                reached: tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None = None) -> float:
    """The best margin, over the faces sampled (faces, 13, 3), by which every body position of a layout is farther
    from its pips' colour (their mean) than every pip position is; `reached`: the crop's _smoothed_lab and the pixels
    (x, y) within reach of _SEVEN_ONLY's points (_reach_offsets), for those body positions taken at their nearest."""
    pips, body = samples[:, pip_at], samples[:, body_at]
    pip = pips.mean(axis=1)
    pips_far = np.linalg.norm(pips - pip[:, None], axis=2).max(axis=1)
    margin = np.linalg.norm(body - pip[:, None], axis=2).min(axis=1) - pips_far
    near = [_SEVEN_ONLY.index(k) for k in body_at if k in _SEVEN_ONLY] if reached is not None else []
    if reached is None or not near:
        return float(margin.max())
    # The pixels within reach only lower a face's margin: the faces are taken best margin first, in batches, until
    # the best found with them is no worse than the next face's margin without (the same answer; a 7's fits 11.5 ->
    # 3.5 ms a crop on the dev machine's core).
    lab, (xs, ys) = reached
    best = -np.inf
    order = np.argsort(-margin, kind="stable")
    for start in range(0, len(order), _REACH_BATCH):
        if margin[order[start]] <= best:
            break
        faces = order[start:start + _REACH_BATCH]
        pixels = lab[ys[faces][:, near], xs[faces][:, near]] - pip[faces][:, None, None]
        within = np.sqrt(np.einsum("fknc,fknc->fkn", pixels, pixels).min(axis=(1, 2))) - pips_far[faces]
        best = max(best, float(np.minimum(margin[faces], within).max()))
    return best


def seven_and_fewer_pips(lab: np.ndarray) -> tuple[float, dict[int, float]]:
    """A crop's _smoothed_lab -> how well its face fits a 7's layout, and a layout of fewer pips within it (4, 5, 6):
    over the faces tried (_sample_offsets, near and far) and both turns, the best margin by which every body position
    is farther from the pips' colour than every pip position is (CIELAB units, OpenCV's 8-bit scale), the 7's
    positions at their points, the fewer pips' with a 7's pip within reach of a body position counting against them
    (_SEVEN_ONLY, MIDDLE_REACH). Unlike the six layout's fit (_layout_distances) the body may be of any colours, a
    marbled die's swirls: only its distance from the pips' colour counts."""
    xs, ys, _ = _sample_offsets(CENTRE_SIZE)
    rx, ry = _reach_offsets(CENTRE_SIZE)
    samples = lab[ys, xs]
    seven = max(_layout_fit(samples, pips, body) for pips, body in _SEVEN_LAYOUTS)
    return seven, {pips: max(_layout_fit(samples, at, body, (lab, (rx, ry))) for at, body in turns)
                   for pips, turns in _FEWER_THAN_SEVEN.items()}


# Every face of pips' layout (1-7), each of _sample_offsets' 13 points a pip or body: a 2 and a 3 on either diagonal
# (the other corners body), the 4, 5, 6 and 7 as above.
_POINTS = frozenset(range(13))


def _pips_at(*pips: int) -> tuple[list[int], list[int]]:
    return list(pips), sorted(_POINTS - set(pips))


_PIP_LAYOUTS: dict[int, tuple[tuple[list[int], list[int]], ...]] = {
    1: (_pips_at(12),), 2: (_pips_at(0, 3), _pips_at(1, 2)), 3: (_pips_at(0, 3, 12), _pips_at(1, 2, 12)),
    **_FEWER_THAN_SEVEN, 7: _SEVEN_LAYOUTS}


def pip_layout_fits(crop: np.ndarray, faces: tuple[int, ...] = tuple(_PIP_LAYOUTS)) -> dict[int, float]:
    """An upright BGR crop of a die cut at CROP_MARGIN, CENTRE_SIZE px -> for each face of `faces` pips (1 to 7), how
    well the crop fits its layout: over the faces tried (_sample_offsets) and the layout's turns, the best margin by
    which every body position is farther from the pips' colour than every pip position is (_layout_fit, each position
    at its point; CIELAB units, OpenCV's 8-bit scale). ~1.3 ms a layout on the dev machine's core."""
    if crop.shape != (CENTRE_SIZE, CENTRE_SIZE, 3):
        raise ValueError(f"pip layouts are fitted on {CENTRE_SIZE} px BGR crops, got shape {crop.shape}")
    unknown = sorted(set(faces) - set(_PIP_LAYOUTS))
    if unknown:
        raise ValueError(f"no pip layout for {unknown}: faces of 1 to 7 pips only")
    xs, ys, _ = _sample_offsets(CENTRE_SIZE)
    samples = _smoothed_lab(crop)[ys, xs]
    return {pips: max(_layout_fit(samples, at, body) for at, body in _PIP_LAYOUTS[pips]) for pips in faces}


# A 2's layout, on either diagonal: two opposite corners pips; the other two corners, the body points on their
# diagonal and the four side positions body. A 3 is the same layout with a pip in the middle. Indices into
# _sample_offsets' 13 points, one row a diagonal.
_TWO_PIPS = np.array([[0, 3], [1, 2]])
_TWO_BODY = np.array([[1, 2, 5, 6, 8, 9, 10, 11], [0, 3, 4, 7, 8, 9, 10, 11]])


@cache
def _two_layout_points(size: int) -> tuple[np.ndarray, np.ndarray]:
    """The pixels (flat indices into a size x size crop) of each tried face's 13 points (_sample_offsets), a row a
    point: (13, faces) for the faces near the box's middle, and for the farther ones."""
    xs, ys, near = _sample_offsets(size)
    flat = ys * size + xs
    return np.ascontiguousarray(flat[near].T), np.ascontiguousarray(flat[~near].T)


def two_layout_middles(crops: np.ndarray) -> list[float | None]:
    """(N, CENTRE_SIZE, CENTRE_SIZE, 3) upright BGR crops of dice cut at CROP_MARGIN -> for each, where its face fits
    a 2's layout clearly, its middle's colour distance from the pips' colour in units of the pips' contrast with the
    body (about 1: body, as a 2's; about 0: a pip, as a 3's); None when no face fits clearly. The face is fitted as
    the six layout's is, the faces near the box's middle first, the farther ones when none of those fits clearly
    (~0.6 ms a crop on the dev machine, ~1.7 ms when the farther ones are fitted too); its body's colour is the
    median of its body points (a marbled die's swirls fall on some). Clearly: the contrast MIN_CONTRAST at least,
    the two pips alike (CORNERS_ALIKE), and every body point farther than BODY_NOT_PIP from the pips' colour."""
    if crops.ndim != 4 or crops.shape[1:] != (CENTRE_SIZE, CENTRE_SIZE, 3):
        raise ValueError(f"the middle pip is judged on {CENTRE_SIZE} px BGR crops, got shape {crops.shape}")
    near, far = _two_layout_points(CENTRE_SIZE)
    middles: list[float | None] = []
    for crop in crops:
        colours = _smoothed_lab(crop).reshape(-1, 3)
        middle = _two_middle_if_clear(colours[near])
        middles.append(middle if middle is not None else _two_middle_if_clear(colours[far]))
    return middles


def _two_middle_if_clear(samples: np.ndarray) -> float | None:
    """Of the faces sampled (13, faces, 3: _two_layout_points), the one best fitting a 2's layout on either diagonal:
    its middle's distance from its pips' colour in contrast units when it fits clearly, else None."""
    pips, body = samples[_TWO_PIPS], samples[_TWO_BODY]            # (2 diagonals, 2 | 8 points, faces, 3)
    # The median of the 8 body points, sorted: np.median takes ~5 times as long on these small axes.
    ordered = np.sort(body, axis=1)
    pip, body_colour = 0.5 * (pips[:, 0] + pips[:, 1]), 0.5 * (ordered[:, 3] + ordered[:, 4])
    # As _best_fitting_face: the pips' contrast with the body, less their spread (each pip's L1 distance from their
    # mean: half theirs) and half the body points' spread. The first diagonal's best face wins a tie.
    fit = (np.sqrt(((pip - body_colour) ** 2).sum(axis=2)) - 0.5 * np.abs(pips[:, 0] - pips[:, 1]).sum(axis=2)
           - 0.5 * np.abs(body - body_colour[:, None]).sum(axis=3).mean(axis=1))
    diagonal, face = np.unravel_index(int(np.argmax(fit)), fit.shape)
    first, second = pips[diagonal, 0, face], pips[diagonal, 1, face]
    pip, body_colour, body = pip[diagonal, face], body_colour[diagonal, face], body[diagonal, :, face]
    contrast = float(np.linalg.norm(pip - body_colour)) + 1e-3
    clear = (contrast >= MIN_CONTRAST and 0.5 * np.abs(first - second).sum() / contrast < CORNERS_ALIKE
             and np.linalg.norm(body - pip, axis=1).min() / contrast > BODY_NOT_PIP)
    return float(np.linalg.norm(samples[12, face] - pip)) / contrast if clear else None


def _middle_in_six_layout(far: np.ndarray) -> bool | None:
    """From a fit's 13 distances (_layout_distances): True when the face shows a clear six layout with a pip in its
    middle, False when its middle is body, None otherwise."""
    sides_a, sides_b = max(far[8], far[9]), max(far[10], far[11])
    pips_pair, body_pair = (far[8:10], far[10:12]) if sides_a <= sides_b else (far[10:12], far[8:10])
    if not (pips_pair.max() < SIDE_PIPS and body_pair.min() > SIDE_BODY):
        return None
    middle = float(far[12])
    return True if middle < MIDDLE_PIP else False if middle > MIDDLE_BODY else None


def _five_layout(far: np.ndarray) -> bool:
    """From a fit's 13 distances: whether every side position is body and the middle a pip."""
    return bool(far[8:12].min() > SIDE_BODY) and bool(far[12] < MIDDLE_PIP)
