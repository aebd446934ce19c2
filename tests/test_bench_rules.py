from companion import bench
from companion.rules_bench import SETUPS, measure


def test_rules_bench_replays_a_long_game_exactly():
    figures = measure(SETUPS["mex"], events=300, seed=3)  # asserts replay == play inside
    assert figures["events"] == 300
    assert figures["journal_ms"] > 0 and figures["apply_us"] > 0


def test_bench_lists_every_bench_and_refuses_an_unknown_one(capsys):
    assert bench.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("vision", "rules", "render", "hardware"):
        assert name in out
    assert bench.main(["nope"]) == 2
    assert "unknown bench 'nope'" in capsys.readouterr().err
