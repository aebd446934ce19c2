"""The turn controller: the one place that knows both the hardware seams and the rules.

Camera reads and button events come in through method calls (`on_frame`, `on_reading`, `on_button`, `tick`),
so tests and scripts drive it without threads. Every rules event follows the same order:

    evaluate  game.apply(event)            pure; a RuleError changes nothing
    record    journal.append(line)          fsync'd; if the disk fails the event is not taken
    show      screen -> display             a failing display is logged, never loses the event
    signal    buzzer / LED                  likewise

The players are asked only what the rules need: Mex STOP keeps, REROLL throws again, hold STOP ends the round
(when legal); a tie-break chooser toggles pips/mex with SELECT and confirms with STOP; in Excape/Rapido SELECT
cycles the legal spaces (the board previews what each would eject), STOP places, REROLL throws again.
Long-press SELECT opens the menu: undo (as many steps as wanted), correct the last read, new game (confirmed by
a hold), game, players and lives/goal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from companion import screens
from companion.errors import DiceCompanionError
from companion.journal import Journal
from companion.rules import (
    Count,
    EndRound,
    Event,
    Game,
    GameSetup,
    Place,
    Reroll,
    Roll,
    RuleError,
    Stop,
    Undo,
    format_event,
    format_setup,
    parse_log,
)
from companion.rules.excape import ExcapeState
from companion.rules.mex import MexState
from companion.rules.setup import PLAYER_COUNTS
from companion.rules.values import (
    EXCAPE_FACES,
    MEX_FACES,
    excape_display,
    excape_pair_value,
    mex_display,
    mex_value,
)

log = logging.getLogger("companion.controller")

# Seconds a result message (a round lost, an X bust, a placement) stays up unless a button or a throw comes first.
MESSAGE_SECONDS = 4.0
# Said when the live camera gives no picture (on_camera): what the players can do about it, and how the game goes on.
CAMERA_LOST = "no picture from the camera: check its cable. Throws by hand: hold SELECT, Correct read"
# Throws refused in a row for the same fault of the picture (not of the throw: a cocked or stacked die is the
# players' to throw again) before the players are told what to mend, and how to go on meanwhile. "Roll again" said a
# third time about a camera out of focus or a tray in the dark helps nobody.
REPEATED_REFUSALS = 3
REFUSAL_REMEDIES = {
    "blurred": "throws blurred: focus the camera, light the tray",
    "unclear": "throws unreadable: light the tray evenly",
    "missed": "throws short of dice: throw inside the tray",
    "rim": "throws by the rim: tray moved? Menu: Find the tray",
}
# Names for players added from the menu beyond the configured ones.
SPARE_NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon")
LIVES_CHOICES = (3, 6, 9, 12, 15, 20)
GOAL_CHOICES = (11, 15, 21, 25, 31)
MAX_MEX_PLAYERS = 8
NOTICE_CHARS = screens.WIDTH // screens.glyph_size("small")[0]  # what fits on the bottom line
FACES_BY_GAME = {"mex": MEX_FACES, "excape": EXCAPE_FACES}


class ControllerError(DiceCompanionError):
    """A scripted action cannot be turned into button presses now (the message says what is expected)."""


class ButtonLike(Protocol):
    button: str
    kind: str


@dataclass(frozen=True)
class Press:
    """A button action the twin performs: kind "press" or "hold" of button "stop" | "reroll" | "select"."""

    button: str
    kind: str = "press"


@dataclass(frozen=True)
class TrayDie:
    face: str
    sure: bool
    reason: str | None = None


@dataclass(frozen=True)
class NotAThrow:
    """A settled tray the watcher read but does not count as a throw, and what the players are told."""

    why: str
    short: str                        # the bottom line's version
    title: str = "Not counted"


@dataclass(frozen=True)
class CameraAdvice:
    """What the players should mend about the camera, as the throws read show it (the watcher's camera_advice)."""

    why: str
    short: str                        # the bottom line's version
    title: str = "Camera"


@dataclass(frozen=True)
class FoundTray:
    """The tray the watcher found in the camera's view (the menu's "Find the tray"): its region in the frame, and
    the view made small for the screen, with the region in its pixels."""

    region: tuple[int, int, int, int]
    frame_size: tuple[int, int]
    picture: Any                                 # a grey PIL image, at most screens.TRAY_PICTURE
    picture_region: tuple[int, int, int, int]

    @property
    def share(self) -> float:
        """The share of the camera's view the tray takes."""
        return self.region[2] * self.region[3] / (self.frame_size[0] * self.frame_size[1])


@dataclass(frozen=True)
class TrayRead:
    """What the camera made of one settled tray (the subset of vision's TrayReading the controller needs)."""

    status: str                       # "ok" | "reroll"
    reason: str | None
    dice: tuple[TrayDie, ...]

    @classmethod
    def from_reading(cls, reading: Any) -> TrayRead:
        return cls(reading.status, reading.reason,
                   tuple(TrayDie(d.face, bool(d.sure), getattr(d, "reason", None)) for d in reading.dice))


class Controller:
    """Joins reads, buttons and rules; owns the game, the journal and what the display shows."""

    def __init__(self, journal: Journal, setup: GameSetup, *, display: Any = None, signals: Any = None,
                 watcher: Callable[[Any, str], tuple[str, Any]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`setup`: the game a fresh start (or the menu's new game) uses. `watcher(frame, game_kind)` returns
        (motion state, a TrayReading or None): vision's motion tracker + reader behind one call."""
        self.journal = journal
        self.display = display
        self.signals = signals
        self.watcher = watcher
        self.clock = clock
        self.next_setup = setup
        self.game = Game.new(setup)
        self.mode = "play"               # play | menu | correct | confirm_new | confirm_tray
        self.notice: str | None = None   # the bottom line, inverted: why a read was refused, what was undone...
        self.message: screens.MessageView | None = None
        self.message_until = 0.0
        self.pending_roll: tuple[str, str] | None = None  # a throw seen while a button was awaited
        self.last_unsure: tuple[str, str] | None = None   # best guess of the last refused read (for correcting)
        self.cursor_space: int | None = None               # Excape: the space SELECT points at
        self.count_choice = "mex"                          # Mex tie-break: what SELECT toggled to
        self.menu_index = 0
        self.correct_faces: tuple[str, str] = ("1", "1")
        self.correct_die = 0
        self.correct_replaces = False      # True: the correction replaces the last roll (undo + roll)
        self.found_tray: FoundTray | None = None   # the tray found, awaiting STOP (keep) or REROLL
        self.motion = "empty"
        self._camera_fault: str | None = None   # the watcher's fault while it lasts (said once)
        self._camera_lost = False               # the camera gives no picture (on_camera)
        self._refused: list[str | None] = []    # the picture's fault in each throw refused since the last roll
        self.journal_lines: list[str] = []  # every line journaled since start (tests and scripts check them)
        self.last_screen: screens.Rendered | None = None
        self.display_failures = 0

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Resume the journal's game in progress, or begin a new game with the configured setup."""
        text = self.journal.load_current()
        if text is not None:
            try:
                setup, events = parse_log(text)
                game = Game.replay(setup, events)
            except DiceCompanionError as err:
                archived = self.journal.finish()
                log.error("cannot resume the journal (%s); archived it as %s and started a new game", err, archived)
                self._begin(self.next_setup)
                self._flash("Journal unreadable", (f"archived as {archived.name if archived else '?'}",
                                                   "new game started"))
                return
            self.game = game
            self.next_setup = setup
            self._reset_turn_ui()
            log.info("resumed %s after %d events", setup.game, len(events))
            self._flash("Resumed", (f"{setup.game} with {len(setup.players)} players", self._expect_text()))
            return
        self._begin(self.next_setup)

    def start_new(self, setup: GameSetup) -> None:
        """Begin a new game now (archives any unfinished one): scripts and the menu's confirmed new game."""
        self.next_setup = setup
        self._begin(setup)

    def _begin(self, setup: GameSetup) -> None:
        game = Game.new(setup)                      # evaluate
        self.journal.start(format_setup(setup))     # record
        self.journal_lines.append(format_setup(setup))
        self.game = game
        self.mode = "play"
        self._reset_turn_ui()
        self.message = None
        self._refresh()                             # show
        self._signal("new_game")

    # ------------------------------------------------------------------ inputs

    def on_frame(self, frame: Any) -> None:
        """One camera frame: the watcher says whether the tray moves and, once per settle, what it read."""
        if self.watcher is None or frame is None:
            return
        try:
            motion, reading = self.watcher(frame, self.game.setup.game)
        except DiceCompanionError as err:
            # A camera or reader fault (a bad frame, a missing model) must not stop the referee: say it, go on. Said
            # and logged once while it lasts: a fault of every frame would log thirty lines a second.
            if str(err) != self._camera_fault:
                self._camera_fault = str(err)
                log.error("cannot read the tray: %s", err)
                self._say(f"camera: {err}", "Camera")
                self._refresh()
            return
        self._camera_fault = None
        if motion != self.motion:
            self.motion = motion
            if motion == "rolling" and self.mode == "play" and self.game.expects().kind == "roll":
                self.notice = None
                self._refresh()
        if reading is not None:
            self.on_reading(reading)
            self._advise()

    def _advise(self) -> None:
        """Say the watcher's advice about the camera, if it has any, after the throw it came with is counted: in
        play, when no message is up (a round's result is not hidden by it; the advice waits for the next throw)."""
        if self.mode != "play" or self.message is not None or not hasattr(self.watcher, "camera_advice"):
            return
        advice = self.watcher.camera_advice()
        if advice is None:
            return
        log.info("camera advice: %s", advice.why)
        self._say(advice.why, advice.title, short=advice.short)
        self._refresh()

    def on_camera(self, fault: str | None) -> None:
        """What the camera's watch says of it every loop (hardware.camera_watch.WatchedCamera.fault: why it gives no
        picture, logged there in full): said once while it lasts, with how to go on meanwhile, and its end."""
        lost = fault is not None
        if lost == self._camera_lost:
            return
        self._camera_lost = lost
        if lost:
            self._say(CAMERA_LOST, "Camera", short="camera: no picture")
        else:
            self.notice = "camera back"
        self._refresh()

    def on_reading(self, reading: Any) -> None:
        """A settled tray's reading (vision TrayReading or TrayRead): a roll when it is sure of two dice. NotAThrow:
        only said."""
        if isinstance(reading, NotAThrow):
            self._say(reading.why, reading.title, short=reading.short)
            self._refresh()
            return
        read = reading if isinstance(reading, TrayRead) else TrayRead.from_reading(reading)
        if not read.dice:
            return  # an empty tray came to rest: nothing was thrown
        refusal = self._refusal(read)
        if refusal is not None:
            self.last_unsure = tuple((d.face if d.face in FACES_BY_GAME["excape"] else "1") for d in read.dice[:2]) \
                if len(read.dice) == 2 else None  # type: ignore[assignment]
            self._refused.append(_picture_fault(read))
            remedy = self._remedy()
            if remedy is None:
                self._say(f"re-roll: {refusal}", "Re-roll")
            else:
                self._say(f"{len(self._refused)} {remedy}. By hand: hold SELECT, Correct read", "Camera unsure",
                          short=f"re-roll: {refusal}")
            log.info("read refused: %s", refusal)
            self._refresh()
            self._signal("reroll")
            return
        faces = _high_first((read.dice[0].face, read.dice[1].face))
        try:
            Roll(faces)  # a face no die of any game has (a taught model's label) is no roll
        except RuleError as err:
            self._say(f"re-roll: {_short_reason(str(err))}", "Re-roll")
            self._refresh()
            return
        self.last_unsure = None
        self._refused = []
        self.message = None
        if self.mode != "play":
            self.pending_roll = faces
            self.notice = "throw seen: leave the menu"
            self._refresh()
            return
        expected = self.game.expects()
        if expected.kind == "roll":
            self._apply(Roll(faces), refusal_prefix="re-roll: ")
        elif expected.kind == "choice":
            self.pending_roll = faces
            self.notice = ("throw seen: press REROLL" if "reroll" in expected.actions
                           else "no throws left: press STOP")
            self._refresh()
        elif expected.kind == "count":
            self.notice = "first choose the count"
            self._refresh()

    def _refusal(self, read: TrayRead) -> str | None:
        """Why this read cannot be a roll, said short enough for the bottom line; None when it can."""
        if len(read.dice) != 2:
            count = len(read.dice)
            return f"{count} {'die' if count == 1 else 'dice'}, not 2"
        for number, die in enumerate(read.dice, start=1):
            if not die.sure:
                return f"die {number} is {die.reason or 'unclear'}"
        if read.status != "ok":
            return read.reason or "the camera is unsure"
        return None

    def _remedy(self) -> str | None:
        """What to mend, when the last REPEATED_REFUSALS throws (and every REPEATED_REFUSALS more) were refused for
        the same fault of the picture."""
        faults = self._refused[-REPEATED_REFUSALS:]
        if len(self._refused) % REPEATED_REFUSALS or len(set(faults)) != 1 or faults[0] is None:
            return None
        return REFUSAL_REMEDIES[faults[0]]

    def on_button(self, event: ButtonLike) -> None:
        """One button event (press or hold) from the queue."""
        button, kind = event.button, event.kind
        had_message = self.message is not None
        self.message = None
        if self.mode == "menu":
            self._menu_button(button, kind)
        elif self.mode == "correct":
            self._correct_button(button, kind)
        elif self.mode == "confirm_new":
            self._confirm_button(button, kind)
        elif self.mode == "confirm_tray":
            self._tray_button(button)
        elif button == "select" and kind == "hold":
            self._open_menu()
        else:
            self._play_button(button, kind, had_message)
        self._refresh()

    def tick(self) -> None:
        """Time passes: a result message times out."""
        if self.message is not None and self.clock() >= self.message_until:
            self.message = None
            self._refresh()

    # ------------------------------------------------------------------ play

    def _play_button(self, button: str, kind: str, had_message: bool) -> None:
        expected = self.game.expects()
        state = self.game.state
        if expected.kind == "over":
            if button == "stop" and kind == "hold":
                self._begin(self.next_setup)
            elif not had_message:
                self.notice = "hold STOP: new game"
            return
        if expected.kind == "roll":
            if not had_message:
                self.notice = "throw the dice"
            return
        if expected.kind == "count":
            if button == "select":
                self.count_choice = "pips" if self.count_choice == "mex" else "mex"
            elif button == "stop":
                self._apply(Count(self.count_choice))  # type: ignore[arg-type]
            return
        # a throw waits for a button
        if isinstance(state, MexState):
            if button == "stop" and kind == "hold":
                self._apply(EndRound())  # when not allowed, the rules' reason is shown
            elif button == "stop":
                self._apply(Stop())
            elif button == "reroll":
                self._reroll(expected.actions)
            else:
                self.notice = "STOP keeps, REROLL again"
            return
        if button == "select":
            spaces = self._space_cycle()
            if spaces:
                here = spaces.index(self.cursor_space) if self.cursor_space in spaces else -1
                self.cursor_space = spaces[(here + 1) % len(spaces)]
        elif button == "stop":
            if self.cursor_space is None:
                self.notice = "no free space: REROLL"
            else:
                self._apply(Place(self.cursor_space))
        elif button == "reroll":
            self._reroll(expected.actions)

    def _reroll(self, actions: frozenset[str]) -> None:
        if "reroll" not in actions:
            self.notice = "no throws left: STOP"
            return
        pending = self.pending_roll
        if self._apply(Reroll()) and pending is not None:
            # The player threw before pressing REROLL: that throw is the one the rules now wait for.
            self._apply(Roll(pending), refusal_prefix="re-roll: ")

    def _space_cycle(self) -> list[int]:
        """Legal spaces in the order SELECT visits them: highest first (the biggest advance)."""
        return sorted(self.game.legal_spaces(), reverse=True)

    # ------------------------------------------------------------------ the one way an event is taken

    def _apply(self, event: Event, *, refusal_prefix: str = "") -> bool:
        """Evaluate, record, show, signal. Returns whether the event was taken."""
        try:
            game = self.game.apply(event)                       # evaluate (pure)
        except RuleError as err:
            short = f"re-roll: {event.faces[0]} {event.faces[1]} impossible" if isinstance(event, Roll) else None
            self._say(refusal_prefix + _short_reason(str(err)), "Re-roll" if refusal_prefix else "Not now", short)
            log.info("refused %s: %s", format_event(event), err)
            self._refresh()
            return False
        line = format_event(event)
        try:
            self.journal.append(line)                           # record (fsync'd)
        except (DiceCompanionError, OSError) as err:
            log.error("journal write failed, %s not taken: %s", line, err)
            self.notice = "journal error: not saved"
            self._refresh()
            return False
        self.journal_lines.append(line)
        before = self.game
        self.game = game
        self._after_event(before, event)
        self._refresh()                                         # show
        self._signal(_signal_for(game, event))                  # signal
        return True

    def _after_event(self, before: Game, event: Event) -> None:
        self.pending_roll = None
        self.notice = None
        self._reset_turn_ui()
        turn_passed = before.expects().actor != self.game.expects().actor
        view = _result_message(self.game, event, turn_passed)
        codes = {note.code: note.text for note in self.game.last_notes}
        if view is not None:
            self.message = view
            self.message_until = self.clock() + MESSAGE_SECONDS
        elif "double" in codes:
            self.notice = codes["double"].replace("'s pawn ", " ").replace(" (now on ", ": on ").rstrip(")")
        elif isinstance(event, Undo):
            self.notice = _short_reason(self.game.last_notes[0].text) if self.game.last_notes else "undone"

    def _reset_turn_ui(self) -> None:
        self.cursor_space = None
        if isinstance(self.game.state, ExcapeState) and self.game.expects().kind == "choice":
            spaces = self._space_cycle()
            self.cursor_space = spaces[0] if spaces else None
        self.count_choice = "mex"

    # ------------------------------------------------------------------ menu

    def menu_items(self) -> list[tuple[str, str]]:
        """(action, label) of each menu line, labels showing the current values."""
        setup = self.next_setup
        events = self.game.events
        undo_label = f"Undo {format_event(events[-1])}" if events else "Undo (nothing)"
        items = [("undo", undo_label), ("correct", "Correct read"), ("new", "New game"),
                 ("game", f"Game: {setup.game.capitalize()}"), ("players", f"Players: {len(setup.players)}")]
        if setup.game == "mex":
            items.append(("lives", f"Lives: {setup.option('lives')}"))
        else:
            items.append(("goal", f"Goal: {setup.option('goal')}"))
        if hasattr(self.watcher, "find_tray"):
            items.append(("tray", "Find the tray"))
        items.append(("back", "Back to game"))
        return items

    def _open_menu(self) -> None:
        self.mode = "menu"
        self.menu_index = 0
        self.notice = None

    def _close_menu(self) -> None:
        self.mode = "play"
        self.notice = None
        if self.pending_roll is not None and self.game.expects().kind == "roll":
            faces, self.pending_roll = self.pending_roll, None
            self._apply(Roll(faces), refusal_prefix="re-roll: ")

    def _menu_button(self, button: str, kind: str) -> None:
        items = self.menu_items()
        if button == "select" and kind == "press":
            self.menu_index = (self.menu_index + 1) % len(items)
            self.notice = None
            return
        if button == "reroll" or (button == "select" and kind == "hold"):
            self._close_menu()
            return
        if button != "stop":
            return
        action = items[self.menu_index][0]
        if action == "undo":
            if not self.game.events:
                self.notice = "nothing to undo"
            else:
                self._apply(Undo())
                self.message = None  # stay in the menu: each STOP undoes one more step
                self.notice = _short_reason(self.game.last_notes[0].text) if self.game.last_notes else "undone"
        elif action == "correct":
            self._open_correct()
        elif action == "new":
            self.mode = "confirm_new"
        elif action == "game":
            self._cycle_game()
        elif action == "players":
            self._cycle_players()
        elif action in ("lives", "goal"):
            self._cycle_option(action, LIVES_CHOICES if action == "lives" else GOAL_CHOICES)
        elif action == "tray":
            self._find_tray()
        elif action == "back":
            self._close_menu()
        if action in ("game", "players", "lives", "goal"):
            self.notice = "New game to use it"

    def _find_tray(self) -> None:
        """Look for the tray in the camera's view (the camera or the tray moved since it was calibrated): what is found
        is shown, to be kept or not; the reason is said when nothing is."""
        try:
            self.found_tray = self.watcher.find_tray()  # type: ignore[union-attr]
        except DiceCompanionError as err:
            log.warning("no tray found: %s", err)
            self._say(str(err), "No tray found", short="no tray found")
            return
        self.mode = "confirm_tray"

    def _tray_button(self, button: str) -> None:
        found, self.found_tray = self.found_tray, None
        self.mode = "menu"
        if button != "stop" or found is None:
            self.notice = "tray as it was"
            return
        try:
            self.watcher.use_tray(found)  # type: ignore[union-attr]
        except DiceCompanionError as err:   # used from now on, but not saved for the next start
            log.error("the tray found is not saved: %s", err)
            self._say(str(err), "Not saved", short="tray not saved")
            return
        self.notice = "tray kept"

    def _cycle_game(self) -> None:
        order = ("mex", "excape", "rapido")
        game = order[(order.index(self.next_setup.game) + 1) % len(order)]
        low, high = PLAYER_COUNTS[game]
        count = min(max(len(self.next_setup.players), low), high if high is not None else MAX_MEX_PLAYERS)
        self.next_setup = GameSetup(game, _player_names(self.next_setup.players, count))

    def _cycle_players(self) -> None:
        low, high = PLAYER_COUNTS[self.next_setup.game]
        high = MAX_MEX_PLAYERS if high is None else high
        count = len(self.next_setup.players) + 1
        if count > high:
            count = low
        self.next_setup = GameSetup(self.next_setup.game, _player_names(self.next_setup.players, count),
                                    self.next_setup.changed_options())

    def _cycle_option(self, name: str, choices: Sequence[int]) -> None:
        current = self.next_setup.option(name)
        bigger = [value for value in choices if value > current]
        value = bigger[0] if bigger else choices[0]
        options = {**self.next_setup.changed_options(), name: value}
        self.next_setup = GameSetup(self.next_setup.game, self.next_setup.players, options)

    def _confirm_button(self, button: str, kind: str) -> None:
        if button == "stop" and kind == "hold":
            self._begin(self.next_setup)
        else:
            self.mode = "menu"
            self.notice = "new game cancelled"

    # ------------------------------------------------------------------ correcting a read

    def _open_correct(self) -> None:
        events = self.game.events
        if events and isinstance(events[-1], Roll):
            self.correct_faces = events[-1].faces
            self.correct_replaces = True
        elif self.game.expects().kind == "roll":
            self.correct_faces = self.last_unsure or ("1", "1")
            self.correct_replaces = False
        else:
            self.notice = "last event is no roll"
            return
        self.correct_die = 0
        self.mode = "correct"
        self.notice = None

    def _correct_button(self, button: str, kind: str) -> None:
        if kind == "hold":
            self.mode = "menu"
            return
        if button == "select":
            self.correct_die = 1 - self.correct_die
        elif button == "reroll":
            faces = FACES_BY_GAME["mex" if self.game.setup.game == "mex" else "excape"]
            current = self.correct_faces[self.correct_die]
            following = faces[(faces.index(current) + 1) % len(faces)] if current in faces else faces[0]
            updated = list(self.correct_faces)
            updated[self.correct_die] = following
            self.correct_faces = (updated[0], updated[1])
        elif button == "stop":
            self._apply_correction()

    def _apply_correction(self) -> None:
        roll = Roll(_high_first(self.correct_faces))
        try:  # evaluate both steps before recording either, so a bad correction changes nothing
            base = self.game.apply(Undo()) if self.correct_replaces else self.game
            base.apply(roll)
        except RuleError as err:
            self.notice = _short_reason(str(err))
            return
        if self.correct_replaces and not self._apply(Undo()):
            return
        if self._apply(roll):
            self.mode = "play"
            self.last_unsure = None
            self._refused = []

    # ------------------------------------------------------------------ scripted actions

    def buttons_for(self, action: str) -> list[Press]:
        """The button presses this UI needs for a table-log action word ("stop", "place 3", "undo", ...)."""
        words = action.lower().split()
        if not words:
            raise ControllerError("an empty action; expected a table-log word such as stop or place 3")
        presses: list[Press] = []
        if self.mode != "play":
            presses.append(Press("reroll"))  # leave the menu / correction first (REROLL is "back")
            if self.mode == "confirm_tray":
                presses.insert(0, Press("reroll"))
            if self.mode == "correct":
                presses.insert(0, Press("select", "hold"))
        expected = self.game.expects()
        verb = words[0]
        if verb == "undo":
            items = [key for key, _ in self.menu_items()]
            return [*presses, Press("select", "hold"), *[Press("select")] * items.index("undo"), Press("stop"),
                    Press("reroll")]
        if verb == "roll":
            raise ControllerError("rolls come from the camera: use 'tray IMAGE' to show the dice")
        legal = " or ".join(sorted(expected.actions)) or "nothing (the game is over)"
        if action.strip().lower() not in expected.actions and verb not in ("place",):
            raise ControllerError(f"{action!r} is not possible now; the rules expect {legal} "
                                  f"from {expected.actor or 'nobody'}")
        if verb == "stop":
            return [*presses, Press("stop")]
        if verb == "reroll":
            return [*presses, Press("reroll")]
        if verb == "end-round":
            return [*presses, Press("stop", "hold")]
        if verb == "count":
            mode = words[1] if len(words) == 2 else ""
            toggles = [] if mode == self.count_choice else [Press("select")]
            return [*presses, *toggles, Press("stop")]
        if verb == "place":
            if len(words) != 2 or not words[1].isdigit():
                raise ControllerError("'place' needs one space number 0-5, like 'place 3'")
            space = int(words[1])
            spaces = self._space_cycle()
            if space not in spaces:
                raise ControllerError(f"place {space} is not possible now; the rules expect {legal} "
                                      f"from {expected.actor or 'nobody'}")
            start = spaces.index(self.cursor_space) if self.cursor_space in spaces else -1
            steps = (spaces.index(space) - start) % len(spaces)
            return [*presses, *[Press("select")] * steps, Press("stop")]
        raise ControllerError(f"unknown action {action!r}; expected stop, reroll, end-round, count pips, "
                              "count mex, place N or undo")

    # ------------------------------------------------------------------ screens

    def view(self) -> screens.View:
        """The view model of what the display should show now."""
        if self.mode == "menu":
            labels = tuple(label for _, label in self.menu_items())
            return screens.MenuView("Menu", labels, self.menu_index, notice=self.notice)
        if self.mode == "confirm_new":
            setup = self.next_setup
            what = f"{setup.game.capitalize()}: {', '.join(setup.players)}"
            return screens.MessageView("New game?", (what, "hold STOP: start"), footer="other button: cancel",
                                       big_title=True)
        if self.mode == "confirm_tray" and self.found_tray is not None:
            found = self.found_tray
            return screens.TrayView(found.picture, found.picture_region, (f"{found.share:.0%} of", "the view"))
        if self.mode == "correct":
            value = _value_text(self.game.setup.game, self.correct_faces)
            return screens.CorrectView(self.correct_faces, self.correct_die, value,
                                       footer=self.notice or "SEL die RER face STOP ok")
        if self.message is not None:
            return self.message
        return self._play_view()

    def _play_view(self) -> screens.View:
        game = self.game
        expected = game.expects()
        state = game.state
        if expected.kind == "over":
            return _winner_view(game)
        if isinstance(state, MexState):
            if expected.kind == "count":
                tied = tuple(state.name(seat) for seat in state.tied)
                return screens.CountChoiceView(expected.actor or "?", tied, self.count_choice)
            return self._mex_view(state, expected)
        return self._board_view(state, expected)

    def _mex_view(self, state: MexState, expected: Any) -> screens.MexTurnView:
        actor = state.actor
        seats = tuple(screens.MexSeat(name, state.lives[seat], state.points[seat], state.lives[seat] <= 0,
                                      seat == actor) for seat, name in enumerate(state.players))
        faces = state.current
        value = None
        if faces is not None:
            value = mex_display(mex_value(faces))
        tie_break = state.phase == "extra"
        throws_left = None if tie_break else self.game.throws_left()
        if expected.kind == "choice":
            can_reroll, can_end = "reroll" in expected.actions, "end-round" in expected.actions
            prompt = {(True, False): "STOP keep  REROLL again", (True, True): "STOP/REROLL hold STOP=end",
                      (False, True): "STOP keep  hold STOP=end", (False, False): "STOP: keep it"}[(can_reroll, can_end)]
        elif tie_break:
            prompt = f"tie-break, count {state.count_mode}"
        else:
            prompt = "throw the dice"
        return screens.MexTurnView(expected.actor or "?", state.round, seats, faces, value, throws_left,
                                   state.limit, tie_break, prompt, self._notice_or_motion())

    def _board_view(self, state: ExcapeState, expected: Any) -> screens.BoardTurnView:
        actor = state.actor
        pawns = tuple(screens.Pawn(name, state.positions[seat], seat == actor)
                      for seat, name in enumerate(state.players))
        ejected = set(self.game.ejections_if_placed(self.cursor_space)) if self.cursor_space is not None else set()
        pairs = [screens.BoardPair(p.space, p.player, p.value, ejected=p in ejected) for p in state.board]
        preview = ""
        if expected.kind == "choice" and self.cursor_space is not None and state.current_value is not None:
            pairs.append(screens.BoardPair(self.cursor_space, expected.actor or "?", state.current_value, new=True))
            names = " ".join(f"{p.player}{excape_display(p.value)}" for p in sorted(ejected, key=lambda p: p.space))
            preview = f"ejects {names}" if names else "ejects none"
        elif expected.kind == "roll" and state.rolls > 0:
            preview = f"{expected.actor} again"
        value = None if state.current_value is None else excape_display(state.current_value)
        if expected.kind == "choice":
            prompt = "SEL space STOP place RER" if self.cursor_space is not None else "no free space: REROLL"
        else:
            prompt = "throw the dice"
        return screens.BoardTurnView(state.setup.game, expected.actor or "?", state.goal, pawns, tuple(pairs),
                                     state.current, value, self.cursor_space, preview, prompt,
                                     self._notice_or_motion())

    def _notice_or_motion(self) -> str | None:
        if self.notice:
            return self.notice
        if self.motion == "rolling" and self.game.expects().kind == "roll":
            return "rolling..."
        return None

    def _say(self, text: str, title: str = "Not now", short: str | None = None) -> None:
        """Put `text` on the bottom line; one too long for it is shown in full on a message screen, and the
        bottom line keeps `short` (or as much of `text` as fits) once the message goes."""
        self.notice = short if short and len(text) > NOTICE_CHARS else text
        if len(text) > NOTICE_CHARS:
            self.message = screens.MessageView(title, (text,), footer="any button: continue")
            self.message_until = self.clock() + MESSAGE_SECONDS

    def _expect_text(self) -> str:
        expected = self.game.expects()
        if expected.kind == "over":
            return f"{self.game.winner} won"
        return _next_hint(self.game)

    def _flash(self, title: str, lines: tuple[str, ...]) -> None:
        self.message = screens.MessageView(title, lines, footer="any button: continue")
        self.message_until = self.clock() + MESSAGE_SECONDS
        self._refresh()

    def _refresh(self) -> None:
        """Render the current view and show it; a display failure is logged and never stops the game."""
        try:
            rendered = screens.render(self.view())
        except Exception:  # a drawing bug must not lose a roll that is already journaled
            log.exception("cannot draw the screen")
            return
        if self.last_screen is not None and rendered.image.tobytes() == self.last_screen.image.tobytes():
            self.last_screen = rendered
            return
        self.last_screen = rendered
        if self.display is None:
            return
        try:
            self.display.show(rendered.image)
        except Exception as err:  # any display failure: log it, keep refereeing
            self.display_failures += 1
            log.error("display failed: %s", err)

    def _signal(self, name: str | None) -> None:
        if self.signals is None or name is None:
            return
        try:
            self.signals.signal(name)
        except Exception as err:  # a dead buzzer must never stop the game
            log.error("signal %s failed: %s", name, err)


# ---------------------------------------------------------------------- helpers


def _player_names(current: Sequence[str], count: int) -> tuple[str, ...]:
    names = list(current[:count])
    for spare in SPARE_NAMES:
        if len(names) >= count:
            break
        if spare not in names:
            names.append(spare)
    while len(names) < count:
        names.append(f"P{len(names) + 1}")
    return tuple(names)


def _high_first(faces: tuple[str, str]) -> tuple[str, str]:
    """The higher face first (X counts 0), so the journal reads like the throw's value: roll 6 3, roll 7 X."""
    def rank(face: str) -> int:
        return int(face) if face.isdigit() else 0
    high, low = sorted(faces, key=rank, reverse=True)
    return high, low


def _picture_fault(read: TrayRead) -> str | None:
    """The fault of the picture a refused read shows (a REFUSAL_REMEDIES key), or None for one of the throw (a die
    cocked, stacked, cut by the frame's edge, or of another game) or of none."""
    if len(read.dice) < 2:
        return "missed"
    reasons = {die.reason or "unclear" for die in read.dice if not die.sure}
    if reasons & {"on the tray's rim", "outside the tray"}:
        return "rim"
    if reasons == {"blurred"}:
        return "blurred"
    if reasons == {"unclear"}:
        return "unclear"
    return None


def _short_reason(text: str) -> str:
    """A rules message cut to what matters to the players: the reason, without what the log format expects."""
    reason = text.split("; expected")[0]
    _, sep, tail = reason.partition(" is impossible: ")
    return tail if sep and len(reason) > NOTICE_CHARS else reason


def _value_text(game: str, faces: tuple[str, str]) -> str | None:
    try:
        if game == "mex":
            return mex_display(mex_value(faces))
        return excape_display(excape_pair_value(faces))
    except RuleError:
        return "??"


_TITLE_BY_CODE = ("win", "lose", "tie", "mexx", "x_penalty", "eject", "end_round", "place", "stop", "advance",
                  "double")


def _result_message(game: Game, event: Event, turn_passed: bool) -> screens.MessageView | None:
    """A result worth a message screen: a turn or round ended, a tie began, an X bust, a double."""
    notes = {note.code: note for note in game.last_notes}
    if isinstance(event, Undo) or game.over:
        return None  # the winner screen is the game-over view itself
    if not turn_passed and not notes.keys() & {"lose", "mexx", "x_penalty", "win", "end_round"}:
        return None  # the same player goes on: a double or a tie is said on the turn or tie-break screen itself
    title = ""
    for code in _TITLE_BY_CODE:
        if code in notes:
            title = _title(code, notes[code].text, game)
            break
    if not title:
        title = "Next"
    lines = tuple(line for note in game.last_notes if (line := _compact(note.code, note.text, game)))
    return screens.MessageView(title, lines, footer=_next_hint(game))


# Notes the message leaves out: the throw is on the screen already, the next turn is the footer.
_QUIET_CODES = {"turn", "throw", "round", "start", "reroll"}


def _compact(code: str, text: str, game: Game) -> str:
    """A note shortened for a 21-25 character line (the full text is in the journal's replay and the log)."""
    if code in _QUIET_CODES:
        return ""
    if code == "lose":
        reason = text.split(": ", 1)[-1]
        return reason.replace(" this round", "").replace(", no Mexx", "")
    if code == "points":
        return text.removeprefix("points: ").replace(",", "")
    if code == "place":
        return text.replace(" places ", ": ").replace(" on space ", " on ")
    if code == "eject":
        words = text.split(" ejects ", 1)[-1]                       # "Bob's 41 from space 4"
        return words.split(" from ")[0] + " ejected"
    if code == "advance":
        name = text.split("'s pawn")[0]
        steps = text.split("+", 1)[-1].split(" ")[0]
        return f"{name} +{steps}, now on {text.rsplit(' ', 1)[-1]}"
    if code == "x_penalty":
        name = text.split("! ", 1)[-1].split("'s turn ends")[0]
        back = text.split("pawn back ", 1)[-1].split(" ")[0]
        if "moved back 0" in text:
            return f"{name}: back {back}, already at 0"
        if "stops at 0" in text:
            return f"{name}: back {back}, stops at 0"
        return f"{name}: back {back}"
    if code == "stays":
        return text.split(" stays")[0] + " stays"
    if code == "limit":
        return text.replace("the others may throw", "others:")
    if code == "end_round":
        # "Cid ends the round early on 500; Ann does not throw and survives": with the round's result below it, the
        # long form took the screen's last line (the points).
        return (text.replace(" the round early on ", " early on ").replace(" does not throw and survives", " survives")
                .replace(" do not throw and survive", " survive"))
    return text


def _title(code: str, text: str, game: Game) -> str:
    if code == "lose":
        return text.split(":")[0].replace(" lives", "").replace(" life", "")
    if code == "mexx":
        return "MEXX!"
    if code == "x_penalty":
        return text.split("!")[0] + "! bust"
    if code == "tie":
        return "Tie!"
    if code == "eject":
        return "Ejected!"
    if code == "double":
        return text.split("!")[0] + "!"
    return text.split(" on ")[0].split(" (")[0][:16]


def _next_hint(game: Game) -> str:
    expected = game.expects()
    if expected.kind == "roll":
        return f"{expected.actor} throws"
    if expected.kind == "count":
        return f"{expected.actor} chooses count"
    if expected.kind == "choice":
        return f"{expected.actor} chooses"
    return ""


def _winner_view(game: Game) -> screens.MessageView:
    state = game.state
    if isinstance(state, MexState):
        ranked = sorted(range(len(state.players)), key=lambda s: (-max(state.lives[s], 0), -state.points[s]))
        lines = tuple(f"{state.name(s)}: {'out' if state.lives[s] <= 0 else str(state.lives[s]) + ' lives'}"
                      f" {state.points[s]} pts" for s in ranked)
    else:
        assert isinstance(state, ExcapeState)
        ranked = sorted(range(len(state.players)), key=lambda s: -state.positions[s])
        lines = tuple(f"{state.name(s)} on {state.positions[s]}" for s in ranked)
    return screens.MessageView(f"{game.winner} wins!", lines, footer="hold STOP: new game")


def _signal_for(game: Game, event: Event) -> str | None:
    if game.over:
        return "win"
    codes = {note.code for note in game.last_notes}
    if "lose" in codes or "x_penalty" in codes:
        return "lose"
    if isinstance(event, Roll):
        return "roll"
    return None

