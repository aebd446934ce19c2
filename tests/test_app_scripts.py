"""Recorded games end to end: scripts of photos and button words played through the real tracker, reader,
controller, rules and journal on the twins; the journal, the final state and the screen are checked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from companion.cli import main as cli_main
from companion.replay import replay_text
from companion.screens import illegible_texts
from companion.script import ScriptError, ScriptResult, parse_script, run_script

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def play(name: str, tmp_path: Path) -> ScriptResult:
    return run_script(SCRIPTS / name, journal_dir=tmp_path / "journal")


def journal_of(result: ScriptResult) -> list[str]:
    return result.log_path.read_text().splitlines()


def screen_text(result: ScriptResult) -> str:
    rendered = result.controller.last_screen
    assert rendered is not None
    assert illegible_texts(rendered) == []
    return rendered.all_text()


def test_mex_three_players(tmp_path: Path) -> None:
    result = play("mex-three-players.script", tmp_path)
    assert journal_of(result) == [
        "game mex players=Ann,Bob,Cid lives=3",
        "roll 6 3", "reroll", "roll 4 2", "reroll", "roll 5 4", "stop",
        "roll 2 1",
        "roll 4 1", "undo", "roll 4 1", "stop",
        "roll 6 6", "stop", "roll 3 1", "end-round",
    ]
    state = result.game.to_json()
    assert [(p["name"], p["lives"], p["points"]) for p in state["players"]] == [
        ("Ann", 2, 0), ("Bob", 3, 4), ("Cid", 1, 0)]
    # the journal replays to the very same state: it is the table log of this game
    replayed, error = replay_text(result.log_path.read_text())
    assert error is None and replayed.to_json() == state
    # the last screen is the round's result: Ann ended it early and lost
    assert "Ann loses 1" in screen_text(result)


def test_mex_tie_break_counted_in_pips(tmp_path: Path) -> None:
    result = play("mex-tie-break.script", tmp_path)
    assert journal_of(result)[-4:] == ["stop", "count pips", "roll 4 2", "roll 6 5"]
    assert result.game.over and result.game.winner == "Bob"
    assert "Bob wins!" in screen_text(result)


def test_unsure_photo_is_refused_and_a_read_is_corrected_with_raw_buttons(tmp_path: Path) -> None:
    result = play("mex-unsure-and-correct.script", tmp_path)
    assert journal_of(result)[1:] == ["roll 6 3", "undo", "roll 6 4", "stop"]
    # the cocked die is refused with a reason for that die (the reader may call it cocked or unclear)
    assert any(notice.startswith("line 3: re-roll: die ") for notice in result.notices), result.notices


def test_excape_three_players(tmp_path: Path) -> None:
    result = play("excape-three-players.script", tmp_path)
    state = result.game.to_json()
    assert state["over"] and state["winner"] == "Bob"
    assert [(p["name"], p["position"]) for p in state["players"]] == [("Ann", 4), ("Bob", 9), ("Cid", 0)]
    assert state["board"] == [{"space": 2, "player": "Cid", "value": 31}, {"space": 3, "player": "Ann", "value": 22}]
    assert "roll 3 X" in journal_of(result) and "roll 7 X" in journal_of(result)
    assert "Bob wins!" in screen_text(result)


def test_rapido(tmp_path: Path) -> None:
    result = play("rapido.script", tmp_path)
    state = result.game.to_json()
    assert state["winner"] == "Bob" and [p["position"] for p in state["players"]] == [2, 6]


def test_real_photos_with_a_blurred_die_confirmed_by_hand(tmp_path: Path) -> None:
    result = play("mex-real-photos.script", tmp_path)
    assert journal_of(result)[1:] == ["roll 1 1", "reroll", "roll 5 3", "stop", "roll 6 4", "stop"]
    assert any("re-roll: die 1 is blurred" in notice for notice in result.notices), result.notices
    assert result.game.winner == "Bob"


def test_cli_prints_the_replay_json_and_leaves_the_table_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    code = cli_main(["run", "--twin", "--script", str(SCRIPTS / "rapido.script"), "--json",
                     "--journal", str(tmp_path / "j")])
    out, err = capsys.readouterr()
    assert code == 0
    state = json.loads(out)
    assert state["game"] == "rapido" and state["winner"] == "Bob"
    assert "table log:" in err and (tmp_path / "j" / "current.log").is_file()


@pytest.mark.parametrize(("text", "message"), [
    ("tray x.png\n", "line 1: the first line must be the game line"),
    ("game mex players=Ann\n", "line 1: mex needs 2 or more players"),
    ("game mex players=Ann,Bob\nroll 6 3\n", "line 2: rolls come from the camera"),
    ("game mex players=Ann,Bob\n\n# c\nshake\n", "line 4: unknown step 'shake'"),
    ("game mex players=Ann,Bob\ntray nowhere.png\n", "line 2: photo nowhere.png not found"),
    ("game mex players=Ann,Bob\npress start\n", "line 2: 'press' needs a button"),
])
def test_bad_script_lines_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script(text, tmp_path)
    assert str(caught.value).startswith(message)


def test_a_script_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match=r"^cannot read the script .*gone\.txt: No such file or directory$"):
        run_script(tmp_path / "gone.txt", journal_dir=tmp_path / "journal")     # the file's fault: no "line 0"
    binary = tmp_path / "photo.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n")                   # a photo given where the script goes
    with pytest.raises(ScriptError, match=r"cannot read the script .*photo.png: not UTF-8 text \(byte 0 "):
        run_script(binary, journal_dir=tmp_path / "journal")


def test_an_action_the_rules_do_not_allow_stops_the_script_with_its_line(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "bad.script"
    shutil.copy(SCRIPTS / "photos" / "mex-63.png", tmp_path / "63.png")
    script.write_text("game mex players=Ann,Bob\ntray 63.png\nstop\nstop\n")
    code = cli_main(["run", "--twin", "--script", str(script), "--journal", str(tmp_path / "j")])
    assert code == 2
    assert "line 4: 'stop' is not possible now" in capsys.readouterr().err
