"""The table log: one event per line, `#` comments, words case-insensitive; also the app's journal format.

    game mex players=Ann,Bob,Cid lives=12
    roll 6 3
    reroll | stop | end-round | count pips | count mex | place 3 | undo

`parse_log(text) -> (GameSetup, [Event])`; `format_setup` / `format_event` write lines that parse back equal.
"""

from __future__ import annotations

from companion.rules.errors import RuleError
from companion.rules.events import Count, EndRound, Event, Place, Reroll, Roll, Stop, Undo
from companion.rules.setup import GameSetup

# Spellings people (and other tools) plausibly write for the same word.
_VERB_ALIASES = {"end_round": "end-round", "endround": "end-round"}
VOCABULARY = "roll A B, reroll, stop, end-round, count pips, count mex, place N, undo"


class LogError(RuleError):
    """A table-log line is unreadable or impossible; str() is `line N: <what is wrong and what was expected>`."""

    def __init__(self, line_no: int, message: str) -> None:
        super().__init__(f"line {line_no}: {message}")
        self.line_no = line_no
        self.message = message


def strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def parse_setup(line: str) -> GameSetup:
    """Parse `game NAME players=A,B,C option=value ...` (raises RuleError/SetupError with the reason)."""
    words = strip_comment(line).split()
    if not words or words[0].lower() != "game":
        raise RuleError(f"the first line must name the game, like 'game mex players=Ann,Bob'; got {line.strip()!r}")
    if len(words) < 2 or "=" in words[1]:
        raise RuleError("the game line names no game; expected 'game mex|excape|rapido players=A,B,...'")
    game = words[1]
    players: tuple[str, ...] | None = None
    options: dict[str, str] = {}
    for word in words[2:]:
        key, sep, value = word.partition("=")
        if not sep or not key or not value:
            raise RuleError(f"{word!r} in the game line is not option=value; expected e.g. players=Ann,Bob or lives=12")
        key = key.lower()
        if key in options or (key == "players" and players is not None):
            raise RuleError(f"option {key} is given twice in the game line; expected it once")
        if key == "players":
            players = tuple(value.split(","))
        else:
            options[key] = value
    if players is None:
        raise RuleError("the game line names no players; expected players=A,B,... (seat order, first one starts)")
    return GameSetup(game, players, options)


def parse_line(line: str, line_no: int | None = None) -> Event | None:
    """One event line -> Event (None for a blank or comment-only line).

    A line that is no event raises RuleError, or LogError naming the line when `line_no` is given.
    """
    if line_no is None:
        return _parse_event(line)
    try:
        return _parse_event(line)
    except RuleError as err:
        raise LogError(line_no, str(err)) from None


def _parse_event(line: str) -> Event | None:
    words = strip_comment(line).split()
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    verb = _VERB_ALIASES.get(verb, verb)
    if verb == "roll":
        if len(args) == 1 and len(args[0]) == 2:
            args = [args[0][0], args[0][1]]  # "roll 63" is read as "roll 6 3"
        if len(args) != 2:
            raise RuleError(f"'roll' needs the two faces the tray read, like 'roll 6 3'; got {len(args)} "
                            f"value{'s' if len(args) != 1 else ''}")
        return Roll((args[0], args[1]))
    if verb == "count":
        if len(args) != 1 or args[0].lower() not in ("pips", "mex"):
            raise RuleError("'count' needs 'pips' or 'mex', like 'count pips'")
        return Count(args[0].lower())  # type: ignore[arg-type]
    if verb == "place":
        if len(args) != 1 or not args[0].isdigit():
            raise RuleError("'place' needs one space number 0-5, like 'place 3'")
        return Place(int(args[0]))
    simple: dict[str, type[Event]] = {"reroll": Reroll, "stop": Stop, "end-round": EndRound, "undo": Undo}
    if verb in simple:
        if args:
            raise RuleError(f"'{verb}' takes nothing after it; got {' '.join(args)!r}")
        return simple[verb]()
    if verb == "game":
        raise RuleError("a second 'game' line; expected one game per log (start a new log for a new game)")
    raise RuleError(f"unknown word {words[0]!r}; expected one of: {VOCABULARY}")


def parse_log(text: str) -> tuple[GameSetup, list[Event]]:
    """Read a whole table log; LogError names the first unreadable line. Rules are not checked here."""
    setup, numbered = iter_log_lines(text)
    return setup, [event for _, event in numbered]


def iter_log_lines(text: str) -> tuple[GameSetup, list[tuple[int, Event]]]:
    """Like parse_log, but keeps each event's line number (for replay errors that name the line)."""
    setup: GameSetup | None = None
    numbered: list[tuple[int, Event]] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not strip_comment(line):
            continue
        try:
            if setup is None:
                setup = parse_setup(line)
                continue
            event = parse_line(line)
        except RuleError as err:
            raise LogError(line_no, str(err)) from None
        if event is not None:
            numbered.append((line_no, event))
    if setup is None:
        raise LogError(1, "the log has no game line; expected a first line like 'game mex players=Ann,Bob'")
    return setup, numbered


def _format_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def format_setup(setup: GameSetup) -> str:
    """The `game` line for a setup (only options that differ from the defaults are written)."""
    words = ["game", setup.game, "players=" + ",".join(setup.players)]
    words += [f"{name}={_format_value(value)}" for name, value in setup.changed_options().items()]
    return " ".join(words)


def format_event(event: Event) -> str:
    """The table-log line for one event."""
    if isinstance(event, Roll):
        return f"roll {event.faces[0]} {event.faces[1]}"
    if isinstance(event, Count):
        return f"count {event.mode}"
    if isinstance(event, Place):
        return f"place {event.space}"
    words = {Reroll: "reroll", Stop: "stop", EndRound: "end-round", Undo: "undo"}
    if type(event) in words:
        return words[type(event)]
    raise RuleError(f"{event!r} is not a table-log event")


def format_log(setup: GameSetup, events: list[Event] | tuple[Event, ...]) -> str:
    """A whole table log (ends with a newline)."""
    return "\n".join([format_setup(setup), *(format_event(event) for event in events)]) + "\n"
