"""Loading the reader's nets: a missing or damaged weights file, a committed file that is not the committed one, and
an OpenCV that computes a net wrongly are each a clear error naming the net, for every net."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.flat import FIRST_LOOK_WEIGHTS as FLAT_FIRST_WEIGHTS
from vision.flat import TAUGHT_WEIGHTS as FLAT_TAUGHT_WEIGHTS
from vision.flat import WEIGHTS as FLAT_WEIGHTS
from vision.flat import FlatNet
from vision.locate import SECOND_WEIGHTS as SECOND_LOCATOR_WEIGHTS
from vision.locate import WEIGHTS as LOCATOR_WEIGHTS
from vision.locate import Locator
from vision.models import ModelError
from vision.nets import (
    KNOWN_ANSWERS,
    SPLIT_AT,
    STANDARD_FLOOR,
    WEIGHTS_DIR,
    check_known_answer,
    file_digest,
    load_net,
    split_parts,
    tallied,
)
from vision.recognise import CROSS_CHECK_WEIGHTS, FINE_WEIGHTS, QUICK_WEIGHTS, FaceNet, crops_to_blob
from vision.recognise import WEIGHTS as FACE_WEIGHTS

COMMITTED = [LOCATOR_WEIGHTS, SECOND_LOCATOR_WEIGHTS, FACE_WEIGHTS, QUICK_WEIGHTS, CROSS_CHECK_WEIGHTS, FINE_WEIGHTS,
             FLAT_WEIGHTS, FLAT_FIRST_WEIGHTS, FLAT_TAUGHT_WEIGHTS]


@pytest.mark.parametrize(("net", "what"), [(Locator, "dice locator"), (FaceNet, "face classifier"),
                                           (FlatNet, "lying-flat check")])
def test_a_damaged_weights_file_is_a_clear_error_naming_the_net(tmp_path: Path, net: type, what: str) -> None:
    damaged = tmp_path / "net.onnx"
    damaged.write_bytes(b"\x08\x07half a download")
    with pytest.raises(ModelError, match=f"{what} weights unreadable: .*net.onnx is not a valid ONNX net"):
        net(damaged)
    with pytest.raises(ModelError, match=f"{what} weights missing"):
        net(tmp_path / "nowhere.onnx")


def test_every_committed_net_is_recorded_and_gives_its_known_answer() -> None:
    # A retrained net committed without its answers recorded again fails here, before it fails on a Pi; so does a
    # new net left out of this list.
    parts = {part for weights in COMMITTED if weights.stem in SPLIT_AT for part in split_parts(weights)}
    assert set(WEIGHTS_DIR.glob("*.onnx")) == set(COMMITTED) | parts
    with np.load(KNOWN_ANSWERS) as recorded:
        for weights in COMMITTED:
            assert weights.parent == WEIGHTS_DIR
            assert str(recorded[f"{weights.stem}.sha256"]) == file_digest(weights), \
                f"{weights.name} changed: record the nets' answers again (python -m vision.training.known_answers)"
            for part in split_parts(weights) if weights.stem in SPLIT_AT else ():
                assert str(recorded[f"{part.stem}.sha256"]) == file_digest(part), \
                    f"{part.name} changed: split the nets and record their answers again (vision.training.split_nets)"
    for weights in COMMITTED:
        check_known_answer(load_net(weights, "net"), weights, "net")


def _answers_with(tmp_path: Path, name: str, **changes: np.ndarray) -> Path:
    with np.load(KNOWN_ANSWERS) as recorded:
        entries = {key: recorded[key] for key in recorded.files}
    entries |= {f"{name}.{key}": value for key, value in changes.items()}
    path = tmp_path / "answers.npz"
    np.savez(path, **entries)
    return path


@pytest.mark.parametrize("weights", COMMITTED, ids=lambda w: w.stem)
def test_a_net_this_opencv_computes_wrongly_is_refused(tmp_path: Path, weights: Path) -> None:
    # As OpenCV 4.x does: the nets load without a word, but their answers are off (by 0.14-0.34 for 4.14).
    with np.load(KNOWN_ANSWERS) as recorded:
        expected = recorded[f"{weights.stem}.output"]
    off = _answers_with(tmp_path, weights.stem, output=expected + 0.05 * np.abs(expected).max())
    with pytest.raises(ModelError, match=f"OpenCV .* computes {weights.name} wrongly .* install opencv-python"):
        check_known_answer(load_net(weights, "net"), weights, "net", off)


def test_a_weights_file_that_is_not_the_committed_one_is_refused(tmp_path: Path) -> None:
    other = _answers_with(tmp_path, "flat", sha256=np.array("0" * 64))
    with pytest.raises(ModelError, match=r"lying-flat check weights .*flat\.onnx are not the committed file"):
        check_known_answer(load_net(FLAT_WEIGHTS, "net"), FLAT_WEIGHTS, "lying-flat check", other)


def test_a_net_with_no_recorded_answer_is_refused_and_a_net_outside_the_weights_folder_is_not_checked(
        tmp_path: Path) -> None:
    (tmp_path / "answers.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelError, match=r"no known answer for flat\.onnx"):
        check_known_answer(load_net(FLAT_WEIGHTS, "net"), FLAT_WEIGHTS, "net", tmp_path / "answers.npz")
    candidate = tmp_path / "flat.onnx"      # a net just trained, being evaluated: loaded as it is
    shutil.copy(FLAT_WEIGHTS, candidate)
    FlatNet(candidate).not_flat(np.zeros((1, 4, 32, 32), np.float32))


@pytest.mark.parametrize("shape", [(1, 240, 320, 3), (5, 28, 28, 3), (3, 32, 32, 3)])
def test_the_nets_input_is_each_image_at_zero_mean_and_unit_contrast_as_they_learned_it(
        shape: tuple[int, ...]) -> None:
    # The sums the trainers do (vision.training.export.standardise), written out plainly in float64: crops_to_blob
    # gets them from bytes in fewer passes, and must not drift from them. The last image is flat (one grey): the
    # floor keeps it at zero rather than blowing its noise-free pixels up.
    images = np.random.default_rng(len(shape) + shape[0]).integers(0, 256, shape, dtype=np.uint8)
    images[-1] = 117
    x = images.transpose(0, 3, 1, 2).astype(np.float64) / 255.0
    centred = x - x.mean(axis=(1, 2, 3), keepdims=True)
    expected = centred / np.sqrt((centred ** 2).mean(axis=(1, 2, 3), keepdims=True) + STANDARD_FLOOR)
    blob = crops_to_blob(images)
    assert blob.dtype == np.float32 and blob.shape == expected.shape
    np.testing.assert_allclose(blob, expected, atol=2e-5)
    assert np.abs(blob[-1]).max() < 1e-4
    assert crops_to_blob(images[:0]).shape == (0, 3, *shape[1:3])


@pytest.mark.parametrize(("module", "weights", "loader", "what"), [
    ("vision.locate", "SECOND_WEIGHTS", "second_locator", "second dice locator"),
    ("vision.recognise", "CROSS_CHECK_WEIGHTS", "cross_check_net", "cross-check face classifier"),
    ("vision.recognise", "FINE_WEIGHTS", "fine_net", "fine face classifier"),
    ("vision.flat", "FIRST_LOOK_WEIGHTS", "first_look_net", "lying-flat first look")])
def test_a_net_read_only_at_times_is_named_in_its_errors_when_the_companion_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, weights: str, loader: str, what: str) -> None:
    # The companion loads every net as it starts (vision.read.load_nets): a second locator (read for a throw short of a
    # die), a cross-check face classifier (for a die read as an X, or that looks marbled) or the fine one (for a
    # colourful die, its face sure or not) missing from an install is refused then, by name, not in the middle of a
    # game.
    import importlib

    from vision.read import load_nets

    nets_module = importlib.import_module(module)
    monkeypatch.setattr(nets_module, weights, tmp_path / "missing.onnx")
    getattr(nets_module, loader).cache_clear()
    try:
        with pytest.raises(ModelError, match=f"{what} weights missing"):
            load_nets()
    finally:
        getattr(nets_module, loader).cache_clear()


def test_each_nets_passes_are_tallied_only_when_asked() -> None:
    net = FlatNet(FLAT_WEIGHTS)
    inputs = np.zeros((3, 4, 32, 32), np.float32)
    net.not_flat(inputs)                                   # at the table: nothing kept
    with tallied() as outer:
        net.not_flat(inputs)
        with tallied() as inner:
            net.not_flat(inputs[:1])
        net.not_flat(inputs[:2])
    assert list(outer) == ["flat"] and (outer["flat"].passes, outer["flat"].inputs) == (2, 5)
    assert outer["flat"].seconds > 0
    assert (inner["flat"].passes, inner["flat"].inputs) == (1, 1)
    net.not_flat(inputs)
    assert outer["flat"].passes == 2                        # the tally ends with its block


SPLIT = [w for w in COMMITTED if w.stem in SPLIT_AT]


@pytest.mark.parametrize("weights", SPLIT, ids=lambda w: w.stem)
def test_a_net_run_in_two_parts_answers_as_its_whole_file(weights: Path) -> None:
    # The reader runs these nets' front on the classic engine and their back on the new one (faster than either
    # alone); they must answer as the whole file does, on inputs the known answer never saw.
    import cv2

    net = load_net(weights, "net")
    assert net.files == list(split_parts(weights))
    rng = np.random.default_rng(7)
    if weights.stem.startswith("faces"):
        blob, output = crops_to_blob(rng.integers(0, 256, (6, 28, 28, 3), dtype=np.uint8)), "logits"
    else:
        blob, output = crops_to_blob(rng.integers(0, 256, (1, 96, 128, 3), dtype=np.uint8)), "maps"
    whole = cv2.dnn.readNetFromONNX(str(weights), cv2.dnn.ENGINE_NEW)
    whole.setInput(blob)
    expected = whole.forward(output)
    answer = net.run(blob, output)
    assert answer.shape == expected.shape
    np.testing.assert_allclose(answer, expected, atol=1e-4 * max(1.0, float(np.abs(expected).max())))


def _committed_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, weights: Path) -> Path:
    """`weights` and its parts copied into a folder the loader takes for the committed one."""
    for path in (weights, *split_parts(weights)):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr("vision.nets.WEIGHTS_DIR", tmp_path.resolve())
    return tmp_path / weights.name


def test_a_missing_or_changed_part_of_a_split_net_is_refused_by_name(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    copy = _committed_copy(tmp_path, monkeypatch, QUICK_WEIGHTS)
    assert load_net(copy, "quick face classifier").files == list(split_parts(copy))     # the copy loads as committed
    front, back = split_parts(copy)
    shutil.copy(split_parts(FACE_WEIGHTS)[0], front)      # a valid front, of another net: not the one recorded
    with pytest.raises(ModelError, match=r"quick face classifier weights .*faces_quick\.front\.onnx are not the "
                                         r"committed file.*split_nets"):
        load_net(copy, "quick face classifier")
    back.unlink()
    with pytest.raises(ModelError, match=r"quick face classifier weights missing: .*faces_quick\.back\.onnx"):
        load_net(copy, "quick face classifier")


def test_an_opencv_with_no_classic_engine_runs_a_split_net_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenCV 5.1 has one engine: the whole file runs on it, checked against the same known answer.
    import cv2

    monkeypatch.delattr(cv2.dnn, "ENGINE_CLASSIC")
    assert load_net(LOCATOR_WEIGHTS, "dice locator").files == [LOCATOR_WEIGHTS]


def test_the_environment_can_run_the_split_nets_whole_and_names_a_value_it_cannot_mean(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # On a Pi the engines' strengths may differ: `DICE_COMPANION_NETS=whole dice-companion bench vision` compares.
    monkeypatch.setenv("DICE_COMPANION_NETS", "whole")
    assert load_net(QUICK_WEIGHTS, "quick face classifier").files == [QUICK_WEIGHTS]
    monkeypatch.setenv("DICE_COMPANION_NETS", "halves")
    with pytest.raises(ModelError, match="DICE_COMPANION_NETS='halves' is not a way to run the nets: expected split "
                                         "or whole"):
        load_net(QUICK_WEIGHTS, "quick face classifier")
    monkeypatch.delenv("DICE_COMPANION_NETS")
    assert load_net(QUICK_WEIGHTS, "quick face classifier").files == list(split_parts(QUICK_WEIGHTS))
