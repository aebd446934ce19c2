"""`dice-companion replay`: the hand-checked whole-game logs, and how bad lines and files are reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion import cli
from companion.rules import Game, parse_log

GAMES = Path(__file__).resolve().parent / "games"
LOGS = sorted(GAMES.glob("*.log"))


def test_every_required_log_is_present():
    names = {log.stem for log in LOGS}
    assert {"mex_basic", "mex_tiebreak", "mex_doubling", "excape_basic", "excape_options", "rapido_basic"} <= names


@pytest.mark.parametrize("log", LOGS, ids=[log.stem for log in LOGS])
def test_whole_game_log_reaches_its_hand_checked_state(log, capsys):
    expected = json.loads(log.with_suffix(".json").read_text())
    assert cli.main(["replay", str(log), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    state = json.loads(captured.out)
    assert {key: state[key] for key in expected} == expected


@pytest.mark.parametrize("log", LOGS, ids=[log.stem for log in LOGS])
def test_any_prefix_then_the_rest_gives_the_same_state(log):
    setup, events = parse_log(log.read_text())
    full = Game.replay(setup, events)
    for cut in range(0, len(events) + 1, 3):
        game = Game.replay(setup, events[:cut])
        for event in events[cut:]:
            game = game.apply(event)
        assert game.state == full.state


def test_readable_summary(capsys):
    assert cli.main(["replay", str(GAMES / "mex_basic.log")]) == 0
    out = capsys.readouterr().out
    assert "game over: Ann wins" in out and "Bob  lives   0  points    1  out" in out


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "game.log"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(("text", "line", "reason"), [
    ("game excape players=Ann,Bob,Cid\nroll 7 4\n", 2, "7 and 4 are both only on die A"),
    ("game mex players=Ann,Bob\nroll 6 3\nreroll\nroll 5 4\nreroll\nroll 4 3\n# x\nreroll\n", 8, "used all 3 throws"),
    ("game mex players=Ann,Bob\nroll 6 3\nroll 5 4\n", 3, "waiting for a button"),
    ("game excape players=Ann,Bob,Cid\nroll 5 4\nplace 2\nroll 6 1\nplace 2\n", 5, "space 2 is taken"),
    ("game mex players=Ann,Bob,Cid\nroll 2 1\nroll 3 1\nend-round\n", 4, "a Mexx was thrown this round"),
    ("game mex players=Ann,Bob\nroll 6 3\nfrobnicate\n", 3, "unknown word 'frobnicate'"),
    ("game mex players=Ann,Bob\nundo\n", 2, "nothing to undo"),
])
def test_impossible_line_exits_2_names_the_line_and_keeps_the_state_before_it(tmp_path, capsys, text, line, reason):
    assert cli.main(["replay", write(tmp_path, text), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"line {line}: ") and reason in captured.err
    assert "expected" in captured.err
    before = Game.replay(*parse_log("\n".join(text.splitlines()[: line - 1])))
    assert json.loads(captured.out)["events"] == len(before)


def test_bad_game_line_prints_no_state(tmp_path, capsys):
    assert cli.main(["replay", write(tmp_path, "game go players=A,B\n"), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("line 1: unknown game 'go'")


def test_unreadable_file_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "missing.log")]) == 2
    assert "cannot read table log" in capsys.readouterr().err
    binary = tmp_path / "binary.log"
    binary.write_bytes(b"\xff\xfe\x00game")
    assert cli.main(["replay", str(binary)]) == 2
    assert "expected a readable UTF-8 text file" in capsys.readouterr().err
