"""The companion's one TOML configuration file, read into typed, validated settings.

Every key has a default that suits a Raspberry Pi with the wiring in the README, so an empty file (or none)
works. Unknown sections or keys and wrong types are errors that name the key, the file and what was expected:
a typo in `reroll_pin` must not silently leave a button dead.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from companion.errors import ConfigError
from companion.files import file_error_reason

DEFAULT_PATH = Path("/etc/dice-companion/config.toml")


@dataclass(frozen=True)
class GameConfig:
    kind: str = "mex"                                  # mex | excape | rapido: the game a fresh start offers
    players: tuple[str, ...] = ("Ann", "Bob", "Cid")
    options: dict[str, Any] = field(default_factory=dict)  # any `game` line option, e.g. {lives = 6}


@dataclass(frozen=True)
class ButtonsConfig:
    stop: int = 17          # BCM pin numbers; each button wired between the pin and GND
    reroll: int = 27
    select: int = 22
    hold_seconds: float = 1.0
    bounce_seconds: float = 0.05


@dataclass(frozen=True)
class DisplayConfig:
    driver: str = "sh1106"  # sh1106 | ssd1306: the wrong one garbles the picture
    i2c_port: int = 1
    i2c_address: int = 0x3C
    rotate: int = 0         # 0 or 2 (upside down)


# The camera's frame: each side in pixels (the reader needs 32 at least), and at most this long to 1, as
# vision.read.MAX_ASPECT (companion stays free of vision's imports; a test holds the two equal).
CAMERA_SIDES = (32, 8192)
CAMERA_MAX_ASPECT = 3.0


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"   # picamera2 | webcam | replay | virtual
    width: int = 1280
    height: int = 960
    webcam_index: int = 0
    replay_path: str = ""
    tray: tuple[int, ...] = ()  # x, y, w, h of the tray in the frame (calibration); empty: the whole frame
    mains_hz: int = 50          # the lamps' mains: 50 or 60 Hz (the camera's exposure in whole pulses); 0: as it is


@dataclass(frozen=True)
class VisionConfig:
    still_frames: int = 3       # frames the dice must be still before they are read
    model: str = ""             # a taught die model file; empty: d6 for Mex, excape for Excape/Rapido


@dataclass(frozen=True)
class SignalsConfig:
    buzzer_pin: int = 0         # BCM pin; 0: no buzzer
    led_pin: int = 0            # BCM pin; 0: no LED


@dataclass(frozen=True)
class JournalConfig:
    directory: str = "/var/lib/dice-companion"


@dataclass(frozen=True)
class Config:
    game: GameConfig = field(default_factory=GameConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    signals: SignalsConfig = field(default_factory=SignalsConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)


_CHOICES = {
    ("game", "kind"): ("mex", "excape", "rapido"),
    ("display", "driver"): ("sh1106", "ssd1306"),
    ("display", "rotate"): (0, 2),  # a quarter turn would make the panel 64x128
    ("camera", "source"): ("picamera2", "webcam", "replay", "virtual"),
    ("camera", "mains_hz"): (0, 50, 60),
}


def load_config(path: str | Path | None = None) -> Config:
    """Read `path` (TOML). None: the default path if it exists, else all defaults."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return Config()
        path = DEFAULT_PATH
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read the config file {path}: {file_error_reason(err)}") from err
    return parse_config(text, source=str(path))


def parse_config(text: str, source: str = "<config>") -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not valid TOML: {err}") from err
    sections = {f.name: f for f in dataclasses.fields(Config)}
    built: dict[str, Any] = {}
    for name, table in data.items():
        if name not in sections:
            raise ConfigError(f"{source}: unknown section [{name}]; expected one of: {', '.join(sections)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: [{name}] must be a table of settings")
        built[name] = _build_section(name, sections[name].default_factory, table, source)  # type: ignore[misc]
    config = Config(**built)
    _check_camera(config.camera, source)
    return config


def _check_camera(camera: CameraConfig, source: str) -> None:
    """The frame's sides and the tray region together: refused here, not at every throw of a game."""
    (w, h), tray = (camera.width, camera.height), camera.tray
    if max(w, h) > CAMERA_MAX_ASPECT * min(w, h):
        raise ConfigError(f"{source}: [camera] width {w} and height {h} are {max(w, h) / min(w, h):.1f} to 1; the "
                          f"reader takes frames at most {CAMERA_MAX_ASPECT:g} to 1 (4:3 or 16:9, upright or on their "
                          "side)")
    if tray and not region_fits(tray, w, h):
        raise ConfigError(f"{source}: [camera] tray {list(tray)} does not fit the camera's {w}x{h} frame "
                          "(x, y, width and height in the frame's pixels: measure it again on a camera frame)")


def region_fits(region: tuple[int, ...], width: int, height: int) -> bool:
    """Whether a region (x, y, w, h) lies inside a width x height frame, at least a pixel wide and high."""
    x, y, w, h = region
    return x >= 0 and y >= 0 and w > 0 and h > 0 and x + w <= width and y + h <= height


def _build_section(section: str, cls: type, table: dict[str, Any], source: str) -> Any:
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in hints:
            raise ConfigError(f"{source}: unknown key {key!r} in [{section}]; expected one of: {', '.join(hints)}")
        values[key] = _check(section, key, hints[key], value, source)
    return cls(**values)


def _check(section: str, key: str, hint: Any, value: Any, source: str) -> Any:
    where = f"{source}: [{section}] {key}"
    origin = getattr(hint, "__origin__", hint)
    if hint is bool or origin is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif hint is str:
        ok = isinstance(value, str)
    elif origin is tuple:
        ok = isinstance(value, list)
        item_type = hint.__args__[0]
        ok = ok and all(isinstance(v, item_type) and not isinstance(v, bool) for v in value)
        value = tuple(value) if ok else value
    elif origin is dict:
        ok = isinstance(value, dict)
    else:  # pragma: no cover - a new field type must be taught here
        raise TypeError(f"config field {section}.{key} has an unsupported type {hint}")
    if not ok:
        raise ConfigError(f"{where} = {value!r} has the wrong type; expected {_type_name(hint)}")
    choices = _CHOICES.get((section, key))
    if choices is not None and value not in choices:
        raise ConfigError(f"{where} = {value!r} is not allowed; expected one of: {', '.join(map(str, choices))}")
    if section == "camera" and key == "tray" and value and (len(value) != 4 or min(value[2:]) <= 0):
        raise ConfigError(f"{where} must be [x, y, width, height] with a positive width and height, or []")
    if section == "camera" and key in ("width", "height") and not CAMERA_SIDES[0] <= value <= CAMERA_SIDES[1]:
        raise ConfigError(f"{where} = {value} is no camera frame's size; expected {CAMERA_SIDES[0]}..{CAMERA_SIDES[1]} "
                          "pixels")
    if section == "buttons" and key in ("stop", "reroll", "select") and not 0 <= value <= 27:
        raise ConfigError(f"{where} = {value} is not a BCM GPIO pin; expected 0..27")
    if key.endswith("_seconds") and value <= 0:
        raise ConfigError(f"{where} must be more than 0 seconds")
    return value


def _type_name(hint: Any) -> str:
    origin = getattr(hint, "__origin__", None)
    if origin is tuple:
        return f"a list of {hint.__args__[0].__name__}"
    if origin is dict:
        return "a table"
    return {"int": "a whole number", "float": "a number", "str": "a string", "bool": "true or false"}.get(
        hint.__name__, hint.__name__)
