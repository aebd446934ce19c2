"""Where tray pictures come from: one small interface over the Pi camera, a USB webcam, recordings and twins.

The vision pipeline only ever calls `read()` and gets a BGR uint8 frame (OpenCV's order) or None when there is
no frame (yet, or any more). Each backend loads its library when it is constructed, so importing this module
needs neither picamera2 nor a camera.

- `PiCamera`: picamera2 (Raspberry Pi OS package), "RGB888", which arrives in BGR order as OpenCV expects.
- `WebcamCamera`: OpenCV VideoCapture on a camera index (or a device path / stream URL).
- `ReplayCamera`: a folder of photos (in natural sort order) or a video file, optionally looping.
- `StillCamera`: what the script runner drives: `show(photo)` / `show_empty()`; every read returns the current
  picture with a little sensor noise, so motion detection sees a realistic still scene, not identical bytes.
- `FrameSequenceCamera`: a list or iterator of frames, e.g. the virtual tray's `roll_frames`.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from hardware.device import Device
from hardware.errors import HardwareError

IMAGE_SUFFIXES: frozenset[str] = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
DEFAULT_SIZE: tuple[int, int] = (640, 480)
# A light, even tray colour (BGR) for the still camera's empty tray when it has been given no photo of one.
PLAIN_TRAY_BGR: tuple[int, int, int] = (228, 232, 235)
# How many precomputed noise fields the still camera cycles through (see StillCamera._noise_bank).
NOISE_FIELDS = 8


def as_bgr_frame(frame: object, where: str) -> np.ndarray:
    """`frame` as an H×W×3 uint8 BGR array: grey becomes 3 channels, BGRA drops alpha; anything else is refused."""
    if not isinstance(frame, np.ndarray):
        raise HardwareError(f"{where}: expected a numpy image (H×W×3 uint8, BGR), got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise HardwareError(f"{where}: expected uint8 pixels, got {frame.dtype}")
    if frame.ndim == 2:
        frame = np.repeat(frame[:, :, None], 3, axis=2)
    elif frame.ndim == 3 and frame.shape[2] == 1:
        frame = np.repeat(frame, 3, axis=2)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = frame[:, :, :3]
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.shape[0] == 0 or frame.shape[1] == 0:
        raise HardwareError(f"{where}: expected an H×W×3 colour image, got shape {frame.shape}")
    return np.ascontiguousarray(frame)


def _check_size(width: int, height: int) -> tuple[int, int]:
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int) or not 16 <= value <= 8192:
            raise HardwareError(f"camera {name} must be a whole number of pixels 16-8192, got {value!r}")
    return width, height


class CameraSource(Device):
    """Base of every camera: `read()` gives a BGR uint8 frame or None; `close()`; usable as a context manager."""

    def read(self) -> np.ndarray | None:
        raise NotImplementedError


# Lamps on mains power (LED, fluorescent) pulse at twice its frequency. A camera whose exposure is no whole number
# of pulses sees them as bands across its rows that move from frame to frame: the motion tracker copes with them
# (vision.motion), but a camera told the mains frequency keeps its exposure to whole pulses and sees none.
MAINS_FREQUENCIES = (0, 50, 60)       # 0: leave the camera's own setting
# libcamera's AeFlickerMode control: 1 is FlickerManual, the period given by AeFlickerPeriod (microseconds).
LIBCAMERA_FLICKER_MANUAL = 1
# Linux V4L2 (videodev2.h): VIDIOC_S_CTRL = _IOWR('V', 28, struct v4l2_control {u32 id; s32 value}), and the user
# class's power line frequency control, V4L2_CID_BASE + 24: 1 for 50 Hz, 2 for 60 Hz.
VIDIOC_S_CTRL = 0xC008561C
V4L2_CID_POWER_LINE_FREQUENCY = 0x00980918
V4L2_POWER_LINE = {50: 1, 60: 2}


def _check_mains(mains_hz: int) -> int:
    if isinstance(mains_hz, bool) or mains_hz not in MAINS_FREQUENCIES:
        raise HardwareError(f"mains frequency must be 50 or 60 Hz, or 0 to leave the camera's setting, got "
                            f"{mains_hz!r}")
    return mains_hz


class PiCamera(CameraSource):
    """The Raspberry Pi camera through picamera2 (install with apt: python3-picamera2; venv needs
    --system-site-packages to see it). `mains_hz`: keep the exposure to whole pulses of lamps on that mains
    (libcamera's AeFlickerMode/AeFlickerPeriod, where the camera has them); `flicker_period_us` says what was set."""

    def __init__(self, width: int = DEFAULT_SIZE[0], height: int = DEFAULT_SIZE[1], mains_hz: int = 0) -> None:
        self.size = _check_size(width, height)
        _check_mains(mains_hz)
        self.flicker_period_us: int | None = None
        try:
            from picamera2 import Picamera2
        except ImportError as err:
            raise HardwareError(
                "the Pi camera needs picamera2, which is not importable here. On Raspberry Pi OS: "
                "`sudo apt install python3-picamera2` and create the venv with --system-site-packages; on another "
                "machine use a webcam, a replay folder or the virtual tray (--twin)") from err
        try:
            self._camera: Any = Picamera2()
            # "RGB888" is picamera2's name for 24-bit pixels stored B, G, R in memory: exactly OpenCV's BGR.
            config = self._camera.create_preview_configuration(main={"size": (width, height), "format": "RGB888"})
            self._camera.configure(config)
            if mains_hz:
                self.flicker_period_us = self._avoid_flicker(mains_hz)
            self._camera.start()
        except Exception as err:  # picamera2/libcamera raise many kinds; all mean "no usable camera"
            raise HardwareError(f"cannot start the Pi camera at {width}×{height}: {err}. Check the ribbon cable "
                                "and that `rpicam-hello --list-cameras` lists a camera") from err
        self._closed = False

    def _avoid_flicker(self, mains_hz: int) -> int | None:
        """Exposure in whole pulses of lamps on `mains_hz`: the period set, in microseconds, or None where this
        camera or libcamera has no such control (older releases), which is no reason not to start."""
        if not {"AeFlickerMode", "AeFlickerPeriod"} <= set(getattr(self._camera, "camera_controls", {})):
            return None
        period = round(1_000_000 / (2 * mains_hz))
        try:
            self._camera.set_controls({"AeFlickerMode": LIBCAMERA_FLICKER_MANUAL, "AeFlickerPeriod": period})
        except Exception:  # picamera2/libcamera raise many kinds; the tracker copes with the bands
            return None
        return period

    def read(self) -> np.ndarray | None:
        if self._closed:
            return None
        return as_bgr_frame(self._camera.capture_array("main"), "Pi camera frame")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._camera.stop()
        self._camera.close()


class WebcamCamera(CameraSource):
    """A USB webcam through OpenCV: `index` is the camera number (0 = /dev/video0) or a device path/URL.
    `mains_hz`: the camera's power line frequency control set to it (V4L2, on Linux, where the camera has one;
    OpenCV has no property for it); `mains_set` says whether it was."""

    def __init__(self, index: int | str = 0, width: int = DEFAULT_SIZE[0], height: int = DEFAULT_SIZE[1],
                 mains_hz: int = 0) -> None:
        self.size = _check_size(width, height)
        _check_mains(mains_hz)
        if isinstance(index, bool) or not isinstance(index, int | str):
            raise HardwareError(f"webcam index must be a camera number such as 0 or a device path, got {index!r}")
        import cv2

        self._capture = cv2.VideoCapture(index)
        if not self._capture.isOpened():
            self._capture.release()
            raise HardwareError(f"cannot open webcam {index!r}: no such camera, or it is busy. List cameras with "
                                "`v4l2-ctl --list-devices`; try another index, or use --twin for the virtual tray")
        # A request, not a promise: cameras pick their nearest supported mode.
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.index = index
        self.mains_set = bool(mains_hz) and set_power_line_frequency(index, mains_hz)

    def read(self) -> np.ndarray | None:
        if not self._capture.isOpened():
            return None
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return None
        return as_bgr_frame(frame, f"webcam {self.index!r} frame")

    def close(self) -> None:
        self._capture.release()


def set_power_line_frequency(index: int | str, mains_hz: int) -> bool:
    """Set a V4L2 camera's power line frequency control (1 for 50 Hz, 2 for 60 Hz) through its device node, beside
    the capture OpenCV holds open (V4L2 lets two handles share a device). False, and nothing changed, where there is
    no such node (a stream URL, another system) or the camera has no such control: the tracker copes with bands."""
    device = f"/dev/video{index}" if isinstance(index, int) else index
    if not device.startswith("/dev/"):
        return False
    try:
        import fcntl
        import struct

        handle = os.open(device, os.O_RDWR | os.O_NONBLOCK)
    except (ImportError, OSError):
        return False
    try:
        fcntl.ioctl(handle, VIDIOC_S_CTRL, struct.pack("Ii", V4L2_CID_POWER_LINE_FREQUENCY, V4L2_POWER_LINE[mains_hz]))
    except OSError:
        return False
    finally:
        os.close(handle)
    return True


def natural_key(path: Path) -> list[Any]:
    """Sort key putting shot2 before shot10, as people number photos."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class ReplayCamera(CameraSource):
    """Frames from a folder of photos (natural sort order) or a video file; None at the end unless `loop`.

    `last_name` says which photo (or video frame number) the last read came from, for logs and test messages.
    """

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        import cv2

        self._cv2 = cv2
        self.path = Path(path)
        self.loop = loop
        self.last_name: str | None = None
        self._photos: list[Path] = []
        self._position = 0
        self._video: Any = None
        self._first_video_frame: np.ndarray | None = None
        self._closed = False
        if not self.path.exists():
            raise HardwareError(f"replay source {self.path} does not exist; expected a folder of photos or a video")
        if self.path.is_dir():
            self._photos = sorted((p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
                                   and p.is_file()), key=natural_key)
            if not self._photos:
                raise HardwareError(f"replay folder {self.path} has no photos; expected files ending in "
                                    f"{', '.join(sorted(IMAGE_SUFFIXES))}")
        else:
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                self._video.release()
                raise HardwareError(f"cannot open {self.path} as a video; expected a video file OpenCV can read "
                                    "(e.g. .mp4 or MJPG .avi) or a folder of photos")
            # Read one frame now so an empty or undecodable video fails here, not silently as "no frames".
            ok, frame = self._video.read()
            if not ok or frame is None:
                self._video.release()
                raise HardwareError(f"the video {self.path} has no frames OpenCV can decode")
            self._first_video_frame = frame

    def read(self) -> np.ndarray | None:
        if self._closed:
            return None
        if self._video is not None:
            return self._read_video()
        if self._position >= len(self._photos):
            if not self.loop:
                return None
            self._position = 0
        photo = self._photos[self._position]
        self._position += 1
        frame = self._cv2.imread(str(photo), self._cv2.IMREAD_COLOR)
        if frame is None:
            raise HardwareError(f"cannot read the photo {photo}: not an image OpenCV can decode")
        self.last_name = photo.name
        return as_bgr_frame(frame, f"photo {photo}")

    def _read_video(self) -> np.ndarray | None:
        if self._first_video_frame is not None:
            ok, frame = True, self._first_video_frame
            self._first_video_frame = None
        else:
            ok, frame = self._video.read()
        if not ok and self.loop:
            self._video.set(self._cv2.CAP_PROP_POS_FRAMES, 0)
            self._position = 0
            ok, frame = self._video.read()
        if not ok or frame is None:
            return None
        self.last_name = f"{self.path.name}#{self._position}"
        self._position += 1
        return as_bgr_frame(frame, f"video {self.path} frame {self._position - 1}")

    def close(self) -> None:
        self._closed = True
        if self._video is not None:
            self._video.release()


class StillCamera(CameraSource):
    """The camera twin for scripts: shows one picture until told otherwise, with a little sensor noise per read.

    `show(image)`: the tray with dice at rest. `show_empty(image=None)`: the empty tray (or a hand in it) —
    the given picture, else the last empty picture, else `empty_image`, else a plain tray of the current size.
    `noise_sigma` is the standard deviation of the per-pixel noise in grey levels; `seed` makes it repeatable.
    """

    def __init__(self, empty_image: np.ndarray | None = None, size: tuple[int, int] = DEFAULT_SIZE,
                 noise_sigma: float = 1.5, seed: int = 0) -> None:
        if not 0 <= noise_sigma <= 20:
            raise HardwareError(f"noise_sigma must be 0-20 grey levels (a still scene), got {noise_sigma!r}")
        self.noise_sigma = float(noise_sigma)
        self._rng = np.random.default_rng(seed)
        import cv2

        self._cv2 = cv2
        self._bank: list[tuple[np.ndarray, np.ndarray]] = []
        self._bank_shape: tuple[int, ...] | None = None
        self._last_noise = 0
        width, height = _check_size(*size)
        self._empty = (as_bgr_frame(empty_image, "empty tray image") if empty_image is not None
                       else np.full((height, width, 3), PLAIN_TRAY_BGR, dtype=np.uint8))
        self.current: np.ndarray = self._empty
        self.is_empty = True

    def show(self, image: np.ndarray) -> None:
        """From now on the camera sees this picture (dice at rest)."""
        # A copy: the caller may reuse its array, and the camera must keep seeing what it was shown.
        self.current = as_bgr_frame(image, "picture shown to the still camera").copy()
        self.is_empty = False

    def show_empty(self, image: np.ndarray | None = None) -> None:
        """From now on the camera sees an empty tray (this picture, or the last empty one, resized if needed)."""
        if image is not None:
            self._empty = as_bgr_frame(image, "empty tray picture").copy()
        elif self._empty.shape != self.current.shape:
            # A plain tray must match the photos' size, or the motion detector would see a jump in size.
            height, width = self.current.shape[:2]
            self._empty = np.full((height, width, 3), self._empty[0, 0], dtype=np.uint8)
        self.current = self._empty
        self.is_empty = True

    def read(self) -> np.ndarray:
        if self.noise_sigma == 0:
            return self.current.copy()
        bank = self._noise_bank(self.current.shape)
        # Never the same field twice in a row, so consecutive frames always differ a little, as a sensor's do.
        self._last_noise = (self._last_noise + 1 + int(self._rng.integers(len(bank) - 1))) % len(bank)
        brighter, darker = bank[self._last_noise]
        # Saturating uint8 add/subtract: the same result as clip(image + noise) at a fraction of the cost.
        return self._cv2.subtract(self._cv2.add(self.current, brighter), darker)

    def _noise_bank(self, shape: tuple[int, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
        """A few Gaussian noise fields for this frame shape, made once: generating noise per read cost ~40 ms at
        640×480, too slow for scripted games that read several frames per photo."""
        if self._bank_shape != shape:
            self._bank = []
            for _ in range(NOISE_FIELDS):
                noise = np.rint(self._rng.standard_normal(shape, dtype=np.float32) * self.noise_sigma)
                self._bank.append((np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8)))
            self._bank_shape = shape
        return self._bank


_END = object()


class FrameSequenceCamera(CameraSource):
    """Frames from a list or iterator (e.g. the virtual tray's roll_frames), then None when it runs out."""

    def __init__(self, frames: Iterable[np.ndarray]) -> None:
        if isinstance(frames, np.ndarray):
            raise HardwareError("FrameSequenceCamera needs a sequence of frames, got a single array; wrap it in [ ]")
        self._frames: Iterator[np.ndarray] = iter(frames)
        self.frames_read = 0

    def extend(self, frames: Iterable[np.ndarray]) -> None:
        """Queue more frames after the ones still waiting (the next roll, for instance)."""
        self._frames = itertools.chain(self._frames, frames)

    def read(self) -> np.ndarray | None:
        frame = next(self._frames, _END)
        if frame is _END:
            return None
        self.frames_read += 1
        return as_bgr_frame(frame, f"frame {self.frames_read - 1} of the sequence")
