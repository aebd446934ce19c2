"""`Game`: an immutable game = setup + the events applied so far; state is the fold of the events.

`apply` returns a new Game (the old one is untouched) or raises RuleError; `undo` returns the game before the
last event. Each Game remembers the one before it, so undo costs nothing and replaying is never needed.
"""

from __future__ import annotations

from typing import Any

from companion.rules import excape, mex
from companion.rules.errors import RuleError
from companion.rules.events import Event, Undo
from companion.rules.excape import BoardPair, ExcapeState
from companion.rules.mex import MexState
from companion.rules.notes import Expectation, Note
from companion.rules.setup import GameSetup
from companion.rules.tablelog import format_event

GameState = MexState | ExcapeState


class Game:
    """One game in progress. Create with `Game.new(setup)`; never mutated."""

    __slots__ = ("_event", "_length", "_previous", "last_notes", "setup", "state")

    def __init__(self, setup: GameSetup, state: GameState, previous: Game | None, event: Event | None,
                 notes: tuple[Note, ...]) -> None:
        self.setup = setup
        self.state = state
        self._previous = previous
        self._event = event
        self._length = 0 if previous is None else previous._length + 1
        self.last_notes = notes

    @classmethod
    def new(cls, setup: GameSetup) -> Game:
        state: GameState = mex.start(setup) if setup.game == "mex" else excape.start(setup)
        return cls(setup, state, None, None, (Note("start", _start_text(setup)),))

    @classmethod
    def replay(cls, setup: GameSetup, events: list[Event] | tuple[Event, ...]) -> Game:
        """Apply events in order from a new game (RuleError at the first impossible one)."""
        game = cls.new(setup)
        for event in events:
            game = game.apply(event)
        return game

    def apply(self, event: Event) -> Game:
        """The game after `event` (Undo reverts the previous event); RuleError if the rules forbid it now."""
        if isinstance(event, Undo):
            return self.undo()
        rules = mex if isinstance(self.state, MexState) else excape
        state, notes = rules.step(self.state, event)  # type: ignore[arg-type]
        return Game(self.setup, state, self, event, notes)

    def undo(self) -> Game:
        """The game as it was before the last (not yet undone) event."""
        if self._previous is None or self._event is None:
            raise RuleError("undo is impossible: nothing to undo at the start of the game; expected a first event")
        before = self._previous
        note = Note("undo", f"undone: {format_event(self._event)}")
        return Game(before.setup, before.state, before._previous, before._event, (note,))

    @property
    def events(self) -> tuple[Event, ...]:
        """The events that made this state, oldest first (undone events and the undos themselves excluded)."""
        found: list[Event] = []
        game: Game | None = self
        while game is not None and game._event is not None:
            found.append(game._event)
            game = game._previous
        return tuple(reversed(found))

    def __len__(self) -> int:
        return self._length

    @property
    def over(self) -> bool:
        return self.state.phase == "over"

    @property
    def winner(self) -> str | None:
        return None if self.state.winner is None else self.setup.players[self.state.winner]

    @property
    def to_act(self) -> str | None:
        return self.expects().actor

    def expects(self) -> Expectation:
        """What the rules wait for now: actor, kind ("roll" | "choice" | "count" | "over") and legal words."""
        if isinstance(self.state, MexState):
            return mex.expects(self.state)
        return excape.expects(self.state)

    def throws_left(self) -> int:
        """Mex: throws the player to act may still make this turn (including the one being waited for)."""
        if not isinstance(self.state, MexState):
            raise RuleError(f"throws_left is a Mex question; this game is {self.setup.game}")
        return mex.throws_left(self.state)

    def legal_spaces(self) -> tuple[int, ...]:
        """Excape/Rapido: the spaces the pair just rolled may be placed on now."""
        if not isinstance(self.state, ExcapeState):
            raise RuleError("legal_spaces is an Excape/Rapido question; this game is mex")
        return excape.legal_spaces(self.state)

    def ejections_if_placed(self, space: int) -> tuple[BoardPair, ...]:
        """Excape/Rapido: the pairs (with their owners) that placing on `space` would eject."""
        if not isinstance(self.state, ExcapeState):
            raise RuleError("ejections_if_placed is an Excape/Rapido question; this game is mex")
        return excape.ejections_if_placed(self.state, space)

    def to_json(self) -> dict[str, Any]:
        """The replay JSON object (the issue's required keys first, then extra fields for screens and tools)."""
        result = mex.to_json(self.state) if isinstance(self.state, MexState) else excape.to_json(self.state)
        result["events"] = self._length
        result["last_notes"] = [note.text for note in self.last_notes]
        return result


def _start_text(setup: GameSetup) -> str:
    return f"{setup.game} with {', '.join(setup.players)}: {setup.players[0]} starts"
