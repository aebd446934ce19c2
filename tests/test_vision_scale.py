"""The reader reads dice at the scale its nets learned: a camera farther from the tray, or closer, is read as well."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import read
from vision.bench import faces_are
from vision.models import D6
from vision.read import WORK_SIDES, WORK_SIDES_AIMED, WORK_WIDTHS, read_tray, rescaled
from vision.result import DieReading, TrayReading
from vision.training.photos import read_labels
from vision.virtual_tray import render_tray


def _no_reading_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader as it was: every frame read at WORK_WIDTH, whatever its dice's size."""
    monkeypatch.setattr(read, "RESCALED_READS", 0)


def _widths_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The work frames' widths read_tray reads at, in order, from now on."""
    widths: list[int] = []
    real = read._read_at

    def spied(image, width, *args):
        widths.append(width)
        return real(image, width, *args)

    monkeypatch.setattr(read, "_read_at", spied)
    return widths


def test_the_work_width_changes_only_for_dice_off_the_sides_the_nets_learned() -> None:
    assert rescaled(640, None) == 640
    assert rescaled(640, WORK_SIDES[0]) == rescaled(640, WORK_SIDES[1]) == 640
    small, big = WORK_SIDES_AIMED
    assert rescaled(640, small / 2) == 1280                  # dice too small, read twice as big
    assert rescaled(1280, 2 * big) == 640                    # too big, half as big
    assert rescaled(640, 4.0) == WORK_WIDTHS[1]             # never beyond WORK_WIDTHS, however small
    assert rescaled(640, 400.0) == WORK_WIDTHS[0]


def _reading(*dice: tuple[str, bool, float]) -> TrayReading:
    return TrayReading("reroll", "why", tuple(DieReading(face, 0.9, sure, (0, 0, 1, 1), side=side)
                                             for face, sure, side in dice))


def test_the_dice_are_measured_by_the_sure_faces_and_never_enlarged_for_small_unsure_boxes() -> None:
    assert read._side_seen(_reading(("5", True, 20.0), ("3", True, 22.0), ("1", True, 90.0)), 1.0) == 21.0
    assert read._side_seen(_reading(("4", True, 40.0)), 0.5) == 20.0          # in work pixels
    # One pip of a dark die boxed alone is small and unsure: no measure of the dice.
    assert read._side_seen(_reading(("?", False, 12.0), ("1", True, 11.0)), 1.0) is None
    # Big dice are seldom read surely at WORK_WIDTH: their boxes, too big, are.
    assert read._side_seen(_reading(("?", False, 80.0), ("?", False, 90.0)), 1.0) == 85.0


def _photos_four_to_a_frame(folder: Path) -> tuple[np.ndarray, list[str], list[tuple[int, int, int, int]]]:
    """The repository's four real photos (640x640 each) side by side in one 1280x1280 frame: their dice, 30-45 px,
    are what a 1280-wide camera twice as far from a tray shows, 15-22 px at WORK_WIDTH."""
    photos = sorted(folder.glob("*.jpg"))
    assert len(photos) == 4
    frame, labels, boxes = np.zeros((1280, 1280, 3), np.uint8), [], []
    for k, photo in enumerate(photos):
        image = cv2.imread(str(photo))
        h, w = image.shape[:2]
        x, y = 640 * (k % 2), 640 * (k // 2)
        frame[y:y + h, x:x + w] = image
        for die in read_labels(photo.with_suffix(".txt"), w, h):
            labels.append(die.label)
            boxes.append((die.box[0] + x, die.box[1] + y, die.box[2], die.box[3]))
    return frame, labels, boxes


def test_real_dice_seen_small_in_a_big_frame_are_read_at_its_own_resolution(
        test_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frame, labels, _ = _photos_four_to_a_frame(test_data / "photos")
    widths = _widths_read(monkeypatch)
    reading = read_tray(frame, D6, expect=len(labels))
    assert reading.status == "ok" and faces_are(reading, labels)
    assert widths[0] == 640 and widths[-1] > 1000
    # Read at 640 px wide alone, four of its 19 dice are missed and four left unclear (session 46).
    _no_reading_again(monkeypatch)
    assert read_tray(frame, D6, expect=len(labels)).status == "reroll"


@pytest.mark.parametrize(("seed", "size", "die_size", "enlarged"), [
    (7622, (640, 480), (14, 17), True),        # a camera mounted high
    (7627, (640, 480), (14, 17), True),
    (7627, (1280, 960), (30, 36), True),       # the same with a 1280x960 camera: read at its own resolution
    (7631, (1280, 960), (30, 36), True),
    (7624, (640, 480), (85, 95), False),       # a camera close to the tray
    (7626, (640, 480), (85, 95), False)])
def test_dice_far_smaller_or_bigger_than_usual_are_read_again_at_their_scale(
        monkeypatch: pytest.MonkeyPatch, seed: int, size: tuple[int, int], die_size: tuple[int, int],
        enlarged: bool) -> None:
    rendered = render_tray(seed, D6, size=size, die_size=die_size)
    labels = [d.label for d in rendered.dice]
    widths = _widths_read(monkeypatch)
    reading = read_tray(rendered.image, D6, expect=len(labels))
    assert reading.status == "ok" and faces_are(reading, labels)
    assert (widths[-1] > 640) == enlarged and widths[-1] != 640 and len(widths) <= 1 + read.RESCALED_READS
    _no_reading_again(monkeypatch)
    assert read_tray(rendered.image, D6, expect=len(labels)).status == "reroll"


def test_a_table_that_knows_its_dice_reads_each_throw_once_at_their_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered = render_tray(7627, D6, size=(1280, 960), die_size=(30, 36))
    labels = [d.label for d in rendered.dice]
    side = float(np.median([d.side for d in read_tray(rendered.image, D6, expect=len(labels)).dice]))
    widths = _widths_read(monkeypatch)
    reading = read_tray(rendered.image, D6, expect=len(labels), die_side=side)
    assert reading.status == "ok" and faces_are(reading, labels)
    assert widths == [rescaled(640, side / 2)] and widths[0] > 640


def test_dice_of_the_usual_size_are_read_once_at_the_usual_width(monkeypatch: pytest.MonkeyPatch) -> None:
    widths = _widths_read(monkeypatch)
    for seed in range(7632, 7637):
        read_tray(render_tray(seed, D6, die_size=(30, 50)).image, D6)
    assert widths == [640] * 5
