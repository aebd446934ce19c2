"""Mex as a pure state machine: `start(setup)`, `step(state, event) -> (state, notes)`, `expects(state)`.

A round: the starter throws 1-3 times (the number he uses is the limit for the others); every other living
player in seat order throws up to that limit. A Mexx (2-1) ends a turn at once; after any other throw the rules
wait for STOP (or END-ROUND). The lowest counted throw loses lives; ties play extra rounds of one throw each.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.rules.errors import RuleError
from companion.rules.events import Count, EndRound, Event, Place, Reroll, Roll, Stop
from companion.rules.notes import Expectation, Note, names_and
from companion.rules.setup import GameSetup
from companion.rules.values import MEXX_VALUE, mex_display, mex_pips, mex_value

MAX_THROWS = 3  # the starter may throw at most three times

# phases: "roll" the tray must read a throw of the main round; "choice" a throw waits for a button;
# "count" the tie-break chooser picks pips or mex; "extra" a tied player throws once; "over".


@dataclass(frozen=True)
class MexState:
    setup: GameSetup
    lives: tuple[int, ...]
    points: tuple[int, ...]
    round: int
    starter: int                                   # seat that opened this round
    order: tuple[int, ...]                         # seats throwing this round's main part, in throw order
    pos: int                                       # index into `order` of the player throwing now
    throws_used: int                               # throws the current player made this turn
    limit: int | None                              # throws allowed to the others (set when the starter is done)
    counted: tuple[tuple[int, int], ...]           # (seat, mex value) of each finished turn of the main part
    mexx_count: int                                # Mexx counted in this round's main part
    current: tuple[str, str] | None                # the throw waiting for STOP / END-ROUND / REROLL
    ender: int | None                              # seat that ended the round early, if any
    phase: str
    tied: tuple[int, ...] = ()                     # tie-break contenders, in throw order
    count_mode: str | None = None                  # "pips" or "mex" for the current extra round
    extra: tuple[tuple[int, int], ...] = ()        # (seat, value) thrown in the current extra round
    extra_round: int = 0                           # how many extra rounds this round has needed so far
    winner: int | None = None
    last_throw: tuple[str, str] | None = None
    last_loser: int | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    def name(self, seat: int) -> str:
        return self.setup.players[seat]

    @property
    def actor(self) -> int | None:
        if self.phase in ("roll", "choice"):
            return self.order[self.pos]
        if self.phase == "count":
            return self.tied[-1]
        if self.phase == "extra":
            return self.tied[len(self.extra)]
        return None

    @property
    def out(self) -> tuple[bool, ...]:
        return tuple(lives <= 0 for lives in self.lives)


def start(setup: GameSetup) -> MexState:
    count = len(setup.players)
    return _new_round(
        MexState(setup=setup, lives=(setup.option("lives"),) * count, points=(0,) * count, round=0, starter=0,
                 order=(), pos=0, throws_used=0, limit=None, counted=(), mexx_count=0, current=None, ender=None,
                 phase="roll"),
        starter=0,
    )


def _new_round(state: MexState, starter: int) -> MexState:
    count = len(state.players)
    order = tuple(seat % count for seat in range(starter, starter + count) if state.lives[seat % count] > 0)
    return replace(state, round=state.round + 1, starter=starter, order=order, pos=0, throws_used=0, limit=None,
                   counted=(), mexx_count=0, current=None, ender=None, phase="roll", tied=(), count_mode=None,
                   extra=(), extra_round=0)


def throw_cap(state: MexState) -> int:
    """How many throws the current main-round player may make in all."""
    if state.pos == 0:
        return MAX_THROWS
    return state.limit if state.limit is not None else MAX_THROWS


def throws_left(state: MexState) -> int:
    """Throws the player to act may still make (in "roll" phase this includes the one the tray will read)."""
    if state.phase in ("roll", "choice"):
        return throw_cap(state) - state.throws_used
    if state.phase == "extra":
        return 1
    return 0


def may_end_round(state: MexState) -> bool:
    return state.phase == "choice" and state.pos > 0 and state.mexx_count == 0


def expects(state: MexState) -> Expectation:
    actor = state.actor
    name = None if actor is None else state.name(actor)
    if state.phase in ("roll", "extra"):
        return Expectation(name, "roll", frozenset({"roll"}))
    if state.phase == "choice":
        actions = {"stop"}
        if throws_left(state) > 0:
            actions.add("reroll")
        if may_end_round(state):
            actions.add("end-round")
        return Expectation(name, "choice", frozenset(actions))
    if state.phase == "count":
        return Expectation(name, "count", frozenset({"count pips", "count mex"}))
    return Expectation(None, "over", frozenset())


def _refuse(state: MexState, what: str) -> RuleError:
    return expects(state).refuse(what, winner=None if state.winner is None else state.name(state.winner))


def step(state: MexState, event: Event) -> tuple[MexState, tuple[Note, ...]]:
    """Apply one event; raise RuleError (state untouched) when the rules do not allow it now."""
    if state.phase == "over":
        raise _refuse(state, f"{_word(event)} is impossible")
    if isinstance(event, Roll):
        return _roll(state, event)
    if isinstance(event, Reroll):
        return _reroll(state)
    if isinstance(event, Stop):
        return _stop(state)
    if isinstance(event, EndRound):
        return _end_round(state)
    if isinstance(event, Count):
        return _count(state, event)
    if isinstance(event, Place):
        raise _refuse(state, f"place {event.space} is an Excape/Rapido action, not a Mex one")
    raise RuleError(f"{type(event).__name__} is not an event the Mex rules know")


def _word(event: Event) -> str:
    return {Roll: "a roll", Reroll: "reroll", Stop: "stop", EndRound: "end-round", Count: "count",
            Place: "place"}.get(type(event), type(event).__name__.lower())


def _roll(state: MexState, event: Roll) -> tuple[MexState, tuple[Note, ...]]:
    faces = event.faces
    if state.phase == "choice":
        raise _refuse(state, f"roll {faces[0]} {faces[1]} came while waiting for a button")
    if state.phase == "count":
        raise _refuse(state, f"roll {faces[0]} {faces[1]} came before the tie-break count was chosen")
    value = mex_value(faces)  # validates the faces
    seat = state.actor
    assert seat is not None
    name = state.name(seat)
    if state.phase == "extra":
        counted_value = mex_pips(faces) if state.count_mode == "pips" else value
        how = f"{counted_value} pips" if state.count_mode == "pips" else mex_display(value)
        shown = "".join(sorted(faces, reverse=True))
        notes = [Note("throw", f"{name} throws {shown} in the tie-break: counts {how}")]
        state = replace(state, extra=(*state.extra, (seat, counted_value)), last_throw=faces)
        if len(state.extra) < len(state.tied):
            return state, tuple(notes)
        return _resolve_extra(state, notes)
    state = replace(state, throws_used=state.throws_used + 1, last_throw=faces)
    notes = [Note("throw", f"{name} throws {mex_display(value)}")]
    if value == MEXX_VALUE:
        notes.append(Note("mexx", f"MEXX! {name}'s turn ends"))
        return _finish_turn(replace(state, mexx_count=state.mexx_count + 1), value, notes)
    left = throw_cap(state) - state.throws_used
    if left == 0:
        notes.append(Note("last_throw", f"{name} has no throws left: press STOP"
                                        + (" or END-ROUND" if may_end_round(replace(state, phase="choice")) else "")))
    return replace(state, current=faces, phase="choice"), tuple(notes)


def _reroll(state: MexState) -> tuple[MexState, tuple[Note, ...]]:
    if state.phase != "choice":
        raise _refuse(state, "reroll is impossible now")
    if throws_left(state) <= 0:
        cap = throw_cap(state)
        raise _refuse(state, f"reroll is impossible: {state.name(state.order[state.pos])} has used all "
                             f"{cap} throw{'s' if cap != 1 else ''} allowed this round")
    name = state.name(state.order[state.pos])
    return replace(state, current=None, phase="roll"), (Note("reroll", f"{name} throws again"),)


def _stop(state: MexState) -> tuple[MexState, tuple[Note, ...]]:
    if state.phase != "choice":
        raise _refuse(state, "stop is impossible now")
    assert state.current is not None
    value = mex_value(state.current)
    name = state.name(state.order[state.pos])
    notes = [Note("stop", f"{name} stops on {mex_display(value)}")]
    return _finish_turn(state, value, notes)


def _end_round(state: MexState) -> tuple[MexState, tuple[Note, ...]]:
    if state.phase != "choice":
        raise _refuse(state, "end-round is impossible now")
    if state.pos == 0:
        raise _refuse(state, "end-round is impossible: the round's first player cannot end it")
    if state.mexx_count > 0:
        raise _refuse(state, "end-round is impossible: a Mexx was thrown this round")
    assert state.current is not None
    seat = state.order[state.pos]
    value = mex_value(state.current)
    skipped = [state.name(s) for s in state.order[state.pos + 1:]]
    text = f"{state.name(seat)} ends the round early on {mex_display(value)}"
    if skipped:
        verbs = "do not throw and survive" if len(skipped) > 1 else "does not throw and survives"
        text += f"; {names_and(skipped)} {verbs}"
    notes = [Note("end_round", text)]
    state = replace(state, counted=(*state.counted, (seat, value)), current=None, ender=seat)
    return _resolve_main(state, notes)


def _finish_turn(state: MexState, value: int, notes: list[Note]) -> tuple[MexState, tuple[Note, ...]]:
    seat = state.order[state.pos]
    state = replace(state, counted=(*state.counted, (seat, value)), current=None)
    if state.pos == 0:
        state = replace(state, limit=state.throws_used)
        if len(state.order) > 1:
            notes.append(Note("limit", f"the others may throw {state.throws_used} "
                                       f"time{'s' if state.throws_used != 1 else ''}"))
    if state.pos + 1 < len(state.order):
        state = replace(state, pos=state.pos + 1, throws_used=0, phase="roll")
        return state, tuple(notes)
    return _resolve_main(state, notes)


def penalty(state: MexState) -> int:
    """Lives the round's loser pays: 1 without Mexx, else 2 per Mexx (additive) or 2, 4, 8 ... (doubling)."""
    mexx = state.mexx_count
    if mexx == 0:
        return 1
    if state.setup.option("mex_penalty") == "doubling":
        return 2 ** mexx
    return 2 * mexx


def _resolve_main(state: MexState, notes: list[Note]) -> tuple[MexState, tuple[Note, ...]]:
    lowest = min(value for _, value in state.counted)
    if state.ender is not None:
        ender_value = dict(state.counted)[state.ender]
        if ender_value == lowest:
            tied_with = [state.name(s) for s, v in state.counted if v == lowest and s != state.ender]
            reason = f"lowest {mex_display(lowest)}"
            if tied_with:
                reason += f", tied with {names_and(tied_with)}: the one who ends the round counts one lower"
            return _lose(state, state.ender, reason, notes)
    tied = tuple(seat for seat, value in state.counted if value == lowest)
    if len(tied) == 1:
        return _lose(state, tied[0], f"lowest {mex_display(lowest)}", notes)
    return _start_tie(state, tied, f"tie {mex_display(lowest)}", notes)


def _start_tie(state: MexState, tied: tuple[int, ...], label: str,
               notes: list[Note]) -> tuple[MexState, tuple[Note, ...]]:
    names = [state.name(s) for s in tied]
    notes.append(Note("tie", f"{label}: {names_and(names)} throw again, {names[-1]} chooses how to count"))
    state = replace(state, phase="count", tied=tied, count_mode=None, extra=(), extra_round=state.extra_round + 1)
    return state, tuple(notes)


def _count(state: MexState, event: Count) -> tuple[MexState, tuple[Note, ...]]:
    if state.phase != "count":
        raise _refuse(state, f"count {event.mode} is impossible: there is no tie to break now")
    chooser = state.name(state.tied[-1])
    how = "pips (sum of the dice, 2-1 is 3)" if event.mode == "pips" else "mex (the normal order, Mexx highest)"
    note = Note("count", f"{chooser} counts {how}; one throw each: {names_and([state.name(s) for s in state.tied])}")
    return replace(state, phase="extra", count_mode=event.mode, extra=()), (note,)


def _resolve_extra(state: MexState, notes: list[Note]) -> tuple[MexState, tuple[Note, ...]]:
    lowest = min(value for _, value in state.extra)
    tied = tuple(seat for seat, value in state.extra if value == lowest)
    shown = f"{lowest} pips" if state.count_mode == "pips" else mex_display(lowest)
    if len(tied) == 1:
        return _lose(state, tied[0], f"lowest in the tie-break, {shown}", notes)
    return _start_tie(state, tied, f"tie again at {shown}", notes)


def _lose(state: MexState, loser: int, reason: str, notes: list[Note]) -> tuple[MexState, tuple[Note, ...]]:
    lives_lost = penalty(state)
    mexx = state.mexx_count
    mexx_text = {0: "no Mexx", 1: "one Mexx"}.get(mexx, f"{mexx} Mexx") + " this round"
    name = state.name(loser)
    notes.append(Note("lose", f"{name} loses {lives_lost} li{'ves' if lives_lost != 1 else 'fe'}: {reason}, "
                              f"{mexx_text}"))
    lives = list(state.lives)
    lives[loser] -= lives_lost
    points = list(state.points)
    main_values = dict(state.counted)
    gains = []
    for seat in state.order:
        if seat == loser:
            points[seat] -= 1
            continue
        gain = 1 + (2 if main_values.get(seat) == MEXX_VALUE else 0)
        points[seat] += gain
        gains.append(f"{state.name(seat)} +{gain}")
    notes.append(Note("points", f"points: {', '.join(gains)}, {name} -1"))
    state = replace(state, lives=tuple(lives), points=tuple(points), last_loser=loser, current=None)
    if lives[loser] <= 0:
        notes.append(Note("out", f"{name} is out"))
    living = [seat for seat in range(len(lives)) if lives[seat] > 0]
    if len(living) == 1:
        winner = living[0]
        points[winner] += 5
        notes.append(Note("win", f"{state.name(winner)} wins (+5 points for the last player standing)"))
        return replace(state, points=tuple(points), winner=winner, phase="over", tied=(), count_mode=None,
                       extra=()), tuple(notes)
    count = len(lives)
    starter = next(seat % count for seat in range(loser, loser + count) if lives[seat % count] > 0)
    state = _new_round(state, starter)
    notes.append(Note("round", f"round {state.round}: {state.name(starter)} starts"))
    return state, tuple(notes)


def to_json(state: MexState) -> dict[str, Any]:
    actor = state.actor
    result: dict[str, Any] = {
        "game": "mex",
        "over": state.phase == "over",
        "winner": None if state.winner is None else state.name(state.winner),
        "round": state.round,
        "to_act": None if actor is None else state.name(actor),
        "players": [{"name": name, "lives": state.lives[seat], "points": state.points[seat],
                     "out": state.lives[seat] <= 0} for seat, name in enumerate(state.players)],
        "phase": state.phase,
        "expects": expects(state).to_json(),
        "throws_left": throws_left(state),
        "throw_limit": state.limit,
        "last_throw": None if state.last_throw is None else " ".join(state.last_throw),
        "counted": [{"player": state.name(seat), "value": mex_display(value)} for seat, value in state.counted],
        "mexx_this_round": state.mexx_count,
        "tie": [state.name(seat) for seat in state.tied] or None,
        "count_mode": state.count_mode,
        "options": dict(state.setup.options),
    }
    return result
