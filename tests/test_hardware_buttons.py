"""Buttons: gpiozero MockFactory presses, holds and bounce; the twin; the keyboard decoder and terminal mode."""

from __future__ import annotations

import os
import pty
import queue
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
from budget import examples
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.buttons import (
    BUTTON_NAMES,
    ButtonEvent,
    ButtonTwin,
    GpioButtons,
    KeyboardButtons,
    KeyDecoder,
    ManualClock,
)
from hardware.errors import HardwareError


@pytest.fixture(autouse=True)
def _reset_global_pin_factory() -> Iterator[None]:
    """No test may leave a pin factory (and its reserved pins) behind for the next one."""
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
        Device.pin_factory = None


@pytest.fixture
def twin() -> Iterator[ButtonTwin]:
    with ButtonTwin() as button_twin:
        yield button_twin


def test_twin_press_emits_one_press_per_button_in_order(twin: ButtonTwin) -> None:
    twin.press("stop")
    twin.press("select")
    twin.press("stop")
    assert twin.drain() == [ButtonEvent("stop", "press"), ButtonEvent("select", "press"), ButtonEvent("stop", "press")]
    assert twin.events.empty()


def test_twin_hold_emits_only_a_hold(twin: ButtonTwin) -> None:
    twin.hold("reroll")
    assert twin.drain() == [ButtonEvent("reroll", "hold")]


def test_hold_fires_once_while_still_down_and_release_adds_no_press() -> None:
    clock = ManualClock()
    with MockFactory() as mock_factory, GpioButtons(pin_factory=mock_factory, clock=clock, poll_seconds=None) as gpio:
        pin = mock_factory.pin(17)
        pin.drive_low()
        assert gpio.is_down("stop")
        clock.advance(0.99)
        gpio.tick()
        assert gpio.drain() == []
        clock.advance(0.02)
        gpio.tick()
        gpio.tick()
        assert gpio.drain() == [ButtonEvent("stop", "hold")]
        clock.advance(2.0)
        gpio.tick()
        pin.drive_high()
        gpio.tick()
        assert gpio.drain() == []
        assert not gpio.is_down("stop")


def test_bouncing_contacts_give_a_single_press(factory: MockFactory) -> None:
    clock = ManualClock()
    with GpioButtons(pin_factory=factory, clock=clock, poll_seconds=None, bounce_seconds=0.05) as gpio:
        pin = factory.pin(27)
        for _ in range(4):  # chatter inside the bounce window as the contacts close
            pin.drive_low()
            clock.advance(0.003)
            pin.drive_high()
            clock.advance(0.003)
        pin.drive_low()
        clock.advance(0.2)
        gpio.tick()
        pin.drive_high()  # clean release
        for _ in range(3):  # chatter as the contacts open
            clock.advance(0.004)
            pin.drive_low()
            clock.advance(0.004)
            pin.drive_high()
        clock.advance(0.1)
        gpio.tick()
        assert gpio.drain() == [ButtonEvent("reroll", "press")]
        assert not gpio.is_down("reroll")


def test_tap_shorter_than_the_bounce_window_is_not_lost_and_does_not_become_a_hold(factory: MockFactory) -> None:
    clock = ManualClock()
    with GpioButtons(pin_factory=factory, clock=clock, poll_seconds=None, bounce_seconds=0.05) as gpio:
        pin = factory.pin(22)
        pin.drive_low()
        clock.advance(0.01)
        pin.drive_high()  # inside the window: ignored for now
        assert gpio.drain() == []
        clock.advance(0.05)
        gpio.tick()  # the window has passed: the pin is read again and the release accepted
        clock.advance(5.0)
        gpio.tick()
        assert gpio.drain() == [ButtonEvent("select", "press")]


def test_background_poll_reports_a_hold_in_real_time(factory: MockFactory) -> None:
    with GpioButtons(pin_factory=factory, hold_seconds=0.05, bounce_seconds=0.01, poll_seconds=0.005) as gpio:
        factory.pin(17).drive_low()
        assert gpio.events.get(timeout=2.0) == ButtonEvent("stop", "hold")
        factory.pin(17).drive_high()


def test_custom_pins_are_the_pins_that_are_read(factory: MockFactory) -> None:
    clock = ManualClock()
    pins = {"stop": 5, "reroll": 6, "select": 13}
    with GpioButtons(pins, pin_factory=factory, clock=clock, poll_seconds=None) as gpio:
        factory.pin(13).drive_low()
        clock.advance(0.2)
        factory.pin(13).drive_high()
        factory.pin(17).drive_low()  # not a button pin here
        assert gpio.drain() == [ButtonEvent("select", "press")]


def test_all_backends_can_share_one_queue() -> None:
    shared: queue.Queue[ButtonEvent] = queue.Queue()
    with ButtonTwin(events=shared) as button_twin, KeyboardButtons(events=shared, stdin=None) as keyboard:
        button_twin.press("stop")
        keyboard.feed(b"R")
        button_twin.hold("select")
    assert [shared.get_nowait() for _ in range(3)] == [
        ButtonEvent("stop", "press"), ButtonEvent("reroll", "hold"), ButtonEvent("select", "hold")]


ACTIONS = st.lists(st.tuples(st.sampled_from(BUTTON_NAMES), st.sampled_from(["press", "hold"])), max_size=12)


@settings(max_examples=examples(30), deadline=None)
@given(actions=ACTIONS)
def test_twin_reports_exactly_the_actions_performed(actions: list[tuple[str, str]]) -> None:
    with ButtonTwin(hold_seconds=0.8, bounce_seconds=0.03) as button_twin:
        for name, kind in actions:
            (button_twin.press if kind == "press" else button_twin.hold)(name)
        assert button_twin.drain() == [ButtonEvent(name, kind) for name, kind in actions]


@pytest.mark.parametrize(
    ("pins", "expected"),
    [
        ({"stop": 17, "reroll": 27}, "missing: select"),
        ({"stop": 17, "reroll": 27, "select": 22, "menu": 5}, "unknown: menu"),
        ({"stop": 17, "reroll": 17, "select": 22}, "its own BCM pin"),
        ({"stop": 40, "reroll": 27, "select": 22}, "BCM GPIO number 0-27, got 40"),
        ({"stop": "17", "reroll": 27, "select": 22}, "BCM GPIO number 0-27, got '17'"),
        ({"stop": 17, "reroll": 3, "select": 22}, "reroll button cannot use BCM pin 3: it is the OLED's I2C clock"),
    ],
)
def test_bad_pins_are_refused_with_what_was_expected(
        factory: MockFactory, pins: dict[str, object], expected: str) -> None:
    with pytest.raises(HardwareError, match=expected):
        GpioButtons(pins, pin_factory=factory)  # type: ignore[arg-type]


def test_bad_timings_and_events_are_refused(factory: MockFactory) -> None:
    with pytest.raises(HardwareError, match="hold_seconds must be > 0"):
        GpioButtons(hold_seconds=0, pin_factory=factory)
    with pytest.raises(HardwareError, match="shorter than hold_seconds"):
        GpioButtons(hold_seconds=0.5, bounce_seconds=0.5, pin_factory=factory)
    with pytest.raises(HardwareError, match="unknown button 'menu'"):
        ButtonEvent("menu", "press")
    with pytest.raises(HardwareError, match="expected 'press' or 'hold'"):
        ButtonEvent("stop", "double")
    with ButtonTwin() as button_twin, pytest.raises(HardwareError, match="unknown button 'go'"):
        button_twin.press("go")


def test_a_pin_already_in_use_is_a_clear_error(factory: MockFactory) -> None:
    with GpioButtons(pin_factory=factory, poll_seconds=None), pytest.raises(
            HardwareError, match="cannot open the stop button on BCM pin 17"):
        GpioButtons(pin_factory=factory, poll_seconds=None)


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="this machine may have real GPIO")
def test_no_gpio_library_says_to_use_the_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    Device.pin_factory = None
    with pytest.raises(HardwareError, match=r"no GPIO pin library could start.*--twin"):
        GpioButtons()


def test_keys_map_to_buttons_and_shift_means_hold() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"s r e S R E") == [
        ButtonEvent("stop", "press"), ButtonEvent("select", "press"), ButtonEvent("reroll", "press"),
        ButtonEvent("select", "press"), ButtonEvent("select", "press"), ButtonEvent("select", "press"),
        ButtonEvent("stop", "hold"), ButtonEvent("select", "press"), ButtonEvent("reroll", "hold"),
        ButtonEvent("select", "press"), ButtonEvent("select", "hold"),
    ]
    assert decoder.feed(b"123!@#\r") == [
        ButtonEvent("stop", "press"), ButtonEvent("reroll", "press"), ButtonEvent("select", "press"),
        ButtonEvent("stop", "hold"), ButtonEvent("reroll", "hold"), ButtonEvent("select", "hold"),
        ButtonEvent("select", "press"),
    ]
    assert decoder.feed(b"xyz\x04q") == []


def test_escape_sequences_are_skipped_even_when_split_across_reads() -> None:
    decoder = KeyDecoder()
    # Up arrow (CSI A), F1 (SS3 P), Alt+s, and a CSI with parameters: none of them are buttons.
    assert decoder.feed(b"\x1b[A\x1bOP\x1bs\x1b[1;5C") == []
    assert decoder.feed(b"s\x1b[1") == [ButtonEvent("stop", "press")]
    assert decoder.feed(b";2Rr") == [ButtonEvent("reroll", "press")]  # "R" ended the split sequence


def test_keyboard_does_nothing_without_a_terminal() -> None:
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "r", closefd=False) as pipe_in, KeyboardButtons(stdin=pipe_in) as keyboard:
            assert not keyboard.active
            os.write(write_end, b"sss")
            assert keyboard.drain() == []
    finally:
        os.close(read_end)
        os.close(write_end)


def test_keyboard_reads_a_terminal_in_cbreak_mode_and_restores_it() -> None:
    leader, follower = pty.openpty()
    try:
        before = termios.tcgetattr(follower)
        assert before[3] & termios.ICANON
        with os.fdopen(follower, "r", closefd=False) as terminal_in:
            keyboard = KeyboardButtons(stdin=terminal_in)
            try:
                assert keyboard.active
                assert not termios.tcgetattr(follower)[3] & (termios.ICANON | termios.ECHO)
                os.write(leader, b"sE")
                assert keyboard.events.get(timeout=2.0) == ButtonEvent("stop", "press")
                assert keyboard.events.get(timeout=2.0) == ButtonEvent("select", "hold")
            finally:
                keyboard.close()
        assert termios.tcgetattr(follower) == before
        assert not keyboard.active
    finally:
        os.close(leader)
        os.close(follower)
