"""The game journal: every event written to disk before anything is shown, so a power cut loses nothing.

A journal is a table log (the same text format `dice-companion replay` reads): the `game ...` line, then one
event a line. Lines are only ever appended, each followed by flush + fsync; `undo` is journaled as an event,
so the file never has to be rewritten. The game in progress lives in `current.log`; a finished (or abandoned)
game is moved to `games/NNNN.log`, numbered, because the Pi may have no real-time clock to name files by.

A power cut can leave a torn last line (no newline). It was never acknowledged to the players (the screen
changes only after the fsync), so loading drops it and truncates the file back to its last whole line.
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.errors import DiceCompanionError
from companion.files import file_error_reason, fsync_dir, write_whole


class JournalError(DiceCompanionError):
    """The journal directory or file cannot be used."""


class Journal:
    CURRENT = "current.log"

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.archive = self.directory / "games"
        try:
            self.archive.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise JournalError(f"cannot create the journal directory {self.directory}: "
                               f"{file_error_reason(err)}") from err

    @property
    def current_path(self) -> Path:
        return self.directory / self.CURRENT

    def start(self, header: str) -> None:
        """Begin a new game whose first line is `header`; an unfinished game is archived first, never lost."""
        if self.current_path.exists():
            self.finish()
        write_whole(self.current_path, _one_line(header) + "\n")

    def append(self, line: str) -> None:
        """Durably add one event line; returns only after the line is on disk."""
        if not self.current_path.exists():
            raise JournalError("no game in progress: start() the journal with the game line first")
        with open(self.current_path, "a", encoding="utf-8") as f:
            f.write(_one_line(line) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def load_current(self) -> str | None:
        """The text of the game in progress (whole lines only), or None when there is none."""
        path = self.current_path
        if not path.exists():
            return None
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            whole = data[: data.rfind(b"\n") + 1]
            with open(path, "r+b") as f:
                f.truncate(len(whole))
                f.flush()
                os.fsync(f.fileno())
            data = whole
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise JournalError(f"{path} is not a text journal (byte {err.start} is not UTF-8)") from err

    def finish(self) -> Path | None:
        """Move the game in progress to the archive; returns its new path (None when there was no game)."""
        if not self.current_path.exists():
            return None
        numbers = [int(p.stem) for p in self.archive.glob("*.log") if p.stem.isdigit()]
        target = self.archive / f"{max(numbers, default=0) + 1:04d}.log"
        os.replace(self.current_path, target)
        fsync_dir(self.directory)
        fsync_dir(self.archive)
        return target

    def archived(self) -> list[Path]:
        return sorted(p for p in self.archive.glob("*.log") if p.stem.isdigit())


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise JournalError(f"a journal entry must be one line, got {text!r}")
    return text
