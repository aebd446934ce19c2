"""`dice-companion calibrate`: the tray found through the camera or in a photo, written into the config file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.calibrate import CalibrationError, main, with_setting
from companion.cli import main as cli_main
from companion.config import ConfigError, load_config, parse_config
from companion.errors import DiceCompanionError
from vision.virtual_tray import empty_tray

CONFIG = """# the table by the window
[game]
kind = "mex"

[camera]   # the Pi camera
source = "virtual"
width = 640
height = 480
tray = [
  1, 2,
  3, 4,
]
webcam_index = 0

[vision]
still_frames = 3
"""


def test_the_virtual_camera_is_calibrated_and_the_region_written_in_place(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    preview = tmp_path / "tray.png"
    assert main(["--config", str(config), "--write", "--preview", str(preview)]) == 0
    out = capsys.readouterr().out
    tray = load_config(config).camera.tray
    assert len(tray) == 4 and f"tray = [{', '.join(map(str, tray))}]" in out
    # The rest of the file as it was, comments included; the array over four lines replaced by one line.
    assert config.read_text() == CONFIG.replace("tray = [\n  1, 2,\n  3, 4,\n]", f"tray = {list(tray)}")
    shown = cv2.imread(str(preview))
    assert shown.shape == (480, 640, 3)
    x, y, w, h = tray
    frame = empty_tray(0, size=(640, 480))
    inside, outside = (slice(y + 5, y + h - 5), slice(x + 5, x + w - 5)), (slice(0, 480), slice(0, max(1, x - 2)))
    assert np.array_equal(shown[inside], frame[inside])                      # the tray as the camera sees it
    assert shown[outside].mean() < 0.5 * frame[outside].mean() + 1           # the rest dimmed


def test_a_photo_of_a_real_tray(test_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[camera]\nwidth = 640\nheight = 640\n")
    photo = test_data / "photos" / "IMG_20191208_112843.jpg"
    assert main(["--config", str(config), "--image", str(photo), "--write"]) == 0
    x, y, w, h = load_config(config).camera.tray
    assert 38 <= x <= 60 and 88 <= y <= 110 and 580 <= x + w <= 600 and 515 <= y + h <= 530


def test_a_photo_of_another_size_than_the_cameras_is_not_written(test_data: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    photo = test_data / "photos" / "IMG_20191208_112843.jpg"
    with pytest.raises(CalibrationError, match=r"640x640 but .* gives the camera a 640x480 frame"):
        main(["--config", str(config), "--image", str(photo), "--write"])
    assert config.read_text() == CONFIG


@pytest.mark.parametrize(("make", "message"), [
    (lambda path: path.write_text("not an image"), "not an image OpenCV can decode"),
    (lambda path: cv2.imwrite(str(path), np.zeros((480, 640, 3), np.uint8)), "all black or all white"),
])
def test_a_photo_with_no_tray_is_an_error_naming_the_file(tmp_path: Path, make: object, message: str,
                                                          capsys: pytest.CaptureFixture) -> None:
    photo = tmp_path / "photo.png"
    make(photo)  # type: ignore[operator]
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    assert cli_main(["calibrate", "--config", str(config), "--image", str(photo), "--write"]) == 2
    assert f"dice-companion calibrate: {photo}: " in capsys.readouterr().err
    assert config.read_text() == CONFIG


def test_a_tray_filling_the_view_writes_no_region(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    photo = tmp_path / "full.png"
    cv2.imwrite(str(photo), empty_tray(5, size=(640, 480), full_floor=True))
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    assert main(["--config", str(config), "--image", str(photo), "--write"]) == 0
    assert "fills the whole frame" in capsys.readouterr().out
    assert load_config(config).camera.tray == ()


def test_a_missing_config_file_is_created(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), empty_tray(0, size=(1280, 960)))     # the config's default camera size
    assert main(["--config", str(config), "--image", str(photo), "--write"]) == 0
    assert config.read_text().startswith("[camera]\ntray = [")
    assert len(load_config(config).camera.tray) == 4


@pytest.mark.parametrize(("text", "expected"), [
    ("", "[camera]\ntray = [1, 2, 3, 4]\n"),
    ("[game]\nkind = \"mex\"", "[game]\nkind = \"mex\"\n\n[camera]\ntray = [1, 2, 3, 4]\n"),
    ("[camera]\nwidth = 640\n", "[camera]\ntray = [1, 2, 3, 4]\nwidth = 640\n"),
    ("[camera]\ntray = []  # the whole frame\nwidth = 640\n", "[camera]\ntray = [1, 2, 3, 4]\nwidth = 640\n"),
    ("[camera]\nwidth = 640\n[vision]\nstill_frames = 3\n", "[camera]\ntray = [1, 2, 3, 4]\nwidth = 640\n"
                                                             "[vision]\nstill_frames = 3\n"),
])
def test_with_setting_replaces_or_adds_the_line(text: str, expected: str) -> None:
    assert with_setting(text, "camera", "tray", "[1, 2, 3, 4]") == expected


def test_a_config_this_command_cannot_edit_is_left_alone(tmp_path: Path) -> None:
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), empty_tray(0, size=(640, 480)))
    with pytest.raises(ConfigError, match="not valid TOML"):
        with_setting("[camera\nwidth = 640\n", "camera", "tray", "[1, 2, 3, 4]")
    config = tmp_path / "config.toml"
    dotted = "camera.tray = [1, 2, 3, 4]\ncamera.width = 640\ncamera.height = 480\n"
    config.write_text(dotted)
    parse_config(dotted)
    with pytest.raises(CalibrationError, match="by hand"):
        main(["--config", str(config), "--image", str(photo), "--write"])
    assert config.read_text() == dotted


def test_a_config_that_is_not_utf8_text_is_refused_by_name_and_left_alone(tmp_path: Path) -> None:
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), empty_tray(0, size=(1280, 960)))
    config = tmp_path / "config.toml"
    latin1 = "# la table près de la fenêtre\n[camera]\nwidth = 1280\n".encode("latin-1")
    config.write_bytes(latin1)
    with pytest.raises(DiceCompanionError, match=r"cannot read the config file .*config.toml: not UTF-8 text"):
        main(["--config", str(config), "--image", str(photo), "--write"])
    assert config.read_bytes() == latin1


# Config files as people write them: the shipped one's sections in any order, comments after headers and values,
# blank lines, the tray set or not, on one line or over several, in its own section or not.
_OTHER_SETTINGS = {
    "game": ['kind = "excape"', 'players = ["Ann", "Bob", "Cid"]', "options = {goal = 25}"],
    "camera": ["width = 640", "height = 480", 'source = "webcam"', "webcam_index = 1"],
    "vision": ["still_frames = 4"],
    "buttons": ["hold_seconds = 1.5", "stop = 5"],
}


@st.composite
def config_texts(draw: st.DrawFn) -> str:
    sections = draw(st.permutations(list(_OTHER_SETTINGS)))
    lines = [draw(st.sampled_from(["", "# the table by the window", "\n"]))]
    for section in sections:
        comment = draw(st.sampled_from(["", "  # a comment", " # [camera] tray = [1, 2, 3, 4]"]))
        lines.append(f"[{section}]{comment}")
        chosen = draw(st.lists(st.sampled_from(_OTHER_SETTINGS[section]), unique=True))
        if section == "camera" and draw(st.booleans()):
            tray = draw(st.sampled_from(["tray = []", "tray = [1, 2, 3, 4]  # by hand", "tray = [\n  1, 2,\n  3, 4,\n]",
                                         "tray = [ 5,6,\n7,8 ] # over two lines"]))
            chosen.insert(draw(st.integers(0, len(chosen))), tray)
        lines += [*chosen, draw(st.sampled_from(["", "# end of section"]))]
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=examples(300), deadline=None)
@given(text=config_texts(), corner=st.tuples(st.integers(0, 200), st.integers(0, 200)),
       size=st.tuples(st.integers(1, 270), st.integers(1, 270)))
def test_with_setting_sets_the_tray_and_changes_nothing_else(text: str, corner: tuple[int, int],
                                                            size: tuple[int, int]) -> None:
    tray = [*corner, *size]                     # inside the smallest frame drawn, 640x480
    before = parse_config(text)
    after = parse_config(with_setting(text, "camera", "tray", "[" + ", ".join(map(str, tray)) + "]"))
    assert after.camera.tray == tuple(tray)
    assert replace(after, camera=replace(after.camera, tray=before.camera.tray)) == before


def test_a_camera_option_with_too_many_words_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    assert cli_main(["calibrate", "--config", str(config), "--camera", "replay", "a", "b", "--write"]) == 2
    assert "--camera takes a kind and, for replay, one path" in capsys.readouterr().err
    assert config.read_text() == CONFIG


def test_a_live_camera_that_gives_no_picture_is_refused_saying_what_its_watch_saw() -> None:
    from companion.calibrate import _settled_frame
    from hardware.camera import CameraSource
    from hardware.camera_watch import WatchedCamera

    class Failing(CameraSource):
        def read(self) -> np.ndarray | None:
            raise OSError("select() timeout")

    with pytest.raises(CalibrationError, match=r"gave no picture.*\(the camera failed: select\(\) timeout\)"):
        _settled_frame(WatchedCamera(Failing), live=True)
