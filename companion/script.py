"""Recorded-game scripts: play a game on the camera and button twins, with no keyboard, through the real app.

    game mex players=Ann,Bob lives=3     # the first line: the game line of the table log
    tray photos/ann-63.png               # the camera sees this photo, dice at rest (path relative to the script)
    stop                                 # any table-log action word; the twin presses the buttons the UI needs
    empty                                # the tray is empty (or a hand is in it)
    press select | hold select           # a raw button press or hold
    count pips | place 3 | end-round | reroll | undo

Rolls come only from photos, through vision's motion tracker and reader, exactly as at the table. Errors name
the script line: `line N: ...` (the CLI exits 2). `dice-companion run --twin --script FILE [--json]` prints the
final state (the replay JSON) and leaves the game's table log in the journal directory.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.config import Config
from companion.controller import Controller, ControllerError
from companion.errors import DiceCompanionError
from companion.files import file_error_reason
from companion.journal import Journal
from companion.rules import Game, RuleError
from companion.rules.tablelog import parse_setup, strip_comment

BUTTONS = ("stop", "reroll", "select")
ACTION_WORDS = ("stop", "reroll", "end-round", "count", "place", "undo")
# Frames the camera sees per step: an empty tray before a new photo (the player picks the dice up), then the
# photo until the tracker has settled and read it (with a margin for a tracker that wants a longer still).
EMPTY_FRAMES = 3
MAX_STILL_FRAMES = 30


class ScriptError(DiceCompanionError):
    """A script line is unreadable or cannot be played; str() starts with `line N:` (line 0: the file itself, whose
    message names it and says no more of lines)."""

    def __init__(self, line_no: int, message: str) -> None:
        super().__init__(f"line {line_no}: {message}" if line_no else message)
        self.line_no = line_no


@dataclass(frozen=True)
class Step:
    line_no: int
    verb: str                 # tray | empty | press | hold | action
    argument: str = ""        # the photo path, the button, or the action words


@dataclass
class ScriptResult:
    game: Game
    controller: Controller
    display: Any
    journal: Journal
    steps: int
    reads: int
    log_path: Path
    notices: list[str] = field(default_factory=list)


def parse_script(text: str, base: Path) -> tuple[str, list[Step]]:
    """(the game line, the steps); a ScriptError names the first bad line."""
    game_line: str | None = None
    steps: list[Step] = []
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = strip_comment(raw)
        if not line:
            continue
        words = line.split()
        verb = words[0].lower()
        if game_line is None:
            if verb != "game":
                raise ScriptError(line_no, f"the first line must be the game line, like 'game mex players=Ann,Bob'; "
                                           f"got {line!r}")
            try:
                parse_setup(line)
            except RuleError as err:
                raise ScriptError(line_no, str(err)) from None
            game_line = line
            continue
        if verb == "tray":
            if len(words) != 2:
                raise ScriptError(line_no, "'tray' needs one photo path, like 'tray photos/63.png'")
            photo = (base / words[1]).resolve()
            if not photo.is_file():
                raise ScriptError(line_no, f"photo {words[1]} not found (looked at {photo}); paths are relative to "
                                           "the script")
            steps.append(Step(line_no, "tray", str(photo)))
        elif verb == "empty":
            if len(words) != 1:
                raise ScriptError(line_no, "'empty' takes nothing after it")
            steps.append(Step(line_no, "empty"))
        elif verb in ("press", "hold"):
            if len(words) != 2 or words[1].lower() not in BUTTONS:
                raise ScriptError(line_no, f"'{verb}' needs a button: {verb} stop|reroll|select")
            steps.append(Step(line_no, verb, words[1].lower()))
        elif verb == "roll":
            raise ScriptError(line_no, "rolls come from the camera in a script: use 'tray PHOTO' to show the dice")
        elif verb == "game":
            raise ScriptError(line_no, "a second game line; expected one game per script")
        elif verb in ACTION_WORDS:
            steps.append(Step(line_no, "action", " ".join(w.lower() for w in words)))
        else:
            raise ScriptError(line_no, f"unknown step {words[0]!r}; expected tray PHOTO, empty, press BUTTON, "
                                       "hold BUTTON, or a table-log word (stop, reroll, end-round, count pips, "
                                       "count mex, place N, undo)")
    if game_line is None:
        raise ScriptError(1, "the script is empty; expected a first line like 'game mex players=Ann,Bob'")
    return game_line, steps


def run_script(path: Path, *, journal_dir: Path, config: Config | None = None) -> ScriptResult:
    """Play the script at `path` on the twins; returns the final game and the devices for inspection."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScriptError(0, f"cannot read the script {path}: {file_error_reason(err)}") from err
    game_line, steps = parse_script(text, path.parent)
    return play(game_line, steps, journal_dir=journal_dir, config=config)


def play(game_line: str, steps: list[Step], *, journal_dir: Path, config: Config | None = None) -> ScriptResult:
    import cv2

    from companion.app import TrayWatcher
    from hardware.buttons import ButtonTwin
    from hardware.camera import StillCamera
    from hardware.display import DummyDisplay
    from hardware.signals import SignalTwin

    config = config or Config()
    journal = Journal(journal_dir)
    display = DummyDisplay()
    watcher = TrayWatcher(config)
    controller = Controller(journal, parse_setup(game_line), display=display, signals=SignalTwin(),
                            watcher=watcher)
    controller.start_new(parse_setup(game_line))
    camera = StillCamera()
    buttons = ButtonTwin(hold_seconds=config.buttons.hold_seconds, bounce_seconds=config.buttons.bounce_seconds)
    notices: list[str] = []
    try:
        _show_empty(camera, controller)  # the tray as the game starts: empty
        for step in steps:
            if step.verb == "tray":
                image = cv2.imread(step.argument, cv2.IMREAD_COLOR)
                if image is None:
                    raise ScriptError(step.line_no, f"{step.argument} is not an image OpenCV can read")
                if not camera.is_empty:
                    _show_empty(camera, controller)
                watcher.read_next_settle()      # a new throw by the script's word, whatever the photo shows
                camera.show(image)
                reads_before = watcher.reads
                for _ in range(MAX_STILL_FRAMES):
                    controller.on_frame(camera.read())
                    if watcher.reads > reads_before:
                        break
                else:
                    why = f" ({controller.notice})" if controller.notice else ""
                    raise ScriptError(step.line_no, f"the camera never settled on {Path(step.argument).name}{why}")
            elif step.verb == "empty":
                _show_empty(camera, controller)
            elif step.verb in ("press", "hold"):
                _push(buttons, controller, step.verb, step.argument)
            else:
                _act(buttons, controller, step)
            if controller.notice:
                notices.append(f"line {step.line_no}: {controller.notice}")
    finally:
        buttons.close()
    return ScriptResult(controller.game, controller, display, journal, len(steps), watcher.reads,
                        journal.current_path, notices)


def _show_empty(camera: Any, controller: Controller) -> None:
    camera.show_empty()
    for _ in range(EMPTY_FRAMES):
        controller.on_frame(camera.read())


def _push(buttons: Any, controller: Controller, kind: str, button: str) -> None:
    if kind == "press":
        buttons.press(button)
    else:
        buttons.hold(button)
    for event in buttons.drain():
        controller.on_button(event)


def _act(buttons: Any, controller: Controller, step: Step) -> None:
    """A table-log word: the presses the UI needs, then a check that the rules took exactly that event."""
    try:
        presses = controller.buttons_for(step.argument)
    except ControllerError as err:
        # Often the reason is a photo the camera refused a few lines up: say what the screen last said.
        seen = f" (the screen says: {controller.notice})" if controller.notice else ""
        raise ScriptError(step.line_no, f"{err}{seen}") from None
    journaled = len(controller.journal_lines)
    for press in presses:
        _push(buttons, controller, press.kind, press.button)
    new_lines = controller.journal_lines[journaled:]
    if step.argument not in new_lines:
        why = controller.notice or "the screen shows no reason"
        raise ScriptError(step.line_no, f"{step.argument!r} was not taken ({why})")


def print_result(result: ScriptResult, *, as_json: bool) -> None:
    from companion.replay import summary

    if as_json:
        print(json.dumps(result.game.to_json()))
    else:
        print(summary(result.game))
    print(f"table log: {result.log_path}  ({result.steps} steps, {result.reads} tray reads)", file=sys.stderr)
    for notice in result.notices:
        print(f"  {notice}", file=sys.stderr)
