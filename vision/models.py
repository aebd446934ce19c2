"""Die models as data: which faces a die has, what each looks like, and what each means.

"Which face is up" (the appearance the camera recognises: a pip layout, a printed symbol, a taught look) is kept
apart from "what it means" (the label the rules get). A model is a set of dice kinds; Excape has two kinds of die
(A: 1-2-3-4-7-X, B: 1-2-3-5-6-X) that look alike, so the reader works on the union of their appearances.

Pip positions are in die-face units: (0, 0) is the face's centre, +-1 its edges.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import DiceCompanionError


class ModelError(DiceCompanionError):
    """A die model is unknown or its file is invalid."""


_C, _Q = 0.0, 0.5  # centre, and the offset of the corner/side pips
PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((_C, _C),),
    2: ((-_Q, -_Q), (_Q, _Q)),
    3: ((-_Q, -_Q), (_C, _C), (_Q, _Q)),
    4: ((-_Q, -_Q), (_Q, -_Q), (-_Q, _Q), (_Q, _Q)),
    5: ((-_Q, -_Q), (_Q, -_Q), (_C, _C), (-_Q, _Q), (_Q, _Q)),
    6: ((-_Q, -_Q), (-_Q, _C), (-_Q, _Q), (_Q, -_Q), (_Q, _C), (_Q, _Q)),
    # Excape's 7: the six layout plus the centre pip.
    7: ((-_Q, -_Q), (-_Q, _C), (-_Q, _Q), (_C, _C), (_Q, -_Q), (_Q, _C), (_Q, _Q)),
}


@dataclass(frozen=True)
class Face:
    """One face: its appearance key and the label the rules receive.

    appearance: "pips:N" for a pip layout from PIP_LAYOUTS, "symbol:NAME" for a printed symbol ("symbol:cross"),
    "taught:NAME" for a face learned by `dice-companion teach` (its look is stored in the model file).
    """

    label: str
    appearance: str

    @property
    def pips(self) -> int | None:
        kind, _, value = self.appearance.partition(":")
        return int(value) if kind == "pips" else None


@dataclass(frozen=True)
class DieKind:
    name: str
    faces: tuple[Face, ...]


@dataclass(frozen=True)
class DieModel:
    name: str
    kinds: tuple[DieKind, ...]

    @property
    def faces(self) -> tuple[Face, ...]:
        """Every distinct appearance across the model's kinds of die (what the reader must tell apart)."""
        seen: dict[str, Face] = {}
        for kind in self.kinds:
            for face in kind.faces:
                seen.setdefault(face.appearance, face)
        return tuple(seen.values())

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f.label for f in self.faces)

    def label_of(self, appearance: str) -> str:
        for face in self.faces:
            if face.appearance == appearance:
                return face.label
        raise ModelError(f"model {self.name!r} has no face that looks like {appearance!r}")


def _pips_face(n: int) -> Face:
    return Face(label=str(n), appearance=f"pips:{n}")


X_FACE = Face(label="X", appearance="symbol:cross")

D6 = DieModel("d6", (DieKind("d6", tuple(_pips_face(n) for n in range(1, 7))),))
EXCAPE = DieModel("excape", (
    DieKind("excape-a", (*(_pips_face(n) for n in (1, 2, 3, 4, 7)), X_FACE)),
    DieKind("excape-b", (*(_pips_face(n) for n in (1, 2, 3, 5, 6)), X_FACE)),
))
BUILTIN_MODELS: dict[str, DieModel] = {m.name: m for m in (D6, EXCAPE)}
