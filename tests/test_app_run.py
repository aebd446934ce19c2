"""`dice-companion run` as it runs at the table: a real process, keys on a terminal, a journal on disk.

The interactive loop (camera -> controller -> buttons -> tick -> watchdog) is driven from outside, as a player or
systemd would: keys typed into a pseudo-terminal, SIGTERM to stop, SIGKILL for a power cut.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PHOTOS = REPO / "tests" / "data" / "photos"
WAIT_SECONDS = 60   # generous: a busy 2-core CI machine loads OpenCV and the net slowly

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals and signals")


class Table:
    """A `dice-companion run --twin` process on a pseudo-terminal, its journal and its error output."""

    def __init__(self, journal: Path, *args: str, terminal: bool = True) -> None:
        self.journal = journal
        self.master, self.slave = os.openpty() if terminal else (None, None)
        stdin = self.slave if terminal else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--twin", "--journal", str(journal), *args],
            stdin=stdin, stdout=stdin, stderr=subprocess.PIPE, cwd=REPO, start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"})

    def lines(self) -> list[str]:
        path = self.journal / "current.log"
        return path.read_text().splitlines() if path.is_file() else []

    def wait_for(self, what: str, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if self.master is not None:  # keep the terminal's output flowing, or the app blocks writing to it
                while select.select([self.master], [], [], 0.05)[0]:
                    try:
                        os.read(self.master, 65536)
                    except OSError:
                        break
            else:
                time.sleep(0.05)
            if condition():
                return
            if self.process.poll() is not None:
                break
        self.process.kill()
        raise AssertionError(f"no {what} (exit code {self.process.poll()}); journal {self.lines()}; "
                             f"errors: {self.process.stderr.read().decode()[-2000:]}")

    def press(self, keys: bytes) -> None:
        assert self.master is not None
        os.write(self.master, keys)

    def stop(self, how: int = signal.SIGTERM) -> tuple[int, str]:
        self.process.send_signal(how)
        try:
            code = self.process.wait(WAIT_SECONDS)
        finally:
            self.process.kill()
        return code, self.process.stderr.read().decode()

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)


def test_keys_throw_keep_and_sigterm_closes_cleanly_restoring_the_terminal(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal")
    try:
        before = termios.tcgetattr(table.slave)
        table.wait_for("game line", lambda: bool(table.lines()))
        assert table.lines()[0].startswith("game mex ")
        table.wait_for("keys in cbreak mode", lambda: not termios.tcgetattr(table.slave)[3] & termios.ICANON)
        table.press(b"t")       # the virtual tray throws the two Mex dice; once settled they are read and kept
        table.wait_for("roll", lambda: any(line.startswith("roll ") for line in table.lines()))
        table.press(b"s")       # STOP: Ann keeps her throw
        table.wait_for("stop", lambda: table.lines()[-1] == "stop")
        code, errors = table.stop(signal.SIGTERM)
        assert code == 0, errors
        assert "the game is saved in" in errors
        # The keyboard twin put the terminal in cbreak mode; closing the app gives it back as it was.
        assert termios.tcgetattr(table.slave)[3] == before[3]
    finally:
        table.close()


def test_a_power_cut_loses_nothing_and_the_restarted_table_carries_on(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    table = Table(journal)
    try:
        table.wait_for("game line", lambda: bool(table.lines()))
        table.press(b"t")
        table.wait_for("roll", lambda: any(line.startswith("roll ") for line in table.lines()))
        table.press(b"s")
        table.wait_for("stop", lambda: table.lines()[-1] == "stop")
        table.stop(signal.SIGKILL)      # no chance to close or flush anything
        kept = table.lines()
    finally:
        table.close()
    assert kept[0].startswith("game mex ") and kept[-1] == "stop"

    again = Table(journal)
    try:
        # The same game resumes (no new game line, nothing archived); the next player's throw is added to it.
        again.wait_for("keys in cbreak mode", lambda: not termios.tcgetattr(again.slave)[3] & termios.ICANON)
        again.press(b"t")
        again.wait_for("a second roll", lambda: sum(line.startswith("roll ") for line in again.lines()) >= 2)
        assert again.lines()[:len(kept)] == kept
        assert not list((journal / "games").iterdir())
        code, _ = again.stop(signal.SIGTERM)
        assert code == 0
    finally:
        again.close()


def test_without_a_terminal_it_runs_on_the_camera_alone_and_stops_on_sigterm(tmp_path: Path) -> None:
    """What systemd starts: no terminal, no keys; the photos are read (2 are needed for Mex, so they are
    refused with the count) and SIGTERM ends it with the journal intact."""
    table = Table(tmp_path / "journal", "--camera", "replay", str(PHOTOS), "-v", terminal=False)
    try:
        table.wait_for("game line", lambda: bool(table.lines()))
        time.sleep(1.0)
        code, errors = table.stop(signal.SIGTERM)
        assert code == 0, errors
        assert "running without buttons" in errors and "the game is saved in" in errors
        assert table.lines()[0].startswith("game mex ")
    finally:
        table.close()
