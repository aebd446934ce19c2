"""`dice-companion replay FILE [--json]`: apply a table log and print the state it leads to.

An impossible or unreadable line stops the replay: `line N: <reason>` goes to stderr, the exit code is 2, and
stdout still shows the state reached just before that line (so a journal with a bad tail stays useful).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.files import file_error_reason
from companion.rules import Game, LogError, RuleError
from companion.rules.excape import ExcapeState
from companion.rules.mex import MexState
from companion.rules.tablelog import parse_line, parse_setup, strip_comment
from companion.rules.values import excape_display


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dice-companion replay",
        description="Apply a table log (one event per line) and print the resulting game state.",
    )
    parser.add_argument("file", help="the table log to replay ('-' reads standard input)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    return parser


def replay_text(text: str) -> tuple[Game | None, LogError | None]:
    """Apply a log line by line; returns the game reached and the error that stopped it (None when all applied).

    The game is None only when the `game` line itself is missing or wrong.
    """
    game: Game | None = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not strip_comment(line):
            continue
        try:
            if game is None:
                game = Game.new(parse_setup(line))
                continue
            event = parse_line(line)
            if event is not None:
                game = game.apply(event)
        except RuleError as err:
            return game, LogError(line_no, str(err))
    if game is None:
        return None, LogError(1, "the log has no game line; expected a first line like 'game mex players=Ann,Bob'")
    return game, None


def summary(game: Game) -> str:
    """A readable summary: players and their standing, the board, who acts and what is expected."""
    state = game.state
    lines: list[str] = []
    if isinstance(state, MexState):
        lines.append(f"mex, round {state.round}, {len(game)} events applied")
        width = max(map(len, state.players))
        for seat, name in enumerate(state.players):
            flag = "  out" if state.lives[seat] <= 0 else ""
            lines.append(f"  {name:<{width}}  lives {state.lives[seat]:>3}  points {state.points[seat]:>4}{flag}")
    else:
        assert isinstance(state, ExcapeState)
        lines.append(f"{state.setup.game}, goal {state.goal}, turn {state.turn}, {len(game)} events applied")
        width = max(map(len, state.players))
        for seat, name in enumerate(state.players):
            lines.append(f"  {name:<{width}}  position {state.positions[seat]:>3}")
        cells = []
        for space in range(6):
            here = [f"{p.player} {excape_display(p.value)}" for p in state.board if p.space == space]
            cells.append(f"{space}: {', '.join(here) if here else '-'}")
        lines.append("  board  " + " | ".join(cells))
    expected = game.expects()
    if game.over:
        lines.append(f"game over: {game.winner} wins")
    else:
        lines.append(f"to act: {expected.actor} ({expected.kind}: {' | '.join(expected.to_json()['actions'])})")
    if game.last_notes:
        lines.append("last: " + "; ".join(note.text for note in game.last_notes))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"cannot read table log {args.file}: {file_error_reason(err)}; expected a readable UTF-8 text file",
              file=sys.stderr)
        return 2
    game, error = replay_text(text)
    if game is not None:
        print(json.dumps(game.to_json()) if args.json else summary(game))
    if error is not None:
        print(str(error), file=sys.stderr)
        return 2
    return 0
