"""Read one die's face from its crop, with a confidence, for any die model.

A small convolutional net (trained dev-only by vision/training/train_faces.py, run here with OpenCV's dnn) scores
every built-in appearance ("pips:1".."pips:7", "symbol:cross") and "none" (not a die). Only the appearances the
model has compete. Each crop is read twice, as cut and turned a quarter: every face looks the same after a
quarter turn, so the two reads are two opinions, and a face is "sure" only when both agree with a clear margin.
Taught faces ("taught:NAME") are recognised by the net's embedding: the nearest stored shot by cosine similarity,
sure only when it is close and clearly closer than any other face's shots.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.models import DieModel, ModelError

CROP_SIZE = 28          # classifier input side in pixels (a 40 px die keeps 3 px pips)
CROP_MARGIN = 1.15      # crop side / die side: a thin ring of tray shows the die's outline
EMBED = 64              # length of the embedding a taught face stores per shot
# "tilted": a die not lying flat (cocked against another or the wall, or stacked on another), its top face not
# square-on; "none": not a die.
CLASSES: tuple[str, ...] = (*(f"pips:{n}" for n in range(1, 8)), "symbol:cross", "tilted", "none")
WEIGHTS = Path(__file__).resolve().parent / "weights" / "faces.onnx"

SURE_PROBABILITY = 0.7      # both reads must give the face at least this probability ...
SURE_MARGIN = 0.2           # ... and beat the next face, "tilted" and "none" by this much
# Faces that differ by one centre pip (Excape's 7 is the 6 plus the centre): when they are the two best guesses,
# a small smudge decides, so the winner must win by far more.
CLOSE_PAIRS = ({"pips:6", "pips:7"},)
CLOSE_MARGIN = 0.8
NOT_A_DIE = 0.8             # "none" at least this probable in both reads: a tray mark, not a die
TAUGHT_SURE_SIMILARITY = 0.3    # (centred) cosine similarity to a taught shot needed to be sure ...
TAUGHT_SURE_MARGIN = 0.2        # ... and by how much it must beat the next face's best shot


@dataclass(frozen=True)
class FaceGuess:
    appearance: str | None  # None: the crop is not a die (tray mark, clutter)
    confidence: float       # 0..1
    sure: bool
    tilted: bool = False    # the classifier sees a cocked die (never sure then)


def crop_die(image: np.ndarray, centre: tuple[float, float], side: float, angle: float,
             size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """A size x size BGR crop of the die at `centre` (x, y) with `side` pixels, turned upright by `angle` degrees.

    The die's min-area rect gives centre, side and angle; after the turn its edges are axis-aligned, so pip
    layouts only vary by quarter turns.
    """
    if side <= 0:
        raise ValueError(f"die side must be positive, got {side}")
    scale = size / (side * margin)
    matrix = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), float(angle), scale)
    matrix[0, 2] += size / 2 - centre[0]
    matrix[1, 2] += size / 2 - centre[1]
    return cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def crops_to_blob(crops: np.ndarray) -> np.ndarray:
    """(N, size, size, 3) uint8 BGR crops -> (N, 3, size, size) float32 in 0..1, the network's input."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class FaceNet:
    """The ONNX face classifier: logits over CLASSES and an EMBED-long embedding per crop."""

    def __init__(self, weights: Path = WEIGHTS) -> None:
        if not weights.is_file():
            raise ModelError(f"face classifier weights missing: {weights} (reinstall dice-companion)")
        self._net = cv2.dnn.readNetFromONNX(str(weights))
        self._outputs = ["logits", "embedding"]

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, CROP_SIZE, CROP_SIZE, 3) uint8 crops -> (logits (N, len(CLASSES)), embeddings (N, EMBED))."""
        if len(crops) == 0:
            return np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, EMBED), np.float32)
        self._net.setInput(crops_to_blob(crops))
        logits, embedding = self._net.forward(self._outputs)
        return logits.reshape(len(crops), -1), embedding.reshape(len(crops), -1)


@cache
def weights_fingerprint(weights: Path = WEIGHTS) -> str:
    """Names the classifier weights, so a taught model made with other weights is refused, not misread."""
    return "faces-" + hashlib.sha256(weights.read_bytes()).hexdigest()[:16]


@cache
def face_net() -> FaceNet:
    """The shared classifier, loaded on first use (never at import)."""
    return FaceNet()


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _builtin_guesses(logits: list[np.ndarray], model: DieModel) -> list[FaceGuess]:
    appearances = [f.appearance for f in model.faces]
    unknown = [a for a in appearances if a not in CLASSES]
    if unknown:
        raise ModelError(f"model {model.name!r} has faces {unknown} the classifier does not know; "
                         "expected pips:1..7 or symbol:cross (teach other faces with `dice-companion teach`)")
    n = len(appearances)
    columns = [CLASSES.index(a) for a in appearances] + [CLASSES.index("tilted"), CLASSES.index("none")]
    views = [_softmax(view[:, columns]) for view in logits]     # each (N, faces + tilted + none)
    mean = np.mean(views, axis=0)
    guesses = []
    for i in range(mean.shape[0]):
        if min(view[i, -1] for view in views) >= NOT_A_DIE:
            guesses.append(FaceGuess(None, float(mean[i, -1]), True))
            continue
        faces = mean[i, :n]
        order = np.argsort(faces)[::-1]
        best = int(order[0])
        runner_up = float(faces[order[1]]) if n > 1 else 0.0
        agree = all(int(np.argmax(view[i, :n])) == best and view[i, best] >= SURE_PROBABILITY for view in views)
        confidence = float(faces[best])
        tilted = float(mean[i, n]) > confidence
        margin = confidence - max(runner_up, float(mean[i, n]), float(mean[i, n + 1]))
        close = {appearances[best], appearances[int(order[1])]} in CLOSE_PAIRS if n > 1 else False
        sure = agree and not tilted and margin >= (CLOSE_MARGIN if close else SURE_MARGIN)
        guesses.append(FaceGuess(appearances[best], confidence, sure, tilted))
    return guesses


def _normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-9)


def _taught_guesses(logits: list[np.ndarray], embeddings: list[np.ndarray], model: DieModel) -> list[FaceGuess]:
    """Taught faces by their nearest taught shot.

    The embeddings are non-negative (after a ReLU), so raw cosines are all high; they are compared after
    subtracting the mean of every shot of the model, which leaves what tells this die's faces apart.
    """
    faces = [f.appearance for f in model.faces]
    if model.embedder != weights_fingerprint():
        raise ModelError(f"model {model.name!r} was taught with other classifier weights "
                         f"({model.embedder or 'unrecorded'}; this reader has {weights_fingerprint()}): "
                         "teach the die again with `dice-companion teach`")
    missing = [a for a in faces if not model.looks.get(a)]
    if missing:
        raise ModelError(f"model {model.name!r} stores no taught shots for {missing}; teach every face")
    shots = [np.asarray(model.looks[a], np.float32) for a in faces]
    centre = np.concatenate(shots).mean(axis=0)
    shots = [_normalised(s - centre) for s in shots]
    none_column, tilted_column = CLASSES.index("none"), CLASSES.index("tilted")
    per_view = []   # (views, N, faces): each face's best similarity
    for view in embeddings:
        query = _normalised(view - centre)
        per_view.append(np.stack([(query @ s.T).max(axis=1) for s in shots], axis=1))
    similarity = np.mean(per_view, axis=0)
    guesses = []
    for i in range(similarity.shape[0]):
        order = np.argsort(similarity[i])[::-1]
        best = int(order[0])
        margin = float(similarity[i, best] - (similarity[i, order[1]] if len(order) > 1 else -1.0))
        not_a_die = min(float(_softmax(view[i:i + 1])[0, none_column]) for view in logits)
        if not_a_die >= NOT_A_DIE and similarity[i, best] < TAUGHT_SURE_SIMILARITY:
            guesses.append(FaceGuess(None, not_a_die, True))
            continue
        confidence = float(np.clip(similarity[i, best], 0.0, 1.0))
        tilted = min(float(_softmax(view[i:i + 1])[0, tilted_column]) for view in logits) >= 0.5
        agree = all(int(np.argmax(view[i])) == best for view in per_view)
        sure = agree and similarity[i, best] >= TAUGHT_SURE_SIMILARITY and margin >= TAUGHT_SURE_MARGIN \
            and not tilted
        guesses.append(FaceGuess(faces[best], confidence, sure, tilted))
    return guesses


@dataclass(frozen=True)
class View:
    """The classifier's output for some crops seen one way: logits (N, len(CLASSES)) and embeddings (N, EMBED)."""

    logits: np.ndarray
    embeddings: np.ndarray

    def take(self, indices: list[int]) -> View:
        return View(self.logits[indices], self.embeddings[indices])


def look(crops: np.ndarray, quarter_turns: int = 0, net: FaceNet | None = None) -> View:
    """Run the classifier on the crops, turned by `quarter_turns` (every face reads the same turned)."""
    net = net or face_net()
    turned = crops if quarter_turns % 4 == 0 else np.ascontiguousarray(np.rot90(crops, quarter_turns, axes=(1, 2)))
    return View(*net.run(turned))


def guesses(views: list[View], model: DieModel) -> list[FaceGuess]:
    """The face on each crop from one or more views of the same crops (sure only if all views agree)."""
    if any(f.appearance.startswith("taught:") for f in model.faces):
        return _taught_guesses([v.logits for v in views], [v.embeddings for v in views], model)
    return _builtin_guesses([v.logits for v in views], model)


def read_faces(crops: np.ndarray, model: DieModel, net: FaceNet | None = None) -> list[FaceGuess]:
    """The face on each (CROP_SIZE x CROP_SIZE BGR) crop, among the model's faces, or None for "not a die"."""
    if len(crops) == 0:
        return []
    return guesses([look(crops, 0, net), look(crops, 1, net)], model)


def embed_crops(crops: np.ndarray, net: FaceNet | None = None) -> np.ndarray:
    """The classifier's embedding of each crop (what a taught face stores), averaged over both views."""
    return (look(crops, 0, net).embeddings + look(crops, 1, net).embeddings) / 2
