"""A live camera kept alive for years: one that stops giving pictures mid-game is said, and opened again.

A USB webcam pulled out, or whose driver gives up, makes OpenCV's `read()` fail for ever; picamera2 can raise on a
frame (a libcamera timeout), and a stuck driver can hand back the same picture again and again. Without a watch the
companion would sit there with the game on its screen and never read another throw, and nothing would say why.
`WatchedCamera` wraps the live camera (never a replay or a twin, whose pictures may end or repeat on purpose) and, as
`read()` is called:

- after SILENT_SECONDS without a picture, or at once when the camera raises, says so (`fault`), closes it and
  opens it again, then again every RETRY_SECONDS until a picture comes (a camera that cannot be opened says why);
- after FROZEN_SECONDS of pictures identical to the byte on a sample of pixels, takes the camera for frozen: a live
  sensor's noise changes every frame. A picture of one level (a covered lens in the dark) may repeat, and is left to
  the motion tracker, which waits for a picture (vision.motion.shows_no_picture);
- never raises from `read()`: the game goes on meanwhile, its throws entered by hand (the menu's "Correct read").

The first open is made by the constructor and raises as the camera would: a camera missing at the start is a
reason not to start, shown on the screen while systemd starts the companion again (companion.app.cannot_start).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np

from hardware.camera import CameraSource

log = logging.getLogger(__name__)

SILENT_SECONDS = 5.0    # no picture for this long: said, and the camera opened again
RETRY_SECONDS = 5.0     # between two tries to open it again while no picture comes
FROZEN_SECONDS = 5.0    # pictures identical for this long: frozen
# Every SAMPLE_STEP-th pixel each way is compared for a frozen picture (80x60 of a 1280x960 frame): a frame of real
# sensor noise differs from the one before at thousands of them.
SAMPLE_STEP = 16
# A sample spanning at most this many levels is a picture of one level (black, or clipped white): it may repeat.
ONE_LEVEL_SPAN = 8

# Why, as logged (the screen says what the players can do: companion.controller.CAMERA_LOST).
NO_PICTURE = "no picture for {seconds:g} s"
FROZEN = "the picture froze"


class WatchedCamera(CameraSource):
    """`open_camera()` gives the live camera (and raises HardwareError when it cannot); `read()` is its frame or
    None, and `fault` what is wrong with it meanwhile (None while pictures come). `clock`: seconds, for tests."""

    def __init__(self, open_camera: Callable[[], CameraSource], *, clock: Callable[[], float] = time.monotonic,
                 silent_seconds: float = SILENT_SECONDS, retry_seconds: float = RETRY_SECONDS,
                 frozen_seconds: float = FROZEN_SECONDS) -> None:
        self._open_camera, self._clock = open_camera, clock
        self.silent_seconds, self.retry_seconds, self.frozen_seconds = silent_seconds, retry_seconds, frozen_seconds
        self._camera: CameraSource | None = open_camera()
        self.fault: str | None = None
        self.reopened = 0                       # times the camera was opened again (for the log and the tests)
        self._last_picture = self._opened_at = clock()
        self._sample: np.ndarray | None = None  # the last picture's sample, and since when it has not changed
        self._same_since = self._last_picture
        self._closed = False

    def read(self) -> np.ndarray | None:
        if self._closed:
            return None
        now = self._clock()
        if self._camera is None:
            if now - self._opened_at >= self.retry_seconds:
                self._reopen(now)
            return None
        try:
            frame = self._camera.read()
        except Exception as err:  # picamera2, libcamera and OpenCV raise many kinds: each means "no picture"
            self._lost(f"the camera failed: {err}", now)
            return None
        if frame is None:
            if now - max(self._last_picture, self._opened_at) >= self.silent_seconds:
                self._lost(NO_PICTURE.format(seconds=self.silent_seconds), now)
            return None
        if self._frozen(frame, now):
            self._lost(FROZEN, now)
            return None
        if self.fault is not None:
            log.warning("the camera gives pictures again")
        self.fault = None
        self._last_picture = now
        return frame

    def _frozen(self, frame: np.ndarray, now: float) -> bool:
        """Whether the picture has not changed, byte for byte on the sample, for frozen_seconds (one of one level
        never is)."""
        sample = frame[::SAMPLE_STEP, ::SAMPLE_STEP]
        if self._sample is None or sample.shape != self._sample.shape or not np.array_equal(sample, self._sample) \
                or int(sample.max()) - int(sample.min()) <= ONE_LEVEL_SPAN:
            self._sample, self._same_since = sample.copy(), now
            return False
        return now - self._same_since >= self.frozen_seconds

    def _lost(self, why: str, now: float) -> None:
        """The camera gives no picture: say why, close it, and open it again."""
        if why != self.fault:
            log.error("camera: %s", why)
        self.fault = why
        self._close_camera()
        self._reopen(now)

    def _reopen(self, now: float) -> None:
        self._opened_at = now
        self._sample = None
        try:
            self._camera = self._open_camera()
        except Exception as err:  # a camera that cannot be opened now may be plugged in again later
            if str(err) != self.fault:
                log.error("camera: %s", err)
            self.fault = str(err)
            return
        self.reopened += 1
        log.warning("camera opened again (%d times so far)", self.reopened)

    def _close_camera(self) -> None:
        camera, self._camera = self._camera, None
        if camera is None:
            return
        try:
            camera.close()
        except Exception as err:  # a camera gone wrong may fail to close too; it is dropped all the same
            log.error("closing the camera failed: %s", err)

    def close(self) -> None:
        self._closed = True
        self._close_camera()
