"""What the reader returns: the contract between `vision` and the rest of the companion.

`TrayReading.to_json()` is exactly the object `dice-companion read --json` prints for one image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

UNKNOWN_FACE = "?"


@dataclass(frozen=True)
class DieReading:
    face: str                       # the model's label ("1".."6", "7", "X", a taught label) or "?"
    confidence: float               # 0..1
    sure: bool                      # False: the companion must not use this face without a re-roll
    box: tuple[int, int, int, int]  # x, y, w, h in pixels of the input image, covering the die
    reason: str | None = None       # why it is unsure: "cocked", "stacked", "cut by the frame edge", ...

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
