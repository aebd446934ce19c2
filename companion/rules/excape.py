"""Excape / Exxtra and its two-player Rapido rules as a pure state machine.

A turn: first collect the pair(s) on the ranking board (advance the pawn by their space numbers), then roll;
doubles 1-1, 2-2, 3-3 move the pawn at once; an X on any roll after the first ends the turn and moves the pawn
back; otherwise REROLL or PLACE the pair on a free space 0-5, ejecting weaker pairs on higher spaces.
Rapido: each player owns two pairs and one pawn, and never ejects his own pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.rules.errors import RuleError
from companion.rules.events import Count, EndRound, Event, Place, Reroll, Roll, Stop
from companion.rules.notes import Expectation, Note
from companion.rules.setup import GameSetup
from companion.rules.values import excape_display, excape_double_steps, excape_pair_value, excape_x_count

SPACES = tuple(range(6))  # the ranking board's spaces 0-5

# phases: "roll" the tray must read a throw; "choice" the player rerolls or places; "over".


@dataclass(frozen=True)
class BoardPair:
    """A pair of dice lying on the ranking board."""

    space: int
    player: str
    value: int

    def to_json(self) -> dict[str, Any]:
        return {"space": self.space, "player": self.player, "value": self.value}


@dataclass(frozen=True)
class ExcapeState:
    setup: GameSetup
    positions: tuple[int, ...]
    board: tuple[BoardPair, ...]      # in placement order
    actor: int | None                 # seat to act; None when over
    phase: str
    turn: int = 1                     # turns begun so far, counting the current one
    rolls: int = 0                    # rolls made in the current turn
    current: tuple[str, str] | None = None
    current_value: int | None = None
    winner: int | None = None
    last_throw: tuple[str, str] | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    @property
    def rapido(self) -> bool:
        return self.setup.game == "rapido"

    @property
    def goal(self) -> int:
        return int(self.setup.option("goal"))

    def name(self, seat: int) -> str:
        return self.setup.players[seat]

    def pairs_of(self, seat: int) -> tuple[BoardPair, ...]:
        name = self.name(seat)
        return tuple(pair for pair in self.board if pair.player == name)

    def pairs_in_hand(self, seat: int) -> int:
        return (2 if self.rapido else 1) - len(self.pairs_of(seat))


def start(setup: GameSetup) -> ExcapeState:
    state = ExcapeState(setup=setup, positions=(0,) * len(setup.players), board=(), actor=0, phase="roll", turn=0)
    state, _ = _begin_turn(state, 0, [])
    return state


def legal_spaces(state: ExcapeState) -> tuple[int, ...]:
    """Spaces the current pair may be placed on now (empty unless a placement is possible)."""
    if state.phase != "choice" or state.current_value is None:
        return ()
    zero_shared = bool(state.setup.option("zero_shared"))
    must_beat_lower = bool(state.setup.option("must_beat_lower"))
    occupied = {pair.space for pair in state.board}
    legal = []
    for space in SPACES:
        if space in occupied and not (space == 0 and zero_shared):
            continue
        if must_beat_lower and blocking_lower_pairs(state, space):
            continue
        legal.append(space)
    return tuple(legal)


def blocking_lower_pairs(state: ExcapeState, space: int) -> tuple[BoardPair, ...]:
    """With must_beat_lower: the pairs on lower spaces that the current pair does not beat.

    "Beat" has the ejection rule's meaning: equal or higher wins. A Rapido player's own pairs never compete
    with him (he never ejects them either), so they never block him.
    """
    if state.current_value is None or state.actor is None:
        return ()
    own = state.name(state.actor)
    return tuple(pair for pair in state.board
                 if pair.space < space and pair.value > state.current_value
                 and not (state.rapido and pair.player == own))


def ejections_if_placed(state: ExcapeState, space: int) -> tuple[BoardPair, ...]:
    """The pairs a placement on `space` would send back: on higher spaces, worth equal or less, not the actor's own
    in Rapido. Empty when no pair is waiting to be placed."""
    if state.phase != "choice" or state.current_value is None or state.actor is None:
        return ()
    own = state.name(state.actor)
    return tuple(pair for pair in state.board
                 if pair.space > space and pair.value <= state.current_value
                 and not (state.rapido and pair.player == own))


def expects(state: ExcapeState) -> Expectation:
    if state.phase == "over" or state.actor is None:
        return Expectation(None, "over", frozenset())
    name = state.name(state.actor)
    if state.phase == "roll":
        return Expectation(name, "roll", frozenset({"roll"}))
    return Expectation(name, "choice", frozenset({"reroll"} | {f"place {space}" for space in legal_spaces(state)}))


def _refuse(state: ExcapeState, what: str) -> RuleError:
    return expects(state).refuse(what, winner=None if state.winner is None else state.name(state.winner))


def step(state: ExcapeState, event: Event) -> tuple[ExcapeState, tuple[Note, ...]]:
    """Apply one event; raise RuleError (state untouched) when the rules do not allow it now."""
    if isinstance(event, Roll):
        if state.phase == "over":
            raise _refuse(state, f"roll {event.faces[0]} {event.faces[1]} is impossible")
        return _roll(state, event)
    if isinstance(event, Reroll):
        if state.phase != "choice":
            hint = ": roll the dice first" if state.phase == "roll" else ""
            raise _refuse(state, f"reroll is impossible now{hint}")
        assert state.actor is not None
        return replace(state, phase="roll", current=None, current_value=None), (
            Note("reroll", f"{state.name(state.actor)} throws again"),)
    if isinstance(event, Place):
        return _place(state, event.space)
    if isinstance(event, Stop | EndRound | Count):
        word = {Stop: "stop", EndRound: "end-round", Count: "count"}[type(event)]
        raise _refuse(state, f"{word} is a Mex action, not an {state.setup.game.capitalize()} one")
    raise RuleError(f"{type(event).__name__} is not an event the {state.setup.game} rules know")


def _roll(state: ExcapeState, event: Roll) -> tuple[ExcapeState, tuple[Note, ...]]:
    faces = event.faces
    if state.phase == "choice":
        raise _refuse(state, f"roll {faces[0]} {faces[1]} came while waiting for a button")
    assert state.actor is not None
    seat = state.actor
    name = state.name(seat)
    first_roll = state.rolls == 0
    value = excape_pair_value(faces, first_roll=first_roll, xx_first=int(state.setup.option("xx_first")))
    state = replace(state, rolls=state.rolls + 1, last_throw=faces)
    x_count = excape_x_count(faces)
    if x_count and not first_roll:
        positions = list(state.positions)
        before = positions[seat]
        positions[seat] = max(0, before - x_count)
        moved = before - positions[seat]
        shown = "XX" if x_count == 2 else "X"
        text = f"{shown}! {name}'s turn ends, pawn back {x_count}"
        if moved < x_count:
            text += f" (stops at 0, moved back {moved})"
        notes = [Note("throw", f"{name} throws {faces[0]} {faces[1]}"), Note("x_penalty", text)]
        state = replace(state, positions=tuple(positions), current=None, current_value=None)
        return _end_turn(state, notes)
    notes = [Note("throw", f"{name} throws {excape_display(value)}")]
    steps = excape_double_steps(faces)
    if steps:
        positions = list(state.positions)
        positions[seat] += steps
        state = replace(state, positions=tuple(positions))
        notes.append(Note("double", f"double {faces[0]}! {name}'s pawn +{steps} (now on {positions[seat]})"))
        if positions[seat] >= state.goal:
            notes.append(Note("win", f"{name} wins: pawn on {positions[seat]}, goal {state.goal}"))
            return replace(state, phase="over", winner=seat, actor=None, current=None, current_value=None), tuple(notes)
    return replace(state, phase="choice", current=faces, current_value=value), tuple(notes)


def _place(state: ExcapeState, space: int) -> tuple[ExcapeState, tuple[Note, ...]]:
    if state.phase != "choice":
        raise _refuse(state, f"place {space} is impossible now" + (": roll the dice first"
                                                                    if state.phase == "roll" else ""))
    assert state.actor is not None and state.current_value is not None
    if space not in SPACES:
        raise _refuse(state, f"place {space} is impossible: the ranking board has spaces 0 to 5")
    if space not in legal_spaces(state):
        holders = [pair for pair in state.board if pair.space == space]
        if holders:
            why = f"space {space} is taken by {holders[0].player}'s {excape_display(holders[0].value)}"
        else:
            stronger = blocking_lower_pairs(state, space)
            why = (f"{excape_display(state.current_value)} does not beat {stronger[0].player}'s "
                   f"{excape_display(stronger[0].value)} on lower space {stronger[0].space} (must_beat_lower)")
        raise _refuse(state, f"place {space} is impossible: {why}")
    seat = state.actor
    name = state.name(seat)
    ejected = ejections_if_placed(state, space)
    notes = [Note("place", f"{name} places {excape_display(state.current_value)} on space {space}")]
    for pair in ejected:
        notes.append(Note("eject", f"{name}'s {excape_display(state.current_value)} ejects {pair.player}'s "
                                   f"{excape_display(pair.value)} from space {pair.space}"))
    kept = tuple(pair for pair in state.board if pair not in ejected)
    board = (*kept, BoardPair(space, name, state.current_value))
    state = replace(state, board=board, current=None, current_value=None)
    return _end_turn(state, notes)


def _end_turn(state: ExcapeState, notes: list[Note]) -> tuple[ExcapeState, tuple[Note, ...]]:
    assert state.actor is not None
    following = (state.actor + 1) % len(state.players)
    state, notes = _begin_turn(state, following, notes)
    return state, tuple(notes)


def _begin_turn(state: ExcapeState, seat: int, notes: list[Note]) -> tuple[ExcapeState, list[Note]]:
    """Start `seat`'s turn: collect the pair(s) on the board and advance the pawn, maybe winning at once."""
    name = state.name(seat)
    own = state.pairs_of(seat)
    state = replace(state, actor=seat, phase="roll", rolls=0, current=None, current_value=None, turn=state.turn + 1)
    collect = own if (not state.rapido or len(own) == 2) else ()
    if own and not collect:
        notes.append(Note("stays", f"{name}'s pair on space {own[0].space} stays and scores nothing "
                                   "(the other pair is in hand)"))
    if collect:
        steps = sum(pair.space for pair in collect)
        positions = list(state.positions)
        positions[seat] += steps
        spaces = " + ".join(str(pair.space) for pair in collect)
        what = f"pair on space {spaces}" if len(collect) == 1 else f"pairs on spaces {spaces}"
        notes.append(Note("advance", f"{name}'s pawn +{steps} ({what}), now on {positions[seat]}"))
        state = replace(state, positions=tuple(positions), board=tuple(p for p in state.board if p not in collect))
        if positions[seat] >= state.goal:
            notes.append(Note("win", f"{name} wins: pawn on {positions[seat]}, goal {state.goal}"))
            return replace(state, phase="over", winner=seat, actor=None), notes
    notes.append(Note("turn", f"{name}'s turn: roll"))
    return state, notes


def to_json(state: ExcapeState) -> dict[str, Any]:
    return {
        "game": state.setup.game,
        "over": state.phase == "over",
        "winner": None if state.winner is None else state.name(state.winner),
        "to_act": None if state.actor is None else state.name(state.actor),
        "goal": state.goal,
        "players": [{"name": name, "position": state.positions[seat]} for seat, name in enumerate(state.players)],
        "board": [pair.to_json() for pair in sorted(state.board, key=lambda pair: pair.space)],
        "phase": state.phase,
        "expects": expects(state).to_json(),
        "turn": state.turn,
        "rolls_this_turn": state.rolls,
        "last_throw": None if state.last_throw is None else " ".join(state.last_throw),
        "pair_value": state.current_value,
        "legal_spaces": list(legal_spaces(state)),
        "pairs_in_hand": {name: state.pairs_in_hand(seat) for seat, name in enumerate(state.players)},
        "options": dict(state.setup.options),
    }
