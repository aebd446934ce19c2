"""Writing a file whole or not at all, as a power cut at the table may come at any moment."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make the directory's entries (a file created, renamed or moved into it) survive a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all: to a temporary file beside it, synced, renamed over it, and the
    rename synced, so a power cut leaves the old file (or none) or the new one, never a torn one, and a file said
    written stays written. OSError if it cannot be written (the temporary file is then removed)."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def file_error_reason(err: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, written or removed, in words for its error message: the system's reason (an
    OSError raised with a message alone has no strerror), or where the bytes stop being UTF-8 (a binary file, or one
    saved in another encoding)."""
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text (byte {err.start} is not UTF-8)"
    return err.strerror or str(err) or type(err).__name__
