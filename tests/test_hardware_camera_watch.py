"""A live camera's watch: a camera that goes silent, raises, freezes or cannot be opened again is said, opened again
every few seconds, and never stops the loop; one that gives pictures again is trusted again."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hardware.camera import CameraSource
from hardware.camera_watch import FROZEN, SILENT_SECONDS, WatchedCamera
from hardware.errors import HardwareError


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def noisy(seed: int) -> np.ndarray:
    """A picture as a live sensor gives it: a scene plus noise that differs every frame."""
    rng = np.random.default_rng(seed)
    scene = np.full((240, 320, 3), 120, np.uint8)
    return np.clip(scene + rng.normal(0, 3, scene.shape), 0, 255).astype(np.uint8)


class ScriptedCamera(CameraSource):
    """A live camera twin: `frames()` gives each read (a frame, None, or an exception to raise)."""

    def __init__(self, frames: Callable[[], object]) -> None:
        self.frames, self.closed = frames, False

    def read(self) -> np.ndarray | None:
        got = self.frames()
        if isinstance(got, Exception):
            raise got
        return got  # type: ignore[return-value]

    def close(self) -> None:
        self.closed = True


class Opener:
    """Opens one scripted camera after another (`plans`: each camera's frames; an exception: that open fails)."""

    def __init__(self, *plans: Callable[[], object] | Exception) -> None:
        self.plans, self.opened = list(plans), []

    def __call__(self) -> ScriptedCamera:
        plan = self.plans.pop(0) if len(self.plans) > 1 else self.plans[0]
        if isinstance(plan, Exception):
            raise plan
        self.opened.append(ScriptedCamera(plan))
        return self.opened[-1]


def live() -> Callable[[], np.ndarray]:
    count = iter(range(10**6))
    return lambda: noisy(next(count))


def reads(camera: WatchedCamera, clock: Clock, seconds: float, step: float = 0.5) -> list[np.ndarray | None]:
    got = []
    for _ in range(round(seconds / step)):
        clock.now += step
        got.append(camera.read())
    return got


def test_pictures_pass_through_with_no_fault() -> None:
    clock, opener = Clock(), Opener(live())
    camera = WatchedCamera(opener, clock=clock)
    assert all(frame is not None for frame in reads(camera, clock, 30))
    assert camera.fault is None and camera.reopened == 0


def test_a_camera_gone_silent_is_said_after_a_while_opened_again_and_trusted_once_pictures_come() -> None:
    clock, opener = Clock(), Opener(live(), lambda: None, live())
    camera = WatchedCamera(opener, clock=clock)
    assert camera.read() is not None
    # The second camera never gives a picture: a few seconds of silence are no fault (a camera may stall a moment).
    opener.opened[0].frames = lambda: None
    assert reads(camera, clock, SILENT_SECONDS - 1) == [None] * (2 * round(SILENT_SECONDS - 1))
    assert camera.fault is None
    reads(camera, clock, 1.5)
    assert camera.fault == "no picture for 5 s"
    assert opener.opened[0].closed and len(opener.opened) == 2      # closed, and opened again at once
    # The camera opened again is silent too: it is opened once more after the same wait, and then gives pictures.
    reads(camera, clock, SILENT_SECONDS + 0.5)
    assert len(opener.opened) == 3 and opener.opened[1].closed
    assert camera.read() is not None and camera.fault is None and camera.reopened == 2


def test_a_camera_that_raises_is_said_at_once_and_opened_again_without_raising() -> None:
    clock, opener = Clock(), Opener(lambda: RuntimeError("Camera frontend has timed out!"), live())
    camera = WatchedCamera(opener, clock=clock)
    assert camera.read() is None
    assert camera.fault == "the camera failed: Camera frontend has timed out!"
    assert opener.opened[0].closed and camera.reopened == 1
    clock.now += 0.1
    assert camera.read() is not None and camera.fault is None


def test_a_camera_that_cannot_be_opened_again_says_why_and_is_tried_every_few_seconds() -> None:
    unplugged = HardwareError("cannot open webcam 0: no such camera, or it is busy")
    clock, opener = Clock(), Opener(lambda: OSError("select() timeout"), unplugged, unplugged, live())
    camera = WatchedCamera(opener, clock=clock, retry_seconds=5.0)
    assert camera.read() is None
    assert camera.fault == str(unplugged) and len(opener.opened) == 1 and len(opener.plans) == 2
    clock.now += 4.9
    assert camera.read() is None and len(opener.plans) == 2                         # not tried again yet
    clock.now += 0.2
    assert camera.read() is None and len(opener.plans) == 1 and camera.fault == str(unplugged)   # tried: fails
    clock.now += 5.0
    assert camera.read() is None and len(opener.opened) == 2        # plugged in again: opened
    clock.now += 0.1
    assert camera.read() is not None and camera.fault is None


def test_a_frozen_picture_is_a_fault_but_one_of_one_level_is_not() -> None:
    frozen = noisy(0)
    clock, opener = Clock(), Opener(lambda: frozen, live())
    camera = WatchedCamera(opener, clock=clock)
    got = reads(camera, clock, 4.5)
    assert all(frame is not None for frame in got) and camera.fault is None     # still a picture meanwhile
    reads(camera, clock, 1.0)
    assert camera.fault == FROZEN and opener.opened[0].closed and len(opener.opened) == 2
    assert camera.read() is not None and camera.fault is None

    black = np.zeros((960, 1280, 3), np.uint8)
    black[::7, ::7] = 6             # a covered lens in the dark: one level, give or take a few
    clock, opener = Clock(), Opener(lambda: black)
    camera = WatchedCamera(opener, clock=clock)
    assert all(frame is not None for frame in reads(camera, clock, 60))
    assert camera.fault is None and camera.reopened == 0


def test_one_pixel_changing_in_the_sample_is_no_frozen_picture() -> None:
    frames = [noisy(0), noisy(0)]
    frames[1][0, 0, 0] ^= 1         # (0, 0) is in the sample: the pictures differ
    count = iter(range(10**6))
    clock = Clock()
    camera = WatchedCamera(Opener(lambda: frames[next(count) % 2]), clock=clock)
    reads(camera, clock, 30)
    assert camera.fault is None


def test_the_first_open_raises_as_the_camera_does_so_the_companion_says_why_it_cannot_start() -> None:
    with pytest.raises(HardwareError, match="no Pi camera"):
        WatchedCamera(Opener(HardwareError("no Pi camera found")))


def test_closed_it_closes_the_camera_and_opens_none_again() -> None:
    clock, opener = Clock(), Opener(live())
    camera = WatchedCamera(opener, clock=clock)
    camera.close()
    clock.now += 60
    assert camera.read() is None and opener.opened[0].closed and len(opener.opened) == 1
    camera.close()      # twice is harmless
