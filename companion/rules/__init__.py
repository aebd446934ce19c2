"""The rules core: Mex, Excape/Exxtra and Rapido as pure, replayable state machines (no I/O, clock or randomness).

    from companion.rules import Game, GameSetup, Roll, Stop
    game = Game.new(GameSetup("mex", ("Ann", "Bob")))
    game = game.apply(Roll(("6", "3"))).apply(Stop())
"""

from companion.rules.errors import RuleError, SetupError
from companion.rules.events import Count, EndRound, Event, Place, Reroll, Roll, Stop, Undo
from companion.rules.excape import BoardPair, ExcapeState
from companion.rules.game import Game, GameState
from companion.rules.mex import MexState
from companion.rules.notes import Expectation, Note
from companion.rules.setup import GameSetup
from companion.rules.tablelog import LogError, format_event, format_log, format_setup, parse_line, parse_log
from companion.rules.values import (
    MEXX_VALUE,
    excape_display,
    excape_pair_value,
    mex_display,
    mex_pips,
    mex_throw_display,
    mex_value,
)

__all__ = [
    "MEXX_VALUE", "BoardPair", "Count", "EndRound", "Event", "ExcapeState", "Expectation", "Game", "GameSetup",
    "GameState", "LogError", "MexState", "Note", "Place", "Reroll", "Roll", "RuleError", "SetupError", "Stop", "Undo",
    "excape_display", "excape_pair_value", "format_event", "format_log", "format_setup", "mex_display", "mex_pips",
    "mex_throw_display", "mex_value", "parse_line", "parse_log",
]
