"""Loading the reader's committed ONNX nets (locator, face classifier, lying-flat check) for OpenCV's dnn module.

One place for what a net that cannot be trusted means to a user: a clear error naming the net and the file, never
an OpenCV traceback at the first throw, and never a reader that quietly computes something else than the net:

- a missing or unreadable weights file;
- a committed weights file that is not the one committed (a half-copied install, a worn SD card): its SHA-256
  differs from the one recorded with its known answer;
- an OpenCV whose dnn module computes the net wrongly. OpenCV 4.x (and OpenCV 5's "classic" engine) loaded the
  nets when their first step, each image to zero mean and unit contrast (ReduceMean), was part of their graph, and
  computed that step wrongly without a word: the face classifier's logits on a tray's dice came out up to 2.7 off.
  That step is done before the net runs now (vision.recognise.crops_to_blob), but a net's answer is never taken on
  trust: each committed net is run once, when loaded, on an input kept in KNOWN_ANSWERS with the output ONNX's own
  reference evaluator gave for it (vision/training/known_answers.py records them), and refused if it answers
  otherwise.

Nets outside the committed weights folder (one just trained, being evaluated) are loaded unchecked.

Every pass of every net goes through LoadedNet.run, so a benchmark can ask where a frame's time goes (tallied: the
passes, inputs and CPU time of each net, by its weights file's name) without wrapping the nets itself.
"""

from __future__ import annotations

import hashlib
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.models import ModelError

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
KNOWN_ANSWERS = WEIGHTS_DIR / "known_answers.npz"
# A net's answer may differ from the reference by this much, relative to the reference's largest value: float sums
# in another order (another CPU, SIMD width) stay below 1e-4; OpenCV 4.14 was 0.14-0.34 off on the recorded inputs
# while the nets standardised their input in their graphs.
ANSWER_TOLERANCE = 1e-3


# Every net's first step, each image to zero mean and unit contrast over all its channels and pixels
# (vision.training.export.standardise while it learned), is done before the net runs
# (vision.recognise.crops_to_blob); this is added to each image's variance there, as while it learned: a flat image is
# not blown up to unit contrast.
STANDARD_FLOOR = 1e-3


@dataclass
class NetTally:
    """One net's passes within `tallied`: how many, the inputs (images) they were given, their CPU seconds."""

    passes: int = 0
    inputs: int = 0
    seconds: float = 0.0


# The tallies being kept (tallied), by weights file stem; None, as at the table: the nets run untimed.
_tallies: dict[str, NetTally] | None = None


@contextmanager
def tallied() -> Iterator[dict[str, NetTally]]:
    """Within it, every net's passes are counted and timed (process CPU time) into the dict it yields, by the net's
    weights file stem ("faces_quick", "flat", ...): where a frame's time goes, for the benchmark."""
    global _tallies
    previous, _tallies = _tallies, {}
    try:
        yield _tallies
    finally:
        _tallies = previous


class LoadedNet:
    """A net as the reader runs it: one input batch in, one output out."""

    def __init__(self, net: cv2.dnn.Net, name: str) -> None:
        self._net, self.name = net, name

    def run(self, batch: np.ndarray, output: str | None = None) -> np.ndarray:
        """The net's output (`output` by name; by default its first) for a float32 batch (N, ...)."""
        tally = None if _tallies is None else _tallies.setdefault(self.name, NetTally())
        start = time.process_time() if tally is not None else 0.0
        self._net.setInput(np.ascontiguousarray(batch, dtype=np.float32))
        result = self._net.forward(output) if output else self._net.forward()
        if tally is not None:
            tally.passes += 1
            tally.inputs += len(batch)
            tally.seconds += time.process_time() - start
        return result


def load_net(weights: Path, what: str, engine: int | None = None) -> LoadedNet:
    """The ONNX net at `weights`, on OpenCV's dnn `engine` (cv2.dnn.ENGINE_*; by default the one OpenCV picks);
    ModelError, naming `what` net it is, if the file is missing or unreadable, or (for a committed net) is not the
    committed file or is computed wrongly by this OpenCV."""
    if not weights.is_file():
        raise ModelError(f"{what} weights missing: {weights} (reinstall dice-companion)")
    try:
        # From the file's path: OpenCV 5.0 ignores the engine asked for when given the file's bytes.
        net = cv2.dnn.readNetFromONNX(str(weights), cv2.dnn.ENGINE_AUTO if engine is None else engine)
    except cv2.error as error:
        raise ModelError(f"{what} weights unreadable: {weights} is not a valid ONNX net "
                         f"(reinstall dice-companion): {str(error).strip().splitlines()[-1]}") from error
    loaded = LoadedNet(net, weights.stem)
    if weights.resolve().parent == WEIGHTS_DIR:
        check_known_answer(loaded, weights, what)
    return loaded


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_known_answer(net: LoadedNet, weights: Path, what: str, answers: Path = KNOWN_ANSWERS) -> None:
    """ModelError unless the committed net at `weights` is the recorded file and, given its recorded input, gives
    its recorded output."""
    name = weights.stem
    try:
        with np.load(answers) as recorded:
            digest, output = str(recorded[f"{name}.sha256"]), str(recorded[f"{name}.output_name"])
            given, expected = recorded[f"{name}.input"], recorded[f"{name}.output"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise ModelError(f"{what}: no known answer for {weights.name} in {answers} "
                         f"(reinstall dice-companion): {error}") from error
    if file_digest(weights) != digest:
        raise ModelError(f"{what} weights {weights} are not the committed file (SHA-256 differs from the one its "
                         "known answer was recorded with): reinstall dice-companion, or, after training, record the "
                         "nets' answers again (python -m vision.training.known_answers)")
    answer = net.run(given, output).reshape(expected.shape)
    off = float(np.abs(answer - expected).max())
    if not off <= ANSWER_TOLERANCE * max(1.0, float(np.abs(expected).max())):
        raise ModelError(f"{what}: OpenCV {cv2.__version__} computes {weights.name} wrongly (its answer to the "
                         f"recorded input is {off:.3g} off the reference's): install opencv-python-headless 5.0 or "
                         "later")
