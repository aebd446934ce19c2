"""The tray found at the table (the menu's "Find the tray"), saved beside the journal so it outlives a restart.

It is used instead of the config's [camera] tray: the camera or the tray has moved since the config was written,
and the players found the tray again with the buttons, with no laptop at the table (the service may not write the
config under /etc). `dice-companion calibrate --write` deletes it, so the config's region applies again. A file
that cannot be read is set aside with a warning, never a reason not to start.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from companion.config import region_fits
from companion.errors import DiceCompanionError
from companion.files import file_error_reason, write_whole

SAVED_TRAY_FILE = "tray.json"
log = logging.getLogger("companion.saved_tray")


@dataclass(frozen=True)
class SavedTray:
    region: tuple[int, int, int, int]      # x, y, w, h in pixels of a frame of frame_size
    frame_size: tuple[int, int]


def load_saved_tray(directory: Path) -> SavedTray | None:
    """The tray saved in `directory`, or None (none saved, or a file that is not one: logged, and ignored)."""
    path = directory / SAVED_TRAY_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        region = tuple(int(v) for v in data["tray"])
        frame_size = tuple(int(v) for v in data["frame"])
        width, height = frame_size
        if len(region) != 4 or not region_fits(region, width, height):
            raise ValueError(f"the region {list(region)} does not fit a {width}x{height} frame")
    except (OSError, ValueError, KeyError, TypeError) as err:
        log.warning("%s is not a saved tray (%s): the config's [camera] tray is used", path, err)
        return None
    return SavedTray(region, frame_size)  # type: ignore[arg-type]


def save_tray(directory: Path, saved: SavedTray) -> None:
    """Save the tray found, whole or not at all; DiceCompanionError if it cannot be written."""
    text = json.dumps({"tray": list(saved.region), "frame": list(saved.frame_size)}) + "\n"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_whole(directory / SAVED_TRAY_FILE, text)
    except OSError as err:
        raise DiceCompanionError(f"cannot save the tray in {directory}: {file_error_reason(err)}") from err


def forget_saved_tray(directory: Path) -> bool:
    """Delete the saved tray, if any (the config's region applies again); whether there was one."""
    path = directory / SAVED_TRAY_FILE
    if not path.exists():
        return False
    path.unlink()
    return True
