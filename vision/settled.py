"""The picture a settled throw is read from: the mean of its still frames, the camera's noise averaged out.

Once the dice are at rest the camera's frames differ only by its sensor's noise (and a lamp's bands), so the mean of
the frames the motion tracker waited for shows the same dice with the noise's spread shrunk by the root of their
number: halved with four. Noise is what a dim room costs a camera, and it hides what the reader finds hardest, a
black die's body on dark felt. Fresh two-dice throws (session 44, vision/training/README.md), read from the last still
frame alone and from the mean of four: black d6 on felt 97.25 -> 98.50% of the dice right at 640x480 and 96.00 ->
96.50% at 1280x960 (200 throws each); in a dim room (noise sigma 9) 93.75 -> 98.00% and 97.25 -> 98.25%, one 2 read
as a sure 1 (a Mexx never thrown) gone; under lamps pulsing 15%, 97.25 -> 97.50%. Random looks, 300 throws a set:
d6 one die more right at 640x480, one fewer at 1280x960, none either way in a dim room; Excape one fewer at each
size, one more in a dim room; marbled d6 two fewer, marbled Excape with gold pips two more. Each die lost is left
unsure, none is read wrong.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from vision.motion import MotionUpdate

# The most frames averaged: the table's tracker reads after 3 still frames (vision.motion, `still_frames`), each
# matching the one before, so the frame before them shows the dice at rest too: four. A hand resting in the tray
# makes the tracker wait longer; a longer mean would gain little more.
MOST_FRAMES = 4


def settled_picture(frames: Sequence[np.ndarray]) -> np.ndarray:
    """The mean of `frames`, rounded to the nearest level: frames of one still scene, uint8 and of one shape, the
    last MOST_FRAMES of them at most. One frame is given back as it is."""
    if not frames:
        raise ValueError("a settled picture needs at least one frame")
    shapes = {f.shape if isinstance(f, np.ndarray) and f.dtype == np.uint8 else None for f in frames}
    if len(shapes) != 1 or None in shapes:
        raise ValueError("the still frames must be uint8 arrays of one shape: "
                         f"{[getattr(f, 'shape', type(f).__name__) for f in frames]}")
    used = frames[-MOST_FRAMES:]
    if len(used) == 1:
        return used[0]
    total = used[0].astype(np.uint16)
    for frame in used[1:]:
        total += frame
    total += len(used) // 2                     # to the nearest level, not down
    return (total // len(used)).astype(np.uint8)


class SettledFrames:
    """The last frames of a watched tray that showed a picture, kept for the mean a settle is read from: feed every
    frame with the motion tracker's update for it (vision.motion), and ask for the picture when it says read_now."""

    def __init__(self) -> None:
        self._frames: deque[np.ndarray] = deque(maxlen=MOST_FRAMES)

    def add(self, frame: np.ndarray, update: MotionUpdate) -> None:
        if not update.picture:
            return                      # a black or white frame the tracker skipped: never in a mean
        if self._frames and self._frames[-1].shape != frame.shape:
            self._frames.clear()        # another size, or a camera turned grey: one scene's frames are of one shape
        self._frames.append(frame)

    def picture(self, update: MotionUpdate) -> np.ndarray:
        """The picture to read for a settle (update.read_now): the mean of its still frames and of the one before
        them, which the first of them matched, so the dice lay at rest in it too."""
        return settled_picture(list(self._frames)[-(update.still_frames + 1):])
