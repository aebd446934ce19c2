"""The lying-flat check: its position plane follows the crop exactly, and the committed net tells cocked dice from
flat ones on virtual trays and calls no die of the real photos cocked."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.flat import FLAT_CROP_MARGIN, FLAT_CROP_SIZE, NOT_FLAT, RAMP_GAIN, FlatNet, not_flat, ramp
from vision.locate import LocatedDie, find_dice, to_work
from vision.models import D6, EXCAPE, ModelError
from vision.recognise import crop_die
from vision.training.photos import match_boxes, read_labels
from vision.virtual_tray import render_tray


def _die(centre: tuple[float, float], side: float = 40.0, angle: float = 0.0) -> LocatedDie:
    return LocatedDie(box=(0, 0, 1, 1), rect=(centre, (side, side), angle), touches_edge=False, probability=0.9)


@pytest.mark.parametrize("angle", [0.0, 23.0, -61.0])
def test_the_ramp_is_the_frame_position_plane_cut_as_the_die_is(angle: float) -> None:
    """The plane computed for the crop equals a plane drawn over the whole frame and cut like the die's crop."""
    width, height, centre, side = 640, 480, (500.3, 100.7), 40.0
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    away = np.array([centre[0] - width / 2, centre[1] - height / 2]) / width
    plane = ((xs - centre[0]) * away[0] + (ys - centre[1]) * away[1]) * RAMP_GAIN / side
    cut = crop_die(np.dstack([plane] * 3), centre, side, angle, size=FLAT_CROP_SIZE, margin=FLAT_CROP_MARGIN)
    computed = ramp((width, height), _die(centre, side, angle))
    assert computed.shape == (FLAT_CROP_SIZE, FLAT_CROP_SIZE)
    # (to a thousandth: warpAffine keeps its coordinates in fixed point; the crop's rim is replicated)
    assert np.abs(cut[2:-2, 2:-2, 0] - computed[2:-2, 2:-2]).max() < 2e-3
    assert computed.max() > 0.5 > -0.5 > computed.min()                      # a die near a corner: a steep ramp


def test_a_die_under_the_camera_has_a_flat_ramp_and_one_farther_out_a_steeper_one() -> None:
    assert np.abs(ramp((640, 480), _die((320.0, 240.0)))).max() == 0.0
    near, far = ramp((640, 480), _die((400.0, 240.0))), ramp((640, 480), _die((600.0, 240.0)))
    assert 0 < near[:, -1].mean() < far[:, -1].mean()          # rising towards the frame's right edge
    assert far[:, 0].mean() < 0


def test_missing_weights_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="lying-flat check weights missing"):
        FlatNet(tmp_path / "nowhere.onnx")


def test_no_dice_no_reads() -> None:
    assert not_flat(np.zeros((480, 640, 3), np.uint8), []).shape == (0,)


def test_the_committed_check_tells_cocked_dice_from_flat_ones_on_virtual_trays() -> None:
    cocked, flat = [], []
    for k in range(12):
        rendered = render_tray(4_100_000 + k, D6 if k % 2 else EXCAPE, hazards=frozenset({"cocked"}))
        work, scale = to_work(rendered.image)
        located = find_dice(work)
        p = not_flat(work, located)
        truth = [tuple(round(v * scale) for v in d.box) for d in rendered.dice]
        for i, j in match_boxes([d.box for d in located], truth, 0.3).items():
            (cocked if rendered.dice[j].hazards else flat).append(float(p[i]))
    assert len(cocked) >= 10 and len(flat) >= 30
    assert np.mean(np.array(cocked) >= NOT_FLAT) >= 0.75, cocked
    assert np.sum(np.array(flat) >= NOT_FLAT) <= 1, flat


def test_no_die_of_the_real_photos_is_called_cocked(test_data: Path) -> None:
    photos = sorted((test_data / "photos").glob("*.jpg"))
    assert photos
    for path in photos:
        work, _ = to_work(cv2.imread(str(path)))
        located = find_dice(work)
        assert len(located) >= len(read_labels(path.with_suffix(".txt"), 1, 1)) - 1
        p = not_flat(work, located)
        assert (p < NOT_FLAT).all(), (path.name, p.round(3))
