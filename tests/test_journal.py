import pytest

from companion.journal import Journal, JournalError


def test_lines_survive_a_restart(tmp_path):
    j = Journal(tmp_path)
    j.start("game mex players=Ann,Bob")
    j.append("roll 6 3")
    j.append("stop")
    again = Journal(tmp_path)
    assert again.load_current() == "game mex players=Ann,Bob\nroll 6 3\nstop\n"


def test_torn_last_line_is_dropped_and_truncated(tmp_path):
    j = Journal(tmp_path)
    j.start("game mex players=Ann,Bob")
    j.append("roll 6 3")
    with open(j.current_path, "ab") as f:
        f.write(b"sto")  # the power went out mid-write
    assert j.load_current() == "game mex players=Ann,Bob\nroll 6 3\n"
    assert j.current_path.read_bytes().endswith(b"roll 6 3\n")
    j.append("stop")
    assert j.load_current().splitlines()[-1] == "stop"


def test_new_game_archives_the_unfinished_one(tmp_path):
    j = Journal(tmp_path)
    j.start("game mex players=Ann,Bob")
    j.append("roll 2 1")
    j.start("game excape players=Ann,Bob,Cid")
    (first,) = j.archived()
    assert first.name == "0001.log"
    assert first.read_text().splitlines() == ["game mex players=Ann,Bob", "roll 2 1"]
    assert j.finish().name == "0002.log"
    assert j.load_current() is None


def test_append_without_a_game_is_a_clear_error(tmp_path):
    with pytest.raises(JournalError, match="no game in progress"):
        Journal(tmp_path).append("roll 1 2")


def test_multi_line_entry_is_refused(tmp_path):
    j = Journal(tmp_path)
    j.start("game mex players=Ann,Bob")
    with pytest.raises(JournalError, match="one line"):
        j.append("roll 1 2\nstop")
    assert j.load_current() == "game mex players=Ann,Bob\n"


def test_unusable_directory_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(JournalError, match="cannot create the journal directory"):
        Journal(blocker / "journal")
