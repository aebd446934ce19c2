"""Optional buzzer and LED: a beep for "ok", "error" and "win", and an LED the app can switch.

`signal(happening)` maps what the controller reports ("roll", "reroll", "new_game", "lose", "win") to those.

Both are extras: pin 0 or None means the part is not fitted and every call does nothing. Beep patterns run on
gpiozero's background blink thread, so `beep()` returns at once and never holds up the app's loop; a fault while
the game is running is logged, never raised, because a silent buzzer must not stop a game.
`SignalTwin` records the calls instead, for tests and the demo.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import partial
from typing import Any

from hardware.device import Device
from hardware.errors import HardwareError
from hardware.gpio import open_gpio_device
from hardware.wiring import RESERVED_BCM

log = logging.getLogger(__name__)

SIGNAL_KINDS: tuple[str, ...] = ("ok", "error", "win")
# kind -> (seconds on, seconds off, number of beeps): one chirp, two long buzzes, a quick fanfare.
BEEP_PATTERNS: dict[str, tuple[float, float, int]] = {
    "ok": (0.06, 0.0, 1),
    "error": (0.3, 0.15, 2),
    "win": (0.1, 0.08, 5),
}


# What the app reports happened -> the beep it makes. A win also lights the LED; a new game puts it out.
BEEP_FOR_HAPPENING: dict[str, str] = {
    "roll": "ok",
    "reroll": "ok",
    "new_game": "ok",
    "lose": "error",
    "win": "win",
}


def _check_kind(kind: str) -> None:
    if kind not in SIGNAL_KINDS:
        raise HardwareError(f"unknown beep {kind!r}; expected one of: {', '.join(SIGNAL_KINDS)}")


def _optional_pin(pin: int | None, part: str) -> int | None:
    if pin is None or pin == 0:
        return None
    if isinstance(pin, bool) or not isinstance(pin, int) or not 1 <= pin <= 27:
        raise HardwareError(f"the {part} pin must be a BCM GPIO number 1-27, or 0/None when there is no {part}; "
                            f"got {pin!r}")
    if pin in RESERVED_BCM:
        raise HardwareError(f"the {part} cannot use BCM pin {pin}: it is {RESERVED_BCM[pin]}")
    return pin


class Signals(Device):
    """What the app calls: `beep(kind)` with kind "ok", "error" or "win"; `led(on)`; `signal(happening)`;
    `close()`."""

    def beep(self, kind: str) -> None:
        raise NotImplementedError

    def led(self, on: bool) -> None:
        raise NotImplementedError

    def signal(self, happening: str) -> None:
        """Beep (and light the LED) for something that happened in the game: a key of BEEP_FOR_HAPPENING."""
        if happening not in BEEP_FOR_HAPPENING:
            raise HardwareError(f"unknown happening {happening!r} to signal; expected one of: "
                                f"{', '.join(BEEP_FOR_HAPPENING)}")
        self.beep(BEEP_FOR_HAPPENING[happening])
        if happening == "win":
            self.led(True)
        elif happening == "new_game":
            self.led(False)


class GpioSignals(Signals):
    """Buzzer and LED on gpiozero; either may be absent (pin 0/None), and then gpiozero is not even loaded.

    A configured pin that cannot be opened is a HardwareError at construction (the configuration is wrong);
    after that, calls never raise for hardware reasons. `patterns` overrides BEEP_PATTERNS (kind -> on, off, n).
    """

    def __init__(self, buzzer_pin: int | None = None, led_pin: int | None = None, pin_factory: Any = None,
                 *, patterns: Mapping[str, tuple[float, float, int]] | None = None) -> None:
        buzzer_bcm = _optional_pin(buzzer_pin, "buzzer")
        led_bcm = _optional_pin(led_pin, "LED")
        if buzzer_bcm is not None and buzzer_bcm == led_bcm:
            raise HardwareError(f"the buzzer and the LED cannot share BCM pin {buzzer_bcm}")
        self.patterns = dict(BEEP_PATTERNS if patterns is None else patterns)
        missing = [kind for kind in SIGNAL_KINDS if kind not in self.patterns]
        if missing:
            raise HardwareError(f"beep patterns are missing: {', '.join(missing)}")
        for kind, (on_seconds, off_seconds, count) in self.patterns.items():
            if not (on_seconds > 0 and off_seconds >= 0 and isinstance(count, int) and count >= 1):
                raise HardwareError(f"beep pattern {kind!r} must be (seconds on > 0, seconds off >= 0, count >= 1), "
                                    f"got {(on_seconds, off_seconds, count)!r}")
        self._buzzer: Any = None
        self._led: Any = None
        if buzzer_bcm is None and led_bcm is None:
            return
        from gpiozero import LED, Buzzer

        if buzzer_bcm is not None:
            self._buzzer = open_gpio_device(partial(Buzzer, buzzer_bcm, pin_factory=pin_factory),
                                            f"the buzzer on BCM pin {buzzer_bcm}")
        if led_bcm is not None:
            try:
                self._led = open_gpio_device(partial(LED, led_bcm, pin_factory=pin_factory),
                                             f"the LED on BCM pin {led_bcm}")
            except HardwareError:
                self.close()
                raise

    @property
    def has_buzzer(self) -> bool:
        return self._buzzer is not None

    @property
    def has_led(self) -> bool:
        return self._led is not None

    def beep(self, kind: str) -> None:
        _check_kind(kind)
        if self._buzzer is None:
            return
        if self._buzzer.closed:
            # The pattern itself runs on gpiozero's thread, so check here rather than let that thread fail.
            log.warning("buzzer is closed; %r beep skipped", kind)
            return
        on_seconds, off_seconds, count = self.patterns[kind]
        try:
            self._buzzer.beep(on_time=on_seconds, off_time=off_seconds, n=count, background=True)
        except Exception as err:  # a buzzer fault must never end a game
            log.warning("buzzer failed during %r beep: %s", kind, err)

    def led(self, on: bool) -> None:
        if self._led is None:
            return
        if self._led.closed:
            log.warning("LED is closed; switching it %s skipped", "on" if on else "off")
            return
        try:
            if on:
                self._led.on()
            else:
                self._led.off()
        except Exception as err:  # an LED fault must never end a game
            log.warning("LED failed to switch %s: %s", "on" if on else "off", err)

    def close(self) -> None:
        for part in (self._buzzer, self._led):
            if part is not None:
                part.close()
        self._buzzer = self._led = None


class SignalTwin(Signals):
    """Records every beep and LED switch in `calls`, e.g. [("beep", "ok"), ("led", True)], for tests and demos."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | bool]] = []
        self.led_on = False

    @property
    def beeps(self) -> list[str]:
        """The kinds beeped so far, in order."""
        return [str(value) for what, value in self.calls if what == "beep"]

    def beep(self, kind: str) -> None:
        _check_kind(kind)
        self.calls.append(("beep", kind))

    def led(self, on: bool) -> None:
        self.led_on = bool(on)
        self.calls.append(("led", self.led_on))
