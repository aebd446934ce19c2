"""The wiring table agrees with the Pi's real header (gpiozero's board map) and with the code's default pins."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from hardware.buttons import BUTTON_NAMES
from hardware.wiring import BUTTON_PINS, WIRING, wiring_table_markdown


def test_every_row_names_the_right_header_pins() -> None:
    header = MockFactory().board_info.headers["J8"].pins
    for row in WIRING:
        pin_name = header[row.physical_pin].name
        if row.bcm is not None:
            assert pin_name == f"GPIO{row.bcm}", row
        if row.ground_pin is not None:
            assert header[row.ground_pin].name == "GND", row
    names = {row.terminal: header[row.physical_pin].name for row in WIRING if row.part.startswith("OLED")}
    assert names == {"VCC": "3V3", "GND": "GND", "SDA": "GPIO2", "SCL": "GPIO3"}


def test_buttons_in_the_table_are_the_default_pins_and_no_pin_is_used_twice() -> None:
    assert set(BUTTON_PINS) == set(BUTTON_NAMES)
    table_bcm = {row.part.split()[0].lower(): row.bcm for row in WIRING if row.part.endswith("button")}
    assert table_bcm == BUTTON_PINS
    physical = [row.physical_pin for row in WIRING]
    assert len(physical) == len(set(physical))


def test_markdown_table_has_a_row_per_wire() -> None:
    lines = wiring_table_markdown().splitlines()
    assert lines[0].startswith("| Part | Terminal | BCM pin | Physical pin")
    assert len(lines) == 2 + len(WIRING)
    assert any(line.startswith("| STOP button | one leg | GPIO17 | 11 | GND, pin 9 |") for line in lines)
