"""A companion that cannot start, or whose camera is lost while it runs, says why on the table's screen: at the table
there is no other."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import app, screens
from companion.config import Config
from companion.controller import CAMERA_LOST
from companion.journal import Journal
from hardware.display import DummyDisplay
from hardware.errors import HardwareError
from vision.models import ModelError


def _cannot_start_view(error: Exception) -> screens.MessageView:
    return screens.MessageView("Cannot start", (app.on_the_screen(str(error)),), footer="more: journalctl",
                               big_title=False)


def _cannot_start_screen(error: Exception) -> bytes:
    return screens.render(_cannot_start_view(error)).image.tobytes()


def test_a_net_that_cannot_load_is_shown_on_the_screen_and_every_device_opened_is_closed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    display = DummyDisplay()
    monkeypatch.setattr(app, "build_display", lambda config, twin: display)
    cameras: list[app.VirtualTrayCamera] = []
    real_build_camera = app.build_camera

    def build_camera(*args: object) -> app.VirtualTrayCamera:
        cameras.append(real_build_camera(*args))
        return cameras[-1]

    damaged = ModelError("face classifier weights unreadable: faces.onnx is not a valid ONNX net "
                         "(reinstall dice-companion)")

    def watcher(config: Config, saved_in: object = None) -> None:
        raise damaged

    closed: list[str] = []
    monkeypatch.setattr(app, "build_camera", build_camera)
    monkeypatch.setattr(app, "TrayWatcher", watcher)
    monkeypatch.setattr(app.VirtualTrayCamera, "close", lambda self: closed.append("camera"))
    monkeypatch.setattr(DummyDisplay, "close", lambda self: closed.append("display"))
    # A game in progress when the companion stopped: a start that fails leaves it as it was, to resume later.
    in_progress = tmp_path / "journal" / Journal.CURRENT
    in_progress.parent.mkdir()
    in_progress.write_text("game mex players=Ann,Bob\nthrow Ann 3 1\n")
    with pytest.raises(ModelError, match="reinstall"):
        app.run_interactive(Config(), tmp_path / "journal", True, None)
    assert in_progress.read_text() == "game mex players=Ann,Bob\nthrow Ann 3 1\n"
    assert display.image is not None and display.image.tobytes() == _cannot_start_screen(damaged)
    assert not screens.illegible_texts(screens.render(_cannot_start_view(damaged)))
    assert len(cameras) == 1 and sorted(closed) == ["camera", "display"]


def test_on_the_pi_the_reason_stays_in_view_before_systemd_starts_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    display = DummyDisplay()
    monkeypatch.setattr(app, "build_display", lambda config, twin: display)
    no_camera = HardwareError("no Pi camera found: is it connected and enabled?")

    def build_camera(*args: object) -> None:
        raise no_camera

    slept: list[float] = []
    monkeypatch.setattr(app, "build_camera", build_camera)
    monkeypatch.setattr(app.time, "sleep", slept.append)
    with pytest.raises(HardwareError, match="no Pi camera"):
        app.run_interactive(Config(), tmp_path / "journal", False, None)
    assert display.image is not None and display.image.tobytes() == _cannot_start_screen(no_camera)
    assert slept == [app.CANNOT_START_SECONDS]


def test_a_screen_that_fails_too_does_not_hide_the_first_error(monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    class BrokenDisplay(DummyDisplay):
        def show(self, image: object) -> None:
            raise HardwareError("OLED not answering on I2C")

    app.cannot_start(Config(), True, HardwareError("no Pi camera found"), BrokenDisplay())
    assert "showing why the companion cannot start failed: OLED not answering" in caplog.text


def test_a_misspelt_config_on_the_pi_is_shown_on_the_screen_its_default_settings_drive(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.errors import ConfigError

    config = tmp_path / "config.toml"
    config.write_text("[camra]\nsource = 'picamera2'\n")
    shown: list[tuple[Config, bool, DummyDisplay]] = []

    def build_display(config: Config, twin: bool) -> DummyDisplay:
        shown.append((config, twin, DummyDisplay()))
        return shown[-1][2]

    slept: list[float] = []
    monkeypatch.setattr(app, "build_display", build_display)
    monkeypatch.setattr(app.time, "sleep", slept.append)
    monkeypatch.setattr(app, "on_raspberry_pi", lambda: True)
    with pytest.raises(ConfigError, match=r"unknown section \[camra\]") as raised:
        app.main(["--config", str(config)])
    assert [(c, twin) for c, twin, _ in shown] == [(Config(), False)]
    assert shown[0][2].image.tobytes() == _cannot_start_screen(raised.value)
    assert slept == [app.CANNOT_START_SECONDS]
    # On the twins the terminal already shows the message: no screen is opened for it.
    shown.clear()
    with pytest.raises(ConfigError):
        app.main(["--config", str(config), "--twin"])
    assert shown == []


def test_the_screen_shows_a_long_path_by_its_file_name_so_the_remedy_stays_in_view() -> None:
    weights = "/opt/dice-companion/.venv/lib/python3.11/site-packages/vision/weights/faces.onnx"
    damaged = ModelError(f"face classifier weights unreadable: {weights} is not a valid ONNX net "
                         "(reinstall dice-companion): OpenCV(5.0.0) /io/opencv/modules/dnn/src/onnx/importer.cpp:346")
    assert app.on_the_screen(str(damaged)).startswith(
        "face classifier weights unreadable: faces.onnx is not a valid ONNX net (reinstall dice-companion)")
    rendered = screens.render(_cannot_start_view(damaged))
    assert "reinstall dice" in " ".join(rendered.strings) and not screens.illegible_texts(rendered)
    # Short paths say more whole than their file name would; relative ones are as the user typed them.
    for kept in ("cannot open /dev/video0", "/etc/dice-companion/companion.toml: unknown key 'sorce'",
                 "unknown die model 'dice/mine.json'", "roll 1/2 and/or 3/4"):
        assert app.on_the_screen(kept) == kept
    assert app.on_the_screen("no model '/home/pi/dice/mine.json'") == "no model 'mine.json'"


def test_a_camera_lost_while_running_is_shown_on_the_screen_and_the_loop_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hardware.camera import CameraSource
    from hardware.camera_watch import SILENT_SECONDS, WatchedCamera

    now = [0.0]

    class Unplugged(CameraSource):
        def read(self) -> None:
            now[0] += 0.5           # each read waits for a frame that never comes
            return None

    class StopAfter:
        """The twin keyboard, pressed by nobody: Ctrl-C once the loop has run `loops` times."""

        def __init__(self, loops: int) -> None:
            self.loops = loops

        def drain(self) -> list[object]:
            self.loops -= 1
            if self.loops == 0:
                raise KeyboardInterrupt
            return []

        def close(self) -> None:
            pass

    display = DummyDisplay()
    monkeypatch.setattr(app, "build_display", lambda config, twin: display)
    monkeypatch.setattr(app, "build_camera", lambda *args: WatchedCamera(Unplugged, clock=lambda: now[0]))
    monkeypatch.setattr(app, "_keyboard_with_throw", lambda camera: StopAfter(round(2 * SILENT_SECONDS) + 5))
    monkeypatch.setattr(app, "TrayWatcher", lambda config, saved_in=None: None)
    monkeypatch.setattr(app.time, "sleep", lambda seconds: None)
    assert app.run_interactive(Config(), tmp_path / "journal", True, None) == 0
    said = screens.render(screens.MessageView("Camera", (CAMERA_LOST,), footer="any button: continue"))
    assert display.image is not None and display.image.tobytes() == said.image.tobytes()
