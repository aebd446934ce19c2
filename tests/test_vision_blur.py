"""The blur measures: edges one-sided under motion, soft out of focus, whatever the die's colours."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.blur import BLUR_RATIO, MOTION_ISOTROPY, SOMEWHAT_ONE_SIDED, SOMEWHAT_SOFT, blurred, edge_measures


def _die_crop(body: tuple[int, int, int], pip: tuple[int, int, int]) -> np.ndarray:
    """A 36x36 crop of a die showing 5 on a grey tray, as the reader cuts it (the die's outline in view)."""
    crop = np.full((36, 36, 3), 150, np.uint8)
    cv2.rectangle(crop, (5, 5), (30, 30), body, -1)
    for x, y in ((11, 11), (24, 11), (18, 18), (11, 24), (24, 24)):
        cv2.circle(crop, (x, y), 2, pip, -1)
    return crop


@pytest.mark.parametrize(("body", "pip"), [((240, 240, 240), (20, 20, 20)), ((40, 30, 160), (230, 230, 230))])
def test_a_die_smeared_by_motion_has_one_sided_edges_and_one_out_of_focus_is_soft(
        body: tuple[int, int, int], pip: tuple[int, int, int]) -> None:
    sharp = _die_crop(body, pip)
    smear = np.zeros((9, 9), np.float32)
    smear[4, :] = 1 / 9                                      # moving sideways during the exposure
    moving = cv2.filter2D(sharp, -1, smear, borderType=cv2.BORDER_REPLICATE)
    soft = cv2.GaussianBlur(sharp, (0, 0), 2.5)
    sharpness, isotropy = edge_measures(np.stack([sharp, moving, soft]))
    assert isotropy[0] > 0.8 and isotropy[1] < MOTION_ISOTROPY     # a resting die's edges point all ways
    assert sharpness[2] < BLUR_RATIO * sharpness[0]
    assert not blurred(float(isotropy[0]), 1.0)
    assert blurred(float(isotropy[1]), float(sharpness[1] / sharpness[0]))
    assert blurred(float(isotropy[2]), float(sharpness[2] / sharpness[0]))


def test_somewhat_one_sided_and_somewhat_soft_together_is_blurred_and_either_alone_is_not() -> None:
    assert blurred(SOMEWHAT_ONE_SIDED - 0.01, SOMEWHAT_SOFT - 0.01)
    assert not blurred(SOMEWHAT_ONE_SIDED - 0.01, SOMEWHAT_SOFT + 0.01)
    assert not blurred(SOMEWHAT_ONE_SIDED + 0.01, SOMEWHAT_SOFT - 0.01)


def test_somewhat_one_sided_and_soft_in_itself_is_blurred_whatever_the_other_dice() -> None:
    from vision.blur import SOFT_IN_ITSELF

    # A die alone in its frame is its own median (relative sharpness 1): its own sharpness still tells.
    assert blurred(SOMEWHAT_ONE_SIDED - 0.01, 1.0, SOFT_IN_ITSELF - 0.01)
    assert not blurred(SOMEWHAT_ONE_SIDED - 0.01, 1.0, SOFT_IN_ITSELF + 0.01)
    assert not blurred(SOMEWHAT_ONE_SIDED + 0.01, 1.0, SOFT_IN_ITSELF - 0.01)
    assert not blurred(SOMEWHAT_ONE_SIDED - 0.01, 1.0)             # no sharpness given: as before


def _cross_die_crop() -> np.ndarray:
    """A SYMBOL_SIZE crop of a dark die printed with a white X, on a grey tray."""
    from vision.blur import SYMBOL_SIZE

    crop = np.full((SYMBOL_SIZE, SYMBOL_SIZE, 3), 150, np.uint8)
    cv2.rectangle(crop, (8, 8), (39, 39), (40, 40, 40), -1)
    cv2.line(crop, (15, 15), (32, 32), (240, 240, 240), 3)
    cv2.line(crop, (32, 15), (15, 32), (240, 240, 240), 3)
    return crop


def test_an_xs_strokes_cross_so_its_edges_run_every_way_and_a_smear_runs_one_way() -> None:
    from vision.blur import symbol_isotropy
    from vision.read_dice import CROSS_ISOTROPY

    flat = _cross_die_crop()
    smear = np.zeros((13, 13), np.float32)
    smear[np.arange(13), np.arange(13)] = 1 / 13             # moving diagonally, along one of the strokes
    moving = cv2.filter2D(flat, -1, smear, borderType=cv2.BORDER_REPLICATE)
    isotropy = symbol_isotropy(np.stack([flat, moving]))
    assert isotropy[0] > CROSS_ISOTROPY > isotropy[1]
    with pytest.raises(ValueError, match="48 px"):
        symbol_isotropy(flat[None, :40, :40])
