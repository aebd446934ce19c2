"""`dice-companion calibrate [--config FILE] [--camera KIND [PATH] | --image PHOTO] [--preview PNG] [--write]`:
find the tray in the camera's view and write its region into the config.

The reader then says a die rolled off onto the table is "outside the tray" (a spare die beside it is ignored) and a
die reaching the rim is "on the tray's rim", and the motion tracker watches the tray alone (a hand on the table
beside it moves nothing). Calibrate with the camera where it will stay, the light on and the tray empty; again
whenever the camera or the tray moves (or, at the table, use the menu's "Find the tray", which keeps its region
beside the journal: companion.saved_tray; writing here deletes that, so the config's region applies again). The
companion's service holds the camera while it runs: stop it first on a Pi (`sudo systemctl stop dice-companion`),
and start it again after writing.

The region is in pixels of the camera's frame, so it is found in a frame of the size the config gives the camera
([camera] width and height); a photo of another size is refused when writing.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from companion.config import DEFAULT_PATH, Config, ConfigError, load_config, parse_config
from companion.errors import DiceCompanionError
from companion.files import file_error_reason, write_whole

LIVE_WARMUP_FRAMES = 15     # a live camera's first frames, while its exposure settles, are not looked at
LIVE_FRAMES = 5             # the median of this many frames after them: sensor noise evened out
NO_PICTURE_TRIES = 100      # frames asked for before a camera that gives none is given up


class CalibrationError(DiceCompanionError):
    """The calibration cannot be made or written."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dice-companion calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help=f"the TOML config to calibrate (default: {DEFAULT_PATH})")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", nargs="+", metavar=("KIND", "PATH"),
                        help="the camera to look through: picamera2, webcam, replay PATH or virtual (an empty "
                             "virtual tray); default: the config's [camera] source")
    source.add_argument("--image", metavar="PHOTO", help="a photo the camera took of the tray, instead of the camera")
    parser.add_argument("--preview", metavar="PNG", help="save the frame with the region found drawn on it")
    parser.add_argument("--write", action="store_true", help="write the region into the config file")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    config_path = Path(args.config) if args.config else DEFAULT_PATH
    config = load_config(config_path) if config_path.exists() else Config()     # --write creates it
    frame, seen_by = _frame(args, config)

    from vision.tray_region import TrayRegionNotFound, find_tray_region

    try:
        region = find_tray_region(frame)
    except TrayRegionNotFound as error:
        raise CalibrationError(f"{seen_by}: {error}") from error
    height, width = frame.shape[:2]
    whole = region == (0, 0, width, height)
    tray = [] if whole else list(region)
    share = region[2] * region[3] / (width * height)
    print(f"{seen_by}, {width}x{height}: " + ("the tray fills the whole frame: no region is needed" if whole else
          f"the tray inside its rim is x {region[0]}, y {region[1]}, {region[2]}x{region[3]} px "
          f"({share:.0%} of the frame)"))
    print(f"[camera]\ntray = {_toml_list(tray)}")
    if args.preview:
        _save_preview(Path(args.preview), frame, region)
        print(f"preview: {args.preview}")
    if args.write:
        if (width, height) != (config.camera.width, config.camera.height):
            raise CalibrationError(
                f"{seen_by} is {width}x{height} but {config_path} gives the camera a {config.camera.width}x"
                f"{config.camera.height} frame, and the region is in the camera's pixels: calibrate from a frame "
                f"of that size (or set [camera] width and height to the camera's)")
        _write_tray(config_path, tray)
        print(f"wrote [camera] tray = {_toml_list(tray)} to {config_path}; restart the companion to use it")
        from companion.saved_tray import SAVED_TRAY_FILE, forget_saved_tray

        saved_in = Path(config.journal.directory)
        try:
            if forget_saved_tray(saved_in):
                print(f"deleted the tray found at the table ({saved_in / SAVED_TRAY_FILE}): the config's applies")
        except OSError as err:
            raise CalibrationError(f"cannot delete the tray found at the table, {saved_in / SAVED_TRAY_FILE}, which "
                                   f"the companion uses instead of the config's: {file_error_reason(err)}") from err
    return 0


def _frame(args: argparse.Namespace, config: Config) -> tuple[np.ndarray, str]:
    """The frame to calibrate on, and what it is (for messages)."""
    if args.image:
        from vision.cli import load_image

        image = load_image(args.image)
        if isinstance(image, str):
            raise CalibrationError(f"{args.image}: {image}")
        return image, args.image
    from companion.app import build_camera, camera_choice

    kind, replay_path = camera_choice(args.camera, config.camera.source)
    if kind == "virtual":
        from vision.virtual_tray import empty_tray

        return empty_tray(0, size=(config.camera.width, config.camera.height)), "the virtual tray (empty)"
    camera = build_camera(kind, replay_path, config, config.game.kind, twin=False)
    try:
        return _settled_frame(camera, live=kind in ("picamera2", "webcam")), f"the {kind} camera"
    finally:
        camera.close()


def _settled_frame(camera: Any, live: bool) -> np.ndarray:
    """A frame of the camera: for a live one, the median of LIVE_FRAMES after LIVE_WARMUP_FRAMES; else its first."""
    wanted = LIVE_WARMUP_FRAMES + LIVE_FRAMES if live else 1
    frames: list[np.ndarray] = []
    for _ in range(NO_PICTURE_TRIES + wanted):
        frame = camera.read()
        if frame is not None:
            frames.append(frame)
            if len(frames) == wanted:
                return np.median(np.stack(frames[-LIVE_FRAMES:]), axis=0).astype(np.uint8) if live else frames[0]
    why = getattr(camera, "fault", None)        # a live camera's watch says what went wrong (hardware.camera_watch)
    raise CalibrationError("the camera gave no picture: is it connected, and free (the companion stopped)?"
                           + (f" ({why})" if why else ""))


def _save_preview(path: Path, frame: np.ndarray, region: tuple[int, int, int, int]) -> None:
    import cv2

    x, y, w, h = region
    preview = (frame * 0.35).astype(np.uint8)           # outside the tray, dimmed
    preview[y:y + h, x:x + w] = frame[y:y + h, x:x + w]
    thickness = max(1, round(frame.shape[1] / 320))
    cv2.rectangle(preview, (x, y), (x + w - 1, y + h - 1), (0, 0, 255), thickness)
    if not cv2.imwrite(str(path), preview):
        raise CalibrationError(f"cannot write the preview {path}: expected a writable .png or .jpg path")


def _toml_list(values: list[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _write_tray(path: Path, tray: list[int]) -> None:
    """Set [camera] tray in the config file (created if missing), the rest of the file as it was, whole or not at
    all (companion.files.write_whole)."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as err:
        raise CalibrationError(f"cannot read the config file {path}: {file_error_reason(err)}") from err
    updated = with_setting(text, "camera", "tray", _toml_list(tray), str(path))
    try:
        written = tuple(parse_config(updated, str(path)).camera.tray)
    except ConfigError:
        written = None
    if written != tuple(tray):
        raise CalibrationError(f"{path} sets [camera] tray in a way this command cannot change (a dotted key or an "
                               f"inline table): write `tray = {_toml_list(tray)}` under [camera] by hand")
    try:
        write_whole(path, updated)
    except OSError as err:
        raise CalibrationError(f"cannot write the config file {path}: {file_error_reason(err)}") from err


_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$")


def with_setting(text: str, section: str, key: str, value: str, source: str = "<config>") -> str:
    """The config `text` with `key = value` (value as TOML) in [section]: the key's line (lines, for an array over
    several) replaced where it is, else the line added at the top of the section, else the section added at the
    end. ConfigError if `text` is not valid TOML: a file that cannot be read is not rewritten."""
    parse_config(text, source)
    lines = text.splitlines(keepends=True)
    setting = f"{key} = {value}\n"
    key_line = re.compile(rf"^\s*{re.escape(key)}\s*=(.*)$")
    current, header = None, None
    for k, line in enumerate(lines):
        if found := _SECTION.match(line):
            current = found.group(1)
            if current == section and header is None:
                header = k
            continue
        if current == section and (kept := key_line.match(line)):
            end = k + 1
            depth = _open_brackets(kept.group(1))
            while depth > 0 and end < len(lines):      # an array over several lines, up to its closing bracket
                depth += _open_brackets(lines[end])
                end += 1
            return "".join([*lines[:k], setting, *lines[end:]])
    if header is not None:
        return "".join([*lines[:header + 1], setting, *lines[header + 1:]])
    ending = "" if not text or text.endswith("\n") else "\n"
    return text + ending + ("\n" if text.strip() else "") + f"[{section}]\n" + setting


def _open_brackets(toml: str) -> int:
    """How many more brackets a line of TOML opens than it closes (its comment left out)."""
    code = toml.split("#", 1)[0]
    return code.count("[") - code.count("]")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
