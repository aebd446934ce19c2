"""Property tests: random legal games driven only by `expects()`, checking the issue's invariants at every step.

Every game is played from a hypothesis-drawn seed, so a failure is reproducible; the checks are:
- the legal words `expects()` lists are exactly the events the rules accept (and a refused event changes nothing);
- Mex: lives never rise, every resolved round has exactly one loser paying the round's penalty, points follow it;
- Excape/Rapido: pawns never below 0, no space double-booked (except space 0 when shared), pairs per player;
- undo of apply is the identity; replaying any prefix then the rest, or the formatted log, gives the same state;
- games end (small lives / goals) or at least stay consistent.
"""

from __future__ import annotations

import random

from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import Game, GameSetup, MexState, Roll, RuleError, Undo, format_log, parse_line, parse_log
from companion.rules.values import EXCAPE_DIE_A, EXCAPE_DIE_B

MAX_EVENTS = 700
PROBE_WORDS = ("reroll", "stop", "end-round", "count pips", "count mex", *(f"place {n}" for n in range(7)))
PROPERTY_SETTINGS = settings(max_examples=examples(30), deadline=None)


def random_faces(game: Game, rng: random.Random, previous: tuple[str, str] | None) -> tuple[str, str]:
    if previous is not None and rng.random() < 0.2:
        return previous  # repeats make ties (Mex) and equal values (Excape ejections) common
    if game.setup.game == "mex":
        return (str(rng.randint(1, 6)), str(rng.randint(1, 6)))
    faces = (rng.choice(EXCAPE_DIE_A), rng.choice(EXCAPE_DIE_B))
    return faces if rng.random() < 0.5 else (faces[1], faces[0])


def choose_word(actions: frozenset[str], rng: random.Random) -> str:
    if "reroll" in actions and rng.random() < 0.35:
        return "reroll"
    if "end-round" in actions and rng.random() < 0.15:
        return "end-round"
    others = sorted(actions - {"reroll", "end-round"}) or sorted(actions)
    return rng.choice(others)


def check_expects_matches_rules(game: Game, rng: random.Random) -> None:
    """Each probe word applies without error exactly when expects() lists it; refusals leave the game as it was."""
    expected = game.expects()
    before = game.state
    for word in PROBE_WORDS:
        event = parse_line(word)
        try:
            game.apply(event)
            accepted = True
        except RuleError:
            accepted = False
        assert accepted == (word in expected.actions), (word, expected)
        assert game.state is before
    faces = random_faces(game, rng, None)
    try:
        game.apply(Roll(faces))
        accepted = True
    except RuleError:
        accepted = False
    assert accepted == ("roll" in expected.actions)
    assert (expected.kind == "over") == game.over == (expected.actor is None)
    assert game.over or expected.actions


def check_mex_step(old: MexState, new: MexState, notes: tuple) -> None:
    assert all(after <= before for before, after in zip(old.lives, new.lives, strict=True)), "lives rose"
    losers = [seat for seat in range(len(old.lives)) if new.lives[seat] < old.lives[seat]]
    resolved = new.round != old.round or (new.phase == "over" and old.phase != "over")
    lose_notes = [note for note in notes if note.code == "lose"]
    if not resolved:
        assert not losers and not lose_notes and new.points == old.points
        return
    assert len(losers) == 1 and len(lose_notes) == 1, "exactly one loser per resolved round"
    loser = losers[0]
    mexx = old.mexx_count + sum(note.code == "mexx" for note in notes)  # a round-ending Mexx counts too
    doubling = old.setup.option("mex_penalty") == "doubling"
    expected_penalty = 1 if mexx == 0 else (2**mexx if doubling else 2 * mexx)
    assert old.lives[loser] - new.lives[loser] == expected_penalty
    assert new.points[loser] - old.points[loser] == -1
    for seat in old.order:
        if seat != loser:
            gain = new.points[seat] - old.points[seat] - (5 if new.winner == seat else 0)
            assert gain in (1, 3)
    living = [seat for seat, lives in enumerate(new.lives) if lives > 0]
    assert (new.phase == "over") == (len(living) == 1)
    if new.phase != "over":
        assert all(new.lives[seat] > 0 for seat in new.order)
        expected_starter = loser if new.lives[loser] > 0 else next(
            s % len(new.lives) for s in range(loser, loser + len(new.lives)) if new.lives[s % len(new.lives)] > 0)
        assert new.starter == expected_starter == new.order[0]


def check_board(game: Game) -> None:
    state = game.state
    assert all(position >= 0 for position in state.positions), "pawn below 0"
    spaces = [pair.space for pair in state.board]
    shared = state.setup.option("zero_shared")
    nonzero = [space for space in spaces if space != 0 or not shared]
    assert len(nonzero) == len(set(nonzero)), "a space is double-booked"
    per_player = 2 if game.setup.game == "rapido" else 1
    for name in game.setup.players:
        assert sum(pair.player == name for pair in state.board) <= per_player
    if game.over:
        assert state.positions[game.setup.players.index(game.winner)] >= state.goal


def play_random_game(setup: GameSetup, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(setup)
    history = [game]
    previous: tuple[str, str] | None = None
    for _ in range(MAX_EVENTS):
        if game.over:
            break
        check_expects_matches_rules(game, rng)
        expected = game.expects()
        if "roll" in expected.actions:
            previous = random_faces(game, rng, previous)
            event = Roll(previous)
        else:
            event = parse_line(choose_word(expected.actions, rng))
        after = game.apply(event)
        undone = after.undo()
        assert undone.state == game.state and undone.events == game.events, "undo of apply is not the identity"
        if isinstance(game.state, MexState):
            check_mex_step(game.state, after.state, after.last_notes)
        else:
            check_board(after)
        assert after.events == (*game.events, event)
        game = after
        history.append(game)
        back = rng.randint(1, 3)
        if rng.random() < 0.1 and len(history) > back:
            rewound = game
            for _ in range(back):
                rewound = rewound.apply(Undo())
            assert rewound.state == history[-1 - back].state, "consecutive undos do not go back step by step"
    check_expects_matches_rules(game, rng)
    return game


def check_replays(game: Game, seed: int) -> None:
    events = game.events
    cut = random.Random(seed).randint(0, len(events))
    resumed = Game.replay(game.setup, events[:cut])
    for event in events[cut:]:
        resumed = resumed.apply(event)
    assert resumed.state == game.state
    journal = Game.replay(*parse_log(format_log(game.setup, events)))
    assert journal.state == game.state and journal.to_json() == game.to_json()


names = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32), count=st.integers(2, 6), lives=st.integers(1, 4),
       mode=st.sampled_from(["additive", "doubling"]))
def test_random_mex_games_keep_every_invariant_and_end(seed, count, lives, mode):
    setup = GameSetup("mex", names[:count], {"lives": lives, "mex_penalty": mode})
    game = play_random_game(setup, seed)
    assert game.over and sum(p["out"] for p in game.to_json()["players"]) == count - 1
    check_replays(game, seed)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32), count=st.integers(3, 6), goal=st.integers(1, 21), xx_first=st.sampled_from([0, 100]),
       zero_shared=st.booleans(), must_beat_lower=st.booleans())
def test_random_excape_games_keep_every_invariant(seed, count, goal, xx_first, zero_shared, must_beat_lower):
    setup = GameSetup("excape", names[:count], {"goal": goal, "xx_first": xx_first, "zero_shared": zero_shared,
                                                 "must_beat_lower": must_beat_lower})
    game = play_random_game(setup, seed)
    check_replays(game, seed)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32), goal=st.integers(1, 21), xx_first=st.sampled_from([0, 100]),
       zero_shared=st.booleans(), must_beat_lower=st.booleans())
def test_random_rapido_games_keep_every_invariant(seed, goal, xx_first, zero_shared, must_beat_lower):
    setup = GameSetup("rapido", ("Ann", "Bob"), {"goal": goal, "xx_first": xx_first, "zero_shared": zero_shared,
                                                 "must_beat_lower": must_beat_lower})
    game = play_random_game(setup, seed)
    check_replays(game, seed)


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_excape_games_with_a_small_goal_end(seed):
    game = play_random_game(GameSetup("excape", names[:3], {"goal": 6}), seed)
    assert game.over and game.winner is not None
