"""Where the tray is in the camera's frame: the calibration `dice-companion calibrate` writes into the config.

The region is the tray's inside up to its rim, walls included, as an upright box (x, y, w, h) in frame pixels. The
reader reads the dice inside it, says a die reaching its border is on the tray's rim, and looks beyond it only for a
throw short of dice (a die rolled off onto the table, said to be outside the tray; vision.read). Not the floor alone:
a die resting against a wall shows its top face over the wall's foot, in perspective, and would be on the rim at
every throw.

Found in one frame of the tray, best empty (dice are tolerated):
1. the frame shrunk to WORK_WIDTH and its edges marked where the brightness steps by EDGE or more (on log
   brightness, so a dark felt's edges count as a white card's, and light that changes slowly across the tray
   makes none);
2. the floor: the edge-free patch covering most of the frame's middle third, its holes (dice) filled, with each
   patch across its edge that is the floor in a shadow (wide, the floor's colour darkened: below);
3. the walls: each edge-free patch just across the floor's edge (reached through edge pixels alone, so the table
   beyond a wall, a patch further out, is not), as far as WALL_REACH of the frame from the floor.
A floor reaching the frame's edge on every side gives the whole frame: the tray fills the view.

Measured on virtual trays (`RenderedTray.rim`: the box of the rim as drawn), none of which the bars were chosen on
(4,400,000+, 200 trays): at 640x480, IoU with the rim's box 0.95 or more on 99.7% of 4,401,000+ (600 trays) and 98.3%
of 4,406,000+ (1,000), and on 99.5% of 4,402,000+ at 1280x960 (200); no region short of the floor and its walls
(grown 8 px a side at 640x480, as far as the rim). Every miss of the 1,000 was too big, on a card tray whose rim is
hardly brighter than the table beyond it: the table taken for wall (a die rolled just off such a tray is read as in
it). EDGE from 0.08 to 0.15 gave the same figures give or take 0.5%. `dice-companion bench vision` prints the figure
on its own seeds. Real photos (../shared/data/tray-d6-photos, all 250, measured once the bars were set): the 33 of a
walled tray give its inside up to the black rim (52-57% of the frame), the rest, a floor filling the view, the whole
frame; every one of the 1,795 labelled dice has its centre inside the region, and a die beside the tray, unlabelled,
lies outside it (tests/data/beside-tray). ~3.5 ms a 640x480 frame.

A hard shadow across the floor (a low lamp, the sun through a window) has an edge as a wall has, and the shade
beyond it is the floor's colour darkened, as a wall's is: without the shadow rule (_with_shadowed_floor), on 100
virtual trays (4,408,000+) with the light dimmed to 0.65 over the left tenth, fifth or third of the tray, the region
fell short of the floor on 44, 99 and 100 of them; with it, on 1, 0 and 0 (dimmed to 0.45: 0, 0, 0), and 98 of 100
within IoU 0.95 of the rim each time. The bars (SHADOW_THICK 0.04-0.06 alike; 0.08 lost the fifth) were chosen on
those shadowed trays; 4,400,000+ and 4,406,000+ (200 and 400) read alike with and without it.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.errors import DiceCompanionError
from vision.motion import shows_no_picture
from vision.read import ReadError, checked_image

WORK_WIDTH = 160        # px: the frame is judged this wide (a tray's edges are long; dice and grain are smoothed away)
EDGE = 0.12             # log-brightness range over 3x3 work pixels that marks an edge (a step of ~13%)
WALL_REACH = 0.12       # of the frame's shorter side: how far beyond the floor's edge walls are looked for
EDGE_WIDTH = 6          # work px: the widest band of edge pixels crossed from the floor to a wall
FLOOR_MIDDLE = 0.2      # of the frame's middle third, at least, the floor must cover: else there is no tray there
# A patch across the floor's edge is the floor in a shadow (a low lamp, the sun) when it reaches SHADOW_THICK of the
# frame's shorter side from its own edges somewhere, and has the floor's chromaticities within SHADOW_CHROMA: a
# shadow darkens a colour, and a wall's shade too, so only its width tells them apart. On the 200 tuning trays, 291
# of the 293 patches across the floor's edge (walls, and the table beyond a faint rim) reached under 0.04 (0.064 at
# most). Up to SHADOW_STEPS patches deep.
SHADOW_THICK = 0.05
SHADOW_CHROMA = 0.02
SHADOW_STEPS = 3


class TrayRegionNotFound(DiceCompanionError):
    """The frame shows no tray the calibration can find (a covered lens, a busy middle of the frame)."""


def find_tray_region(frame: np.ndarray) -> tuple[int, int, int, int]:
    """The tray's region (x, y, w, h) in pixels of a BGR frame of the tray seen from above, walls included; the
    whole frame when the tray's floor fills the view. TrayRegionNotFound when no tray floor lies in the frame's
    middle, the frame is black or white, or it is no image a camera gives (vision.read.checked_image)."""
    try:
        frame = checked_image(frame)
    except ReadError as error:
        raise TrayRegionNotFound(str(error)) from error
    if shows_no_picture(frame):
        raise TrayRegionNotFound("the frame is all black or all white: is the lens covered, or the light off?")
    h0, w0 = frame.shape[:2]
    scale = WORK_WIDTH / w0
    small = cv2.resize(frame, (WORK_WIDTH, max(8, round(h0 * scale))), interpolation=cv2.INTER_AREA)
    # +8: the log of a dark pixel's noise would otherwise mark a dark wall's grain as edges
    smooth = cv2.medianBlur(small, 3).astype(np.float32)
    logs = np.log(smooth + 8.0)
    square = np.ones((3, 3), np.uint8)
    edge_free = ((cv2.dilate(logs, square) - cv2.erode(logs, square)).max(axis=2) < EDGE).astype(np.uint8)
    count, labels = cv2.connectedComponents(edge_free, connectivity=4)
    floor = _floor(labels, count)
    if floor is None:
        raise TrayRegionNotFound("no tray floor fills the middle of the frame: aim the camera at the tray, empty it "
                                 "and calibrate again")
    floor = _with_shadowed_floor(labels, floor, edge_free, smooth)
    region = floor | _walls(labels, floor, edge_free)
    region = cv2.dilate(region, square)           # the floor's edge pixels are the tray's too
    ys, xs = np.nonzero(region)
    x0, y0 = round(xs.min() / scale), round(ys.min() / scale)
    x1, y1 = min(w0, round((xs.max() + 1) / scale)), min(h0, round((ys.max() + 1) / scale))
    return x0, y0, x1 - x0, y1 - y0


def _floor(labels: np.ndarray, count: int) -> np.ndarray | None:
    """The edge-free patch covering most of the frame's middle third, holes filled (0/1), or None if it covers less
    than FLOOR_MIDDLE of it."""
    h, w = labels.shape
    middle = labels[h // 3: 2 * h // 3, w // 3: 2 * w // 3]
    covered = np.bincount(middle.ravel(), minlength=count)
    covered[0] = 0                                # label 0: the edges
    best = int(np.argmax(covered))
    if covered[best] < FLOOR_MIDDLE * middle.size:
        return None
    outlines, _ = cv2.findContours((labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros(labels.shape, np.uint8)
    cv2.drawContours(filled, outlines, -1, 1, cv2.FILLED)
    return filled


def _with_shadowed_floor(labels: np.ndarray, floor: np.ndarray, edge_free: np.ndarray, smooth: np.ndarray
                         ) -> np.ndarray:
    """The floor, with each patch just across its edge that is the floor in a shadow: as wide as SHADOW_THICK of the
    frame somewhere (a wall is a thin band) and of the floor's colour, its brightness aside (SHADOW_CHROMA on each of
    its chromaticities, b, g and r over their sum), holes filled (0/1). Until none is left: a shadow over a shadow."""
    chromaticity = (smooth + 1.0) / (smooth + 1.0).sum(axis=2, keepdims=True)
    thick = SHADOW_THICK * min(labels.shape)
    for _ in range(SHADOW_STEPS):
        floor_colour = chromaticity[(floor > 0) & (edge_free > 0)].mean(axis=0)
        shadowed = [patch for patch in (labels == label for label in np.unique(labels[_beside(floor, edge_free) > 0]))
                    if cv2.distanceTransform(np.pad(patch.astype(np.uint8), 1), cv2.DIST_L2, 3).max() >= thick
                    and np.abs(chromaticity[patch].mean(axis=0) - floor_colour).max() <= SHADOW_CHROMA]
        if not shadowed:
            break
        grown = floor | np.any(shadowed, axis=0).astype(np.uint8)
        outlines, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        floor = np.zeros_like(floor)
        cv2.drawContours(floor, outlines, -1, 1, cv2.FILLED)
    return floor


def _beside(floor: np.ndarray, edge_free: np.ndarray) -> np.ndarray:
    """The edge-free pixels just across the floor's edge (0/1): reached from the floor through edge pixels alone, so
    a wall is reached and the table beyond it not."""
    square = np.ones((3, 3), np.uint8)
    crossing = floor.copy()
    for _ in range(EDGE_WIDTH):
        crossing = cv2.dilate(crossing, square) & ((1 - edge_free) | floor)
    return cv2.dilate(crossing, square) & edge_free & (1 - floor)


def _walls(labels: np.ndarray, floor: np.ndarray, edge_free: np.ndarray) -> np.ndarray:
    """The edge-free patches just across the floor's edge, within WALL_REACH of it (0/1)."""
    walls = np.isin(labels, np.unique(labels[_beside(floor, edge_free) > 0])).astype(np.uint8) & (1 - floor)
    reach = max(1, round(WALL_REACH * min(labels.shape)))
    near = cv2.dilate(floor, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * reach + 1, 2 * reach + 1)))
    return walls & near
