"""The tuning-set tool: what the reader made of every die, compared die by die, never on the benchmark's seeds."""

from __future__ import annotations

import collections
import pickle
from dataclasses import replace
from pathlib import Path

import pytest

from vision.training import tuning


def test_a_set_read_twice_compares_equal_and_a_die_newly_read_wrong_is_marked(tmp_path: Path) -> None:
    record = tuning.read_set("d6", trays=2)
    assert {tray for tray, _ in record.dice} == {str(tuning.TUNING_SEED_START), str(tuning.TUNING_SEED_START + 1)}
    assert tuning.summary(record).startswith(f"d6: {len(record.dice)} dice, found ")
    saved = tmp_path / "d6.pkl"
    saved.write_bytes(pickle.dumps(record))
    assert tuning.compare(record, pickle.loads(saved.read_bytes())) == []

    key, die = next((k, d) for k, d in record.dice.items() if d.right)
    wrong = "1" if die.label != "1" else "2"
    changed = replace(record, dice={**record.dice, key: replace(die, face=wrong)},
                      accepted=dict.fromkeys(record.accepted, False))
    lines = tuning.compare(record, changed)
    assert lines[0] == f"tray {key[0]} die {key[1]} ({die.label}): {die.label} -> {wrong} NEW WRONG"
    assert sum("accepted" in line for line in lines) == sum(record.accepted.values())

    # The whole readings: a confidence read otherwise makes the tray read otherwise, though no die's face changed; a
    # record saved before readings were kept compares by its dice alone.
    tray = key[0]
    nudged_reading = record.readings[tray].replace("confidence=0.", "confidence=1.", 1)
    nudged = replace(record, readings={**record.readings, tray: nudged_reading})
    assert tuning.compare(record, nudged) == [f"1 of 2 trays read otherwise in their whole readings (a confidence, a "
                                              f"box or a side, if no line above names them): {tray}"]
    older = pickle.loads(pickle.dumps(record))
    del older.__dict__["readings"]
    assert tuning.compare(older, nudged) == []


def test_hazard_sets_alternate_the_models_and_are_read_expecting_the_dice_thrown() -> None:
    record = tuning.read_set("cut", trays=2)
    first = tuning.HAZARD_SEED_START + 1_000 * tuning.HAZARDS.index("cut")
    assert sorted(record.accepted) == [str(first), str(first + 1)]
    assert sum(d.hazard for d in record.dice.values()) == 2       # one die cut by the edge a tray
    assert "hazard dice 2" in tuning.summary(record)


def test_a_throw_accepted_with_a_die_read_twice_and_another_missed_counts_as_read_wrong() -> None:
    # Felt throw 4,104,059 (session 28): the 3 boxed twice and read as two 3s, the 2 not found, the throw accepted.
    # No die's record is wrong (the 3 is read right, the 2 "not found", the second 3 "sure on no die"); the throw the
    # game would count is still 3-3 for a 3 and a 2.
    record = tuning.read_set("black-pairs-on-felt", trays=1, first=4_104_059)
    assert record.accepted == {"4104059": True} and not any(d.wrong for d in record.dice.values())
    assert record.faces_wrong == {"4104059"}
    assert "1 of them with a die read wrong (1 by their faces alone" in tuning.summary(record)
    before = replace(record, faces_wrong=set())
    assert tuning.compare(before, record) == [
        "tray 4104059: accepted with faces not the dice's False -> True NEW WRONG"]


def test_the_dice_read_sure_and_wrong_are_listed_with_whether_their_tray_was_accepted(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    die, missed = tuning.DieRecord("4", False, "4", True, None), tuning.DieRecord("4", False, None, None, None)
    record = tuning.SetRecord("d6", dice={("1", 0): replace(die, face="2"), ("1", 1): die, ("2", 0): die,
                                          ("3", 0): replace(die, face="5"), ("4", 0): missed},
                              accepted={"1": True, "2": True, "3": False, "4": True}, faces_wrong={"1", "4"})
    assert tuning.wrong_dice(record) == [
        "tray 1 die 0 (4): read as a sure 2, the tray ACCEPTED",
        "tray 3 die 0 (4): read as a sure 5, the tray refused",
        "tray 4: ACCEPTED with faces not the dice's (a die missed, or read where it matched no label)"]
    assert tuning.wrong_dice(replace(record, dice={("2", 0): die}, faces_wrong=set())) == []
    # From the command line, under the summary: felt throw 4,104,059, accepted with its 3 boxed twice, its 2 missed.
    assert tuning.main(["read", "black-pairs-on-felt", "--first", "4104059", "--trays", "1", "--show-wrong"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("black-pairs-on-felt: 2 dice") and said[1:] == [
        "  tray 4104059: ACCEPTED with faces not the dice's (a die missed, or read where it matched no label)"]
    monkeypatch.setattr(tuning, "BATTERY", {"felt": ("black-pairs-on-felt", {"first": 4_104_059, "trays": 1})})
    assert tuning.main(["battery", str(tmp_path), "--show-wrong"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "  tray 4104059: ACCEPTED with faces not the dice's (a die missed, or read where it matched no label)"]


def test_the_benchmarks_seeds_are_refused() -> None:
    for first, trays in ((1_000_000, 1), (999_990, 20), (1_999_999, 5)):
        with pytest.raises(SystemExit, match="benchmark's seeds"):
            tuning.check_tuning_seeds(first, trays)
    tuning.check_tuning_seeds(2_000_000, 1_000)
    tuning.check_tuning_seeds(0, 1_000)
    with pytest.raises(SystemExit, match="unknown tuning set"):
        tuning.read_set("dice", trays=1)


def test_a_set_of_throws_has_the_dice_asked_for_and_counts_trays_accepted_with_a_wrong_die() -> None:
    record = tuning.read_set("excape", trays=2, first=3_230_002, dice=2)
    assert collections.Counter(tray for tray, _ in record.dice) == {"3230002": 2, "3230003": 2}
    assert "0 of them with a die read wrong" in tuning.summary(record)
    tray = next(t for t, ok in record.accepted.items() if ok)
    key = (tray, 0)
    die = record.dice[key]
    misread = replace(record, dice={**record.dice, key: replace(die, face="X" if die.label != "X" else "1",
                                                                  sure=True)})
    assert "1 of them with a die read wrong" in tuning.summary(misread)
    for name, dice in (("cut", 2), ("d6", 0)):
        with pytest.raises(SystemExit, match="for the d6 and excape sets"):
            tuning.read_set(name, trays=1, dice=dice)


def test_a_throw_set_renders_its_look_and_is_read_as_the_table_reads_a_throw() -> None:
    from vision.models import D6
    from vision.virtual_tray import render_tray

    (tray, image, truth, model, expect), = tuning.set_frames("black-pairs-on-felt", None, 1, {})
    assert (tray, model, expect, len(truth)) == ("3200000", D6, True, 2)
    assert (image == render_tray(3_200_000, D6, n_dice=2, die_colour="black", tray="felt").image).all()
    record = tuning.read_set("black-pairs-on-felt", trays=2)
    assert collections.Counter(tray for tray, _ in record.dice) == {"3200000": 2, "3200001": 2}


def test_throws_read_in_runs_are_one_set_of_dice_a_run_each_read_with_the_side_the_run_showed(
        sides_asked: list[float | None]) -> None:
    # As the table reads them (vision.dice_sides), and as the bench's runs row does (vision.bench.run_die_size).
    from vision.bench import run_die_size
    from vision.models import D6
    from vision.virtual_tray import render_tray

    frames = list(tuning.set_frames("black-pairs-on-felt", 3_200_004, 4, {}, runs=3))
    for k, seed in ((0, 3_200_004), (2, 3_200_006), (3, 3_200_007)):
        first = 3_200_004 if k < 3 else 3_200_007
        drawn = render_tray(seed, D6, n_dice=2, die_colour="black", tray="felt", die_size=run_die_size(first))
        assert (frames[k][1] == drawn.image).all()
    asked = sides_asked
    record = tuning.read_set("black-pairs-on-felt", trays=4, first=3_200_004, runs=3)
    assert len(record.accepted) == 4
    # Two throws of two dice read sure (none a 1) give the third its side; the next run's dice are not measured by it.
    assert asked[:2] == [None, None] and asked[2] is not None and 30 < asked[2] < 40 and asked[3] is None
    for name, dice, runs in (("d6", None, 3), ("black-pairs-on-felt", None, -1)):
        with pytest.raises(SystemExit, match="runs of throws"):
            tuning.read_set(name, trays=1, dice=dice, runs=runs)


def test_the_battery_holds_tuning_sets_only() -> None:
    for name, (which, options) in tuning.BATTERY.items():
        assert which in tuning.SETS, name
        if "first" in options:
            tuning.check_tuning_seeds(options["first"], options["trays"])      # never the benchmark's seeds


def test_a_battery_read_twice_compares_equal_set_by_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tuning, "BATTERY", {"cut": ("cut", {"trays": 2}), "d6-throws": ("d6", {"trays": 2, "dice": 2})})
    old, new = tmp_path / "old", tmp_path / "new"
    tuning.read_battery(old)
    tuning.read_battery(new, only=["cut"])
    assert sorted(p.name for p in old.iterdir()) == ["cut.pkl", "d6-throws.pkl"]
    lines = tuning.compare_folders(old, new)
    assert lines[0].startswith("== cut: 0 changes; now cut: ")
    assert lines[1] == f"== d6-throws: not in {new}"
    with pytest.raises(SystemExit, match="not in the battery: stacked"):
        tuning.read_battery(new, only=["stacked"])
    with pytest.raises(SystemExit, match="not one of each"):
        tuning.main(["compare", str(old), str(old / "cut.pkl")])


def test_a_shifted_battery_reads_its_virtual_sets_from_seeds_that_far_on_and_its_photos_as_they_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[tuple[str, dict]] = []
    monkeypatch.setattr(tuning, "BATTERY", {"cut": ("cut", {"trays": 2}),
                                            "d6-throws": ("d6", {"first": 3_220_000, "trays": 2, "dice": 2}),
                                            "held-out-photos": ("held-out-photos", {})})
    monkeypatch.setattr(tuning, "read_set", lambda which, **options: read.append((which, options)) or
                        tuning.SetRecord(which))
    tuning.read_battery(tmp_path, shift=10_000_000)
    assert read == [("cut", {"trays": 2, "first": tuning.HAZARD_SEED_START + 2_000 + 10_000_000}),
                    ("d6", {"first": 13_220_000, "trays": 2, "dice": 2}), ("held-out-photos", {})]
    with pytest.raises(SystemExit, match="--shift must be 0 or more, got -1"):
        tuning.read_battery(tmp_path, shift=-1)


def test_a_set_can_be_read_with_a_candidate_net_in_place_of_the_committed_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from vision import recognise
    from vision.models import ModelError

    committed = tuning.read_set("d6", trays=1)
    candidate = tmp_path / "faces.onnx"
    shutil.copy(recognise.WEIGHTS, candidate)
    monkeypatch.setattr(recognise, "WEIGHTS", recognise.WEIGHTS)        # restored after the test
    try:
        tuning.use_nets(faces=candidate, flat=None)
        assert tuning.read_set("d6", trays=1) == committed               # the same weights, read from elsewhere
        candidate.write_bytes(b"not a net")                               # and it is that file that is read
        tuning.use_nets(faces=candidate)
        with pytest.raises(ModelError, match=f"face classifier weights unreadable: {candidate.resolve()}"):
            tuning.read_set("d6", trays=1)
    finally:
        recognise.face_net.cache_clear()
    with pytest.raises(SystemExit, match="--flat: no such weights file"):
        tuning.main(["read", "cut", "--trays", "1", "--flat", str(tmp_path / "missing.onnx")])


def test_a_candidate_nets_time_is_a_ratio_to_the_committed_ones_and_the_committed_net_is_restored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import cv2

    from vision import recognise

    candidate = tmp_path / "student.onnx"
    shutil.copy(recognise.QUICK_WEIGHTS, candidate)
    before, threads = recognise.QUICK_WEIGHTS, cv2.getNumThreads()
    cv2.setNumThreads(2)            # not the one thread it reads on, so that leaving it set would show
    try:
        committed, student, ratio = tuning.speed_ratio({"quick": candidate}, rounds=1, each=1)
        assert cv2.getNumThreads() == 2
    finally:
        cv2.setNumThreads(threads)
    # Each variant's passes are tallied by the file its nets were read from: the candidate's in its own turn only.
    assert committed.startswith("committed: ") and "faces_quick " in committed and "student" not in committed
    assert student.startswith("candidate: ") and "student " in student and "faces_quick" not in student
    assert ratio.startswith("candidate / committed: ") and "median of the 5 frames' ratios" in ratio
    assert before == recognise.QUICK_WEIGHTS
    with pytest.raises(SystemExit, match="give at least one candidate net"):
        tuning.speed_ratio({})
    with pytest.raises(SystemExit, match="--rounds and --frames-each must be at least 1"):
        tuning.main(["speed", "--rounds", "0", "--quick", str(candidate)])
    # A missing candidate is refused before any frame is rendered.
    monkeypatch.setattr(tuning, "speed_frames", lambda each: pytest.fail("frames rendered for a missing candidate"))
    with pytest.raises(SystemExit, match=r"--quick: no such weights file: .*nope\.onnx"):
        tuning.speed_ratio({"quick": candidate.with_name("nope.onnx")})


def test_the_speed_frames_are_tuning_trays_of_the_benchmarks_numbers_of_dice() -> None:
    from vision.bench import BENCH_SEED_START, SPEED_DICE

    frames, thrown = tuning.speed_frames(each=2)
    assert thrown == [n for n in SPEED_DICE for _ in range(2)]
    assert all(frame.shape == (480, 640, 3) for frame in frames)
    assert tuning.SPEED_SEED_START >= 2 * BENCH_SEED_START       # above the benchmark's seeds, as tuning trays are


def test_a_candidate_cross_check_net_is_the_one_the_shared_classifier_reads_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The cross-check net reads dice read as an X and, inside the shared classifier, marbled-looking dice: a candidate
    # must take both places, even once the classifier was built with the committed one.
    from vision import recognise
    from vision.models import ModelError

    recognise.face_net()
    candidate = tmp_path / "faces_cross.onnx"
    candidate.write_bytes(b"not a net")
    monkeypatch.setattr(recognise, "CROSS_CHECK_WEIGHTS", recognise.CROSS_CHECK_WEIGHTS)   # restored after the test
    try:
        tuning.use_nets(cross_check=candidate)
        with pytest.raises(ModelError, match="cross-check face classifier weights unreadable"):
            recognise.face_net()
    finally:
        recognise.cross_check_net.cache_clear()
        recognise.face_net.cache_clear()


def test_one_tray_is_shown_as_read_drawn_at_twice_its_size_and_said_die_by_die(tmp_path: Path) -> None:
    import cv2

    out = tmp_path / "tray.png"
    record = tuning.read_set("cut", trays=2)
    second = str(tuning.HAZARD_SEED_START + 1_000 * tuning.HAZARDS.index("cut") + 1)
    lines = tuning.show_tray("cut", second, out)
    # The set's second tray is an Excape one, as `read` read it, and each of its dice is said as `read` recorded it.
    assert lines[0].startswith(f"tray {second} (excape): {'ok' if record.accepted[second] else 'reroll'}")
    dice = sorted((j, d) for (t, j), d in record.dice.items() if t == second)
    assert len(lines) >= 1 + len(dice)
    for (j, die), line in zip(dice, lines[1:], strict=False):
        assert line.startswith(f"  die {j} ({die.label}{', hazard' if die.hazard else ''}) at [")
        said = "not found" if die.face is None else die.face if die.sure else f"unsure ({die.reason})"
        assert f": {said}" in line
    drawn = cv2.imread(str(out))
    assert drawn is not None and drawn.shape[:2] == (960, 1280)


def test_a_tray_to_show_is_refused_with_the_reason() -> None:
    out = Path("unused.png")
    with pytest.raises(SystemExit, match="a whole number"):
        tuning.show_tray("d6", "seven", out)
    with pytest.raises(SystemExit, match="before the set's first seed"):
        tuning.show_tray("d6", "1000005", out)
    with pytest.raises(SystemExit, match="benchmark's seeds"):
        tuning.show_tray("d6", "1000005", out, first=1_000_000)
    with pytest.raises(SystemExit, match="unknown tuning set"):
        tuning.show_tray("dice", "1", out)
    with pytest.raises(SystemExit, match="--zoom"):
        tuning.show_tray("d6", str(tuning.TUNING_SEED_START), out, zoom=0)


def test_a_census_reads_each_kind_of_throw_from_its_own_fresh_seeds_and_counts_throws_accepted_wrong(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = tuning.read_census(tmp_path, 8_110, 2, only=["d6-throws", "marbled-excape-throws"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d6-throws.pkl", "marbled-excape-throws.pkl"]
    marbled = pickle.loads((tmp_path / "marbled-excape-throws.pkl").read_bytes())
    # The fifth kind: from 4 x CENSUS_SPACING on, two throws of two dice, read as the table reads them.
    assert collections.Counter(tray for tray, _ in marbled.dice) == {"48110": 2, "48111": 2}
    assert [line.split(":")[0] for line in lines] == ["d6-throws (8,110+)", "marbled-excape-throws (48,110+)"]
    assert all(" of 2 throws accepted with a face not thrown; " in line and line.endswith(" of 4 dice read right")
               for line in lines)
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("d6-throws: d6: 4 dice") and said[1].startswith("marbled-excape-throws: excape: 4 dice")
    for refused, match in (((8_110, 0), "--throws must be 1 to 10,000"), ((8_110, 10_001), "--throws must be 1"),
                           ((960_000, 10), "benchmark's seeds"), ((8_110, 2, ["gold"]), "not in the census: gold")):
        with pytest.raises(SystemExit, match=match):
            tuning.read_census(tmp_path / "refused", *refused)
    assert not (tmp_path / "refused").exists()         # refused before anything is read or written
    # Only the seeds of the kinds read are checked: the last kind's from 940,000 would reach the benchmark's seeds.
    assert len(tuning.read_census(tmp_path / "first", 940_000, 1, only=["d6-throws"])) == 1
    with pytest.raises(SystemExit, match="benchmark's seeds"):
        tuning.read_census(tmp_path / "last", 940_000, 1, only=["gold-pip-d6-throws"])
    assert tuning.main(["census", str(tmp_path / "cli"), "--first", "8110", "--throws", "1", "--only",
                        "excape-throws"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("excape-throws (18,110+): ")
