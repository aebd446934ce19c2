"""The bench's watched throws (vision.watch_bench): how a throw's reads are counted, and a few throws watched."""

from __future__ import annotations

from vision.watch_bench import WATCH_SETS, WatchTally, watch_set


def test_a_throw_counts_as_read_once_at_rest_only_when_read_once_after_its_dice_stopped() -> None:
    tally = WatchTally("throws", examples=[])
    for reads in ([9], [], [8, 12], [3], [3, 9], [6]):
        # Each throw's read said right: only a throw read once at rest can count so.
        tally.add(reads, 6, f"reads {reads}", right=True)
    assert (tally.throws, tally.once_at_rest, tally.missed, tally.twice, tally.while_moving) == (6, 2, 1, 2, 2)
    assert tally.read_right == 2
    assert tally.examples == ["reads []: read at frames [], at rest from 6",
                              "reads [8, 12]: read at frames [8, 12], at rest from 6",
                              "reads [3]: read at frames [3], at rest from 6",
                              "reads [3, 9]: read at frames [3, 9], at rest from 6"]
    assert tally.row().split("|")[2:8] == ["      6 ", "              33.3% ", "    16.7% ", "      33.3% ",
                                           "       33.3% ", "      33.3% "]
    # Read once at rest but refused, or its faces not those thrown: not right, and said what it read.
    tally.add([7], 6, "seed 1 throw 2", right=False, said="reroll ['1', '?'] for ['1', '3']")
    assert tally.once_at_rest == 3 and tally.read_right == 2
    assert tally.examples[-1] == "seed 1 throw 2: read once at rest, reroll ['1', '?'] for ['1', '3']"


def test_throws_under_pulsing_lamps_are_each_read_once_at_rest() -> None:
    index = next(k for k, row in enumerate(WATCH_SETS) if row[4] >= 0.15)
    tally = watch_set(index, 2, keep_examples=True, first=7_200)
    assert tally.throws == 4 and tally.once_at_rest == 4 and tally.read_right == 4, tally.examples


def test_the_watched_throws_seeds_are_the_benchmarks_and_no_tool_tunes_on_them() -> None:
    from vision.bench import BENCH_SEED_START
    from vision.training.tuning import TUNING_SEED_START
    from vision.watch_bench import WATCH_SEED_START, WATCH_SEEDS_EACH

    last = WATCH_SEED_START + WATCH_SEEDS_EACH * len(WATCH_SETS) - 1
    assert BENCH_SEED_START + 950_000 == WATCH_SEED_START and last < TUNING_SEED_START


def test_a_knock_on_the_table_after_a_throw_was_read_reads_nothing_again() -> None:
    index = next(k for k, row in enumerate(WATCH_SETS) if row[6] is not None)
    tally = watch_set(index, 2, keep_examples=True, first=7_230 - 1_000 * index)
    assert tally.throws == 4 and tally.once_at_rest == 4 and tally.read_right == 4, tally.examples


def test_a_throw_read_once_at_rest_is_read_right_only_when_accepted_with_the_faces_thrown() -> None:
    # Black d6 on felt under pulsing lamps: the first throw of seed 7,400 is read once at rest, from its still
    # frames' mean, and refused (a die unclear); the second is read right.
    index = next(k for k, row in enumerate(WATCH_SETS) if row[2] and row[4] == 0.15)
    tally = watch_set(index, 1, keep_examples=True, first=7_400 - 1_000 * index)
    assert (tally.throws, tally.once_at_rest, tally.read_right) == (2, 2, 1)
    assert tally.examples == ["seed 7400 throw 1: read once at rest, reroll ['1', '?'] for ['1', '1']"]
