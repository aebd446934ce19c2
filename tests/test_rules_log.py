"""Game setup validation, the table-log format (parse/format round trip) and undo / immutability of `Game`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import DiceCompanionError
from companion.rules import (
    Count,
    EndRound,
    Game,
    GameSetup,
    LogError,
    Place,
    Reroll,
    Roll,
    RuleError,
    SetupError,
    Stop,
    Undo,
    format_event,
    format_log,
    format_setup,
    parse_line,
    parse_log,
)

# ---- setup --------------------------------------------------------------------------------------------------


def test_setups_and_states_are_hashable_values():
    one = GameSetup("mex", ("Ann", "Bob"), {"lives": "3"})
    two = GameSetup("mex", ("Ann", "Bob"), {"lives": 3, "mex_penalty": "additive"})
    assert one == two and hash(one) == hash(two)
    assert hash(Game.new(one).state) == hash(Game.new(two).state)


def test_defaults_are_filled_in_and_text_values_normalised():
    setup = GameSetup("MEX", ("Ann", "Bob"), {"lives": "5"})
    assert setup.game == "mex" and setup.options == {"lives": 5, "mex_penalty": "additive"}
    board = GameSetup("excape", ("A", "B", "C"), {"zero_shared": "TRUE", "xx_first": "100"})
    assert board.options == {"goal": 21, "xx_first": 100, "zero_shared": True, "must_beat_lower": False}


@pytest.mark.parametrize(("game", "players", "options", "message"), [
    ("chess", ("A", "B"), {}, "unknown game 'chess'; expected one of: mex, excape, rapido"),
    ("mex", ("A",), {}, "mex needs 2 or more players, got 1"),
    ("mex", ("A", "A"), {}, "player A is named twice"),
    ("mex", ("A", "B,C"), {}, "not usable"),
    ("mex", ("A", "B"), {"colour": "red"}, "unknown option 'colour' for mex; expected one of: lives, mex_penalty"),
    ("mex", ("A", "B"), {"lives": "many"}, "lives=many is not a whole number"),
    ("mex", ("A", "B"), {"lives": "0"}, "lives=0 is too small"),
    ("mex", ("A", "B"), {"mex_penalty": "triple"}, "expected one of: additive, doubling"),
    ("excape", ("A", "B", "C"), {"xx_first": "50"}, "expected one of: 0, 100"),
    ("excape", ("A", "B", "C"), {"zero_shared": "maybe"}, "expected true or false"),
    ("rapido", ("A", "B"), {"lives": "3"}, "unknown option 'lives' for rapido"),
])
def test_bad_setups_say_what_was_expected(game, players, options, message):
    with pytest.raises(SetupError) as caught:
        GameSetup(game, players, options)
    assert message in str(caught.value)
    assert isinstance(caught.value, DiceCompanionError)


# ---- table log ------------------------------------------------------------------------------------------------

def test_parse_log_reads_comments_blank_lines_and_any_case():
    text = """# a comment
    GAME Mex Players=Ann,Bob Lives=3   # trailing comment

    ROLL 6 3
    Stop
    roll 2 x
    Reroll
    END-ROUND
    count PIPS
    place 3
    undo
    """
    setup, events = parse_log(text)
    assert setup == GameSetup("mex", ("Ann", "Bob"), {"lives": 3})
    assert events == [Roll(("6", "3")), Stop(), Roll(("2", "X")), Reroll(), EndRound(), Count("pips"), Place(3),
                      Undo()]


@pytest.mark.parametrize(("text", "message"), [
    ("", "line 1: the log has no game line"),
    ("roll 6 3\n", "line 1: the first line must name the game"),
    ("game mex\n", "line 1: the game line names no players"),
    ("game mex players=Ann,Bob lives\n", "line 1: 'lives' in the game line is not option=value"),
    ("game mex players=Ann\n", "line 1: mex needs 2 or more players"),
    ("game mex players=Ann,Bob\n\n# c\njump\n", "line 4: unknown word 'jump'; expected one of: roll A B"),
    ("game mex players=Ann,Bob\nroll 6\n", "line 2: 'roll' needs the two faces"),
    ("game mex players=Ann,Bob\nroll 6 9\n", "line 2: '9' is not a die face"),
    ("game mex players=Ann,Bob\ncount dots\n", "line 2: 'count' needs 'pips' or 'mex'"),
    ("game mex players=Ann,Bob\nplace two\n", "line 2: 'place' needs one space number"),
    ("game mex players=Ann,Bob\nstop now\n", "line 2: 'stop' takes nothing after it"),
    ("game mex players=Ann,Bob\ngame mex players=Ann,Bob\n", "line 2: a second 'game' line"),
])
def test_unreadable_lines_name_the_line(text, message):
    with pytest.raises(LogError) as caught:
        parse_log(text)
    assert str(caught.value).startswith(message)


def test_compact_roll_and_end_round_spellings():
    assert parse_line("roll 6x") == Roll(("6", "X"))
    assert parse_line("End_Round") == parse_line("endround") == EndRound()


def test_parse_line_names_the_line_when_told():
    with pytest.raises(LogError, match=r"^line 7: unknown word 'hop'"):
        parse_line("hop", line_no=7)
    with pytest.raises(RuleError, match=r"^unknown word 'hop'"):
        parse_line("hop")


def test_blank_and_comment_lines_are_no_event():
    assert parse_line("   # nothing") is None and parse_line("") is None


events_strategy = st.one_of(
    st.builds(Roll, st.tuples(st.sampled_from("1234567Xx"), st.sampled_from("1234567Xx"))),
    st.sampled_from([Reroll(), Stop(), EndRound(), Undo(), Count("pips"), Count("mex")]),
    st.builds(Place, st.integers(0, 9)),
)
name_strategy = st.text(st.characters(codec="utf-8", exclude_characters=",=# \t\r\n\x0b\x0c\x1c\x1d\x1e\x1f\x85"),
                        min_size=1, max_size=8).filter(lambda n: n.strip() == n and n.split() == [n])


@given(st.lists(events_strategy, max_size=20), st.lists(name_strategy, min_size=2, max_size=4, unique=True),
       st.integers(1, 30), st.sampled_from(["additive", "doubling"]))
def test_format_and_parse_round_trip(events, players, lives, penalty):
    setup = GameSetup("mex", tuple(players), {"lives": lives, "mex_penalty": penalty})
    again_setup, again_events = parse_log(format_log(setup, events))
    assert again_setup == setup and again_events == events
    for event in events:
        assert parse_line(format_event(event)) == event


def test_format_setup_writes_only_changed_options():
    assert format_setup(GameSetup("excape", ("A", "B", "C"), {"goal": 21})) == "game excape players=A,B,C"
    assert format_setup(GameSetup("rapido", ("A", "B"), {"zero_shared": True})) == \
        "game rapido players=A,B zero_shared=true"


# ---- Game: immutability and undo ----------------------------------------------------------------------------

def test_apply_returns_a_new_game_and_leaves_the_old_one_untouched():
    start = Game.new(GameSetup("mex", ("Ann", "Bob")))
    before = start.to_json()
    after = start.apply(Roll(("6", "3")))
    assert start.to_json() == before and start.events == () and after.events == (Roll(("6", "3")),)
    with pytest.raises(RuleError):
        after.apply(Roll(("6", "3")))
    assert after.events == (Roll(("6", "3")),)


def test_undo_reverts_one_event_and_consecutive_undos_go_further():
    game = Game.new(GameSetup("mex", ("Ann", "Bob")))
    one = game.apply(Roll(("6", "3")))
    two = one.apply(Stop())
    back = two.apply(Undo())
    assert back.state == one.state and back.events == one.events
    assert [note.text for note in back.last_notes] == ["undone: stop"]
    assert back.undo().state == game.state and back.undo().events == ()
    with pytest.raises(RuleError, match="nothing to undo"):
        back.undo().undo()


def test_undo_in_a_log_replays_like_the_log_without_the_undone_line():
    with_undo = Game.replay(*parse_log("game mex players=Ann,Bob\nroll 6 3\nstop\nundo\nreroll\nroll 5 4\n"))
    without = Game.replay(*parse_log("game mex players=Ann,Bob\nroll 6 3\nreroll\nroll 5 4\n"))
    assert with_undo.state == without.state and with_undo.events == without.events
