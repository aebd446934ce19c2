"""The virtual tray: deterministic, truthful boxes, the faces asked for, and every hazard when asked.

Truth is checked by independent measurement on the pixels (difference from the empty tray, dark blobs on a
white die), not by reading the renderer's own bookkeeping back.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from budget import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.errors import DiceCompanionError
from vision.models import D6, EXCAPE, DieKind, DieModel, Face
from vision.virtual_tray import (
    DIE_COLOURS,
    DIE_HAZARDS,
    PIP_COLOURS,
    Flicker,
    Look,
    RenderError,
    _die_look,
    empty_tray,
    render_tray,
    roll_frames,
)

CLEAN = {"clean": True, "tray": "card", "full_floor": True}
SIZE = (480, 360)


def changed_mask(seed: int, image: np.ndarray, **look: object) -> np.ndarray:
    """Pixels where the render differs from the same tray without dice (noise-free looks only)."""
    empty = empty_tray(seed, (image.shape[1], image.shape[0]), **look)
    return (np.abs(image.astype(int) - empty).max(axis=2) > 12).astype(np.uint8)


def test_same_seed_same_pixels_and_truth() -> None:
    first = render_tray(11, EXCAPE, n_dice=4, size=SIZE, hazards=frozenset({"blurred"}))
    again = render_tray(11, EXCAPE, n_dice=4, size=SIZE, hazards=frozenset({"blurred"}))
    other = render_tray(12, EXCAPE, n_dice=4, size=SIZE, hazards=frozenset({"blurred"}))
    assert np.array_equal(first.image, again.image)
    assert first.dice == again.dice
    assert not np.array_equal(first.image, other.image)
    assert np.array_equal(empty_tray(11, SIZE), empty_tray(11, SIZE))
    frames, frames_again = (roll_frames(3, rolling=2, still=2, size=(320, 240)) for _ in range(2))
    assert all(np.array_equal(a, b) for a, b in zip(frames, frames_again, strict=True))


def test_image_is_bgr_uint8_of_the_requested_size() -> None:
    rendered = render_tray(5, D6, size=(400, 300))
    assert rendered.image.dtype == np.uint8
    assert rendered.image.shape == (300, 400, 3)
    x, y, w, h = rendered.floor
    assert x >= 0 and y >= 0 and x + w <= 400 and y + h <= 300
    rx, ry, rw, rh = rendered.rim                # the floor and its walls, up to the tray's rim
    assert 0 <= rx <= x and 0 <= ry <= y and x + w <= rx + rw <= 400 and y + h <= ry + rh <= 300


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_boxes_are_inside_the_image_and_tight_around_each_die(seed: int) -> None:
    rendered = render_tray(seed, D6, n_dice=6, size=SIZE, **CLEAN)
    changed = changed_mask(seed, rendered.image, **CLEAN)
    height, width = changed.shape
    covered = np.zeros_like(changed)
    for die in rendered.dice:
        x, y, w, h = die.box
        assert x >= 0 and y >= 0 and x + w <= width and y + h <= height
        assert 0.8 * die.size <= max(w, h) <= 1.6 * die.size
        inside = changed[y:y + h, x:x + w]
        rows, cols = np.flatnonzero(inside.any(axis=1)), np.flatnonzero(inside.any(axis=0))
        # The die's own pixels reach every side of its box (to within the anti-aliased rim).
        assert rows[0] <= 2 and cols[0] <= 2 and rows[-1] >= h - 3 and cols[-1] >= w - 3
        covered[max(0, y - 2):y + h + 2, max(0, x - 2):x + w + 2] = 1
    # Nothing was drawn outside the boxes.
    assert np.count_nonzero(changed & (1 - covered)) == 0


def test_boxes_stay_inside_the_image_and_only_cut_dice_touch_its_edge() -> None:
    for seed in range(10):
        rendered = render_tray(seed, EXCAPE if seed % 2 else D6, n_dice=8, size=(640, 480),
                               hazards=frozenset({"cut"} if seed % 3 == 0 else ()))
        for die in rendered.dice:
            x, y, w, h = die.box
            assert w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= 640 and y + h <= 480
            touches_edge = x == 0 or y == 0 or x + w == 640 or y + h == 480
            assert touches_edge == ("cut" in die.hazards)


def count_marks(image: np.ndarray, box: tuple[int, int, int, int], size: float) -> list[int]:
    """Areas of the dark marks on a light die seen from straight above: dark blobs within 0.45 die sizes of the
    die's centre (every mark lies within 0.43, the dark rounded edges start at 0.5)."""
    x, y, w, h = box
    crop = cv2.cvtColor(image[y:y + h, x:x + w], cv2.COLOR_BGR2GRAY)
    yy, xx = np.mgrid[0:h, 0:w]
    near_centre = np.hypot(xx - (w - 1) / 2, yy - (h - 1) / 2) < 0.45 * size
    dark = ((crop < 100) & near_centre).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    return [int(stats[i, cv2.CC_STAT_AREA]) for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 4]


@pytest.mark.parametrize(("model", "faces"), [
    (D6, ["1", "2", "3", "4", "5", "6"]),
    (EXCAPE, ["7", "X", "4", "5", "1", "X"]),
])
@pytest.mark.parametrize("seed", [21, 22, 23])
def test_requested_faces_are_the_faces_drawn(model: DieModel, faces: list[str], seed: int) -> None:
    rendered = render_tray(seed, model, faces=faces, size=(640, 480), die_colour="white", pip_colour="black",
                           die_size=(30, 50), **CLEAN)
    assert [d.label for d in rendered.dice] == faces
    for die in rendered.dice:
        marks = count_marks(rendered.image, die.box, die.size)
        if die.label == "X":
            assert die.appearance == "symbol:cross"
            # One printed cross: a single mark, far bigger than a pip.
            assert len(marks) == 1 and marks[0] > 4 * np.pi * (0.08 * die.size) ** 2
        else:
            assert len(marks) == int(die.label), (die.label, marks)


def test_excape_pair_is_one_die_of_each_kind() -> None:
    for seed in range(4):
        rendered = render_tray(seed, EXCAPE, size=(320, 240))
        assert sorted(d.kind for d in rendered.dice) == ["excape-a", "excape-b"]
        for die in rendered.dice:
            kind = next(k for k in EXCAPE.kinds if k.name == die.kind)
            assert die.label in {f.label for f in kind.faces}
    # A face only one kind has goes to that kind.
    rendered = render_tray(0, EXCAPE, faces=["7", "5"], size=(320, 240))
    assert [d.kind for d in rendered.dice] == ["excape-a", "excape-b"]


def test_taught_faces_render_as_their_label() -> None:
    model = DieModel("mine", (DieKind("mine", (Face("skull", "taught:skull"), Face("A", "taught:a"))),))
    rendered = render_tray(4, model, faces=["skull", "A"], die_colour="white", pip_colour="black", die_size=50,
                           size=(320, 240), **CLEAN)
    assert [d.appearance for d in rendered.dice] == ["taught:skull", "taught:a"]
    for die in rendered.dice:
        assert count_marks(rendered.image, die.box, die.size), "a taught face must show a mark"


def test_every_die_colour_renders_with_visible_pips() -> None:
    for index, colour in enumerate(DIE_COLOURS):
        rendered = render_tray(index, D6, faces=["5"], die_colour=colour, die_size=44, size=(200, 160), **CLEAN)
        (die,) = rendered.dice
        assert die.colour == colour
        x, y, w, h = die.box
        crop = rendered.image[y + h // 4:y + 3 * h // 4, x + w // 4:x + 3 * w // 4].astype(float)
        assert crop.std() > 20, f"{colour}: pips must contrast with the body"


def test_red_pips_are_drawn_on_request_only_and_stand_out_on_marbled_dice() -> None:
    for colour in ("black", "marbled", "blue", "white"):
        for seed in range(4):
            rendered = render_tray(seed, D6, faces=["5"], die_colour=colour, pip_colour="red", die_size=44,
                                   size=(200, 160), **CLEAN)
            (die,) = rendered.dice
            x, y, w, h = die.box
            b, g, r = rendered.image[y:y + h, x:x + w].astype(int).transpose(2, 0, 1)
            red = (r > 110) & (r > g + 60) & (r > b + 60)
            # five pips are ~6-12% of the box; a marbled die with a red resin would be far redder
            assert 0.04 < red.mean() < 0.16, f"{colour} seed {seed}: {red.mean():.3f} of the box is red"
    # never by chance: the benchmark's and the tests' seeded trays keep their looks
    looks = [_die_look(np.random.default_rng(k), Look()) for k in range(300)]
    assert all(np.linalg.norm(np.subtract(look.pip, PIP_COLOURS["red"])) > 60 for look in looks)


def die_area(changed: np.ndarray, box: tuple[int, int, int, int]) -> int:
    x, y, w, h = box
    return int(np.count_nonzero(changed[y:y + h, x:x + w]))


def test_cocked_die_leans_showing_a_side_face() -> None:
    for seed in range(3):
        look = {"die_size": 40, **CLEAN}
        flat = render_tray(seed, D6, n_dice=1, size=SIZE, **look)
        cocked = render_tray(seed, D6, n_dice=1, size=SIZE, hazards=frozenset({"cocked"}), **look)
        assert cocked.dice[0].hazards == frozenset({"cocked"}) and not flat.dice[0].hazards
        # Seen from above a die lying flat covers about size^2 (plus its anti-aliased rim); a leaning one shows
        # its top and a side: (cos + sin) of its tilt, 1.3 to 1.4 times as much.
        assert die_area(changed_mask(seed, cocked.image, **look), cocked.dice[0].box) > 1.2 * 40 ** 2
        assert die_area(changed_mask(seed, flat.image, **look), flat.dice[0].box) < 1.1 * 40 ** 2


def test_cocked_die_leans_on_a_neighbour() -> None:
    for seed in range(3):
        rendered = render_tray(seed, D6, n_dice=3, size=SIZE, hazards=frozenset({"cocked"}))
        (cocked,) = [d for d in rendered.dice if "cocked" in d.hazards]
        x, y, w, h = cocked.box
        gaps = [max(box[0] - (x + w), x - (box[0] + box[2]), box[1] - (y + h), y - (box[1] + box[3]))
                for box in (d.box for d in rendered.dice if d is not cocked)]
        assert min(gaps) <= 1


def test_stacked_dice_overlap() -> None:
    for seed in range(3):
        rendered = render_tray(seed, D6, n_dice=4, size=SIZE, hazards=frozenset({"stacked"}))
        stacked = [d for d in rendered.dice if "stacked" in d.hazards]
        assert len(stacked) == 2
        (ax, ay, aw, ah), (bx, by, bw, bh) = (d.box for d in stacked)
        overlap_w = min(ax + aw, bx + bw) - max(ax, bx)
        overlap_h = min(ay + ah, by + bh) - max(ay, by)
        assert overlap_w > 0.2 * stacked[0].size and overlap_h > 0.2 * stacked[0].size


def _gap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """Pixels between two boxes (negative: they overlap by that much at least one way)."""
    return max(b[0] - (a[0] + a[2]), a[0] - (b[0] + b[2]), b[1] - (a[1] + a[3]), a[1] - (b[1] + b[3]))


def test_dice_that_touch_rest_against_each_other_and_never_in_each_other() -> None:
    # Seen from straight above (no perspective), a die resting against another abuts it: most dice lie within a
    # pixel of another, and no die takes up another's floor, so the dice cover as much tray as their sides make.
    look = {"die_size": 36, **CLEAN}
    abutting = dice = 0
    for seed in range(4):
        rendered = render_tray(seed, D6, n_dice=5, size=SIZE, touching=True, **look)
        boxes = [d.box for d in rendered.dice]
        gaps = [min(_gap(a, b) for b in boxes if b is not a) for a in boxes]
        abutting, dice = abutting + sum(g <= 1 for g in gaps), dice + len(boxes)
        covered = np.count_nonzero(changed_mask(seed, rendered.image, **look))
        apart = render_tray(seed, D6, n_dice=5, size=SIZE, **look)
        assert covered > 0.98 * np.count_nonzero(changed_mask(seed, apart.image, **look))
    assert abutting > dice / 2


def test_dice_that_touch_overlap_in_perspective() -> None:
    # Seen from a camera low over the tray, a die resting against another hides a part of it: their boxes overlap
    # by a fifth of a die and more. Apart, only the corners of two dice's upright boxes may (a turned die's box is
    # bigger than the die).
    def deep_overlaps(**touching: bool) -> int:
        rendered = [render_tray(seed, D6, n_dice=5, size=SIZE, camera_height=1.6, tilt=0.0, **touching)
                    for seed in range(6)]
        return sum(_gap(a.box, b.box) < -0.2 * min(a.size, b.size)
                   for tray in rendered for a, b in itertools.combinations(tray.dice, 2))

    assert deep_overlaps() == 0 and deep_overlaps(touching=True) >= 5


def test_cut_die_is_partly_outside_the_frame() -> None:
    for seed in range(4):
        rendered = render_tray(seed, D6, n_dice=2, size=SIZE, hazards=frozenset({"cut"}), **CLEAN)
        (cut,) = [d for d in rendered.dice if "cut" in d.hazards]
        x, y, w, h = cut.box
        assert x == 0 or y == 0 or x + w == SIZE[0] or y + h == SIZE[1]
        visible = die_area(changed_mask(seed, rendered.image, **CLEAN), cut.box)
        assert 0.15 * cut.size ** 2 < visible < 0.85 * cut.size ** 2


def sharpness(image: np.ndarray, box: tuple[int, int, int, int]) -> float:
    x, y, w, h = box
    grey = cv2.cvtColor(image[y:y + h, x:x + w], cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def test_blurred_die_is_smeared() -> None:
    for seed in range(3):
        sharp = render_tray(seed, D6, n_dice=3, size=SIZE, **CLEAN)
        blurred = render_tray(seed, D6, n_dice=3, size=SIZE, hazards=frozenset({"blurred"}), **CLEAN)
        (index,) = [i for i, d in enumerate(blurred.dice) if "blurred" in d.hazards]
        # Same layout (the blur is added after placing), so the same die can be compared with itself.
        assert blurred.dice[index].label == sharp.dice[index].label
        assert sharpness(blurred.image, blurred.dice[index].box) < 0.5 * sharpness(sharp.image, sharp.dice[index].box)


def test_hand_enters_the_tray() -> None:
    for seed in range(3):
        without = render_tray(seed, D6, n_dice=2, size=SIZE, **CLEAN)
        rendered = render_tray(seed, D6, n_dice=2, size=SIZE, hazards=frozenset({"hand"}), **CLEAN)
        assert rendered.hazards == frozenset({"hand"})
        assert all(not d.hazards for d in rendered.dice)
        differs = np.abs(rendered.image.astype(int) - without.image).max(axis=2) > 25
        assert differs.mean() > 0.03
        # The arm comes in over the frame's edge.
        assert differs[0].any() or differs[-1].any() or differs[:, 0].any() or differs[:, -1].any()
        # Mostly skin-coloured (a red-orange hue, clearly saturated); the rest is its shadow on the tray.
        hue, saturation, _ = cv2.cvtColor(rendered.image, cv2.COLOR_BGR2HSV)[differs].T.astype(int)
        skin = ((hue <= 25) | (hue >= 170)) & (saturation > 40)
        assert skin.mean() > 0.6


def test_all_hazards_together() -> None:
    hazards = frozenset({"cocked", "stacked", "cut", "blurred", "hand"})
    rendered = render_tray(9, EXCAPE, n_dice=6, size=(640, 480), hazards=hazards)
    found = set().union(*(d.hazards for d in rendered.dice)) | rendered.hazards
    assert found == hazards


def test_roll_frames_tumble_then_rest_on_the_rendered_tray() -> None:
    size = (320, 240)
    frames = roll_frames(8, EXCAPE, faces=["7", "X"], size=size, hand_frames=2, rolling=4, still=3, noise=2.0,
                         jpeg_quality=None)
    assert len(frames) == 2 + 4 + 3
    assert all(f.shape == (240, 320, 3) and f.dtype == np.uint8 for f in frames)
    at_rest = render_tray(8, EXCAPE, faces=["7", "X"], size=size, noise=2.0, jpeg_quality=None)

    def difference(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.abs(a.astype(int) - b).mean())

    # The still frames differ only by sensor noise, and show the dice of render_tray with the same arguments.
    assert difference(frames[-1], frames[-2]) < 3.0
    assert difference(frames[-1], at_rest.image) < 3.0
    for die in at_rest.dice:
        x, y, w, h = die.box
        assert difference(frames[-1][y:y + h, x:x + w], at_rest.image[y:y + h, x:x + w]) < 4.0
    # While they tumble, every frame differs from the next.
    for before, after in itertools.pairwise(frames[:7]):
        changed = (np.abs(before.astype(int) - after).max(axis=2) > 30).mean()
        assert changed > 0.002


def test_lamps_pulsing_make_bands_that_move_and_nothing_else() -> None:
    size, flicker = (320, 240), Flicker(depth=0.2, period=0.5, step=1 / 3)
    look = {"noise": 0.0, "jpeg_quality": None, "tray": "felt"}      # a dark tray: no band's crest clips
    steady = roll_frames(9, D6, size=size, rolling=2, still=4, **look)
    pulsing = roll_frames(9, D6, size=size, rolling=2, still=4, flicker=flicker, **look)
    angle = 2 * np.pi * np.arange(240) / (0.5 * 240)
    phases = []
    for lit, plain in zip(pulsing, steady, strict=True):
        # Each frame is the steady one with its rows lit by a sine over them: two bands to the frame, swinging by a
        # fifth either way.
        gain = lit.astype(float).sum(axis=(1, 2)) / plain.astype(float).sum(axis=(1, 2))
        (a, b), *_ = np.linalg.lstsq(np.stack([np.sin(angle), np.cos(angle)], axis=1), gain - 1, rcond=None)
        assert np.hypot(a, b) == pytest.approx(0.2, abs=0.01)
        phases.append(np.arctan2(b, a) / (2 * np.pi))
    # The bands move on a third of a pulse a frame, so the still frames repeat every third.
    assert np.allclose(np.diff(phases) % 1, 1 / 3, atol=0.01)
    assert not np.array_equal(pulsing[-1], pulsing[-2]) and np.array_equal(pulsing[-1], pulsing[-4])
    with pytest.raises(RenderError, match="flicker"):
        Flicker(depth=1.2)
    with pytest.raises(RenderError, match="flicker"):
        Flicker(period=0)


def test_a_knocked_camera_sees_the_scene_moved_and_turned_and_the_bands_on_its_rows() -> None:
    # A camera knocked: the light reaching its sensor moved and turned (`view`); the lamps' bands lie along the
    # sensor's rows all the same: each row lit as an unmoved camera's row is, not as the row the view moved there.
    size, flicker = (320, 240), Flicker(depth=0.2, period=0.5, step=1 / 3)
    look = {"noise": 0.0, "jpeg_quality": None, "tray": "felt"}
    view = cv2.getRotationMatrix2D((160, 120), 1.0, 1.0) + np.float64([[0, 0, 7], [0, 0, 15]])
    frames = [roll_frames(9, D6, size=size, rolling=0, still=2, **extra, **look)
              for extra in ({"flicker": flicker, "view": view}, {"flicker": flicker}, {"view": view}, {})]

    def row_gains(lit: np.ndarray, plain: np.ndarray) -> np.ndarray:
        return (lit.astype(float).sum(axis=(1, 2)) / plain.astype(float).sum(axis=(1, 2)))[20:-20]

    for moved_lit, lit, moved, plain in zip(*frames, strict=True):
        assert np.abs(moved_lit.astype(int) - moved).mean() > 1.0                     # lit by bands
        assert np.allclose(row_gains(moved_lit, moved), row_gains(lit, plain), atol=0.02)
        warped_lit = cv2.warpAffine(lit, view, size, borderMode=cv2.BORDER_REPLICATE)
        assert np.abs(row_gains(warped_lit, moved) - row_gains(lit, plain)).max() > 0.05     # not moved with them
    with pytest.raises(RenderError, match="view"):
        roll_frames(9, D6, size=size, view=np.eye(3))


def test_empty_tray_is_the_tray_of_render_tray() -> None:
    assert np.array_equal(empty_tray(6, SIZE, tray="felt"), render_tray(6, D6, n_dice=0, size=SIZE, tray="felt").image)


def test_throws_of_their_own_seeds_land_in_the_tray_of_tray_seed() -> None:
    # As at a table (the demo): each throw's dice, noise and motion from its own seed, one tray for all of them.
    assert np.array_equal(render_tray(6, D6, size=SIZE, tray_seed=6).image, render_tray(6, D6, size=SIZE).image)
    empty = empty_tray(40, SIZE, clean=True)
    for seed in (41, 42):
        rendered = render_tray(seed, D6, n_dice=2, size=SIZE, tray_seed=40, clean=True)
        outside = np.ones(SIZE[::-1], bool)
        for die in rendered.dice:
            x, y, w, h = die.box
            outside[max(y - 4, 0):y + h + 4, max(x - 4, 0):x + w + 4] = False
        assert np.array_equal(rendered.image[outside], empty[outside])
        assert not np.array_equal(rendered.image, empty)
        frames = roll_frames(seed, D6, n_dice=2, size=SIZE, rolling=1, still=1, tray_seed=40, clean=True)
        assert np.array_equal(frames[-1], rendered.image)
    # Without it, each seed draws its own tray.
    assert np.mean(render_tray(41, D6, n_dice=2, size=SIZE, clean=True).image != empty) > 0.5
    with pytest.raises(RenderError, match="seed"):
        render_tray(41, D6, size=SIZE, tray_seed=-1)


def test_many_dice_fit_or_fail_clearly() -> None:
    rendered = render_tray(2, D6, n_dice=25, size=(640, 640))
    assert len(rendered.dice) == 25
    with pytest.raises(RenderError, match="cannot fit"):
        render_tray(2, D6, n_dice=60, size=(160, 120), die_size=40)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"hazards": frozenset({"sneeze"})}, "unknown hazard"),
    ({"faces": ["9"]}, "no face labelled '9'"),
    ({"faces": ["1", "2"], "n_dice": 3}, "n_dice=3 but 2 faces"),
    ({"n_dice": 1, "hazards": frozenset({"stacked"})}, "at least 2 dice"),
    ({"sparkle": True}, "unknown look option"),
    ({"tray": "glass"}, "tray must be"),
    ({"die_colour": "pink"}, "die_colour must be"),
    ({"touching": "yes"}, "touching must be true or false"),
    ({"size": (10, 10)}, "size must be"),
    ({"jpeg_quality": 0}, "jpeg_quality"),
    ({"n_dice": -1}, "n_dice must be"),
])
def test_bad_requests_get_clear_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(RenderError, match=message) as error:
        render_tray(1, D6, **kwargs)
    assert isinstance(error.value, DiceCompanionError)


def test_bad_seed_and_frame_counts() -> None:
    with pytest.raises(RenderError, match="seed"):
        render_tray(-1)
    with pytest.raises(RenderError, match="rolling"):
        roll_frames(1, rolling=-2)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), model=st.sampled_from([D6, EXCAPE]), n_dice=st.integers(2, 6),
       size=st.sampled_from([(320, 240), (400, 400), (480, 270)]),
       hazards=st.frozensets(st.sampled_from(sorted(DIE_HAZARDS | {"hand"}))))
# Drawn once in CI: the cocked die was sent to lean on the die lying outside the tray, and never fit.
@example(seed=1697, model=EXCAPE, n_dice=4, size=(320, 240), hazards=frozenset({"outside", "stacked", "cocked"}))
def test_any_request_gives_consistent_truth(seed: int, model: DieModel, n_dice: int, size: tuple[int, int],
                                            hazards: frozenset[str]) -> None:
    if {"cut", "outside"} <= hazards:
        with pytest.raises(RenderError, match="cut and outside cannot go together"):
            render_tray(seed, model, n_dice=n_dice, size=size, hazards=hazards)
        return
    rendered = render_tray(seed, model, n_dice=n_dice, size=size, hazards=hazards)
    assert rendered.image.shape == (size[1], size[0], 3)
    assert len(rendered.dice) == n_dice
    width, height = size
    for die in rendered.dice:
        x, y, w, h = die.box
        assert w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= width and y + h <= height
        assert die.label == model.label_of(die.appearance)
        assert die.hazards <= DIE_HAZARDS
    found = set().union(*(d.hazards for d in rendered.dice)) | rendered.hazards
    assert found == hazards
    again = render_tray(seed, model, n_dice=n_dice, size=size, hazards=hazards)
    assert np.array_equal(again.image, rendered.image) and again.dice == rendered.dice


@pytest.mark.parametrize("seed", [4_409_000, 4_409_001, 4_409_002, 4_409_003])
def test_a_die_outside_the_tray_lies_whole_on_the_table_beside_it(seed: int) -> None:
    rendered = render_tray(seed, D6, n_dice=3, hazards=frozenset({"outside"}))
    rx, ry, rw, rh = rendered.rim
    for die in rendered.dice:
        x, y, w, h = die.box
        beyond = x >= rx + rw or x + w <= rx or y >= ry + rh or y + h <= ry
        assert beyond == ("outside" in die.hazards)        # only that die lies beyond the rim
        assert x > 0 and y > 0 and x + w < 640 and y + h < 480   # whole in view
