"""Mex rules, one decision at a time (issue 2, "Decisions: Mex")."""

from __future__ import annotations

import pytest

from companion.rules import (
    MEXX_VALUE,
    Game,
    GameSetup,
    RuleError,
    mex_display,
    mex_pips,
    mex_value,
    parse_line,
)


def play(players: str = "Ann,Bob,Cid", *lines: str, **options: object) -> Game:
    game = Game.new(GameSetup("mex", tuple(players.split(",")), options))
    for line in lines:
        event = parse_line(line)
        assert event is not None
        game = game.apply(event)
    return game


def lives(game: Game) -> dict[str, int]:
    return {p["name"]: p["lives"] for p in game.to_json()["players"]}


def points(game: Game) -> dict[str, int]:
    return {p["name"]: p["points"] for p in game.to_json()["players"]}


def notes(game: Game) -> list[str]:
    return [note.text for note in game.last_notes]


# ---- values -------------------------------------------------------------------------------------------------

def test_value_order_from_31_to_mexx():
    order = [("3", "1"), ("3", "2"), ("4", "1"), ("4", "3"), ("5", "4"), ("6", "5"), ("1", "1"), ("2", "2"),
             ("6", "6"), ("2", "1")]
    values = [mex_value(faces) for faces in order]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert mex_value(("3", "6")) == 63 and mex_value(("4", "4")) == 400 and mex_value(("1", "2")) == MEXX_VALUE


def test_display_and_pips():
    assert [mex_display(mex_value(f)) for f in (("6", "3"), ("4", "4"), ("2", "1"))] == ["63", "400", "MEXX!"]
    assert mex_pips(("2", "1")) == 3 and mex_pips(("5", "2")) == 7 and mex_pips(("1", "1")) == 2


@pytest.mark.parametrize("line", ["roll 7 4", "roll X 3", "roll x x", "roll 6 7"])
def test_faces_off_an_ordinary_die_are_refused(line):
    with pytest.raises(RuleError, match="ordinary die"):
        play("Ann,Bob", line)


# ---- throws, limit, buttons ---------------------------------------------------------------------------------

def test_waits_for_a_button_after_a_throw_even_with_no_throws_left():
    game = play("Ann,Bob", "roll 6 3", "reroll", "roll 5 4", "reroll", "roll 4 3")
    assert game.expects().kind == "choice" and game.expects().actions == {"stop"}
    assert game.throws_left() == 0
    with pytest.raises(RuleError, match="used all 3 throws"):
        game.apply(parse_line("reroll"))
    with pytest.raises(RuleError, match="waiting for a button"):
        game.apply(parse_line("roll 6 6"))


def test_starter_sets_the_limit_and_others_may_stop_earlier():
    game = play("Ann,Bob,Cid", "roll 6 3", "reroll", "roll 5 4", "stop")
    assert game.to_json()["throw_limit"] == 2 and game.throws_left() == 2
    game = game.apply(parse_line("roll 4 1")).apply(parse_line("reroll")).apply(parse_line("roll 3 2"))
    assert game.throws_left() == 0 and "reroll" not in game.expects().actions
    with pytest.raises(RuleError, match="used all 2 throws"):
        game.apply(parse_line("reroll"))
    game = game.apply(parse_line("stop")).apply(parse_line("roll 6 6")).apply(parse_line("stop"))  # Cid stops early
    assert lives(game) == {"Ann": 12, "Bob": 11, "Cid": 12}


def test_mexx_ends_the_turn_at_once_and_sets_the_limit():
    game = play("Ann,Bob", "roll 6 3", "reroll", "roll 1 2")
    assert "MEXX! Ann's turn ends" in notes(game)
    assert game.to_act == "Bob" and game.expects().kind == "roll" and game.throws_left() == 2
    with pytest.raises(RuleError, match="expected 'roll' from Bob"):
        game.apply(parse_line("stop"))


def test_the_last_throw_counts_not_the_best():
    game = play("Ann,Bob", "roll 6 6", "reroll", "roll 3 1", "stop", "roll 3 2", "reroll", "roll 3 1", "stop")
    # Ann 31 (not her 600) and Bob 31 tie; Bob 32 earlier does not count either.
    assert game.expects().kind == "count" and game.to_act == "Bob"


# ---- losing, penalties, lives, next starter --------------------------------------------------------------------

def test_lowest_loses_one_life_and_starts_next_round():
    game = play("Ann,Bob,Cid", "roll 5 4", "stop", "roll 3 1", "stop", "roll 6 1", "stop")
    assert lives(game) == {"Ann": 12, "Bob": 11, "Cid": 12}
    assert game.to_json()["round"] == 2 and game.to_act == "Bob"
    assert "Bob loses 1 life: lowest 31, no Mexx this round" in notes(game)


@pytest.mark.parametrize(("mode", "mexx", "lost"), [
    ("additive", 1, 2), ("additive", 2, 4), ("additive", 3, 6),
    ("doubling", 1, 2), ("doubling", 2, 4), ("doubling", 3, 8),
])
def test_penalty_grows_with_each_mexx(mode, mexx, lost):
    players = "Ann,Bob,Cid,Dan"
    lines = ["roll 2 1"] * mexx + ["roll 3 1", "stop"] * (4 - mexx)
    if mexx < 3:
        # several 31s would tie: make all but the last non-Mexx throw higher
        lines = ["roll 2 1"] * mexx + ["roll 6 5", "stop"] * (3 - mexx) + ["roll 3 1", "stop"]
    game = play(players, *lines, mex_penalty=mode)
    assert lives(game)["Dan"] == 12 - lost
    assert f"Dan loses {lost} lives" in notes(game)[-3]


def test_doubling_without_mexx_is_one_life():
    game = play("Ann,Bob", "roll 5 4", "stop", "roll 3 1", "stop", mex_penalty="doubling")
    assert lives(game)["Bob"] == 11


def test_out_at_zero_and_next_living_player_starts():
    game = play("Ann,Bob,Cid", "roll 6 5", "stop", "roll 3 1", "stop", "roll 5 5", "stop", lives=1)
    state = game.to_json()
    assert [p["out"] for p in state["players"]] == [False, True, False]
    assert state["to_act"] == "Cid" and "Bob is out" in notes(game)
    # Bob no longer throws: Cid then Ann.
    game = game.apply(parse_line("roll 4 1")).apply(parse_line("stop"))
    assert game.to_act == "Ann"


def test_last_player_standing_wins_with_five_points():
    game = play("Ann,Bob", "roll 6 5", "stop", "roll 3 1", "stop", lives=1)
    assert game.over and game.winner == "Ann" and game.to_act is None
    assert points(game) == {"Ann": 6, "Bob": -1}
    assert game.expects().kind == "over" and not game.expects().actions
    with pytest.raises(RuleError, match="game is over"):
        game.apply(parse_line("roll 3 1"))


def test_points_survivor_plus_one_mexx_plus_two_loser_minus_one():
    game = play("Ann,Bob,Cid", "roll 2 1", "roll 3 1", "stop", "roll 4 1", "stop")
    assert points(game) == {"Ann": 3, "Bob": -1, "Cid": 1}


# ---- end-round -------------------------------------------------------------------------------------------

def test_end_round_skips_the_rest_who_survive_and_score():
    game = play("Ann,Bob,Cid,Dan", "roll 3 2", "stop", "roll 6 5")
    assert "end-round" in game.expects().actions
    game = game.apply(parse_line("end-round"))
    assert lives(game) == {"Ann": 11, "Bob": 12, "Cid": 12, "Dan": 12}
    assert points(game) == {"Ann": -1, "Bob": 1, "Cid": 1, "Dan": 1}
    assert "Bob ends the round early on 65; Cid and Dan do not throw and survive" in notes(game)


def test_end_round_tying_the_lowest_loses_alone():
    game = play("Ann,Bob,Cid,Dan", "roll 4 1", "stop", "roll 6 5", "stop", "roll 1 4", "end-round")
    assert lives(game) == {"Ann": 12, "Bob": 12, "Cid": 11, "Dan": 12}
    assert game.to_act == "Cid" and game.to_json()["round"] == 2


def test_end_round_above_an_earlier_tie_sends_the_tied_to_an_extra_round():
    game = play("Ann,Bob,Cid,Dan", "roll 4 1", "stop", "roll 1 4", "stop", "roll 6 6", "end-round")
    assert game.expects().kind == "count" and game.to_act == "Bob"
    assert game.to_json()["tie"] == ["Ann", "Bob"]


def test_end_round_is_refused_for_the_starter_and_after_a_mexx():
    with pytest.raises(RuleError, match="first player cannot end"):
        play("Ann,Bob", "roll 3 1", "end-round")
    game = play("Ann,Bob,Cid", "roll 2 1", "roll 3 1")
    assert "end-round" not in game.expects().actions
    with pytest.raises(RuleError, match="a Mexx was thrown this round"):
        game.apply(parse_line("end-round"))


def test_end_round_by_the_last_player_still_applies_the_tie_rule():
    game = play("Ann,Bob", "roll 5 3", "stop", "roll 3 5", "end-round")
    assert lives(game) == {"Ann": 12, "Bob": 11}


# ---- tie-breaks ----------------------------------------------------------------------------------------------

def test_tie_chooser_is_the_last_tied_in_throw_order_from_the_starter():
    # Round 2 starts with Bob (round 1 loser), so the throw order is Bob, Cid, Ann.
    game = play("Ann,Bob,Cid", "roll 6 5", "stop", "roll 3 1", "stop", "roll 6 4", "stop",
                "roll 4 2", "stop", "roll 6 6", "stop", "roll 4 2", "stop")
    assert game.to_json()["tie"] == ["Bob", "Ann"] and game.to_act == "Ann"
    assert "tie 42: Bob and Ann throw again, Ann chooses how to count" in notes(game)
    with pytest.raises(RuleError, match="before the tie-break count was chosen"):
        game.apply(parse_line("roll 3 1"))
    game = game.apply(parse_line("count mex"))
    assert game.to_act == "Bob" and game.expects().actions == {"roll"} and game.throws_left() == 1


def test_extra_round_throws_count_at_once_and_pips_make_21_a_plain_3():
    tie = ("roll 4 2", "stop", "roll 2 4", "stop")
    game = play("Ann,Bob", *tie, "count pips", "roll 2 1")
    assert game.to_act == "Bob" and game.expects().kind == "roll"  # no stop in an extra round
    game = game.apply(parse_line("roll 2 2"))
    assert lives(game) == {"Ann": 11, "Bob": 12}


def test_count_mex_makes_the_mexx_highest_and_costs_nothing_extra():
    game = play("Ann,Bob", "roll 4 2", "stop", "roll 2 4", "stop", "count mex", "roll 6 6", "roll 2 1")
    assert lives(game) == {"Ann": 11, "Bob": 12}
    assert points(game) == {"Ann": -1, "Bob": 1}  # an extra-round Mexx earns no bonus


def test_repeated_extra_rounds_until_one_loser_with_the_main_round_penalty():
    game = play("Ann,Bob,Cid", "roll 2 1", "roll 4 1", "stop", "roll 1 4", "stop",
                "count pips", "roll 3 2", "roll 4 1")
    assert game.expects().kind == "count" and game.to_act == "Cid"
    assert "tie again at 5 pips: Bob and Cid throw again, Cid chooses how to count" in notes(game)
    game = game.apply(parse_line("count mex")).apply(parse_line("roll 5 5")).apply(parse_line("roll 6 4"))
    assert lives(game) == {"Ann": 12, "Bob": 12, "Cid": 10}  # one Mexx in the main round: 2 lives
    assert points(game) == {"Ann": 3, "Bob": 1, "Cid": -1}


def test_count_outside_a_tie_is_refused():
    with pytest.raises(RuleError, match="no tie to break"):
        play("Ann,Bob", "roll 4 2", "count pips")


def test_excape_words_are_refused_in_mex():
    with pytest.raises(RuleError, match="Excape/Rapido action"):
        play("Ann,Bob", "roll 4 2", "place 3")


def test_json_has_the_required_shape():
    state = play("Ann,Bob").to_json()
    assert {k: state[k] for k in ("game", "over", "winner", "round", "to_act")} == {
        "game": "mex", "over": False, "winner": None, "round": 1, "to_act": "Ann"}
    assert state["players"][0] == {"name": "Ann", "lives": 12, "points": 0, "out": False}
