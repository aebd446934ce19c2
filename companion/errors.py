"""One root for every error the companion raises on purpose.

Each message says what was wrong and what was expected, so a player (or a log reader) knows what to do.
`vision` and `hardware` derive their errors from the same root so the CLI can report all of them alike.
"""


class DiceCompanionError(Exception):
    """Base of all the companion's own errors."""


class ConfigError(DiceCompanionError):
    """The TOML configuration or a command-line option is invalid."""
