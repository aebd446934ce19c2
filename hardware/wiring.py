"""The wiring of the companion: which part goes to which Raspberry Pi header pin, as data the README can print.

Kept beside the backends so the default BCM pins the code uses and the table a builder follows cannot drift
apart (a test checks every BCM/physical pair against gpiozero's own header map of the Pi).
`python -m hardware.wiring` prints the table as Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

# Default BCM pins. The buttons are wired between the pin and GND and use the Pi's internal pull-up,
# so a pressed button reads low; no resistors are needed.
BUTTON_PINS: dict[str, int] = {"stop": 17, "reroll": 27, "select": 22}
# Suggested pins for the optional buzzer and LED; the configuration leaves them off (0/None) unless fitted.
SUGGESTED_BUZZER_PIN = 23
SUGGESTED_LED_PIN = 24
# The OLED sits on I2C bus 1 at this address (some boards ship at 0x3D: see the back of the module).
OLED_I2C_PORT = 1
OLED_I2C_ADDRESS = 0x3C
# GPIO pins the OLED's bus already uses: a button or buzzer there would break the display.
RESERVED_BCM: dict[int, str] = {2: "the OLED's I2C data line (SDA)", 3: "the OLED's I2C clock line (SCL)"}


@dataclass(frozen=True)
class WiringRow:
    """One wire: the part and its terminal, the Pi header pin it goes to (BCM number if it is a GPIO)."""

    part: str
    terminal: str
    physical_pin: int
    bcm: int | None
    ground_pin: int | None = None  # where the part's other side goes, when it is a ground
    note: str = ""


_OLED = "OLED 128×64 (SSD1306 or SH1106, I2C)"

WIRING: tuple[WiringRow, ...] = (
    WiringRow(_OLED, "VCC", 1, None, note="3V3 power"),
    WiringRow(_OLED, "GND", 6, None, note="ground"),
    WiringRow(_OLED, "SDA", 3, 2, note="I2C-1 data"),
    WiringRow(_OLED, "SCL", 5, 3, note="I2C-1 clock"),
    WiringRow("STOP button", "one leg", 11, BUTTON_PINS["stop"], 9, "internal pull-up: no resistor"),
    WiringRow("REROLL button", "one leg", 13, BUTTON_PINS["reroll"], 14, "internal pull-up: no resistor"),
    WiringRow("SELECT button", "one leg", 15, BUTTON_PINS["select"], 14, "internal pull-up: no resistor"),
    WiringRow("Buzzer (optional)", "+", 16, SUGGESTED_BUZZER_PIN, 20,
              "active 3.3 V buzzer ≤ 15 mA; a bigger one through an NPN transistor"),
    WiringRow("LED (optional)", "anode", 18, SUGGESTED_LED_PIN, 20, "through a 330 Ω resistor"),
)

def wiring_table_markdown(rows: tuple[WiringRow, ...] = WIRING) -> str:
    """The wiring as a Markdown table (part, terminal, BCM pin, physical pin, other side, note) for the README."""
    lines = ["| Part | Terminal | BCM pin | Physical pin | Other side | Note |", "|---|---|---|---|---|---|"]
    for row in rows:
        bcm = f"GPIO{row.bcm}" if row.bcm is not None else "—"
        other = f"GND, pin {row.ground_pin}" if row.ground_pin is not None else "—"
        lines.append(f"| {row.part} | {row.terminal} | {bcm} | {row.physical_pin} | {other} | {row.note} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(wiring_table_markdown())
