"""The training tools never render the benchmark's trays: the figures that count are on trays training never saw."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
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


def test_the_locator_frames_can_have_dice_resting_against_each_other(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    import vision.virtual_tray

    touching: list[object] = []
    render_tray = vision.virtual_tray.render_tray

    def rendering(*args: object, **options: object) -> object:
        touching.append(options.get("touching"))
        return render_tray(*args, **options)

    monkeypatch.setattr(vision.virtual_tray, "render_tray", rendering)
    out = tmp_path / "touching.pkl"
    assert locator_data.main([str(out), "--trays", "2", "--first-seed", "310000", "--no-real", "--touching"]) == 0
    assert touching == [True, True] and out.stat().st_size > 0
    locator_data.virtual_frames(1, 310000)
    assert touching[-1] is None


def test_flat_data_renders_every_tray_in_the_look_asked_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    looks: list[dict[str, object]] = []
    render_tray = flat_data.render_tray

    def rendering(*args: object, **options: object) -> object:
        looks.append({key: options.get(key) for key in ("die_colour", "pip_colour", "touching")})
        return render_tray(*args, **options)

    monkeypatch.setattr(flat_data, "render_tray", rendering)
    out = tmp_path / "marbled.npz"
    flat_data.main([str(out), "--trays", "2", "--first-seed", "512000", "--no-real", "--die-colour", "marbled",
                    "--pip-colour", "red"])
    assert looks == [{"die_colour": "marbled", "pip_colour": "red", "touching": None}] * 2
    with np.load(out) as data:
        assert len(data["labels"]) == len(data["crops"]) > 0
    looks.clear()
    flat_data.main([str(tmp_path / "touching.npz"), "--trays", "2", "--first-seed", "512000", "--no-real",
                    "--touching"])
    assert looks == [{"die_colour": None, "pip_colour": None, "touching": True}] * 2


def test_flat_data_refuses_a_colour_the_renderer_does_not_draw(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        flat_data.main([str(tmp_path / "out.npz"), "--trays", "1", "--no-real", "--die-colour", "tartan"])
    assert "invalid choice: 'tartan'" in capsys.readouterr().err
    assert not (tmp_path / "out.npz").exists()
