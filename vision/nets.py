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

Nets outside the committed weights folder (one just trained, being evaluated) are loaded unchecked, and whole.
Five committed nets run in two parts, each on the engine that runs it faster (SPLIT_AT); each part's file is checked
like a whole one, and the two together must give the whole net's known answer.

Every pass of every net goes through LoadedNet.run, so a benchmark can ask where a frame's time goes (tallied: the
passes, inputs and CPU time of each net, by its weights file's name) without wrapping the nets itself.
"""

from __future__ import annotations

import hashlib
import os
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


# The committed nets below run in two parts, each on the engine of OpenCV 5.0 that runs it faster: the first layers
# (few channels, big images) on the classic engine, the rest (many channels, small images) on the new one. Either
# engine alone is slow on one end: the new one on a 3-channel first convolution, the classic one on 64 channels of
# 7x7 (its Winograd tiles are bigger than the image). Timed net by net on the dev machine (one core, medians of 150
# passes, the batches a frame gives them; /tmp scripts, vision/training/README.md "Session 31"), new engine alone ->
# two parts: the face net 0.593 -> 0.431 ms a crop (4 crops: 2.34 -> 1.68 ms), the quick net 13 crops 2.18 -> 1.65 ms,
# the locator 1.67 -> 1.41 ms a 320x240 frame; the answers agree with the whole net's to 5e-6. The lying-flat nets
# run fastest whole on the classic engine (vision.flat). Each entry: the tensor where the net is cut, the front
# part's output and the back part's input; vision.training.split_nets writes the parts (split_parts) from the whole
# file, which stays the net of record (trained, evaluated, checked). An OpenCV with no classic engine (5.1) runs the
# whole file on the engine it has.
SPLIT_AT: dict[str, str] = {
    "faces": "/features/features.1/features.1.5/Relu_output_0",
    "faces_cross": "/features/features.1/features.1.5/Relu_output_0",
    "faces_quick": "/features/features.1/features.1.2/Relu_output_0",
    "locator": "/body/body.2/Relu_output_0",
    "locator_second": "/body/body.2/Relu_output_0",
}


# How the nets of SPLIT_AT run, from the environment (as gpiozero picks its pin factory): "split" (the default,
# faster on the dev machine) or "whole" (each on the new engine alone). The engines' strengths were measured on an
# x86 CPU: a Raspberry Pi's ARM cores may differ, so `DICE_COMPANION_NETS=whole dice-companion bench vision` compares
# the two there. Both give each net's known answer.
NETS_ENVIRONMENT = "DICE_COMPANION_NETS"


def runs_split() -> bool:
    """Whether the nets of SPLIT_AT run in two parts (NETS_ENVIRONMENT); ModelError for a value it cannot mean."""
    value = os.environ.get(NETS_ENVIRONMENT, "split")
    if value not in ("split", "whole"):
        raise ModelError(f"{NETS_ENVIRONMENT}={value!r} is not a way to run the nets: expected split or whole")
    return value == "split"


def split_parts(weights: Path) -> tuple[Path, Path]:
    """The files of a split net's two parts (SPLIT_AT), beside its whole file: the front's, then the back's."""
    return weights.with_name(f"{weights.stem}.front.onnx"), weights.with_name(f"{weights.stem}.back.onnx")


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
    """A net as the reader runs it: one input batch in, one output out. Its parts (`stages`, one or SPLIT_AT's two)
    run one after the other, each on its own engine; `files` are the files they were read from."""

    def __init__(self, stages: list[cv2.dnn.Net], name: str, files: list[Path]) -> None:
        self._stages, self.name, self.files = stages, name, files

    def run(self, batch: np.ndarray, output: str | None = None) -> np.ndarray:
        """The net's output (`output` by name; by default its first) for a float32 batch (N, ...)."""
        tally = None if _tallies is None else _tallies.setdefault(self.name, NetTally())
        start = time.process_time() if tally is not None else 0.0
        given = np.ascontiguousarray(batch, dtype=np.float32)
        for stage in self._stages[:-1]:
            stage.setInput(given)
            given = stage.forward()
        last = self._stages[-1]
        last.setInput(given)
        result = last.forward(output) if output else last.forward()
        if tally is not None:
            tally.passes += 1
            tally.inputs += len(batch)
            tally.seconds += time.process_time() - start
        return result


def load_net(weights: Path, what: str, engine: int | None = None) -> LoadedNet:
    """The ONNX net at `weights`, on OpenCV's dnn `engine` (cv2.dnn.ENGINE_*; by default the one OpenCV picks, or for
    a committed net of SPLIT_AT its two parts on the engines that run them fastest); ModelError, naming `what` net it
    is, if a file is missing or unreadable, or (for a committed net) is not the committed file or is computed wrongly
    by this OpenCV."""
    committed = weights.resolve().parent == WEIGHTS_DIR
    classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    split = committed and engine is None and weights.stem in SPLIT_AT and classic is not None and runs_split()
    files = list(split_parts(weights)) if split else [weights]
    # The whole file first: a split net's known answer is checked against it.
    for path in dict.fromkeys([weights, *files]):
        if not path.is_file():
            raise ModelError(f"{what} weights missing: {path} (reinstall dice-companion)")
    engines = [classic, cv2.dnn.ENGINE_NEW] if split else [cv2.dnn.ENGINE_AUTO if engine is None else engine]
    loaded = LoadedNet([_read_net(path, what, e) for path, e in zip(files, engines, strict=True)], weights.stem, files)
    if committed:
        check_known_answer(loaded, weights, what)
    return loaded


def _read_net(path: Path, what: str, engine: int) -> cv2.dnn.Net:
    try:
        # From the file's path: OpenCV 5.0 ignores the engine asked for when given the file's bytes.
        return cv2.dnn.readNetFromONNX(str(path), engine)
    except cv2.error as error:
        raise ModelError(f"{what} weights unreadable: {path} is not a valid ONNX net "
                         f"(reinstall dice-companion): {str(error).strip().splitlines()[-1]}") from error


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_known_answer(net: LoadedNet, weights: Path, what: str, answers: Path = KNOWN_ANSWERS) -> None:
    """ModelError unless the committed net at `weights` is the recorded file and, given its recorded input, gives
    its recorded output."""
    name = weights.stem
    try:
        with np.load(answers) as recorded:
            output = str(recorded[f"{name}.output_name"])
            given, expected = recorded[f"{name}.input"], recorded[f"{name}.output"]
            # The whole file, and the parts the net was read from when it runs split (SPLIT_AT): each recorded.
            digests = {path: str(recorded[f"{path.stem}.sha256"]) for path in dict.fromkeys([weights, *net.files])}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise ModelError(f"{what}: no known answer for {weights.name} in {answers} "
                         f"(reinstall dice-companion): {error}") from error
    for path, digest in digests.items():
        if file_digest(path) != digest:
            raise ModelError(f"{what} weights {path} are not the committed file (SHA-256 differs from the one its "
                             "known answer was recorded with): reinstall dice-companion, or, after training, split "
                             "the nets and record their answers again (python -m vision.training.split_nets, "
                             "python -m vision.training.known_answers)")
    answer = net.run(given, output).reshape(expected.shape)
    off = float(np.abs(answer - expected).max())
    if not off <= ANSWER_TOLERANCE * max(1.0, float(np.abs(expected).max())):
        raise ModelError(f"{what}: OpenCV {cv2.__version__} computes {weights.name} wrongly (its answer to the "
                         f"recorded input is {off:.3g} off the reference's): install opencv-python-headless 5.0 or "
                         "later")
