"""The picture a settled throw is read from: the mean of its still frames, the camera's noise averaged out.

Once the dice are at rest the camera's frames differ only by its sensor's noise (and a lamp's bands), so the mean of
the `still_frames` frames the motion tracker waited for shows the same dice with the noise's spread shrunk by the
root of their number: half with four. Noise is what a dim room costs a camera, and it hides what the reader finds
hardest, a black die's body on dark felt. On fresh virtual throws of two black d6 on felt (seeds 5,960,000+, 200
throws) the last still frame read 97.25% of the dice right, the mean of the last four 98.50%; in a dim room (noise
sigma 9, 5,966,000+) 93.75% against 98.00%, and one 2 read as a sure 1 (a Mexx never thrown) no more. Random d6,
Excape, marbled and marbled-gold throws (300 each, 5,961,000+ to 5,964,000+) read within a die or two either way,
none more wrong (session 44, vision/training/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# The most still frames averaged: the tracker reads after 3 (vision.motion, `still_frames`); a hand resting in the
# tray makes it wait longer, and a longer mean would gain little and cost a frame's copy each.
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
