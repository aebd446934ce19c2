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
from vision.result import match_boxes
from vision.training.photos import read_labels
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


def test_the_first_look_leaves_every_die_the_check_calls_cocked_to_the_check() -> None:
    from vision.flat import SURELY_FLAT, first_look_net, flat_inputs, flat_net

    cocked, spared = 0, []
    for k in range(12):
        rendered = render_tray(4_100_000 + k, D6 if k % 2 else EXCAPE, hazards=frozenset({"cocked"}))
        work, _ = to_work(rendered.image)
        located = find_dice(work)
        inputs = flat_inputs(work, located)
        first, check = first_look_net().not_flat(inputs), flat_net().not_flat(inputs)
        cascade = not_flat(work, located, [False] * len(located))
        np.testing.assert_allclose(cascade, np.where(first < SURELY_FLAT, first, check), atol=1e-6)
        assert (first[check >= NOT_FLAT] >= SURELY_FLAT).all(), (first.round(4), check.round(3))
        cocked += int((check >= NOT_FLAT).sum())
        spared += list(first < SURELY_FLAT)
    assert cocked >= 10 and np.mean(spared) > 0.6      # about one die in four is cocked on these trays


def test_no_die_of_the_real_photos_is_called_cocked(test_data: Path) -> None:
    photos = sorted((test_data / "photos").glob("*.jpg"))
    assert photos
    for path in photos:
        work, _ = to_work(cv2.imread(str(path)))
        located = find_dice(work)
        assert len(located) >= len(read_labels(path.with_suffix(".txt"), 1, 1)) - 1
        p = not_flat(work, located)
        assert (p < NOT_FLAT).all(), (path.name, p.round(3))


class _StandIn:
    """A stand-in check: a fixed probability for each die (its input tagged with the die's index in the first
    plane's corner), counting the dice it is shown."""

    def __init__(self, answers: list[float]) -> None:
        self.answers, self.shown = np.array(answers, np.float32), []

    def not_flat(self, inputs: np.ndarray) -> np.ndarray:
        self.shown.append(len(inputs))
        return self.answers[inputs[:, 0, 0, 0].round().astype(int)]


def test_the_first_look_spares_the_check_only_dice_it_is_sure_lie_flat(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flat as flat

    dice = [_die((100.0 + 60 * k, 200.0)) for k in range(5)]
    tagged = flat.flat_inputs(np.zeros((480, 640, 3), np.uint8), dice)
    tagged[:, 0, 0, 0] = np.arange(5)
    monkeypatch.setattr(flat, "flat_inputs", lambda work, located: tagged)
    first = _StandIn([0.001, 0.3, 0.002, flat.SURELY_FLAT, 0.0])
    check = _StandIn([0.02, 0.9, 0.5, 0.8, 0.95])
    monkeypatch.setattr(flat, "first_look_net", lambda: first)
    monkeypatch.setattr(flat, "flat_net", lambda: check)
    work = np.zeros((480, 640, 3), np.uint8)
    # Dice 0 and 2 are taken as flat on the first look; 1 and 3 are not sure enough; 4 must be measured.
    leaning = flat.not_flat(work, dice, [False, False, False, False, True])
    np.testing.assert_allclose(leaning, [0.001, 0.9, 0.002, 0.8, 0.95])
    assert check.shown == [3]
    # Without `measured`, every die is measured by the check and the first look is not asked.
    first.shown.clear()
    np.testing.assert_allclose(flat.not_flat(work, dice), check.answers)
    assert first.shown == []
    with pytest.raises(ValueError, match="measured gives 2 dice for 5 located"):
        flat.not_flat(work, dice, [True, False])
    # A taught die's dice: every one measured by the check for taught dice, neither of the others asked.
    taught = _StandIn([0.1, 0.2, 0.3, 0.4, 0.5])
    monkeypatch.setattr(flat, "taught_flat_net", lambda: taught)
    first.shown.clear()
    check.shown.clear()
    np.testing.assert_allclose(flat.not_flat(work, dice, taught=True), taught.answers)
    assert (taught.shown, first.shown, check.shown) == ([5], [], [])
    with pytest.raises(ValueError, match="measured by its own check"):
        flat.not_flat(work, dice, [True] * 5, taught=True)
