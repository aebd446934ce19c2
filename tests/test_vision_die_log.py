"""The die log (vision.training.die_log): each die a reading found, with the crops of the die it was read from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.centre_pip import CENTRE_SIZE
from vision.models import D6
from vision.recognise import CLASSES, CROP_SIZE, face_net_for, softmax
from vision.training import die_log
from vision.training.tuning import CENSUS


def test_each_die_found_is_logged_with_its_reading_and_the_crops_it_was_read_from() -> None:
    # Three throws of two d6, each pair showing two faces (1 and 5, 4 and 2, 3 and 6), read sure at 0.92 or more.
    log = die_log.log_dice("d6", first=8_128, trays=3, dice=2)
    assert set(log) == set(die_log.COLUMNS)
    assert list(log["tray"]) == ["8128", "8128", "8129", "8129", "8130", "8130"]
    assert list(log["die"]) == [0, 1, 0, 1, 0, 1]
    assert list(log["label"]) == ["1", "5", "4", "2", "3", "6"]
    assert list(log["face"]) == list(log["label"]) and log["sure"].all() and log["accepted"].all()
    assert list(log["reason"]) == [""] * 6 and (log["confidence"] >= 0.9).all()
    assert log["crop"].shape == (6, CROP_SIZE, CROP_SIZE, 3) and log["layout_crop"].shape == (6, CENTRE_SIZE,
                                                                                               CENTRE_SIZE, 3)
    # Each die's own crop: the classifier reads every crop as the face of its row's die, not its neighbour's.
    seen = softmax(face_net_for(D6).run(log["crop"]))
    assert [CLASSES[k] for k in seen.argmax(axis=1)] == [f"pips:{label}" for label in log["label"]]


def test_a_census_kind_is_logged_as_its_throws_in_its_look(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    kind = die_log.log_dice("marbled-d6-throws", first=8_131, trays=1)
    same = die_log.log_dice("d6", first=8_131, trays=1, look=CENSUS["marbled-d6-throws"][1]["look"], dice=2)
    plain = die_log.log_dice("d6", first=8_131, trays=1, dice=2)
    for column in die_log.COLUMNS:
        assert np.array_equal(kind[column], same[column])
    assert not np.array_equal(kind["crop"], plain["crop"])          # the look drawn: marbled, not any
    with pytest.raises(SystemExit, match="unknown set 'gold'"):
        die_log.log_dice("gold")
    with pytest.raises(SystemExit, match="throws are of two dice: no --dice"):
        die_log.log_dice("marbled-d6-throws", first=8_131, trays=1, dice=3)
    # The felt throws, a census kind that is a throw set: two black dice on felt, their look its own.
    felt = die_log.log_dice("black-pairs-on-felt", first=8_131, trays=1)
    assert list(felt["tray"]) == ["8131", "8131"] and not np.array_equal(felt["crop"], plain["crop"])
    out = tmp_path / "log.npz"
    assert die_log.main(["d6", str(out), "--first", "8128", "--trays", "1", "--dice", "2"]) == 0
    assert capsys.readouterr().out.strip() == f"{out}: 2 dice found, 2 read sure, 0 of them wrong"
    with np.load(out) as saved:
        assert sorted(saved.files) == sorted(die_log.COLUMNS) and list(saved["label"]) == ["1", "5"]
