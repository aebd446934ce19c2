"""The dice detector: one candidate per lone die, touching dice cut between dice, pale dice filled, and the fast
paths (wall search, crop filters, overlap search) equal to the plain computations they replace."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import detect, read
from vision.detect import Blob, Candidate, find_blobs, foreground_mask
from vision.models import D6
from vision.training.photos import match_boxes, read_labels
from vision.virtual_tray import render_tray

TRAY_BGR = (200, 205, 195)
DIE_SIDE = 44


def _tray(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = np.empty((480, 640, 3), np.uint8)
    image[:] = TRAY_BGR
    return cv2.add(image, rng.integers(0, 6, image.shape, dtype=np.uint8))


def _draw_die(image: np.ndarray, centre: tuple[int, int], colour: tuple[int, int, int] = (40, 40, 190)) -> None:
    """An axis-aligned die showing five, side DIE_SIDE."""
    x, y = centre
    half = DIE_SIDE // 2
    cv2.rectangle(image, (x - half, y - half), (x + half - 1, y + half - 1), colour, thickness=cv2.FILLED)
    for dx, dy in ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)):
        cv2.circle(image, (x + dx * DIE_SIDE // 4, y + dy * DIE_SIDE // 4), 4, (250, 250, 250), cv2.FILLED)


def _split_all_the_way(blob: Blob) -> list[Candidate]:
    """The detector's own guess at a blob's dice, without the classifier: split all the way down where it can be."""
    if blob.parts:
        return [c for part in blob.parts for c in _split_all_the_way(part)]
    return [blob.whole] if blob.whole else []


def find_candidates(image: np.ndarray) -> list[Candidate]:
    """The detector's own guess at the dice of a frame (each blob split wherever it looks like several dice)."""
    return [c for blob in find_blobs(image) for c in _split_all_the_way(blob)]


def _near(candidates: list[Candidate], centre: tuple[float, float], tolerance: float) -> bool:
    return any(np.hypot(c.rect[0][0] - centre[0], c.rect[0][1] - centre[1]) < tolerance for c in candidates)


@pytest.mark.parametrize("seed", [400005, 400006, 400007])
def test_a_lone_die_on_a_virtual_tray_is_one_unsplit_candidate_at_its_centre(seed: int) -> None:
    rendered = render_tray(seed, D6, n_dice=1, size=(640, 480))
    die = rendered.dice[0]
    # Tray marks may be candidates too (the classifier rejects them): only the die's blob is looked at.
    on_die = [blob for blob in find_blobs(rendered.image) if _near(blob.candidates, die.centre, die.size)]
    assert len(on_die) == 1 and not on_die[0].parts
    assert _near(on_die[0].candidates, die.centre, 0.25 * die.size)


@pytest.mark.parametrize("seed", [400135, 400164, 400202])
def test_two_touching_dice_on_a_virtual_tray_split_into_two_candidates_at_their_centres(seed: int) -> None:
    rendered = render_tray(seed, D6, n_dice=2, size=(640, 480))
    # Tray marks may be blobs too (the classifier rejects them): the pair's blob holds both dice (they touch).
    pair = [blob for blob in find_blobs(rendered.image)
            if all(_near([blob.whole] if blob.whole else _split_all_the_way(blob), die.centre, die.size)
                   for die in rendered.dice)]
    assert len(pair) == 1 and len(pair[0].parts) == 2
    candidates = _split_all_the_way(pair[0])
    assert len(candidates) == 2
    for die in rendered.dice:
        assert _near(candidates, die.centre, 0.25 * die.size)


def test_a_row_of_three_touching_dice_is_cut_between_the_dice() -> None:
    image = _tray()
    singles = [(100, 80), (300, 80), (500, 80)]         # lone dice: the frame's die size is measured on them
    row = [(200 + k * DIE_SIDE, 300) for k in range(3)]
    for centre in singles + row:
        _draw_die(image, centre)
    candidates = find_candidates(image)
    assert len(candidates) == 6
    for centre in singles + row:
        assert _near(candidates, centre, 0.2 * DIE_SIDE)


def test_a_die_seen_only_as_a_broken_outline_is_filled_to_one_square_blob() -> None:
    image = _tray()
    x, y, side = 300, 200, DIE_SIDE
    # Three sides of a dark outline (a pale die whose fourth edge matches the tray), no face colour.
    cv2.polylines(image, [np.array([(x + side, y), (x, y), (x, y + side), (x + side, y + side)])], False,
                  (90, 90, 90), thickness=4)
    mask = foreground_mask(image)
    s = detect._MASK_SCALE
    inside = mask[(y + 4) // s:(y + side - 4) // s, (x + 4) // s:(x + side - 4) // s]
    assert np.count_nonzero(inside) / inside.size > 0.9
    candidates = find_candidates(image)
    assert len(candidates) == 1
    assert _near(candidates, (x + side / 2, y + side / 2), 0.2 * side)


def test_a_split_part_no_bigger_than_a_die_is_filled_to_its_hull() -> None:
    part = np.zeros((40, 40), np.uint8)
    hook = np.array([(10, 10), (30, 10), (30, 30), (10, 30)])      # three sides of a 21 px die
    cv2.polylines(part, [hook], False, 255, thickness=2)
    filled, outline = detect._filled_if_one_die(part, die_area=21 * 21)
    assert np.count_nonzero(filled[12:29, 12:29]) == 17 * 17      # the die's inside is filled
    assert outline is not None and cv2.minAreaRect(outline) == cv2.minAreaRect(detect._outline(filled))
    unfilled, outline = detect._filled_if_one_die(part, die_area=200)
    assert np.array_equal(unfilled, part)                         # two dice big: left as it is
    assert outline is not None and cv2.boundingRect(outline) == (9, 9, 23, 23)


def test_blob_splitting_is_deterministic() -> None:
    image = _tray()
    for centre in [(200, 200), (200 + DIE_SIDE, 200), (200 + DIE_SIDE, 200 + DIE_SIDE), (400, 300)]:
        _draw_die(image, centre)
    first = [c.rect for c in find_candidates(image)]
    assert first == [c.rect for c in find_candidates(image)]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 150), st.integers(0, 110), st.integers(1, 140), st.integers(1, 120)),
                max_size=12))
def test_walls_are_the_openings_of_the_whole_mask_by_long_lines(rects: list[tuple[int, int, int, int]]) -> None:
    mask = np.zeros((120, 160), np.uint8)
    for x, y, w, h in rects:
        cv2.rectangle(mask, (x, y), (x + w - 1, y + h - 1), 255, thickness=cv2.FILLED)
    length = detect._WALL_LENGTH
    expected = cv2.bitwise_or(*(
        cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, size),
                         borderType=cv2.BORDER_CONSTANT, borderValue=0)
        for size in ((length, 1), (1, length))))
    walls = detect._walls(mask)
    assert np.array_equal(np.zeros_like(mask) if walls is None else walls, expected)


def test_a_run_shorter_than_a_wall_is_no_wall_even_at_the_frame_edge() -> None:
    mask = np.zeros((120, 160), np.uint8)
    mask[:detect._WALL_LENGTH - 1, :30] = 255       # dice stacked against the top edge, 1 px short of a wall
    mask[100:110, 20:20 + detect._WALL_LENGTH] = 255   # a wall
    walls = detect._walls(mask)
    assert walls is not None
    assert not walls[:detect._WALL_LENGTH - 1, :30].any()
    assert walls[100:110, 25:15 + detect._WALL_LENGTH].all()


def test_crop_filters_in_one_stack_equal_each_crop_filtered_alone() -> None:
    rng = np.random.default_rng(3)
    crops = rng.integers(0, 256, (6, 28, 28, 3), dtype=np.uint8)
    crops[3:] = cv2.GaussianBlur(crops[3:].reshape(-1, 28, 3), (5, 5), 2).reshape(3, 28, 28, 3)
    gray, gx, gy, laplacian = read._gray_stack(crops)
    sharpness, isotropy = read._sharpness(gray, laplacian), read._isotropy(gx, gy)
    for k, crop in enumerate(crops):
        alone = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
        ax, ay = cv2.Sobel(alone, cv2.CV_32F, 1, 0), cv2.Sobel(alone, cv2.CV_32F, 0, 1)
        assert np.allclose(gx[k], ax) and np.allclose(gy[k], ay)
        lap = cv2.Laplacian(alone, cv2.CV_32F)
        assert sharpness[k] == pytest.approx(lap.var() / (alone.var() + 25.0), rel=1e-5)
        xx, yy, xy = float((ax * ax).sum()), float((ay * ay).sum()), float((ax * ay).sum())
        eigen = np.linalg.eigvalsh(np.array([[xx, xy], [xy, yy]]))
        assert isotropy[k] == pytest.approx(eigen[0] / eigen[1], rel=1e-4)


def _die_at(x: float, y: float, side: float, angle: float) -> read._Die:
    box = (int(x - side / 2), int(y - side / 2), int(side), int(side))
    candidate = Candidate(box=box, rect=((x, y), (side, side), angle), fill=1.0, touches_edge=False)
    return read._Die(candidate, None, 1.0, 1.0)     # type: ignore[arg-type]   # the guess is not looked at


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 200), st.floats(0, 200), st.floats(10, 40), st.floats(0, 90)),
                max_size=8))
def test_overlapping_dice_are_those_of_any_overlapping_pair(placed: list[tuple[float, float, float, float]]) -> None:
    dice = [_die_at(*p) for p in placed]
    expected = {i for i, a in enumerate(dice) for j, b in enumerate(dice)
                if i != j and read._overlap(a.candidate, b.candidate) > read.OVERLAP_FRACTION}
    assert read._overlapping(dice) == expected


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(8, 90), st.integers(8, 70))
def test_the_background_median_of_channels_side_by_side_equals_filtering_each_alone(seed: int, width: int,
                                                                                       height: int) -> None:
    rng = np.random.default_rng(seed)
    image = cv2.GaussianBlur(rng.integers(0, 256, (height, width, 3), dtype=np.uint8), (5, 5), 1.5)
    expected = image
    for _ in range(detect._BG_MEDIAN_PASSES):
        expected = cv2.medianBlur(expected, detect._BG_MEDIAN)
    assert np.array_equal(detect._wide_median(image), expected)




def test_a_blob_of_four_dice_in_a_row_is_clustered_once_and_halved_between_dice() -> None:
    blob = np.zeros((30, 130), np.uint8)
    for k in range(4):                       # four 24 px dice, 2 px bridges between them
        blob[3:27, 3 + k * 31:27 + k * 31] = 255
        if k:
            blob[14:16, k * 31 - 4:k * 31 + 3] = 255
    clusters = detect._clusters(blob, length=4.0, die_area=24 * 24, area_counts_dice=True)
    assert len(clusters.moments) == 4
    halves = detect._split(blob, clusters, np.arange(4), die_area=24 * 24)
    assert len(halves) == 2
    for part, _, dice in halves:
        assert len(dice) == 2
        xs = np.flatnonzero(part.any(axis=0))
        assert xs.max() - xs.min() < 2 * 31      # two dice, not a die and a half


def test_a_part_that_fell_apart_is_split_into_its_pieces_not_read_as_its_largest() -> None:
    # A part of a split blob in two pieces, each a die: as one die it would be its largest piece alone.
    frame = detect._Frame(shape=(120, 160), region=None, die_area=400.0, area_counts_dice=True)
    part = np.zeros((120, 160), np.uint8)
    part[10:32, 10:32] = 255      # 22 x 22: a die
    part[60:80, 90:110] = 255     # 20 x 20: another
    part[100:103, 5:8] = 255      # a speck: no piece of its own
    assert len(detect._separate_pieces(part, frame.die_area)) == 2
    blob = detect._blob_tree(part, (0, 0), frame, depth=1)
    assert blob.whole is None and len(blob.parts) == 2
    # each piece is its own die, centred on it (in work pixels: twice the mask's)
    assert sorted(p.whole.rect[0][0] for p in blob.parts) == pytest.approx([42, 200], abs=1)
    whole_blob = detect._blob_tree(part, (0, 0), frame, depth=0)   # a frame's blob is one piece by construction
    assert whole_blob.whole is not None
    one_die = np.zeros((120, 160), np.uint8)
    one_die[10:32, 10:32] = 255
    assert detect._separate_pieces(one_die, frame.die_area) == []


def test_a_row_of_touching_dice_is_not_taken_for_a_tray_wall(test_data: Path) -> None:
    # A real photo whose top row holds six dice side by side along the tray wall, the first a wall's length from
    # the last. Erased as a wall, the row lost all six; now only a dark 6 squeezed between two red dice is missed.
    photo = test_data / "rows" / "IMG_20191208_111316.jpg"
    image = cv2.imread(str(photo))
    truth = [d.box for d in read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])]
    row = [box for box in truth if box[1] + box[3] / 2 < 160]
    assert len(row) == 6
    found = match_boxes([d.box for d in read.read_tray(image, D6).dice], row, 0.3)
    assert len(found) >= 5


def test_only_slender_straight_runs_count_as_walls() -> None:
    walls = np.zeros((240, 320), np.uint8)
    walls[10:14, 10:310] = 255      # 300 x 4: a wall
    walls[100:111, 50:160] = 255    # 110 x 11: the middle of a row of dice
    kept = detect._slender(walls)
    assert kept is not None and kept[12, 100] == 255 and kept[105, 100] == 0
    row_only = walls.copy()
    row_only[:50] = 0
    assert detect._slender(row_only) is None
    assert detect._slender(None) is None


def test_a_pair_no_bigger_than_a_die_and_a_quarter_is_split_when_it_is_twice_as_long_as_wide() -> None:
    # The frame's one lone die sets the die size; two smaller dice touching side by side make a blob hardly
    # bigger than it (as when the mask shows only part of two dice), but twice as long as it is wide.
    image = _tray(4)
    _draw_die(image, (150, 240))
    side = 32
    for x in (380, 380 + side):
        cv2.rectangle(image, (x, 224), (x + side - 1, 224 + side - 1), (40, 40, 190), thickness=cv2.FILLED)
        cv2.circle(image, (x + side // 2, 240), 4, (250, 250, 250), cv2.FILLED)
    pair = [blob for blob in find_blobs(image) if _near(blob.candidates, (380 + side, 240), side)]
    assert len(pair) == 1 and pair[0].parts
    assert _near(pair[0].candidates, (380 + side / 2, 240), 6) and _near(pair[0].candidates, (380 + 1.5 * side, 240), 6)
