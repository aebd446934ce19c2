"""What the reader returns: the contract between `vision` and the rest of the companion.

`TrayReading.to_json()` is exactly the object `dice-companion read --json` prints for one image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

UNKNOWN_FACE = "?"
# A tray read again whose dice each lie over one of the last reading's boxes by this much (intersection over union)
# lies as it did: read twice, the same dice in the same place give boxes a pixel or two apart.
SAME_PLACE_IOU = 0.7


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
        return len(matched) == len(self.dice) and all(self.dice[i].face == other.dice[j].face or not self.dice[i].sure
                                                      for i, j in matched.items())


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
