"""Buzzer and LED: patterns on gpiozero's mock pins without blocking, absent parts, the recording twin."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.errors import HardwareError
from hardware.signals import GpioSignals, SignalTwin

QUICK = {"ok": (0.01, 0.0, 1), "error": (0.2, 0.01, 2), "win": (0.01, 0.01, 3)}


def wait_for_states(pin: object, count: int) -> list[bool]:
    """The pin's state history once it has `count` entries (the background beep thread writes it)."""
    deadline = time.monotonic() + 5.0
    while len(pin.states) < count and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.005)
    return [state.state for state in pin.states]  # type: ignore[attr-defined]


def test_beep_patterns_drive_the_buzzer_pin(factory: MockFactory) -> None:
    with GpioSignals(buzzer_pin=23, pin_factory=factory, patterns=QUICK) as signals:
        buzzer = factory.pin(23)
        signals.beep("win")
        assert wait_for_states(buzzer, 7) == [False, True, False, True, False, True, False]
        buzzer.clear_states()
        signals.beep("ok")
        assert wait_for_states(buzzer, 3) == [False, True, False]


def test_beep_returns_while_the_pattern_is_still_sounding(factory: MockFactory) -> None:
    with GpioSignals(buzzer_pin=23, pin_factory=factory, patterns=QUICK) as signals:
        signals.beep("error")  # 0.2 s on: beep() must come back long before that ends
        assert factory.pin(23).state is True
        assert wait_for_states(factory.pin(23), 5) == [False, True, False, True, False]


def test_led_switches_its_pin(factory: MockFactory) -> None:
    with GpioSignals(led_pin=24, pin_factory=factory) as signals:
        assert signals.has_led and not signals.has_buzzer
        signals.led(True)
        assert factory.pin(24).state is True
        signals.led(False)
        assert factory.pin(24).state is False
        signals.beep("ok")  # no buzzer fitted: nothing happens, nothing raised


@pytest.mark.parametrize("pins", [{}, {"buzzer_pin": 0, "led_pin": 0}, {"buzzer_pin": None, "led_pin": None}])
def test_absent_parts_do_nothing_and_never_raise(pins: dict[str, int | None]) -> None:
    with GpioSignals(**pins) as signals:  # no pin factory needed at all: gpiozero is not touched
        assert not signals.has_buzzer and not signals.has_led
        for kind in ("ok", "error", "win"):
            signals.beep(kind)
        signals.led(True)


class BrokenOutput:
    """An output device whose every write fails, as a pin does when its GPIO chip goes away."""

    closed = False

    def beep(self, **_: object) -> None:
        raise OSError(5, "Input/output error")

    def on(self) -> None:
        raise OSError(5, "Input/output error")

    def close(self) -> None:
        self.closed = True


def test_a_fault_while_playing_is_logged_not_raised(factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    signals = GpioSignals(buzzer_pin=23, led_pin=24, pin_factory=factory)
    signals._led.close()  # the device was closed under the app
    signals.led(True)
    signals.close()
    signals._buzzer, signals._led = BrokenOutput(), BrokenOutput()
    signals.beep("ok")
    signals.led(True)
    assert "LED is closed" in caplog.text
    assert "buzzer failed during 'ok' beep: [Errno 5]" in caplog.text
    assert "LED failed to switch on: [Errno 5]" in caplog.text


def test_twin_records_calls_in_order() -> None:
    twin = SignalTwin()
    twin.beep("ok")
    twin.led(True)
    twin.beep("win")
    twin.led(False)
    assert twin.calls == [("beep", "ok"), ("led", True), ("beep", "win"), ("led", False)]
    assert twin.beeps == ["ok", "win"]
    assert twin.led_on is False


def test_happenings_map_to_beeps_and_the_win_light() -> None:
    twin = SignalTwin()
    for happening in ("new_game", "roll", "reroll", "lose", "win"):
        twin.signal(happening)
    assert twin.calls == [("beep", "ok"), ("led", False), ("beep", "ok"), ("beep", "ok"), ("beep", "error"),
                          ("beep", "win"), ("led", True)]
    with pytest.raises(HardwareError, match="unknown happening 'tie'"):
        twin.signal("tie")


def test_bad_settings_and_kinds_are_clear_errors(factory: MockFactory) -> None:
    with pytest.raises(HardwareError, match="unknown beep 'tada'; expected one of: ok, error, win"):
        SignalTwin().beep("tada")
    with pytest.raises(HardwareError, match="unknown beep 'tada'"):
        GpioSignals().beep("tada")
    with pytest.raises(HardwareError, match="buzzer pin must be a BCM GPIO number 1-27, or 0/None"):
        GpioSignals(buzzer_pin=99)
    with pytest.raises(HardwareError, match="LED cannot use BCM pin 2: it is the OLED's I2C data line"):
        GpioSignals(led_pin=2)
    with pytest.raises(HardwareError, match="cannot share BCM pin 23"):
        GpioSignals(buzzer_pin=23, led_pin=23, pin_factory=factory)
    with pytest.raises(HardwareError, match="beep patterns are missing: win"):
        GpioSignals(patterns={"ok": (0.1, 0, 1), "error": (0.1, 0.1, 2)})
    with GpioSignals(buzzer_pin=23, pin_factory=factory), pytest.raises(
            HardwareError, match="cannot open the LED on BCM pin 23"):
        GpioSignals(led_pin=23, pin_factory=factory)
