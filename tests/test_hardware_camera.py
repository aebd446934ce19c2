"""Camera seam: replay over photos and videos written here, still-camera noise, sequences, Pi and webcam errors."""

from __future__ import annotations

import itertools
import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import (
    FrameSequenceCamera,
    PiCamera,
    ReplayCamera,
    StillCamera,
    WebcamCamera,
    as_bgr_frame,
)
from hardware.errors import HardwareError


def solid(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    """A frame of one BGR colour whose channels tell frames apart: (value, 255 - value, 128)."""
    frame = np.empty((size[1], size[0], 3), dtype=np.uint8)
    frame[:] = (value, 255 - value, 128)
    return frame


def write_video(path: Path, fourcc: str, values: list[int]) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), 10, (64, 48))
    assert writer.isOpened()
    for value in values:
        writer.write(solid(value))
    writer.release()
    return path


def read_all(camera: ReplayCamera, limit: int = 50) -> list[np.ndarray]:
    frames = []
    while len(frames) < limit and (frame := camera.read()) is not None:
        frames.append(frame)
    return frames


def test_replay_folder_reads_photos_in_natural_order_then_ends(tmp_path: Path) -> None:
    for name, value in (("shot10.png", 30), ("shot2.png", 20), ("shot1.png", 10)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    cv2.imwrite(str(tmp_path / "shot11.png"), solid(40)[:, :, 0])  # a grey photo still arrives as BGR
    (tmp_path / "notes.txt").write_text("not a photo")
    with ReplayCamera(tmp_path) as camera:
        frames = read_all(camera)
        assert [int(frame[0, 0, 0]) for frame in frames] == [10, 20, 30, 40]
        assert all(frame.shape == (48, 64, 3) and frame.dtype == np.uint8 for frame in frames)
        assert tuple(frames[0][0, 0]) == (10, 245, 128)  # channel order kept as BGR
        assert camera.last_name == "shot11.png"
        assert camera.read() is None


def test_replay_folder_loops_when_asked(tmp_path: Path) -> None:
    for index in range(2):
        cv2.imwrite(str(tmp_path / f"{index}.png"), solid(100 + index))
    camera = ReplayCamera(tmp_path, loop=True)
    assert [int(camera.read()[0, 0, 0]) for _ in range(5)] == [100, 101, 100, 101, 100]  # type: ignore[index]
    camera.close()
    assert camera.read() is None


@pytest.mark.parametrize(("fourcc", "suffix"), [("mp4v", ".mp4"), ("MJPG", ".avi")])
def test_replay_video_reads_every_frame_and_loops(tmp_path: Path, fourcc: str, suffix: str) -> None:
    values = [20, 80, 140, 200, 250]
    path = write_video(tmp_path / f"roll{suffix}", fourcc, values)
    with ReplayCamera(path) as camera:
        frames = read_all(camera)
    assert len(frames) == len(values)
    # Lossy codecs: each frame's blue channel is near the value written, so the order is right.
    assert [round(float(frame[..., 0].mean()) / 10) for frame in frames] == [round(v / 10) for v in values]
    with ReplayCamera(path, loop=True) as looping:
        blues = [float(looping.read()[..., 0].mean()) for _ in range(7)]  # type: ignore[index]
    assert abs(blues[5] - 20) < 8 and abs(blues[6] - 80) < 8
    assert looping.last_name == f"roll{suffix}#1"


def test_replay_errors_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(HardwareError, match="does not exist; expected a folder of photos or a video"):
        ReplayCamera(tmp_path / "nowhere")
    with pytest.raises(HardwareError, match="has no photos; expected files ending in"):
        ReplayCamera(tmp_path)
    (tmp_path / "fake.mp4").write_bytes(b"this is not a video")
    with pytest.raises(HardwareError, match=r"cannot open .*fake\.mp4 as a video"):
        ReplayCamera(tmp_path / "fake.mp4")
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "a.png"), solid(1))
    (photos / "b.png").write_bytes(b"\x89PNG broken")
    camera = ReplayCamera(photos)
    camera.read()
    with pytest.raises(HardwareError, match=r"cannot read the photo .*b\.png"):
        camera.read()


def test_still_camera_adds_small_noise_around_the_shown_picture() -> None:
    picture = np.zeros((120, 160, 3), dtype=np.uint8)
    picture[40:80, 60:100] = 200
    camera = StillCamera(size=(160, 120), noise_sigma=1.5, seed=3)
    assert camera.is_empty
    camera.show(picture)
    first, second = camera.read(), camera.read()
    assert not camera.is_empty
    assert first.shape == picture.shape and first.dtype == np.uint8
    assert not np.array_equal(first, second)  # a real sensor never repeats itself exactly
    difference = first.astype(np.int16) - picture
    inside = difference[40:80, 60:100]  # away from the clipping at 0
    assert 1.0 < float(inside.std()) < 2.0 and abs(float(inside.mean())) < 0.2
    assert int(np.abs(difference).max()) <= 10
    again = StillCamera(size=(160, 120), noise_sigma=1.5, seed=3)
    again.show(picture)
    assert np.array_equal(again.read(), first)  # same seed, same noise
    reads = [camera.read() for _ in range(30)]
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(reads))
    camera.show(solid(90, (64, 48)))  # a photo of another size gets noise of its own size
    assert camera.read().shape == (48, 64, 3)


def test_still_camera_empty_tray_follows_the_photo_size_or_the_given_picture() -> None:
    camera = StillCamera(noise_sigma=0)
    assert camera.read().shape == (480, 640, 3)
    camera.show(solid(50, (320, 240)))
    camera.show_empty()
    plain = camera.read()
    assert camera.is_empty and plain.shape == (240, 320, 3)
    assert len(np.unique(plain.reshape(-1, 3), axis=0)) == 1
    hand = solid(180, (320, 240))
    camera.show_empty(hand)
    assert np.array_equal(camera.read(), hand)
    camera.show(solid(60, (320, 240)))
    camera.show_empty()
    assert np.array_equal(camera.read(), hand)  # the last empty picture is remembered


def test_frame_sequence_camera_plays_frames_then_ends_and_can_be_extended() -> None:
    camera = FrameSequenceCamera(solid(value) for value in (1, 2))
    camera.extend([solid(3)[:, :, 0]])
    frames = [camera.read() for _ in range(4)]
    assert [int(frame[0, 0, 0]) for frame in frames[:3]] == [1, 2, 3]  # type: ignore[index]
    assert frames[2].shape == (48, 64, 3)  # type: ignore[union-attr]
    assert frames[3] is None and camera.frames_read == 3
    with pytest.raises(HardwareError, match="got a single array"):
        FrameSequenceCamera(solid(1))
    bad = FrameSequenceCamera([solid(1).astype(np.float32)])
    with pytest.raises(HardwareError, match="frame 0 of the sequence: expected uint8 pixels, got float32"):
        bad.read()


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ([[1, 2], [3, 4]], "expected a numpy image"),
        (np.zeros((4, 4, 2), dtype=np.uint8), r"expected an H×W×3 colour image, got shape \(4, 4, 2\)"),
        (np.zeros((0, 4, 3), dtype=np.uint8), "colour image"),
    ],
)
def test_frames_that_are_not_images_are_refused(frame: object, expected: str) -> None:
    with pytest.raises(HardwareError, match=expected):
        as_bgr_frame(frame, "test frame")


def test_bgra_frames_lose_their_alpha() -> None:
    bgra = np.zeros((2, 2, 4), dtype=np.uint8)
    bgra[..., 0] = 7
    assert as_bgr_frame(bgra, "x").shape == (2, 2, 3)


def test_webcam_that_will_not_open_is_a_clear_error() -> None:
    with pytest.raises(HardwareError, match="cannot open webcam 99"):
        WebcamCamera(99)
    with pytest.raises(HardwareError, match="width must be a whole number of pixels"):
        WebcamCamera(0, width=0)


def test_webcam_reads_through_videocapture(tmp_path: Path) -> None:
    # VideoCapture opens a device path, URL or file alike; a file stands in for /dev/video0 here.
    path = write_video(tmp_path / "cam.avi", "MJPG", [60, 120])
    with WebcamCamera(str(path)) as camera:
        frames = [camera.read() for _ in range(3)]
    assert [frame is None for frame in frames] == [False, False, True]
    assert abs(float(frames[1][..., 0].mean()) - 120) < 8  # type: ignore[index]


def test_pi_camera_without_picamera2_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as on a machine without it
    with pytest.raises(HardwareError, match=r"apt install python3-picamera2.*--system-site-packages"):
        PiCamera()


class FakePicamera2:
    """Just enough of picamera2.Picamera2 to check how PiCamera drives it."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.config: dict[str, object] = {}

    def create_preview_configuration(self, main: dict[str, object]) -> dict[str, object]:
        return {"main": main}

    def configure(self, config: dict[str, object]) -> None:
        self.config = config

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, stream: str) -> np.ndarray:
        width, height = self.config["main"]["size"]  # type: ignore[index]
        return np.full((height, width, 3), (1, 2, 3), dtype=np.uint8)

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


class FlickerAwarePicamera2(FakePicamera2):
    """A Picamera2 whose libcamera has the flicker controls (Raspberry Pi OS Bookworm on)."""

    def __init__(self) -> None:
        super().__init__()
        self.camera_controls = {"AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1_000_000, None),
                                "ExposureTime": (1, 66_666, 20_000)}

    def set_controls(self, controls: dict[str, object]) -> None:
        self.calls.append(f"set_controls {controls}")


class FailingControlsPicamera2(FlickerAwarePicamera2):
    def set_controls(self, controls: dict[str, object]) -> None:
        raise RuntimeError("control out of range")


@pytest.mark.parametrize(("mains_hz", "period"), [(50, 10_000), (60, 8_333)])
def test_pi_camera_exposes_in_whole_pulses_of_the_lamps(monkeypatch: pytest.MonkeyPatch, mains_hz: int,
                                                        period: int) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FlickerAwarePicamera2))
    camera = PiCamera(320, 240, mains_hz=mains_hz)
    # Set before the camera starts: its first frames are already free of bands.
    assert camera._camera.calls == [f"set_controls {{'AeFlickerMode': 1, 'AeFlickerPeriod': {period}}}", "start"]
    assert camera.flicker_period_us == period


def test_pi_camera_without_the_flicker_controls_starts_all_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    for fake in (FakePicamera2, FailingControlsPicamera2):    # an older libcamera; one that refuses the values
        monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=fake))
        camera = PiCamera(320, 240, mains_hz=50)
        assert camera._camera.calls == ["start"] and camera.flicker_period_us is None
        assert camera.read() is not None
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FlickerAwarePicamera2))
    camera = PiCamera(320, 240, mains_hz=0)                   # 0: the camera's own setting, untouched
    assert camera._camera.calls == ["start"] and camera.flicker_period_us is None
    with pytest.raises(HardwareError, match="mains frequency must be 50 or 60 Hz, or 0"):
        PiCamera(320, 240, mains_hz=55)


def test_a_webcam_is_told_the_mains_through_its_v4l2_control(monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl
    import os
    import struct

    from hardware.camera import set_power_line_frequency

    calls: list[tuple] = []
    monkeypatch.setattr(os, "open", lambda path, flags: calls.append(("open", path)) or 42)
    monkeypatch.setattr(os, "close", lambda handle: calls.append(("close", handle)))
    monkeypatch.setattr(fcntl, "ioctl", lambda handle, request, data: calls.append(("ioctl", handle, request, data)))
    assert set_power_line_frequency(2, 60)
    # VIDIOC_S_CTRL with struct v4l2_control {V4L2_CID_POWER_LINE_FREQUENCY, 2 = 60 Hz}, and the handle closed.
    assert calls == [("open", "/dev/video2"), ("ioctl", 42, 0xC008561C, struct.pack("Ii", 0x00980918, 2)),
                     ("close", 42)]
    calls.clear()
    assert set_power_line_frequency("/dev/video0", 50) and calls[1][3] == struct.pack("Ii", 0x00980918, 1)
    calls.clear()
    assert not set_power_line_frequency("rtsp://table-camera/stream", 50) and calls == []   # no device node

    def refused(handle: int, request: int, data: bytes) -> None:
        raise OSError(22, "Invalid argument")              # a camera with no such control

    monkeypatch.setattr(fcntl, "ioctl", refused)
    calls.clear()
    assert not set_power_line_frequency(0, 50) and calls == [("open", "/dev/video0"), ("close", 42)]

    def missing(path: str, flags: int) -> int:
        raise FileNotFoundError(2, "No such file or directory", path)

    monkeypatch.setattr(os, "open", missing)
    assert not set_power_line_frequency(7, 50)


def test_pi_camera_asks_for_bgr_frames_and_releases_the_camera(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    camera = PiCamera(320, 240)
    fake = camera._camera
    assert fake.config == {"main": {"size": (320, 240), "format": "RGB888"}}
    frame = camera.read()
    assert frame is not None and frame.shape == (240, 320, 3) and tuple(frame[0, 0]) == (1, 2, 3)
    camera.close()
    camera.close()
    assert fake.calls == ["start", "stop", "close"]
    assert camera.read() is None
