"""`GameSetup`: which game, who plays in which seat order, and the options (validated, defaults filled in).

Options are the issue's decisions that a table may change in the `game` line of a log. Values may be given as
text (from a log) or as Python values (from the app); both are normalised to int / bool / str.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.rules.errors import SetupError

GAMES = ("mex", "excape", "rapido")


def _int_at_least(minimum: int) -> Callable[[str, Any], int]:
    def parse(name: str, raw: Any) -> int:
        if isinstance(raw, bool):
            raise SetupError(f"option {name}={raw!r} is not a whole number; expected an integer >= {minimum}")
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise SetupError(f"option {name}={raw} is not a whole number; expected an integer >= {minimum}") from None
        if value < minimum:
            raise SetupError(f"option {name}={value} is too small; expected an integer >= {minimum}")
        return value

    return parse


def _one_of(*choices: str) -> Callable[[str, Any], str]:
    def parse(name: str, raw: Any) -> str:
        value = str(raw).strip().lower()
        if value not in choices:
            raise SetupError(f"option {name}={raw} is not allowed; expected one of: {', '.join(choices)}")
        return value

    return parse


def _int_choice(*choices: int) -> Callable[[str, Any], int]:
    def parse(name: str, raw: Any) -> int:
        text = str(raw).strip()
        if isinstance(raw, bool) or text not in {str(c) for c in choices}:
            raise SetupError(f"option {name}={raw} is not allowed; expected one of: {', '.join(map(str, choices))}")
        return int(text)

    return parse


def _boolean(name: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise SetupError(f"option {name}={raw} is not a yes/no value; expected true or false")


# option name -> (default, parser); the same board options apply to Excape and to Rapido.
_BOARD_OPTIONS: dict[str, tuple[Any, Callable[[str, Any], Any]]] = {
    "goal": (21, _int_at_least(1)),
    "xx_first": (0, _int_choice(0, 100)),
    "zero_shared": (False, _boolean),
    "must_beat_lower": (False, _boolean),
}
OPTIONS: dict[str, dict[str, tuple[Any, Callable[[str, Any], Any]]]] = {
    "mex": {
        "lives": (12, _int_at_least(1)),
        "mex_penalty": ("additive", _one_of("additive", "doubling")),
    },
    "excape": _BOARD_OPTIONS,
    "rapido": _BOARD_OPTIONS,
}
# (minimum, maximum) players; None = no upper limit.
PLAYER_COUNTS: dict[str, tuple[int, int | None]] = {"mex": (2, None), "excape": (3, 6), "rapido": (2, 2)}
# Characters that would break the one-line `players=A,B,C` spelling of the table log.
_FORBIDDEN_IN_NAMES = set(",=# \t")


def default_options(game: str) -> dict[str, Any]:
    """The options a game gets when the `game` line names none."""
    return {name: default for name, (default, _) in OPTIONS[game].items()}


@dataclass(frozen=True)
class GameSetup:
    """Which game, the players in seat order (the first one starts) and every option with its value."""

    game: str
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        game = str(self.game).strip().lower()
        if game not in GAMES:
            raise SetupError(f"unknown game {self.game!r}; expected one of: {', '.join(GAMES)}")
        players = tuple(str(p).strip() for p in self.players)
        for name in players:
            if not name or _FORBIDDEN_IN_NAMES & set(name):
                raise SetupError(f"player name {name!r} is not usable; expected a non-empty name without "
                                 "spaces, commas, '=' or '#'")
        seen: set[str] = set()
        for name in players:
            if name in seen:
                raise SetupError(f"player {name} is named twice; expected every player to have a different name")
            seen.add(name)
        low, high = PLAYER_COUNTS[game]
        if len(players) < low or (high is not None and len(players) > high):
            wanted = f"exactly {low}" if low == high else (f"{low} or more" if high is None else f"{low} to {high}")
            hint = " (two players play Excape with the Rapido rules: game rapido)" if game == "excape" else ""
            raise SetupError(f"{game} needs {wanted} players, got {len(players)}{hint}")
        known = OPTIONS[game]
        options = default_options(game)
        for name, raw in dict(self.options).items():
            key = str(name).strip().lower()
            if key not in known:
                raise SetupError(f"unknown option {name!r} for {game}; expected one of: {', '.join(known)}")
            options[key] = known[key][1](key, raw)
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "options", options)

    def __hash__(self) -> int:
        # The options dict is not hashable itself; hashing its items keeps setups (and states) usable as keys.
        return hash((self.game, self.players, tuple(sorted(self.options.items()))))

    def option(self, name: str) -> Any:
        """The value of one option (every option is present: defaults are filled in)."""
        return self.options[name]

    def changed_options(self) -> dict[str, Any]:
        """The options whose value differs from the game's default, in declaration order."""
        defaults = default_options(self.game)
        return {name: value for name, value in self.options.items() if defaults[name] != value}
