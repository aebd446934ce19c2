"""The picture a settled throw is read from: the mean of its still frames, rounded, of one shape."""

from __future__ import annotations

import numpy as np
import pytest

from vision.settled import MOST_FRAMES, settled_picture


def test_the_mean_of_still_frames_rounds_to_the_nearest_level() -> None:
    frames = [np.full((4, 6, 3), v, np.uint8) for v in (10, 11, 11, 12)]
    assert settled_picture(frames).dtype == np.uint8
    assert np.all(settled_picture(frames) == 11)                        # 44 / 4
    assert np.all(settled_picture(frames[:2]) == 11)                    # 10.5 up, not down
    assert np.all(settled_picture([frames[0], frames[3], frames[3]]) == 11)   # 11.33
    assert np.all(settled_picture([np.full((2, 2), 255, np.uint8)] * 4) == 255)   # no overflow


def test_noise_shrinks_by_the_root_of_the_frames() -> None:
    rng = np.random.default_rng(0)
    scene = np.full((120, 160, 3), 100.0)
    frames = [np.clip(scene + rng.normal(0, 8, scene.shape), 0, 255).round().astype(np.uint8) for _ in range(4)]
    spread = float(np.std(settled_picture(frames).astype(float) - scene))
    assert 3.6 < spread < 4.4                   # 8 / sqrt(4), give or take the rounding


def test_one_frame_is_given_back_as_it_is_and_only_the_last_frames_count() -> None:
    frame = np.zeros((3, 3, 3), np.uint8)
    assert settled_picture([frame]) is frame
    frames = [np.full((2, 2), 200, np.uint8), *[np.full((2, 2), 10, np.uint8)] * MOST_FRAMES]
    assert np.all(settled_picture(frames) == 10)        # the first, beyond MOST_FRAMES, left out


@pytest.mark.parametrize("frames", [[], [np.zeros((4, 4, 3), np.uint8), np.zeros((4, 5, 3), np.uint8)],
                                    [np.zeros((4, 4), np.float32)], [np.zeros((4, 4), np.uint8), "frame"]])
def test_frames_that_are_no_still_scene_are_refused(frames: list) -> None:
    with pytest.raises(ValueError, match="frame"):
        settled_picture(frames)
