"""Die models as data: which faces a die has, what each looks like, and what each means.

"Which face is up" (the appearance the camera recognises: a pip layout, a printed symbol, a taught look) is kept
apart from "what it means" (the label the rules get). A model is a set of dice kinds; Excape has two kinds of die
(A: 1-2-3-4-7-X, B: 1-2-3-5-6-X) that look alike, so the reader works on the union of their appearances.

Pip positions are in die-face units: (0, 0) is the face's centre, +-1 its edges.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from companion.errors import DiceCompanionError
from companion.files import write_whole


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
    # What each taught face looks like: appearance -> the kept crops of the dice it was taught from.
    looks: dict[str, tuple[tuple[float, ...], ...]] = field(default_factory=dict, compare=False, repr=False)
    # What kind of data `looks` is (vision.recognise.TEMPLATE_FORMAT): looks of another kind are refused, not misread.
    embedder: str = field(default="", compare=False)
    # How big the taught dice looked: their side in the shots they were taught from, as a fraction of the shots'
    # width (the same at any resolution of one camera's view). A throw whose dice show no size of their own (none
    # read surely) is read again at that scale (vision.read.read_tray). None: not known (a built-in model, or a
    # model file written before session 47).
    side_fraction: float | None = field(default=None, compare=False)

    # Cached: the reader asks for them several times per die. A frozen dataclass never changes, and
    # cached_property stores into the instance's __dict__ directly, past the frozen __setattr__.
    @cached_property
    def faces(self) -> tuple[Face, ...]:
        """Every distinct appearance across the model's kinds of die (what the reader must tell apart)."""
        seen: dict[str, Face] = {}
        for kind in self.kinds:
            for face in kind.faces:
                seen.setdefault(face.appearance, face)
        return tuple(seen.values())

    @cached_property
    def taught(self) -> bool:
        """Whether some face is a taught look (read by comparing crops, not by the net alone)."""
        return any(f.appearance.startswith("taught:") for f in self.faces)

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


MODEL_FILE_FORMAT = "dice-companion-die-model"
MODEL_FILE_VERSION = 1


def model_to_dict(model: DieModel) -> dict:
    """The model as plain JSON data (what `dice-companion teach` writes)."""
    return {
        "format": MODEL_FILE_FORMAT, "version": MODEL_FILE_VERSION, "name": model.name,
        "kinds": [{"name": k.name, "faces": [{"label": f.label, "appearance": f.appearance} for f in k.faces]}
                  for k in model.kinds],
        "looks": {appearance: [[round(float(v), 3) for v in shot] for shot in shots]
                  for appearance, shots in model.looks.items()},
        "embedder": model.embedder,
        **({} if model.side_fraction is None else {"side_fraction": round(model.side_fraction, 5)}),
    }


def model_from_dict(data: object, source: str = "model data") -> DieModel:
    """A model from JSON data, checking every field; ModelError names what is wrong and what was expected."""
    if not isinstance(data, dict) or data.get("format") != MODEL_FILE_FORMAT:
        raise ModelError(f"{source} is not a die model file (expected a JSON object with format "
                         f"{MODEL_FILE_FORMAT!r}, as written by `dice-companion teach`)")
    if data.get("version") != MODEL_FILE_VERSION:
        raise ModelError(f"{source} has version {data.get('version')!r}; this reader expects {MODEL_FILE_VERSION}")
    name, kinds_data, looks_data = data.get("name"), data.get("kinds"), data.get("looks", {})
    if not isinstance(name, str) or not name:
        raise ModelError(f"{source}: 'name' must be a non-empty string")
    if not isinstance(kinds_data, list) or not kinds_data:
        raise ModelError(f"{source}: 'kinds' must be a non-empty list of dice kinds")
    kinds = []
    for k in kinds_data:
        faces_data = k.get("faces") if isinstance(k, dict) else None
        if not isinstance(faces_data, list) or not faces_data:
            raise ModelError(f"{source}: each kind needs a non-empty 'faces' list")
        faces = []
        for f in faces_data:
            if not (isinstance(f, dict) and isinstance(f.get("label"), str) and isinstance(f.get("appearance"), str)
                    and f["label"] and ":" in f["appearance"]):
                raise ModelError(f"{source}: each face needs a 'label' and an 'appearance' like 'taught:NAME', "
                                 f"got {f!r}")
            faces.append(Face(label=f["label"], appearance=f["appearance"]))
        kinds.append(DieKind(name=str(k.get("name", name)), faces=tuple(faces)))
    if not isinstance(looks_data, dict):
        raise ModelError(f"{source}: 'looks' must map appearances to lists of kept crops (number lists)")
    looks: dict[str, tuple[tuple[float, ...], ...]] = {}
    for appearance, shots in looks_data.items():
        if not (isinstance(shots, list) and shots and all(isinstance(s, list) and s and
                                                         all(isinstance(v, int | float) for v in s) for s in shots)):
            raise ModelError(f"{source}: the look of {appearance!r} must be a non-empty list of number lists")
        if len({len(s) for s in shots}) != 1:
            raise ModelError(f"{source}: the shots of {appearance!r} have different lengths")
        looks[appearance] = tuple(tuple(float(v) for v in s) for s in shots)
    embedder = data.get("embedder", "")
    if not isinstance(embedder, str):
        raise ModelError(f"{source}: 'embedder' must be the looks' format string written by `dice-companion teach`")
    side_fraction = data.get("side_fraction")
    if side_fraction is not None and not (isinstance(side_fraction, int | float) and not isinstance(side_fraction, bool)
                                          and 0 < side_fraction < 1):
        raise ModelError(f"{source}: 'side_fraction' must be the taught dice's side as a fraction of the shots' width "
                         f"(a number between 0 and 1), got {side_fraction!r}")
    model = DieModel(name=name, kinds=tuple(kinds), looks=looks, embedder=embedder,
                     side_fraction=None if side_fraction is None else float(side_fraction))
    untaught = [f.appearance for f in model.faces if f.appearance.startswith("taught:") and f.appearance not in looks]
    if untaught:
        raise ModelError(f"{source}: taught faces {untaught} have no stored look; teach them again")
    return model


def save_model(model: DieModel, path: str | Path) -> None:
    """Write a model file whole or not at all (companion.files.write_whole): a power cut while `teach` writes never
    leaves a torn file the companion would refuse at its next start (nor an older model half overwritten), and a
    file `teach` said it wrote is there after one. ModelError, naming the file, if it cannot be written."""
    path = Path(path)
    try:
        write_whole(path, json.dumps(model_to_dict(model)) + "\n")
    except OSError as err:
        raise ModelError(f"cannot write die model file {path}: {err.strerror or err}") from err


def load_model(spec: str | Path) -> DieModel:
    """A built-in model by name ("d6", "excape") or a model file written by `dice-companion teach`."""
    if isinstance(spec, str) and spec.lower() in BUILTIN_MODELS:
        return BUILTIN_MODELS[spec.lower()]
    path = Path(spec)
    if not path.is_file():
        raise ModelError(f"unknown die model {str(spec)!r}: expected one of {', '.join(BUILTIN_MODELS)} "
                         "or the path of a model file made by `dice-companion teach`")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"cannot read die model file {path}: {err}") from err
    return model_from_dict(data, source=str(path))
