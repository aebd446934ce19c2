"""The three table buttons (STOP, REROLL, SELECT) as one queue of press/hold events, from GPIO, keyboard or twin.

Why a queue: gpiozero calls back on its own threads (lgpio's on a Pi) and the keyboard reader runs on a thread
of its own, while the app may change its state only in its own loop. So every backend does one thing: it puts
`ButtonEvent`s into a `queue.Queue` (`source.events`) that the app drains.

A short press is reported when the button is released, and only if it was not held; a long press ("hold") is
reported once, as soon as the button has been down for `hold_seconds`, so the player feels it fire without
letting go. Dangerous actions (menu, new game) belong on holds.

Backends:
- `GpioButtons`: gpiozero input devices, pull-up (pressed reads low), software debounce and hold timing on an
  injectable clock. gpiozero's own `bounce_time` is not used because its mock factory does not simulate it,
  and the twin must run exactly the code a Pi runs.
- `ButtonTwin`: `GpioButtons` on a private gpiozero `MockFactory` with a manual clock; `press(name)` and
  `hold(name)` drive the mock pins low/high, so scripts and tests go through the real edge/debounce/hold code.
- `KeyboardButtons`: keys in an interactive terminal (see `KEY_HELP`); does nothing when stdin is not a tty.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import queue
import select
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

from hardware.device import Device
from hardware.errors import HardwareError
from hardware.gpio import open_gpio_device
from hardware.wiring import BUTTON_PINS, RESERVED_BCM

BUTTON_NAMES: tuple[str, ...] = ("stop", "reroll", "select")
EVENT_KINDS: tuple[str, ...] = ("press", "hold")
# BCM numbers a 40-pin header exposes as GPIO.
_BCM_RANGE = range(0, 28)


@dataclass(frozen=True)
class ButtonEvent:
    """One thing a player did with a button: `kind` "press" (short, reported on release) or "hold" (long)."""

    button: str
    kind: str

    def __post_init__(self) -> None:
        if self.button not in BUTTON_NAMES:
            raise HardwareError(f"unknown button {self.button!r}; expected one of: {', '.join(BUTTON_NAMES)}")
        if self.kind not in EVENT_KINDS:
            raise HardwareError(f"unknown button event kind {self.kind!r}; expected 'press' or 'hold'")


class ButtonSource(Device):
    """Base of every button backend: owns the event queue and the close/context-manager protocol."""

    def __init__(self, events: queue.Queue[ButtonEvent] | None = None) -> None:
        self.events: queue.Queue[ButtonEvent] = events if events is not None else queue.Queue()

    def emit(self, button: str, kind: str) -> None:
        """Put one event into the queue (safe from any thread)."""
        self.events.put(ButtonEvent(button, kind))

    def drain(self) -> list[ButtonEvent]:
        """Every event waiting in the queue, oldest first, without blocking."""
        drained: list[ButtonEvent] = []
        while True:
            try:
                drained.append(self.events.get_nowait())
            except queue.Empty:
                return drained


class ManualClock:
    """A clock that only moves when told to: lets the twin and tests hold a button for a second in no time."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise HardwareError(f"a clock cannot go back: advance() got {seconds} s, expected >= 0")
        with self._lock:
            self._now += seconds


@dataclass
class _DebouncedState:
    """What one button looks like after debouncing, and when that last changed."""

    down: bool = False
    last_edge_at: float = -math.inf
    pressed_at: float = -math.inf
    hold_reported: bool = False
    unsettled: bool = False  # an edge came inside the bounce window; re-read the pin once it closes


def _validate_pins(pins: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(pins, Mapping):
        raise HardwareError(f"button pins must be a mapping of button name to BCM pin, got {type(pins).__name__}")
    missing = [name for name in BUTTON_NAMES if name not in pins]
    unknown = [name for name in pins if name not in BUTTON_NAMES]
    if missing or unknown:
        raise HardwareError(
            f"button pins must name exactly {', '.join(BUTTON_NAMES)}; "
            f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(map(str, unknown)) or 'none'}")
    checked: dict[str, int] = {}
    for name in BUTTON_NAMES:
        pin = pins[name]
        if isinstance(pin, bool) or not isinstance(pin, int) or pin not in _BCM_RANGE:
            raise HardwareError(f"the {name} button pin must be a BCM GPIO number 0-27, got {pin!r}")
        if pin in RESERVED_BCM:
            raise HardwareError(f"the {name} button cannot use BCM pin {pin}: it is {RESERVED_BCM[pin]}")
        checked[name] = pin
    if len(set(checked.values())) != len(checked):
        raise HardwareError(f"each button needs its own BCM pin, got {checked}")
    return checked


class GpioButtons(ButtonSource):
    """STOP/REROLL/SELECT on gpiozero input pins (pull-up, pressed = low) with debounce and hold on `clock`.

    `poll_seconds` is how often a background thread checks for holds and settles bounced edges; None means
    no thread (the caller calls `tick()` itself, as the twin does). `pin_factory` None uses gpiozero's default
    (lgpio on a Pi, or whatever GPIOZERO_PIN_FACTORY names).
    """

    def __init__(
        self,
        pins: Mapping[str, int] | None = None,
        hold_seconds: float = 1.0,
        bounce_seconds: float = 0.05,
        pin_factory: Any = None,
        *,
        events: queue.Queue[ButtonEvent] | None = None,
        clock: Callable[[], float] = time.monotonic,
        poll_seconds: float | None = 0.02,
    ) -> None:
        super().__init__(events)
        self.pins = _validate_pins(BUTTON_PINS if pins is None else pins)
        if not hold_seconds > 0:
            raise HardwareError(f"hold_seconds must be > 0, got {hold_seconds!r}")
        if not 0 <= bounce_seconds < hold_seconds:
            raise HardwareError(
                f"bounce_seconds must be >= 0 and shorter than hold_seconds ({hold_seconds}), got {bounce_seconds!r}")
        if poll_seconds is not None and not poll_seconds > 0:
            raise HardwareError(f"poll_seconds must be > 0 or None, got {poll_seconds!r}")
        self.hold_seconds = float(hold_seconds)
        self.bounce_seconds = float(bounce_seconds)
        self._clock = clock
        self._lock = threading.RLock()
        self._states = {name: _DebouncedState() for name in BUTTON_NAMES}
        self._buttons: dict[str, Any] = {}
        self._stop_polling = threading.Event()
        self._poller: threading.Thread | None = None

        # A plain DigitalInputDevice, not gpiozero's Button: Button adds its own hold thread per button, which we
        # do not use (holds are timed here, on the injectable clock) and which takes 0.1 s to stop on close.
        from gpiozero import DigitalInputDevice

        try:
            for name, pin in self.pins.items():
                button = open_gpio_device(
                    partial(DigitalInputDevice, pin, pull_up=True, bounce_time=None, pin_factory=pin_factory),
                    f"the {name} button on BCM pin {pin}")
                self._buttons[name] = button
                # gpiozero calls these on its own thread; they only update state and queue events.
                button.when_activated = partial(self._on_edge, name, True)
                button.when_deactivated = partial(self._on_edge, name, False)
        except HardwareError:
            self.close()
            raise
        if poll_seconds is not None:
            self._poller = threading.Thread(
                target=self._poll, args=(poll_seconds,), name="button-hold-poll", daemon=True)
            self._poller.start()

    def is_down(self, name: str) -> bool:
        """Whether the debounced button is currently held down."""
        if name not in self._states:
            raise HardwareError(f"unknown button {name!r}; expected one of: {', '.join(BUTTON_NAMES)}")
        with self._lock:
            return self._states[name].down

    def _on_edge(self, name: str, pressed: bool) -> None:
        with self._lock:
            state = self._states[name]
            now = self._clock()
            if now - state.last_edge_at < self.bounce_seconds:
                # Contact chatter: ignore it now, and let tick() re-read the pin when the window has passed,
                # so a genuinely short tap is not lost.
                state.unsettled = True
                return
            self._accept(name, state, pressed, now)

    def _accept(self, name: str, state: _DebouncedState, pressed: bool, now: float) -> None:
        if pressed == state.down:
            return
        state.down = pressed
        state.last_edge_at = now
        if pressed:
            state.pressed_at = now
            state.hold_reported = False
        elif not state.hold_reported:
            self.emit(name, "press")

    def tick(self) -> None:
        """Settle bounced edges and report holds that reached hold_seconds; the poll thread calls this."""
        with self._lock:
            now = self._clock()
            for name, state in self._states.items():
                if state.unsettled and now - state.last_edge_at >= self.bounce_seconds:
                    state.unsettled = False
                    button = self._buttons.get(name)
                    if button is not None and not button.closed:
                        self._accept(name, state, bool(button.is_active), now)
                if state.down and not state.hold_reported and now - state.pressed_at >= self.hold_seconds:
                    state.hold_reported = True
                    self.emit(name, "hold")

    def _poll(self, poll_seconds: float) -> None:
        while not self._stop_polling.wait(poll_seconds):
            self.tick()

    def close(self) -> None:
        self._stop_polling.set()
        if self._poller is not None and self._poller is not threading.current_thread():
            self._poller.join(timeout=1.0)
        self._poller = None
        for button in self._buttons.values():
            button.close()
        self._buttons.clear()


class ButtonTwin(GpioButtons):
    """The button twin: GpioButtons on a private gpiozero MockFactory and a manual clock, driven by code.

    `press(name)` and `hold(name)` move the mock pins exactly as a finger would, so the events come out of the
    same debounce and hold logic as on a Pi, with no sleeping. `pin(name)` gives the MockPin for finer tests.
    """

    def __init__(
        self,
        pins: Mapping[str, int] | None = None,
        hold_seconds: float = 1.0,
        bounce_seconds: float = 0.05,
        *,
        events: queue.Queue[ButtonEvent] | None = None,
    ) -> None:
        from gpiozero.pins.mock import MockFactory

        self.clock = ManualClock()
        self.factory = MockFactory()
        try:
            super().__init__(pins, hold_seconds, bounce_seconds, self.factory,
                             events=events, clock=self.clock, poll_seconds=None)
        except HardwareError:
            self.factory.close()
            raise
        # A short press lasts well past the bounce window yet well short of a hold; the pause after a
        # release lets the next edge through the debounce.
        self._press_seconds = (self.bounce_seconds + self.hold_seconds) / 2
        self._pause_seconds = self.bounce_seconds * 2 + 0.01

    def pin(self, name: str) -> Any:
        """The gpiozero MockPin behind a button (drive_low() presses it, drive_high() releases it)."""
        if name not in self.pins:
            raise HardwareError(f"unknown button {name!r}; expected one of: {', '.join(BUTTON_NAMES)}")
        return self.factory.pin(self.pins[name])

    def press(self, name: str) -> None:
        """A short press and release of one button (emits one "press")."""
        pin = self.pin(name)
        pin.drive_low()
        self.clock.advance(self._press_seconds)
        self.tick()
        pin.drive_high()
        self.clock.advance(self._pause_seconds)
        self.tick()

    def hold(self, name: str) -> None:
        """A long press of one button, held for hold_seconds then released (emits one "hold")."""
        pin = self.pin(name)
        pin.drive_low()
        # A little past the threshold, so float rounding of the clock can never leave it a hair short.
        self.clock.advance(self.hold_seconds + self.bounce_seconds + 0.001)
        self.tick()
        pin.drive_high()
        self.clock.advance(self._pause_seconds)
        self.tick()

    def close(self) -> None:
        super().close()
        self.factory.close()


# Keys of the keyboard twin. Lower case = short press, Shift (capital or the shifted digit) = long press.
KEYMAP: dict[str, ButtonEvent] = {
    "s": ButtonEvent("stop", "press"), "S": ButtonEvent("stop", "hold"),
    "r": ButtonEvent("reroll", "press"), "R": ButtonEvent("reroll", "hold"),
    "e": ButtonEvent("select", "press"), "E": ButtonEvent("select", "hold"),
    " ": ButtonEvent("select", "press"), "\r": ButtonEvent("select", "press"), "\n": ButtonEvent("select", "press"),
    "1": ButtonEvent("stop", "press"), "!": ButtonEvent("stop", "hold"),
    "2": ButtonEvent("reroll", "press"), "@": ButtonEvent("reroll", "hold"),
    "3": ButtonEvent("select", "press"), "#": ButtonEvent("select", "hold"),
}
KEY_HELP = ("keys: s=STOP  r=REROLL  e/space/Enter=SELECT  (or 1 2 3);  "
            "Shift = long press: S R E (or ! @ #);  Ctrl-C quits")


class KeyDecoder:
    """Turns bytes typed in a terminal into button events, skipping escape sequences (arrows, Alt+key).

    Keeps its state between chunks so an escape sequence split across two reads is still skipped whole.
    """

    def __init__(self) -> None:
        self._escape = ""  # "" outside a sequence; otherwise what has been seen of it so far

    def feed(self, data: bytes) -> list[ButtonEvent]:
        found: list[ButtonEvent] = []
        for char in data.decode("utf-8", errors="replace"):
            if self._escape:
                self._escape = self._continue_escape(self._escape, char)
                continue
            if char == "\x1b":
                self._escape = char
                continue
            event = KEYMAP.get(char)
            if event is not None:
                found.append(event)
        return found

    @staticmethod
    def _continue_escape(seen: str, char: str) -> str:
        if seen == "\x1b":
            # CSI ("ESC [") and SS3 ("ESC O") sequences go on; anything else was Alt+char: swallow it.
            return seen + char if char in "[O" else ""
        if seen == "\x1bO":
            return ""  # SS3 carries exactly one final character (F1-F4, keypad)
        # CSI: parameter and intermediate bytes continue, a final byte in @..~ ends it.
        return "" if "@" <= char <= "~" else seen + char


class KeyboardButtons(ButtonSource):
    """Button events from an interactive terminal's keys (see KEY_HELP); inert when stdin is not a tty.

    The terminal goes into cbreak mode (keys arrive at once, unechoed, Ctrl-C still interrupts) and is restored
    by close(), and at exit if close() was never called.
    """

    def __init__(self, events: queue.Queue[ButtonEvent] | None = None, stdin: TextIO | None = None) -> None:
        super().__init__(events)
        self.decoder = KeyDecoder()
        self._fd: int | None = None
        self._saved_mode: list[Any] | None = None
        self._stop_reading = threading.Event()
        self._reader: threading.Thread | None = None
        stream = sys.stdin if stdin is None else stdin
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            return  # no real stdin (pytest capture, a pipe object): nothing to read
        if not os.isatty(fd):
            return
        try:
            import termios
            import tty
        except ImportError:
            return  # not a POSIX terminal: the keyboard twin is unavailable, the app still runs
        try:
            saved_mode = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        except termios.error:
            return  # a terminal we may not configure (e.g. not ours): stay inert rather than fail the app
        self._fd = fd
        self._saved_mode = saved_mode
        atexit.register(self._restore_terminal)
        self._reader = threading.Thread(target=self._read_keys, name="keyboard-buttons", daemon=True)
        self._reader.start()

    @property
    def active(self) -> bool:
        """Whether keys are being read (False when stdin is not an interactive terminal)."""
        return self._reader is not None

    def feed(self, data: bytes) -> None:
        """Queue the events for bytes as if they had been typed (the reader thread calls this for real keys)."""
        for event in self.decoder.feed(data):
            self.events.put(event)

    def _read_keys(self) -> None:
        assert self._fd is not None
        while not self._stop_reading.is_set():
            try:
                readable, _, _ = select.select([self._fd], [], [], 0.1)
                if not readable:
                    continue
                data = os.read(self._fd, 64)
            except (OSError, ValueError):
                return  # the terminal went away; the app keeps running without keys
            if not data:
                return  # end of input
            self.feed(data)

    def _restore_terminal(self) -> None:
        if self._fd is None or self._saved_mode is None:
            return
        import termios

        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved_mode)
        self._saved_mode = None

    def close(self) -> None:
        self._stop_reading.set()
        if self._reader is not None:
            self._reader.join(timeout=1.0)
            self._reader = None
        self._restore_terminal()
        atexit.unregister(self._restore_terminal)
