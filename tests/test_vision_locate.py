"""The dice locator: its output maps decoded into dice, a die's box turned into the square the classifier reads, the
tray and the frame edge, and the committed net finding dice on virtual trays and on a real photo."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import locate
from vision.locate import (
    BIG_DICE_SHRINK,
    CLAIMED_REACH,
    FAINT_APART,
    FAINT_PEAK,
    INPUT_SCALE,
    OUTPUTS,
    PEAK_PROBABILITY,
    STRIDE,
    LocatedDie,
    Locator,
    Spot,
    TrayRegionError,
    decode,
    find_big_spots,
    find_dice,
    located_dice,
    strongest_unclaimed_peak,
    to_locator_scale,
)
from vision.models import D6, ModelError
from vision.training.photos import read_labels
from vision.virtual_tray import render_tray


def _maps(h: int = 30, w: int = 40) -> np.ndarray:
    maps = np.zeros((OUTPUTS, h, w), np.float32)
    maps[0] = -10.0
    return maps


def test_each_peak_of_the_centre_map_is_a_die_with_its_offset_and_size() -> None:
    maps = _maps()
    maps[0, 5, 7], maps[0, 5, 8] = 3.0, 1.0                      # a die, and its bump's shoulder
    maps[1:, 5, 7] = np.log(40 / locate.SIDE_UNIT), 0.25, 0.75
    maps[0, 20, 30] = 0.0                                        # p 0.5: a die
    maps[0, 12, 3] = -2.0                                        # p 0.12: not a die
    spots = sorted(decode(maps, scale=0.5), key=lambda s: s.centre[1])
    assert len(spots) == 2
    first = spots[0]
    assert first.centre == pytest.approx(((7 + 0.25) * STRIDE / 0.5, (5 + 0.75) * STRIDE / 0.5))
    assert first.box_side == pytest.approx(40.0)
    assert first.probability == pytest.approx(1 / (1 + np.exp(-3.0)))
    assert spots[1].probability == pytest.approx(0.5)


def test_a_smaller_spot_alone_inside_a_bigger_one_is_part_of_that_die_but_a_cluster_box_keeps_its_dice() -> None:
    maps = _maps()
    maps[0, 10, 10], maps[0, 12, 12] = 1.0, 2.0        # a big die (box 72) whose map also peaks off its centre
    maps[1, 10, 10], maps[1, 12, 12] = np.log(72 / locate.SIDE_UNIT), np.log(40 / locate.SIDE_UNIT)
    [die] = decode(maps, scale=0.5)
    assert die.box_side == pytest.approx(72.0)
    cluster = _maps()
    cluster[0, 10, 10] = 0.0                             # a box spanning three touching dice, none of them a die
    cluster[1, 10, 10] = np.log(80 / locate.SIDE_UNIT)
    for y, x in ((8, 8), (8, 12), (12, 10)):
        cluster[0, y, x], cluster[1, y, x] = 2.0, np.log(36 / locate.SIDE_UNIT)
    assert sorted(round(s.box_side) for s in decode(cluster, scale=0.5)) == [36, 36, 36, 80]


def test_the_frame_is_halved_and_padded_to_whole_cells() -> None:
    frame = np.zeros((481, 641, 3), np.uint8)
    small, scale = to_locator_scale(frame)
    assert small.shape[0] % STRIDE == 0 and small.shape[1] % STRIDE == 0
    assert small.shape[0] >= 240 and small.shape[1] >= 320
    assert scale == pytest.approx(320 / 641)


class _FakeLocator:
    def __init__(self, spots: list[Spot]) -> None:
        self._spots = spots

    def spots(self, work: np.ndarray, threshold: float, faint: float | None = None,
              seen: tuple[np.ndarray, float] | None = None) -> list[Spot]:
        clear = [s for s in self._spots if s.probability >= threshold]
        return clear + [s for s in self._spots if faint is not None and faint <= s.probability < threshold]


def _turned_die(image: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> None:
    corners = cv2.boxPoints((centre, (side, side), angle)).astype(np.int32)
    cv2.fillConvexPoly(image, corners, (40, 40, 190), lineType=cv2.LINE_AA)


def test_a_turned_die_is_read_as_the_square_inside_its_box(monkeypatch: pytest.MonkeyPatch) -> None:
    work = np.full((480, 640, 3), 200, np.uint8)
    side, angle = 40.0, 30.0
    _turned_die(work, (300, 200), side, angle)
    box_side = side * (np.cos(np.radians(angle)) + np.sin(np.radians(angle)))
    monkeypatch.setattr(locate, "locator", lambda: _FakeLocator([Spot((300.0, 200.0), box_side, 0.9)]))
    [die] = find_dice(work)
    assert die.side == pytest.approx(side, abs=2.0)
    turn = (die.rect[2] - angle) % 90       # a square's turn is known up to quarter turns
    assert min(turn, 90 - turn) < 3.0
    x, y, w, h = die.box
    assert (x, y) == (round(300 - box_side / 2), round(200 - box_side / 2)) and w == h == round(box_side)
    assert not die.touches_edge


def test_dice_outside_the_tray_are_left_out_and_dice_at_its_edge_may_be_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    work = np.full((480, 640, 3), 200, np.uint8)
    spots = [Spot((100.0, 100.0), 40.0, 0.9),      # inside, clear of the edges
             Spot((52.0, 300.0), 40.0, 0.9),       # its box reaches the tray's left edge (x = 40)
             Spot((15.0, 300.0), 40.0, 0.9),       # outside the tray; its box reaches 5 px out of the frame
             Spot((300.0, 460.0), 40.0, 0.9),      # outside the tray; its box just reaches the frame's bottom edge
             Spot((620.0, 30.0), 40.0, FAINT_PEAK - 0.01)]     # below even a faint die's peak
    monkeypatch.setattr(locate, "locator", lambda: _FakeLocator(spots))
    dice = find_dice(work, tray=(40, 40, 560, 400))
    assert [d.rect[0] for d in dice] == [(100.0, 100.0), (52.0, 300.0)]
    assert [d.touches_edge for d in dice] == [False, True]
    # A box is the die's within ~15%: a die whose box only just reaches the edge is taken for whole (EDGE_CORE).
    assert [d.touches_edge for d in find_dice(work)] == [False, False, True, False]


def test_a_faint_peak_away_from_every_die_is_a_faint_die(monkeypatch: pytest.MonkeyPatch) -> None:
    work = np.full((480, 640, 3), 200, np.uint8)
    spots = [Spot((100.0, 100.0), 40.0, 0.9),
             Spot((300.0, 300.0), 40.0, FAINT_PEAK + 0.01),                  # alone: a faint die
             Spot((100.0 + FAINT_APART * 30, 100.0), 40.0, PEAK_PROBABILITY - 0.01),   # beside the die: part of it
             Spot((500.0, 300.0), 40.0, FAINT_PEAK - 0.01)]                  # too faint
    monkeypatch.setattr(locate, "locator", lambda: _FakeLocator(spots))
    dice = find_dice(work)
    assert [(d.rect[0], d.faint) for d in dice] == [((100.0, 100.0), False), ((300.0, 300.0), True)]
    assert [d.rect[0] for d in find_dice(work, faint=None)] == [(100.0, 100.0)]
    with pytest.raises(TrayRegionError, match="does not fit"):
        find_dice(work, tray=(600, 0, 100, 480))


def test_only_the_spots_a_caller_wants_are_made_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    # The second locator's look for dice the first one missed wants none where a die was read: those spots are
    # dropped before each is turned square (a crop and two filters a spot), and the others come out as without it.
    work = np.full((480, 640, 3), 200, np.uint8)
    spots = [Spot((100.0, 100.0), 40.0, 0.9), Spot((300.0, 300.0), 40.0, 0.9), Spot((500.0, 200.0), 40.0, 0.9)]
    monkeypatch.setattr(locate, "locator", lambda: _FakeLocator(spots))
    turned: list[int] = []
    real_square_up = locate.square_up_many
    monkeypatch.setattr(locate, "square_up_many", lambda image, centres, *rest: (
        turned.append(len(centres)), real_square_up(image, centres, *rest))[1])
    every = find_dice(work, faint=None)
    wanted = find_dice(work, faint=None, wanted=lambda centre: centre[0] > 200)
    assert turned == [3, 2]
    assert wanted == [d for d in every if d.rect[0][0] > 200]


def _die_at(centre: tuple[float, float], side: float) -> LocatedDie:
    x, y = centre
    return LocatedDie(box=(round(x - side / 2), round(y - side / 2), round(side), round(side)),
                      rect=(centre, (side, side), 0.0), touches_edge=False, probability=0.9)


def test_the_strongest_unclaimed_peak_is_the_locators_best_cell_outside_every_die_and_inside_the_tray() -> None:
    maps = _maps(60, 80)        # a 640x480 work frame, read at half size: 80 x 60 cells of 8 work pixels
    scale = INPUT_SCALE
    maps[0, 25, 25] = 2.0       # a cell centred at (204, 204) work pixels: p 0.88
    maps[0, 50, 70] = 0.0       # (564, 404): p 0.5
    seen = (maps, scale)
    assert strongest_unclaimed_peak(seen, []) == pytest.approx(1 / (1 + np.exp(-2.0)))
    claimed = _die_at((204.0, 204.0), 40.0)
    assert strongest_unclaimed_peak(seen, [claimed]) == pytest.approx(0.5)
    # A die claims its cells to CLAIMED_REACH of its side from its centre, no farther.
    near = _die_at((204.0 + 40 * CLAIMED_REACH + 2, 204.0), 40.0)
    assert strongest_unclaimed_peak(seen, [near, _die_at((564.0, 404.0), 30.0)]) == pytest.approx(
        1 / (1 + np.exp(-2.0)))
    # Cells outside the tray region are nobody's business.
    assert strongest_unclaimed_peak(seen, [claimed], tray=(0, 0, 400, 300)) == pytest.approx(
        1 / (1 + np.exp(10.0)), rel=1e-3)
    assert strongest_unclaimed_peak(seen, [claimed, _die_at((564.0, 404.0), 30.0)]) < 0.001


class _RecordingLocator(_FakeLocator):
    def __init__(self, spots: list[Spot]) -> None:
        super().__init__(spots)
        self.shapes: list[tuple[int, ...]] = []

    def spots(self, work: np.ndarray, threshold: float = PEAK_PROBABILITY, faint: float | None = None) -> list[Spot]:
        self.shapes.append(work.shape)
        return super().spots(work, threshold, faint)


def test_big_dice_are_sought_on_the_frame_shrunk_and_given_in_work_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    work = np.full((480, 640, 3), 200, np.uint8)
    fake = _RecordingLocator([Spot((50.0, 60.0), 40.0, 0.9),          # in the shrunk frame's pixels
                              Spot((10.0, 10.0), 30.0, 0.9),          # outside the tray once grown
                              Spot((100.0, 100.0), 40.0, PEAK_PROBABILITY - 0.01)])    # not clear: no die
    monkeypatch.setattr(locate, "locator", lambda: fake)
    spots = find_big_spots(work, tray=(40, 40, 560, 400))
    assert fake.shapes == [(round(480 / BIG_DICE_SHRINK), round(640 / BIG_DICE_SHRINK), 3)]
    assert spots == [Spot((50.0 * BIG_DICE_SHRINK, 60.0 * BIG_DICE_SHRINK), 40.0 * BIG_DICE_SHRINK, 0.9)]
    [die] = located_dice(work, spots, tray=(40, 40, 560, 400))
    assert die.rect[0] == spots[0].centre and not die.faint and not die.touches_edge
    with pytest.raises(TrayRegionError, match="does not fit"):
        find_big_spots(work, tray=(600, 0, 100, 480))


def test_missing_weights_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="locator weights missing"):
        Locator(tmp_path / "nowhere.onnx")


def _nearest(spots: list[Spot], centre: tuple[float, float]) -> Spot:
    return min(spots, key=lambda s: np.hypot(s.centre[0] - centre[0], s.centre[1] - centre[1]))


def _found(spots: list[Spot], centre: tuple[float, float], side: float) -> bool:
    near = _nearest(spots, centre) if spots else None
    return near is not None and np.hypot(near.centre[0] - centre[0], near.centre[1] - centre[1]) < side / 3


@pytest.mark.parametrize("seed", [400011, 400012, 400013, 400014])
def test_the_committed_locator_finds_every_die_of_a_virtual_tray(seed: int) -> None:
    rendered = render_tray(seed, D6, n_dice=6, size=(640, 480))
    spots = Locator().spots(rendered.image)
    for die in rendered.dice:
        x, y, w, h = die.box
        assert _found(spots, (x + w / 2, y + h / 2), np.sqrt(w * h)), die
        assert _nearest(spots, (x + w / 2, y + h / 2)).box_side == pytest.approx(np.sqrt(w * h), rel=0.3), die
    assert len(spots) <= len(rendered.dice) + 1


def test_the_committed_locator_finds_a_row_of_touching_real_dice(test_data: Path) -> None:
    # A real photo (train split) with six dice side by side along the tray wall, 22 in all. The colour-and-edge
    # detector this replaced found 5 of the row only once a row was no longer taken for a wall; a 4 squeezed
    # between two dice is the locator's one miss (its centre at p 0.26).
    photo = test_data / "rows" / "IMG_20191208_111316.jpg"
    image = cv2.imread(str(photo))
    truth = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    spots = Locator().spots(image)
    found = [_found(spots, (x + w / 2, y + h / 2), np.sqrt(w * h)) for x, y, w, h in (d.box for d in truth)]
    row = [hit for hit, die in zip(found, truth, strict=True) if die.box[1] + die.box[3] / 2 < 160]
    assert len(row) == 6 and sum(row) >= 5
    assert sum(found) >= len(truth) - 1


def test_squaring_up_many_dice_at_once_gives_each_the_angle_it_gets_alone() -> None:
    """The dice's crops are filtered together as one tall image: no die's edges may reach into its neighbour's."""
    from vision.recognise import square_up_many

    work, _ = locate.to_work(render_tray(21, D6, n_dice=6).image)
    spots = locate.locator().spots(work)
    centres, sides = [s.centre for s in spots], [s.box_side / 1.2 for s in spots]
    together = square_up_many(work, centres, sides, [0.0] * len(spots))
    alone = [square_up_many(work, [c], [s], [0.0])[0] for c, s in zip(centres, sides, strict=True)]
    assert len(spots) >= 5
    assert np.allclose(together, alone, atol=1e-4)
    assert np.abs(together).max() > 2.0          # the dice lie turned: the angles are measured, not left at 0
    assert square_up_many(work, [], [], []).shape == (0,)
