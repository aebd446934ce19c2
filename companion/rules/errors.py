"""The rules core's errors: one for an event the rules forbid, one for a bad game setup.

Both derive from the project's single error root so the CLI reports them as user errors (exit 2).
"""

from companion.errors import DiceCompanionError


class RuleError(DiceCompanionError):
    """An event is impossible at this point of the game; the message says what was expected instead."""


class SetupError(RuleError):
    """A game setup is invalid: unknown game or option, bad option value, wrong players."""
