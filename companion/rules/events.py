"""The events that drive a game: what the tray read (a roll) or a button a player pressed.

Each event is a small frozen dataclass; the table-log words map one to one onto them (see `tablelog`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from companion.rules.errors import RuleError

# Every face any supported die can show: Mex uses 1-6; Excape's two dice add 7 and X (which counts 0).
ALL_FACES = ("1", "2", "3", "4", "5", "6", "7", "X")


def normalise_face(face: str) -> str:
    """Return the canonical spelling of a face ("x" -> "X"), or raise if it is no face of any die."""
    canonical = str(face).strip().upper()
    if canonical not in ALL_FACES:
        raise RuleError(f"{face!r} is not a die face; expected one of 1 2 3 4 5 6 7 X")
    return canonical


@dataclass(frozen=True)
class Roll:
    """The two dice the tray read for the player to act, in any order."""

    faces: tuple[str, str]

    def __post_init__(self) -> None:
        faces = tuple(self.faces)
        if len(faces) != 2:
            raise RuleError(f"a roll has exactly two dice, got {len(faces)} faces {' '.join(map(str, faces))!r}")
        object.__setattr__(self, "faces", (normalise_face(faces[0]), normalise_face(faces[1])))


@dataclass(frozen=True)
class Reroll:
    """REROLL button: the player throws again."""


@dataclass(frozen=True)
class Stop:
    """Mex STOP: keep this throw and pass the dice on."""


@dataclass(frozen=True)
class EndRound:
    """Mex: keep this throw and end the round now (the players still to throw are skipped)."""


CountMode = Literal["pips", "mex"]


@dataclass(frozen=True)
class Count:
    """Mex tie-break: how the extra round's throws are counted ("pips" = sum of the dice, "mex" = normal)."""

    mode: CountMode

    def __post_init__(self) -> None:
        if self.mode not in ("pips", "mex"):
            raise RuleError(f"count mode {self.mode!r} is unknown; expected 'pips' or 'mex'")


@dataclass(frozen=True)
class Place:
    """Excape/Rapido: stop and put the pair on ranking space 0-5."""

    space: int

    def __post_init__(self) -> None:
        if isinstance(self.space, bool) or not isinstance(self.space, int):
            raise RuleError(f"place needs a space number 0-5, got {self.space!r}")


@dataclass(frozen=True)
class Undo:
    """Revert the previous (not yet undone) event."""


Event = Roll | Reroll | Stop | EndRound | Count | Place | Undo
