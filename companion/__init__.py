"""Dice Companion: referees physical dice games from a camera, three buttons and a small OLED.

`companion.rules` is the pure rules core; the rest of this package joins it to `vision` and `hardware`.
Nothing is imported eagerly here, so `import companion` stays cheap on a Pi.
"""

__version__ = "0.1.0"
