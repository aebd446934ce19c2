"""Excape/Exxtra and Rapido rules, one decision at a time (issue 2, "Decisions: Excape / Rapido")."""

from __future__ import annotations

import pytest

from companion.rules import Game, GameSetup, RuleError, excape_display, excape_pair_value, parse_line


def play(game_name: str, players: str, *lines: str, **options: object) -> Game:
    game = Game.new(GameSetup(game_name, tuple(players.split(",")), options))
    for line in lines:
        event = parse_line(line)
        assert event is not None
        game = game.apply(event)
    return game


def excape(*lines: str, **options: object) -> Game:
    return play("excape", "Ann,Bob,Cid", *lines, **options)


def rapido(*lines: str, **options: object) -> Game:
    return play("rapido", "Ann,Bob", *lines, **options)


def positions(game: Game) -> list[int]:
    return [p["position"] for p in game.to_json()["players"]]


def board(game: Game) -> list[tuple[int, str, int]]:
    return [(b["space"], b["player"], b["value"]) for b in game.to_json()["board"]]


def notes(game: Game) -> list[str]:
    return [note.text for note in game.last_notes]


# ---- dice and values -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("faces", "value"), [
    (("5", "4"), 54), (("4", "5"), 54), (("7", "X"), 70), (("1", "3"), 31), (("X", "1"), 10), (("2", "2"), 22),
    (("X", "X"), 0), (("7", "6"), 76),
])
def test_pair_value_high_face_tens_x_is_zero(faces, value):
    assert excape_pair_value(faces) == value
    assert excape_display(value) == str(value)


def test_first_roll_xx_is_worth_the_option():
    assert excape_pair_value(("X", "X"), first_roll=True, xx_first=100) == 100
    assert excape_pair_value(("X", "X"), first_roll=True, xx_first=0) == 0


@pytest.mark.parametrize(("line", "why"), [
    ("roll 7 4", "both only on die A"), ("roll 4 4", "both only on die A"), ("roll 5 6", "both only on die B"),
    ("roll 6 6", "both only on die B"),
])
def test_faces_both_on_one_die_are_impossible(line, why):
    with pytest.raises(RuleError, match=why):
        excape(line)


def test_any_shared_face_pairs_with_anything():
    for line in ("roll X X", "roll 1 1", "roll 3 7", "roll x 6", "roll 2 4"):
        assert excape(line).expects().kind == "choice"


# ---- X and doubles --------------------------------------------------------------------------------------------

def test_first_roll_x_counts_zero_without_penalty():
    game = excape("roll 7 X")
    assert game.state.current_value == 70 and game.to_act == "Ann" and positions(game) == [0, 0, 0]


def test_later_x_ends_the_turn_and_moves_back_never_below_zero():
    game = excape("roll 5 4", "reroll", "roll X 5")
    assert positions(game) == [0, 0, 0] and game.to_act == "Bob" and board(game) == []
    assert "X! Ann's turn ends, pawn back 1 (stops at 0, moved back 0)" in notes(game)
    game = excape("roll 1 1", "reroll", "roll X 5")
    assert positions(game) == [0, 0, 0] and "X! Ann's turn ends, pawn back 1" in notes(game)
    game = excape("roll 3 3", "reroll", "roll 1 X")
    assert positions(game) == [2, 0, 0]


def test_later_double_x_moves_back_two():
    game = excape("roll 3 3", "reroll", "roll 2 2", "reroll", "roll X X")
    assert positions(game) == [3, 0, 0]
    assert "XX! Ann's turn ends, pawn back 2" in notes(game)


def test_doubles_move_at_once_and_can_be_placed():
    game = excape("roll 2 2")
    assert positions(game) == [2, 0, 0] and game.expects().kind == "choice"
    game = game.apply(parse_line("place 1"))
    assert board(game) == [(1, "Ann", 22)]


def test_a_double_reaching_the_goal_wins_at_once():
    game = excape("roll 3 3", "reroll", "roll 3 3", goal=5)
    assert game.over and game.winner == "Ann" and positions(game) == [6, 0, 0]
    with pytest.raises(RuleError, match="game is over"):
        game.apply(parse_line("place 0"))


# ---- board -------------------------------------------------------------------------------------------------

def test_start_of_turn_advances_by_the_space_and_takes_the_pair_back():
    game = excape("roll 5 4", "place 4", "roll 3 1", "place 0", "roll 2 1", "place 1")
    assert positions(game) == [4, 0, 0] and (4, "Ann", 54) not in board(game)
    assert "Ann's pawn +4 (pair on space 4), now on 4" in notes(game)


def test_start_of_turn_advance_can_win():
    game = excape("roll 5 4", "place 5", "roll 3 1", "place 0", "roll 2 1", "place 1", goal=5)
    assert game.over and game.winner == "Ann" and game.to_act is None


def test_placing_ejects_equal_or_lower_pairs_on_higher_spaces_only():
    game = excape("roll 5 4", "place 3", "roll 5 4", "place 5", "roll 5 4")
    assert {pair.player for pair in game.ejections_if_placed(2)} == {"Ann", "Bob"}
    assert game.ejections_if_placed(4) == tuple(p for p in game.state.board if p.space == 5)
    game = game.apply(parse_line("place 2"))
    assert board(game) == [(2, "Cid", 54)]
    assert "Cid's 54 ejects Ann's 54 from space 3" in notes(game)


def test_higher_pairs_are_not_ejected_and_placing_above_a_higher_pair_is_allowed():
    game = excape("roll 7 6", "place 1", "roll 3 1")
    assert game.legal_spaces() == (0, 2, 3, 4, 5)
    game = game.apply(parse_line("place 4"))
    assert board(game) == [(1, "Ann", 76), (4, "Bob", 31)]


def test_occupied_space_is_refused():
    game = excape("roll 5 4", "place 2", "roll 6 1")
    with pytest.raises(RuleError, match=r"space 2 is taken by Ann's 54; expected 'reroll' or 'place N' "
                                        r"\(N = 0, 1, 3, 4, 5\) from Bob"):
        game.apply(parse_line("place 2"))
    with pytest.raises(RuleError, match="spaces 0 to 5"):
        game.apply(parse_line("place 6"))


def test_an_ejected_pair_means_no_advance():
    game = excape("roll 3 1", "place 4", "roll 5 4", "place 1", "roll 2 1", "place 0")
    assert positions(game) == [0, 0, 0] and game.to_act == "Ann"


def test_zero_shared_lets_space_zero_hold_many_pairs():
    game = excape("roll 5 4", "place 0", "roll 6 1", zero_shared=True)
    assert 0 in game.legal_spaces()
    game = game.apply(parse_line("place 0"))
    assert board(game) == [(0, "Ann", 54), (0, "Bob", 61)]
    with pytest.raises(RuleError, match="taken"):
        excape("roll 5 4", "place 0", "roll 6 1", "place 0")


def test_must_beat_lower_requires_equal_or_higher_than_every_lower_pair():
    game = excape("roll 5 4", "place 1", "roll 5 3", must_beat_lower=True)
    assert game.legal_spaces() == (0,)
    with pytest.raises(RuleError, match="does not beat Ann's 54 on lower space 1"):
        game.apply(parse_line("place 3"))
    game = excape("roll 5 4", "place 1", "roll 4 5", must_beat_lower=True)  # equal beats, as in ejections
    assert game.legal_spaces() == (0, 2, 3, 4, 5)
    game = excape("roll 5 4", "place 1", "roll 6 1", "place 4", "roll 6 X", must_beat_lower=True)
    assert game.legal_spaces() == (0, 2, 3)  # 60 beats 54 on space 1 but not 61 on space 4


def test_must_beat_lower_in_rapido_ignores_your_own_pairs():
    game = rapido("roll 7 6", "place 2", "roll 6 1", "place 1", "roll 7 1", must_beat_lower=True)
    # Ann's own 76 on space 2 does not block her 71 on spaces 3-5; it beats Bob's 61 on space 1.
    assert game.legal_spaces() == (0, 3, 4, 5)
    game = rapido("roll 7 6", "place 2", "roll 6 1", "place 1", "roll 3 1", must_beat_lower=True)
    assert game.legal_spaces() == (0,)


def test_choices_and_mex_words():
    game = excape("roll 5 4", "place 2", "roll 3 1")
    assert game.expects().actions == {"reroll", "place 0", "place 1", "place 3", "place 4", "place 5"}
    with pytest.raises(RuleError, match="Mex action"):
        game.apply(parse_line("stop"))
    with pytest.raises(RuleError, match="waiting for a button"):
        game.apply(parse_line("roll 3 1"))
    with pytest.raises(RuleError, match="roll the dice first"):
        excape("reroll")
    with pytest.raises(RuleError, match="Mex question"):
        game.throws_left()


# ---- Rapido ------------------------------------------------------------------------------------------------

def test_rapido_never_ejects_your_own_pairs():
    game = rapido("roll 3 1", "place 4", "roll 2 1", "place 5", "roll 7 5")
    assert [p.player for p in game.ejections_if_placed(0)] == ["Bob"]
    game = game.apply(parse_line("place 0"))
    assert board(game) == [(0, "Ann", 75), (4, "Ann", 31)]


def test_rapido_lone_pair_stays_and_scores_nothing():
    game = rapido("roll 3 1", "place 4", "roll 2 1", "place 5")
    assert positions(game) == [0, 0] and board(game) == [(4, "Ann", 31), (5, "Bob", 21)]
    assert "Ann's pair on space 4 stays and scores nothing (the other pair is in hand)" in notes(game)


def test_rapido_ejection_of_a_pair_leaves_the_other_one_scoring_nothing():
    game = rapido("roll 3 1", "place 4", "roll 2 1", "place 0", "roll 5 1", "place 5", "roll 6 1", "place 1")
    # Bob's 61 on 1 ejects Ann's 31 (space 4) and 51 (space 5): Ann has both pairs in hand and no advance.
    assert positions(game) == [0, 0] and board(game) == [(0, "Bob", 21), (1, "Bob", 61)]
    assert game.to_json()["pairs_in_hand"] == {"Ann": 2, "Bob": 0}


def test_rapido_scoring_precise():
    game = rapido("roll 7 5", "place 4", "roll 2 1", "place 0", "roll 7 6", "place 5", "roll 3 1", "place 1")
    # Bob's 31 on 1 ejects nothing (Ann's 75 and 76 are higher); Ann collects 4 + 5 = 9.
    assert positions(game) == [9, 0] and board(game) == [(0, "Bob", 21), (1, "Bob", 31)]
    assert "Ann's pawn +9 (pairs on spaces 4 + 5), now on 9" in notes(game)


def test_rapido_needs_exactly_two_players_and_excape_three_to_six():
    with pytest.raises(RuleError, match="rapido needs exactly 2 players"):
        play("rapido", "Ann,Bob,Cid")
    with pytest.raises(RuleError, match=r"excape needs 3 to 6 players.*game rapido"):
        play("excape", "Ann,Bob")
    with pytest.raises(RuleError, match="excape needs 3 to 6 players"):
        play("excape", "A,B,C,D,E,F,G")


def test_json_has_the_required_shape():
    state = excape("roll 5 4", "place 3").to_json()
    assert {k: state[k] for k in ("game", "over", "winner", "to_act", "goal")} == {
        "game": "excape", "over": False, "winner": None, "to_act": "Bob", "goal": 21}
    assert state["players"][0] == {"name": "Ann", "position": 0}
    assert state["board"] == [{"space": 3, "player": "Ann", "value": 54}]
