"""What the reader returns: the contract between `vision` and the rest of the companion.

`TrayReading.to_json()` is exactly the object `dice-companion read --json` prints for one image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

UNKNOWN_FACE = "?"
# A tray read again whose dice each lie over one of the last reading's boxes by this much (intersection over union)
# lies as it did: read twice, the same dice in the same place give boxes a pixel or two apart.
SAME_PLACE_IOU = 0.7
# A tray read again whose dice each lie within SAME_LAYOUT_SLACK of their side of where one common step puts one of
# the last reading's dice, each boxed as wide and as high within SAME_BOX_SLACK of it (or SAME_BOX_PIXELS), lies as
# it did, moved together (TrayReading.lies_as_moved): the table, the camera or the tray knocked, which may also turn
# the view a little. A turn of 1 degree moves two dice 300 px apart (at 640x480) 5 px apart, each half that from
# their mean step: ~0.06 of a 45-px die. The reader's boxes of one die in two views differ by up to ~0.15 of its
# side. Measured in session 45 (/tmp scripts): of 298 knocks (3-16 px, turned up to 2 degrees; seeds 6,340,000+),
# each read in both views, 275 lie as they did moved together; of 106,200 pairs of two-d6 throws made one after
# another in one tray (60 trays, their true boxes; 6,400,000+), 6 do (one in ~17,700), 453 by their places alone.
SAME_LAYOUT_SLACK = 0.15
SAME_BOX_SLACK, SAME_BOX_PIXELS = 0.12, 2.0


@dataclass(frozen=True)
class DieReading:
    face: str                       # the model's label ("1".."6", "7", "X", a taught label) or "?"
    confidence: float               # 0..1
    sure: bool                      # False: the companion must not use this face without a re-roll
    box: tuple[int, int, int, int]  # x, y, w, h in pixels of the input image, covering the die
    reason: str | None = None       # why it is unsure: "cocked", "stacked", "cut by the frame edge", ...
    # The side of its top face in pixels of the input image, as the reader measured it (the box also holds its sides
    # seen in perspective, and is wider for a die lying turned): what vision.dice_sides remembers. Not in the JSON.
    side: float = 0.0

    def to_json(self) -> dict:
        return {"face": self.face, "confidence": round(float(self.confidence), 4), "sure": bool(self.sure),
                "box": [int(v) for v in self.box]}


@dataclass(frozen=True)
class TrayReading:
    status: Literal["ok", "reroll"]
    reason: str | None = None       # for "reroll": what the players should be told, e.g. "die 2 is cocked"
    dice: tuple[DieReading, ...] = field(default_factory=tuple)

    @property
    def faces(self) -> list[str]:
        return [d.face for d in self.dice]

    def to_json(self, image: str | None = None) -> dict:
        return {"image": image, "status": self.status, "reason": self.reason,
                "dice": [d.to_json() for d in self.dice]}

    def lies_as(self, other: TrayReading | None) -> bool:
        """Whether these dice lie as `other`'s did: as many, each box over one of theirs by SAME_PLACE_IOU, showing
        the face it showed or none surely. The same throw read again (the light changed, a shadow passed over), never
        a new one: thrown dice never come to rest where they lay, and a die turned over where it lies shows another
        face surely (a die the changed light leaves unsure is no reason to ask for a re-roll of a throw counted)."""
        if other is None or not self.dice or len(self.dice) != len(other.dice):
            return False
        matched = match_boxes([d.box for d in self.dice], [d.box for d in other.dice], SAME_PLACE_IOU)
        return len(matched) == len(self.dice) and all(self._shows(i, other.dice[j]) for i, j in matched.items())

    def lies_as_moved(self, other: TrayReading | None) -> bool:
        """Whether these dice, two or more, lie as `other`'s did moved together: as many, each within
        SAME_LAYOUT_SLACK of its side of where one step (the mean of their own) puts one of theirs, boxed as wide and
        as high (SAME_BOX_SLACK), showing the face it showed or none surely. The same throw after a knock on the
        table, the camera or the tray: the view, or the tray and the dice in it, moved and maybe turned a little, and
        no die was thrown. A lone die moved is no sign: any die thrown again may show its face anywhere."""
        if other is None or len(self.dice) < 2 or len(self.dice) != len(other.dice):
            return False
        new, old = _centres(self.dice), _centres(other.dice)
        side = _median_side(self.dice + other.dice)
        slack = SAME_LAYOUT_SLACK * side
        for first in range(len(old)):
            # The step that puts `first` of theirs on the first of these; each die then paired with the nearest of
            # theirs it shows the face of, within twice the slack; the pairs' own mean step judged at the slack.
            step = new[0] - old[first]
            pairs: dict[int, int] = {}
            for i, centre in enumerate(new):
                free = [j for j in range(len(old)) if j not in pairs.values() and self._shows(i, other.dice[j])
                        and _boxed_alike(self.dice[i].box, other.dice[j].box, side)]
                near = min(free, key=lambda j: float(((old[j] + step - centre) ** 2).sum()), default=None)
                if near is None or float((((old[near] + step - centre) ** 2).sum()) ** 0.5) > 2 * slack:
                    break
                pairs[i] = near
            else:
                moved = new[list(pairs)] - old[list(pairs.values())]
                left = moved - moved.mean(axis=0)
                if float((left ** 2).sum(axis=1).max() ** 0.5) <= slack:
                    return True
        return False

    def _shows(self, index: int, before: DieReading) -> bool:
        """Whether die `index` of these shows the face `before` showed, or none surely."""
        return self.dice[index].face == before.face or not self.dice[index].sure


def _centres(dice: tuple[DieReading, ...]) -> np.ndarray:
    return np.array([(x + w / 2, y + h / 2) for x, y, w, h in (d.box for d in dice)], np.float64)


def _boxed_alike(box: tuple[int, int, int, int], before: tuple[int, int, int, int], side: float) -> bool:
    """Whether a die's box is as wide and as high as it was, within SAME_BOX_SLACK of the dice's side: a die
    turned as it lies changes its box's size, a view knocked and turned a degree or two does not."""
    slack = max(SAME_BOX_PIXELS, SAME_BOX_SLACK * side)
    return abs(box[2] - before[2]) <= slack and abs(box[3] - before[3]) <= slack


def _median_side(dice: tuple[DieReading, ...]) -> float:
    return float(np.median([max(d.box[2], d.box[3]) for d in dice]))


def box_iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def match_boxes(found: list[tuple[int, int, int, int]], truth: list[tuple[int, int, int, int]],
                min_iou: float = 0.3) -> dict[int, int]:
    """Greedy one-to-one matching, best IoU first: {found index: truth index}."""
    pairs = sorted(((box_iou(f, t), i, j) for i, f in enumerate(found) for j, t in enumerate(truth)), reverse=True)
    used_f: set[int] = set()
    used_t: set[int] = set()
    matches: dict[int, int] = {}
    for score, i, j in pairs:
        if score < min_iou:
            break
        if i in used_f or j in used_t:
            continue
        matches[i] = j
        used_f.add(i)
        used_t.add(j)
    return matches
