"""The error every hardware seam raises on purpose: a device that cannot start or was given something unusable.

It derives from the project's one error root so `dice-companion` reports it like any other user-caused error
(message, exit status 2) instead of a traceback. Messages say what was expected and what to try next.
"""

from __future__ import annotations

from companion.errors import DiceCompanionError


class HardwareError(DiceCompanionError):
    """A button, display, camera or signal device could not be opened, or was given unusable settings or data."""
