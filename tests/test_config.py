from pathlib import Path

import pytest

from companion.config import Config, load_config, parse_config
from companion.errors import ConfigError

SHIPPED = Path(__file__).resolve().parent.parent / "systemd" / "config.toml"


def test_empty_file_gives_the_defaults():
    assert parse_config("") == Config()


def test_the_shipped_config_is_valid_and_matches_the_defaults():
    assert load_config(SHIPPED) == Config()


def test_values_are_read_and_typed():
    cfg = parse_config("""
[game]
kind = "excape"
players = ["Ann", "Bob", "Cid", "Dee"]
options = {goal = 25}
[buttons]
hold_seconds = 2
[camera]
tray = [10, 20, 600, 400]
mains_hz = 60
[display]
driver = "ssd1306"
i2c_address = 0x3D
""")
    assert cfg.game.kind == "excape"
    assert cfg.game.players == ("Ann", "Bob", "Cid", "Dee")
    assert cfg.game.options == {"goal": 25}
    assert cfg.buttons.hold_seconds == 2.0
    assert cfg.camera.tray == (10, 20, 600, 400) and cfg.camera.mains_hz == 60
    assert cfg.display.i2c_address == 0x3D


@pytest.mark.parametrize(("text", "message"), [
    ("[buttons]\nreroll_pin = 5", "unknown key 'reroll_pin' in \\[buttons\\]"),
    ("[screen]\nx = 1", "unknown section \\[screen\\]"),
    ("[buttons]\nstop = \"17\"", "\\[buttons\\] stop = '17' has the wrong type; expected a whole number"),
    ("[buttons]\nstop = 40", "not a BCM GPIO pin"),
    ("[display]\ndriver = \"ssd1309\"", "expected one of: sh1106, ssd1306"),
    ("[camera]\ntray = [1, 2, 3]", "must be \\[x, y, width, height\\]"),
    ("[game]\nkind = \"yahtzee\"", "expected one of: mex, excape, rapido"),
    ("[buttons]\nhold_seconds = 0", "more than 0 seconds"),
    ("[buttons\nstop = 1", "not valid TOML"),
    ("[camera]\nwidth = 0", "\\[camera\\] width = 0 is no camera frame's size; expected 32..8192 pixels"),
    ("[camera]\nwidth = 1280\nheight = 400", "width 1280 and height 400 are 3.2 to 1; the reader takes frames at "
                                             "most 3 to 1"),
    ("[camera]\nwidth = 640\nheight = 480\ntray = [100, 50, 600, 400]",
     "tray \\[100, 50, 600, 400\\] does not fit the camera's 640x480 frame"),
    ("[camera]\ntray = [-5, 0, 600, 400]", "does not fit the camera's 1280x960 frame"),
    ("[camera]\nmains_hz = 55", "\\[camera\\] mains_hz = 55 is not allowed; expected one of: 0, 50, 60"),
])
def test_bad_config_is_a_specific_error(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(text, source="test.toml")


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match=r"cannot read the config file .*nope\.toml: No such file or directory"):
        load_config(tmp_path / "nope.toml")


def test_a_config_that_is_not_utf8_text_is_a_clear_error(tmp_path):
    # A config saved in Latin-1 by a desktop editor, or a binary file given by mistake: a named error, not a
    # traceback from the decoder.
    config = tmp_path / "config.toml"
    config.write_bytes("[game]\nkind = \"mex\"  # dés\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"cannot read the config file .*config.toml: not UTF-8 text \(byte 24 "):
        load_config(config)


def test_why_a_file_is_unreadable_is_never_empty():
    from companion.files import file_error_reason
    assert file_error_reason(FileNotFoundError(2, "No such file or directory")) == "No such file or directory"
    # Raised by a library with a message alone: no strerror, the message instead.
    assert file_error_reason(OSError("device went away")) == "device went away"
    assert file_error_reason(OSError()) == "OSError"
    with pytest.raises(UnicodeDecodeError) as raised:
        b"ok\xff".decode("utf-8")
    assert file_error_reason(raised.value) == "not UTF-8 text (byte 2 is not UTF-8)"


def test_the_camera_frames_the_config_allows_are_the_ones_the_reader_reads():
    from companion.config import CAMERA_MAX_ASPECT, CAMERA_SIDES
    from vision.read import MAX_ASPECT, MIN_SIDE

    assert CAMERA_MAX_ASPECT == MAX_ASPECT and CAMERA_SIDES[0] == MIN_SIDE
    parse_config("[camera]\nwidth = 1920\nheight = 1080\ntray = [0, 0, 1920, 1080]")     # 16:9, the tray whole
