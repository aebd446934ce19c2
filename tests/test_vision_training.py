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


def test_the_face_nets_inputs_are_kept_as_the_reader_reads_and_the_nets_left_as_they_were() -> None:
    from vision.recognise import FaceNet
    from vision.training import face_inputs

    run = FaceNet.run
    with face_inputs.kept_inputs() as kept:
        face_inputs.read_trays(811_000, 2)
    assert FaceNet.run is run
    quick = np.concatenate(kept["faces_quick"])
    assert quick.dtype == np.uint8 and quick.shape[1:] == (28, 28, 3) and len(quick) >= 2


def test_the_harvest_refuses_the_benchmark_seeds_and_a_harvest_of_nothing(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from vision.training import face_inputs

    with pytest.raises(SystemExit, match="must stay below seed"):
        face_inputs.main(["harvest", str(tmp_path / "h.npz"), "--trays", "5", "--first-seed", str(BENCH_SEED_START)])
    with pytest.raises(SystemExit):
        face_inputs.main(["harvest", str(tmp_path / "h.npz")])
    assert "nothing to read: give --photos, --trays N, --felt-throws N or several" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="must stay below seed"):     # the felt throws' seeds follow the trays'
        face_inputs.main(["harvest", str(tmp_path / "h.npz"), "--trays", "2", "--felt-throws", "1",
                          "--first-seed", str(BENCH_SEED_START - 2)])
    assert not (tmp_path / "h.npz").exists()


def test_felt_throws_are_two_d6_on_felt_read_with_their_count_black_by_a_draw_from_their_seed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vision import read, virtual_tray
    from vision.training import face_inputs

    looks, expected = [], []
    rendering, reading = virtual_tray.render_tray, read.read_tray

    def render(seed: int, model: object, **options: object) -> object:
        looks.append((seed, options))
        return rendering(seed, model, **options)

    def read_counted(image: np.ndarray, model: object, **options: object) -> object:
        expected.append(options.get("expect"))
        return reading(image, model, **options)

    monkeypatch.setattr(virtual_tray, "render_tray", render)
    monkeypatch.setattr(read, "read_tray", read_counted)
    with face_inputs.kept_inputs() as kept:
        face_inputs.read_felt_throws(811_010, 6)
    assert [seed for seed, _ in looks] == list(range(811_010, 811_016)) and expected == [2] * 6
    assert all(options["n_dice"] == 2 and options["tray"] == "felt" for _, options in looks)
    black = [options.get("die_colour") == "black" for _, options in looks]
    assert black == [np.random.default_rng(seed).random() < face_inputs.FELT_BLACK for seed, _ in looks]
    assert any(black) and not all(black) and len(np.concatenate(kept["faces_quick"])) >= 12


def test_a_crops_eight_views_are_its_quarter_turns_then_the_same_mirrored() -> None:
    from vision.training.face_inputs import VIEWS, views

    crop = np.arange(28 * 28 * 3, dtype=np.uint8).reshape(1, 28, 28, 3)
    seen = [views(crop, v) for v in range(VIEWS)]
    assert len({s.tobytes() for s in seen}) == VIEWS
    assert np.array_equal(seen[1][0], np.rot90(crop[0]))
    assert np.array_equal(seen[4][0], crop[0][:, ::-1])


def test_the_teachers_logits_are_the_readers_in_every_view(tmp_path: Path) -> None:
    from vision.recognise import QUICK_WEIGHTS, FaceNet
    from vision.training import face_inputs

    with face_inputs.kept_inputs() as kept:
        face_inputs.read_trays(811_002, 1)
    crops = np.concatenate(kept["faces_quick"])[:40]
    np.savez(tmp_path / "h.npz", faces_quick=crops)
    assert face_inputs.main(["teach", str(QUICK_WEIGHTS), str(tmp_path / "t.npz"), str(tmp_path / "h.npz")]) == 0
    taught = np.load(tmp_path / "t.npz")
    assert taught["logits"].shape == (face_inputs.VIEWS, len(crops), 10)
    net = FaceNet(QUICK_WEIGHTS)
    for view in (0, 5):
        assert np.allclose(taught["logits"][view], net.run(face_inputs.views(crops, view)), atol=1e-4)


def test_the_teacher_must_be_a_face_net(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.locate import WEIGHTS as LOCATOR
    from vision.training import face_inputs

    np.savez(tmp_path / "h.npz", faces_quick=np.zeros((1, 28, 28, 3), np.uint8))
    with pytest.raises(SystemExit):
        face_inputs.main(["teach", str(LOCATOR), str(tmp_path / "t.npz"), str(tmp_path / "h.npz")])
    assert "locator.onnx is not one of the face nets faces_quick, faces, faces_cross" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        face_inputs.main(["teach", str(tmp_path / "none.onnx"), str(tmp_path / "t.npz"), str(tmp_path / "h.npz")])
    assert "no such weights file" in capsys.readouterr().err
    assert not (tmp_path / "t.npz").exists()
