"""The training tools never render the benchmark's trays: the figures that count are on trays training never saw."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from vision.training import flat_data, locator_data, render_crops
from vision.training.render_crops import BENCH_SEED_START, check_training_seeds


def test_renders_up_to_the_benchmark_seeds_are_allowed_and_any_reaching_them_refused() -> None:
    check_training_seeds(BENCH_SEED_START - 10, 10)                 # the last seed is BENCH_SEED_START - 1
    with pytest.raises(SystemExit, match=r"must stay below seed 1000000 .*10 trays from seed 999991 reach 1000000"):
        check_training_seeds(BENCH_SEED_START - 9, 10)


@pytest.mark.parametrize("main", [flat_data.main, render_crops.main])
def test_every_renders_tool_refuses_the_benchmark_seeds_before_rendering(main: Callable[[list[str]], int],
                                                                         tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="must stay below seed"):
        main([str(tmp_path / "out.npz"), "--trays", "5", "--first-seed", str(BENCH_SEED_START)])
    assert not (tmp_path / "out.npz").exists()


def test_the_locator_frames_refuse_the_benchmark_seeds() -> None:
    with pytest.raises(SystemExit, match="must stay below seed"):
        locator_data.virtual_frames(5, BENCH_SEED_START - 1)
