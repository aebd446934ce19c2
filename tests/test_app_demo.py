"""The demo (a whole game on the twins, recorded to a GIF) and the pieces of `dice-companion run`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from companion.app import SAME_THROW_MOVED, STARTED_WITH_DICE, TrayWatcher, VirtualTrayCamera, build_camera
from companion.cli import main as cli_main
from companion.config import Config
from companion.controller import NotAThrow
from companion.demo import gif_durations, play_demo
from companion.errors import ConfigError
from companion.replay import replay_text
from companion.rules import parse_log
from companion.screens import illegible_texts


def test_a_short_mex_demo_plays_to_a_winner_with_gif_and_table_log(tmp_path: Path) -> None:
    result = play_demo("mex", 2, seed=3, options={"lives": 1}, journal_dir=tmp_path / "journal",
                       gif=tmp_path / "demo.gif")
    assert result.game.over and result.game.winner in ("Ann", "Bob")
    assert result.log_path is not None and result.log_path.is_file()
    setup, events = parse_log(result.log_path.read_text())
    assert setup.game == "mex" and sum(1 for e in events if type(e).__name__ == "Roll") >= 2
    replayed, error = replay_text(result.log_path.read_text())
    assert error is None and replayed is not None and replayed.to_json() == result.game.to_json()
    with Image.open(result.gif_path) as gif:
        assert gif.size == (256, 128) and gif.n_frames >= 5
    assert result.misreads == 0


def test_rapido_demo_finishes(tmp_path: Path) -> None:
    result = play_demo("rapido", 2, seed=1, options={"goal": 4}, journal_dir=tmp_path / "j", gif=None)
    assert result.game.over and result.gif_path is None


def test_gif_durations_follow_virtual_time_within_bounds() -> None:
    assert gif_durations([0.0, 0.1, 4.1, 20.0], 23.0) == [80, 2000, 2500, 1500]


def test_demo_cli_reports_where_things_went(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["demo", "--game", "mex", "--players", "2", "--lives", "1", "--seed", "5",
                     "--gif", str(tmp_path / "m.gif"), "--journal", str(tmp_path / "j")])
    out = capsys.readouterr().out
    assert code == 0
    assert "wins after" in out and str(tmp_path / "m.gif") in out and "table log:" in out


def test_demo_without_gif_option_writes_the_default_gif_and_none_writes_no_gif(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the README's command writes out/demo-GAME.gif in the working directory
    common = ["demo", "--game", "mex", "--players", "2", "--lives", "1", "--seed", "5", "--journal", "j"]
    assert cli_main(common) == 0
    assert (tmp_path / "out" / "demo-mex.gif").is_file()
    assert "out/demo-mex.gif" in capsys.readouterr().out
    (tmp_path / "out" / "demo-mex.gif").unlink()
    assert cli_main([*common, "--gif", "none"]) == 0
    assert not (tmp_path / "out" / "demo-mex.gif").exists()
    assert "OLED frames" not in capsys.readouterr().out


def test_demo_refuses_options_of_the_other_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["demo", "--game", "excape", "--lives", "3", "--gif", "none"]) == 2
    assert "--lives is a Mex option" in capsys.readouterr().err


def test_tray_watcher_reads_once_per_throw() -> None:
    from vision.models import D6
    from vision.virtual_tray import roll_frames

    watcher = TrayWatcher(Config())
    readings = []
    for seed in (11, 12):
        for frame in roll_frames(seed, D6, faces=["6", "2"], size=(320, 240), rolling=3, still=5, clean=True):
            _, reading = watcher(frame, "mex")
            if reading is not None:
                readings.append(reading)
    assert len(readings) == 2
    assert all(sorted(r.faces) == ["2", "6"] for r in readings)


# Two black d6 on dark felt in a dim room (sensor noise sigma 9 levels): throws whose last still frame alone reads a
# die unclear, or loses it, where the mean of the still frames reads both right (seeds 7,350-7,399: 6 such throws,
# none the other way round; two read by neither).
DIM_FELT = {"die_colour": "black", "tray": "felt", "noise": 9.0}


@pytest.mark.parametrize("seed", [7354, 7383, 7399])
def test_a_settled_throw_is_read_from_the_mean_of_its_still_frames(seed: int) -> None:
    from vision.models import D6
    from vision.read import read_tray
    from vision.virtual_tray import render_tray, roll_frames

    thrown = sorted(d.label for d in render_tray(seed, D6, n_dice=2, **DIM_FELT).dice)
    watcher = TrayWatcher(Config())
    readings = []
    for frame in roll_frames(seed, D6, n_dice=2, rolling=3, still=5, **DIM_FELT):
        _, reading = watcher(frame, "mex")
        if reading is not None:
            readings.append(reading)
            last_alone = read_tray(frame, D6, expect=2)
    assert [(r.status, sorted(r.faces)) for r in readings] == [("ok", thrown)]
    assert last_alone.status == "reroll"


def test_the_mean_is_of_the_settle_and_the_frame_it_matched_never_of_no_picture_or_another_kind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    import vision.read
    from vision.models import D6
    from vision.settled import settled_picture
    from vision.virtual_tray import roll_frames

    read = vision.read.read_tray
    pictures = []

    def read_tray(picture: np.ndarray, *args: object, **options: object) -> object:
        pictures.append(picture)
        return read(picture, *args, **options)

    monkeypatch.setattr(vision.read, "read_tray", read_tray)
    throw = roll_frames(7361, D6, n_dice=2, rolling=3, still=5, **DIM_FELT)
    black = np.zeros_like(throw[0])             # the camera's exposure jumping: no picture, skipped by the tracker
    frames = [*throw[:4], black, *throw[4:6], black, black, *throw[6:]]
    watcher = TrayWatcher(Config())
    for frame in frames:
        watcher(frame, "mex")
    # Read at the third still frame, throw[6]; throw[3], the first at rest (motion to the tracker, against the tumbling
    # frame before it), matched the next: the dice lay as they do in the three.
    assert len(pictures) == 1
    assert np.array_equal(pictures[0], settled_picture(throw[3:7]))
    # Frames of another kind at the same size (the camera turned grey as the dice settled) are never averaged with
    # those before them: the still scene goes on, its mean starts again.
    import cv2

    again = roll_frames(7362, D6, n_dice=2, rolling=3, still=5, **DIM_FELT)
    grey = [cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) for frame in again]
    for frame in [*again[:5], *grey[5:]]:
        watcher(frame, "mex")
    assert len(pictures) == 2 and np.array_equal(pictures[1], settled_picture(grey[5:7]))


def test_a_throw_read_again_after_a_lamp_is_lit_is_not_a_second_roll() -> None:
    # A lamp lit on one side of the tray after a throw: the tracker cannot take out a change of light over part of
    # the tray, so it reads the tray again; the dice lie where they were read, so no second roll reaches the game.
    # The next real throw does.
    import numpy as np

    from vision.models import D6
    from vision.virtual_tray import roll_frames

    watcher = TrayWatcher(Config())
    throw = roll_frames(21, D6, faces=["5", "3"], size=(320, 240), rolling=3, still=5, clean=True)
    lit = np.ones((240, 320, 1))
    lit[:, :130] = 1.35                     # the left of the tray, dice and all, a third brighter
    lamp = np.clip(throw[-1].astype(float) * lit, 0, 255).astype(np.uint8)
    readings, reads = [], []
    for frame in [*throw, *[lamp] * 6, *roll_frames(22, D6, faces=["6", "6"], size=(320, 240), rolling=3, still=5,
                                                     clean=True)]:
        _, reading = watcher(frame, "mex")
        reads.append(watcher.reads)
        if reading is not None:
            readings.append(sorted(reading.faces))
    assert reads[-1] == 3                       # the throw, the lamp-lit tray, the next throw: each read
    assert readings == [["3", "5"], ["6", "6"]]


def test_the_watcher_reads_each_throw_with_the_side_its_dice_showed_in_the_throws_before(
        sides_asked: list[float | None]) -> None:
    # At a table the dice look as big throw after throw: the reader is told so (vision.dice_sides), for a throw
    # whose dice are each boxed by one pip. Forgotten for another game's dice, or frames of another size.
    from vision.models import D6, EXCAPE, DieModel
    from vision.virtual_tray import roll_frames

    asked = sides_asked
    watcher = TrayWatcher(Config())

    def throw(seed: int, faces: list[str], game: str = "mex", model: DieModel = D6,
              size: tuple[int, int] = (320, 240)) -> list[list[str]]:
        said = []
        for frame in roll_frames(seed, model, faces=faces, size=size, rolling=3, still=5, clean=True,
                                 die_size=30 * size[0] / 320):
            _, reading = watcher(frame, game)
            if reading is not None:
                said.append(sorted(reading.faces))
        return said

    assert throw(31, ["6", "3"]) == [["3", "6"]] and throw(32, ["5", "4"]) == [["4", "5"]]
    assert throw(33, ["2", "1"]) == [["1", "2"]]
    assert asked[:2] == [None, None] and asked[2] is not None and 20 < asked[2] < 34
    assert throw(34, ["X", "7"], "excape", EXCAPE) == [["7", "X"]]
    assert asked[3] is None                                  # other dice: not measured by the d6's
    throw(35, ["6", "3"], "excape", EXCAPE)
    throw(36, ["5", "4"], "excape", EXCAPE)
    assert asked[5] is not None
    throw(37, ["6", "3"], "excape", EXCAPE, size=(640, 480))
    assert len(asked) == 7 and asked[6] is None              # frames of another size: pixels of another size


def _said(watcher: TrayWatcher, frames: list[np.ndarray]) -> list[object]:
    """What the watcher reports over the frames: each throw's faces, or a NotAThrow's title."""
    said: list[object] = []
    for frame in frames:
        _, reading = watcher(frame, "mex")
        if reading is not None:
            said.append(reading.title if isinstance(reading, NotAThrow) else sorted(reading.faces))
    return said


def test_a_hand_resting_over_the_dice_is_no_throw() -> None:
    # A player's hand rests still in the tray over the dice of the throw just read, longer than the tracker's
    # patience. Read then, a 5 half under the hand read as a sure 2 (fresh seed 4,570,037): counted, it was a throw
    # nobody made, and the dice as they lay, read once the hand left, a second one. It is said, and not counted.
    from vision.models import D6
    from vision.virtual_tray import render_tray, roll_frames

    seed, faces, size = 4_570_037, ["6", "5"], (320, 240)
    empty = render_tray(seed, D6, n_dice=0, size=size, clean=True).image
    throw = roll_frames(seed, D6, faces=faces, size=size, rolling=3, still=5, clean=True)
    hand = render_tray(seed, D6, faces=faces, size=size, hazards=frozenset({"hand"}), clean=True).image
    watcher = TrayWatcher(Config())
    patience = watcher.tracker.hand_patience
    assert _said(watcher, [empty] * 5 + throw) == [["5", "6"]]
    assert _said(watcher, [hand] * (patience + 10)) == ["Hand in tray?"]
    assert _said(watcher, [throw[-1]] * 6) == []             # it left: the dice as they were read, no new throw
    assert _said(watcher, roll_frames(seed, D6, faces=["2", "1"], size=size, rolling=3, still=5, clean=True)) \
        == [["1", "2"]]                                     # the next throw counts


def test_a_hand_hiding_both_dice_does_not_stop_the_next_throws_counting() -> None:
    # A hand rests over both dice of the throw just read, longer than the tracker's patience: the reader, asked
    # then, finds no die. Taken for the tray's empty look, that frame made every later settle look like a hand in
    # the tray (it differs from the hand's frame where the hand was): each throw was said "Hand in tray?" and not
    # counted, until an empty tray lay still past the patience. The dice it hid are the throw already counted.
    import cv2

    from vision.models import D6
    from vision.virtual_tray import render_tray, roll_frames

    seed, size = 4_570_037, (320, 240)
    empty = render_tray(seed, D6, n_dice=0, size=size, clean=True).image
    throw = roll_frames(seed, D6, faces=["6", "5"], size=size, rolling=3, still=5, clean=True)
    # The render's hand, moved over the dice (its arm, replicated at the frame's top, still reaches in over it).
    shift = np.float32([[1, 0, 40], [0, 1, 8]])
    hand, tray = (cv2.warpAffine(render_tray(seed, D6, n_dice=0, size=size, clean=True, **extra).image, shift, size,
                                 borderMode=cv2.BORDER_REPLICATE)
                  for extra in ({"hazards": frozenset({"hand"})}, {}))
    over = cv2.dilate((np.abs(hand.astype(int) - tray.astype(int)).max(axis=2) > 12).astype(np.uint8),
                      np.ones((3, 3), np.uint8)).astype(bool)
    hiding = np.where(over[..., None], hand, throw[-1])
    watcher = TrayWatcher(Config())
    patience = watcher.tracker.hand_patience
    assert _said(watcher, [empty] * 5 + throw) == [["5", "6"]]
    assert _said(watcher, [hiding] * (patience + 10)) == [[]]     # read at last: no die to be seen, none counted
    assert _said(watcher, [throw[-1]] * (patience + 10)) == []    # it left: the throw counted, not counted again
    for faces in (["2", "1"], ["4", "4"]):                         # and the next throws count, as they settle
        assert _said(watcher, roll_frames(seed, D6, faces=faces, size=size, rolling=3, still=5, clean=True)) \
            == [sorted(faces)]


def test_a_camera_bumped_since_the_tray_was_seen_empty_costs_one_throw_thrown_again() -> None:
    # The tray's empty look, the tracker's reference for a resting hand, is stale once the camera was bumped (the
    # view shifted by a few pixels): the next throw looks like dice under a hand, and is said so, not counted.
    # Cleared, the tray is seen empty as it now looks, and the throw made again counts. (A lamp lit beside the tray
    # is no such change: the tracker takes a change of light out.)
    import cv2

    from vision.models import D6
    from vision.virtual_tray import render_tray, roll_frames

    size, shift = (320, 240), np.float32([[1, 0, 8], [0, 1, 5]])

    def bumped(frames: list[np.ndarray]) -> list[np.ndarray]:
        return [cv2.warpAffine(f, shift, size, borderMode=cv2.BORDER_REPLICATE) for f in frames]

    empty = render_tray(25, D6, n_dice=0, size=size, clean=True).image
    throw = roll_frames(25, D6, faces=["3", "4"], size=size, rolling=3, still=5, clean=True)
    watcher = TrayWatcher(Config())
    assert _said(watcher, [empty] * 5) == []
    patience = watcher.tracker.hand_patience
    again = bumped(throw[:3]) + bumped(throw[-1:]) * (patience + 10)
    assert _said(watcher, again) == ["Hand in tray?"]
    assert _said(watcher, bumped([empty]) * (patience + 10)) == [[]]    # an empty tray: no roll (the controller)
    assert _said(watcher, again) == [["3", "4"]]


def test_the_throw_lying_in_the_tray_after_a_power_cut_is_not_counted_again() -> None:
    # The companion comes back with the last throw still in the tray: its roll is in the journal already, so the
    # dice the camera finds there are no new roll. The next throw is.
    from vision.models import D6
    from vision.virtual_tray import roll_frames

    last = roll_frames(23, D6, faces=["4", "1"], size=(320, 240), rolling=3, still=6, clean=True)[-1]
    watcher = TrayWatcher(Config())
    readings = [reading for frame in [last] * 6 + roll_frames(24, D6, faces=["2", "2"], size=(320, 240), rolling=3,
                                                                still=5, clean=True)
                if (reading := watcher(frame, "mex")[1]) is not None]
    # The dice found at start are said not to count (the players who threw them while it booted know why), then
    # the next throw is a roll.
    assert watcher.reads == 2 and readings[0] is STARTED_WITH_DICE
    assert [sorted(r.faces) for r in readings[1:]] == [["2", "2"]]


def test_the_calibrated_tray_is_scaled_to_the_frames_the_camera_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    # Calibrated in the config's 1280x960 frame; the camera gives 320x240 (a webcam's nearest mode, the twin's virtual
    # tray): the reader and the tracker are given the region in those frames' pixels, not one that fits nowhere.
    from dataclasses import replace

    import vision.read
    from vision.models import D6
    from vision.virtual_tray import roll_frames

    config = Config()
    config = replace(config, camera=replace(config.camera, tray=(40, 80, 1200, 800)))
    watcher = TrayWatcher(config)
    given = []
    real_read = vision.read.read_tray
    monkeypatch.setattr(vision.read, "read_tray", lambda *a, **k: given.append(k["tray"]) or real_read(*a, **k))
    readings = [r for f in roll_frames(11, D6, faces=["6", "2"], size=(320, 240), rolling=3, still=5, clean=True)
                if (r := watcher(f, "mex")[1]) is not None]
    assert given == [(10, 20, 300, 200)] and watcher.tracker.tray == (10, 20, 300, 200)
    assert [sorted(r.faces) for r in readings] == [["2", "6"]]
    # Frames of another shape are another view: said, with what to do.
    with pytest.raises(ConfigError, match=r"gives 640x360 frames, not the 1280x960 view .* calibrate again"):
        watcher(np.zeros((360, 640, 3), np.uint8), "mex")


def test_virtual_camera_shows_a_throw_when_asked() -> None:
    camera = VirtualTrayCamera("excape", seed=1)
    still = camera.read()
    assert camera.read() is still
    camera.throw()
    frames = [camera.read() for _ in range(8)]
    assert any(frame is not still for frame in frames)


def test_camera_choice_errors_say_what_is_expected() -> None:
    with pytest.raises(ConfigError, match="replay PATH"):
        build_camera("replay", None, Config(), "mex", True)
    with pytest.raises(ConfigError, match="expected virtual, webcam, replay or picamera2"):
        build_camera("drone", None, Config(), "mex", True)


def test_the_pi_camera_is_told_the_mains_of_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.config import parse_config

    made: list[tuple] = []

    class Recording:
        def __init__(self, width: int, height: int, mains_hz: int) -> None:
            made.append((width, height, mains_hz))

    import hardware.camera

    monkeypatch.setattr(hardware.camera, "PiCamera", Recording)
    build_camera("picamera2", None, Config(), "mex", False)
    build_camera("picamera2", None, parse_config("[camera]\nmains_hz = 60\nwidth = 640\nheight = 480"), "mex", False)
    assert made == [(1280, 960, 50), (640, 480, 60)]


def test_live_cameras_are_watched_and_replays_are_not(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import hardware.camera
    from hardware.camera_watch import WatchedCamera

    class Webcam:
        def __init__(self, *args: object) -> None:
            pass

    monkeypatch.setattr(hardware.camera, "WebcamCamera", Webcam)
    monkeypatch.setattr(hardware.camera, "PiCamera", Webcam)
    assert isinstance(build_camera("webcam", None, Config(), "mex", False), WatchedCamera)
    assert isinstance(build_camera("picamera2", None, Config(), "mex", False), WatchedCamera)
    (tmp_path / "tray.png").write_bytes((Path(__file__).parent / "scripts" / "photos" / "mex-63.png").read_bytes())
    assert not isinstance(build_camera("replay", str(tmp_path), Config(), "mex", True), WatchedCamera)
    assert not isinstance(build_camera("virtual", None, Config(), "mex", True), WatchedCamera)


def test_run_rejects_json_without_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["run", "--twin", "--json"]) == 2
    assert "--json only goes with --script" in capsys.readouterr().err


def test_a_replayed_photo_folder_holds_each_photo_long_enough_to_settle(tmp_path: Path) -> None:
    import shutil

    photos = Path(__file__).resolve().parent / "scripts" / "photos"
    for name in ("mex-63.png", "mex-42.png", "mex-54.png"):
        shutil.copy(photos / name, tmp_path / name)
    camera = build_camera("replay", str(tmp_path), Config(), "mex", True)
    watcher = TrayWatcher(Config())
    faces = []
    for _ in range(45):
        _, reading = watcher(camera.read(), "mex")
        if reading is not None:
            faces.append("not counted" if reading is STARTED_WITH_DICE else sorted(reading.faces))
    camera.close()
    # Natural order: mex-42, mex-54, mex-63, each read once. The first is the tray as the companion starts: dice
    # lying there are no throw it saw happen (after a power cut, the last throw, whose roll the journal has).
    assert faces == ["not counted", ["4", "5"], ["3", "6"]]
    assert watcher.reads == 3


@pytest.mark.parametrize(("game", "players", "seed", "options"), [
    ("mex", 3, 6, {"lives": 1}),
    ("mex", 3, 1, {}),          # the README's demo: a round ended early, its result and points on one screen
    ("excape", 4, 6, {"goal": 5}),
])
def test_every_screen_of_a_whole_game_is_legible_and_whole(game: str, players: int, seed: int, options: dict,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion import screens

    problems: list[str] = []
    kinds: set[str] = set()
    real_render = screens.render

    def checked_render(view: screens.View) -> screens.Rendered:
        rendered = real_render(view)
        kinds.add(type(view).__name__)
        problems.extend(f"{type(view).__name__}: {p}" for p in screens.illegible_texts(rendered))
        if isinstance(view, screens.MessageView) and any(t.endswith(screens.MORE) for t in rendered.strings):
            problems.append(f"MessageView {view.title!r} cut short: {view.lines}")
        return rendered

    monkeypatch.setattr(screens, "render", checked_render)
    result = play_demo(game, players, seed=seed, options=options, journal_dir=tmp_path / "j", gif=None)
    assert result.game.over
    assert problems == []
    assert {"MessageView"} < kinds


def test_a_missing_taught_model_in_the_config_is_a_clear_error(tmp_path: Path) -> None:
    from companion.app import TrayWatcher
    from companion.config import parse_config
    from vision.models import ModelError

    config = parse_config(f'[vision]\nmodel = "{tmp_path / "gone.json"}"\n')
    with pytest.raises(ModelError, match=r"unknown die model .*gone\.json.*made by `dice-companion teach`"):
        TrayWatcher(config)


def test_nets_this_opencv_would_get_wrong_are_refused_when_the_companion_starts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vision import flat, locate, nets, recognise
    from vision.models import ModelError

    def computed_wrongly(net: object, weights: Path, what: str, answers: Path = nets.KNOWN_ANSWERS) -> None:
        raise ModelError(f"{what}: OpenCV computes {weights.name} wrongly")

    loaded = (locate.locator, recognise.face_net, flat.flat_net)
    for cached in loaded:
        cached.cache_clear()
    monkeypatch.setattr(nets, "check_known_answer", computed_wrongly)
    try:
        with pytest.raises(ModelError, match=r"dice locator: OpenCV computes locator\.onnx wrongly"):
            TrayWatcher(Config())       # before any frame is read
    finally:
        for cached in loaded:
            cached.cache_clear()        # the next test loads the nets as they are


@pytest.mark.parametrize(("seed", "turn"), [(7570, 1.5), (7571, -2.5)])
def test_a_tray_bumped_with_its_dice_is_the_same_throw_said_not_counted(seed: int, turn: float, shown: Any) -> None:
    # A player bumps the tray: it slides and turns a little on the table, the dice in it with it, and the table
    # around it stays. The tracker sees the dice move against the view and reads them again; they lie as the throw
    # just read did, moved together, showing the same faces (vision.result.TrayReading.lies_as_moved). Counted, it
    # was a throw nobody made; it is said, and not counted. The next throw counts.
    import cv2

    from vision.models import D6
    from vision.virtual_tray import roll_frames

    size, faces = (320, 240), ["5", "2"]
    throw = roll_frames(seed, D6, faces=faces, size=size, rolling=3, still=5, clean=True)
    matrix = cv2.getRotationMatrix2D((160, 120), turn, 1.0) + np.float32([[0, 0, 6], [0, 0, -4]])
    inside = np.zeros(size[::-1], bool)
    inside[25:215, 30:290] = True                 # the tray's floor moved, the table and the frame's edges not
    bumped = np.where(inside[..., None], cv2.warpAffine(throw[-1], matrix, size, borderMode=cv2.BORDER_REPLICATE),
                      throw[-1])
    watcher = TrayWatcher(Config())
    assert _said(watcher, throw) == [sorted(faces)]
    assert _said(watcher, [bumped] * 6) == ["Same throw"]
    assert _said(watcher, roll_frames(seed + 1, D6, faces=["4", "1"], size=size, rolling=3, still=5, clean=True)) \
        == [["1", "4"]]
    # As the controller shows it: the message whole, with how to enter a throw so taken by hand.
    controller = shown(SAME_THROW_MOVED)
    assert controller.last_screen is not None and illegible_texts(controller.last_screen) == []
    assert controller.last_screen.says("Same throw") and controller.last_screen.says("Correct read")
    assert controller.notice == "knock? same throw"


@pytest.mark.parametrize(("first", "said_next"), [("ok", "Same throw"), ("reroll", ["5", "?"])])
def test_only_a_throw_accepted_is_said_to_be_the_same_throw_when_its_dice_moved_together(
        first: str, said_next: object, monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused throw (a die unclear) whose dice then move together, the die still unclear, is read as any throw,
    # and refused again: "Same throw ... not counted again" would tell the players a throw they must make again was
    # counted.
    import vision.read
    from vision.models import D6
    from vision.result import DieReading, TrayReading
    from vision.virtual_tray import roll_frames

    def reading(status: str, shift: int, second: str) -> TrayReading:
        sure = second != "?"
        return TrayReading(status, None if status == "ok" else "die 2 cannot be read",
                           (DieReading("5", 0.95, True, (100 + shift, 100, 40, 40)),
                            DieReading(second, 0.95 if sure else 0.3, sure, (200 + shift, 150, 40, 40))))

    size = (320, 240)
    settles = [frame for seed in (7573, 7574)
               for frame in roll_frames(seed, D6, n_dice=2, size=size, rolling=3, still=5, clean=True)]
    second = "2" if first == "ok" else "?"
    readings = iter([reading(first, 0, second), reading(first, 9, second)])
    monkeypatch.setattr(vision.read, "read_tray", lambda *args, **kwargs: next(readings))
    assert _said(TrayWatcher(Config()), settles) == [["2", "5"] if first == "ok" else ["5", "?"], said_next]


def test_a_camera_mounted_high_has_the_throws_the_usual_width_refused_read_at_its_own_resolution(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A 1280x960 camera high over the tray: its dice 24-28 px, 12-14 px in the reader's usual 640 px work frame. Six
    # throws in one tray; from the third the table knows its dice's side (vision.dice_sides) and reads a throw the
    # usual width refused again at their scale (vision.read, WORK_SIDES). Read at 640 px only, the last two throws
    # were refused, a die of each unclear (session 46).
    import vision.read
    from vision.models import D6
    from vision.virtual_tray import render_tray, roll_frames

    far = {"size": (1280, 960), "tray_seed": 7660, "die_size": (24, 28)}

    def table_reads() -> list[tuple[str, list[str], list[str]]]:
        watcher = TrayWatcher(Config())
        reads = []
        for seed in range(7666, 7672):
            thrown = sorted(d.label for d in render_tray(seed, D6, n_dice=2, **far).dice)
            for frame in roll_frames(seed, D6, n_dice=2, rolling=3, still=5, **far):
                _, reading = watcher(frame, "mex")
                if reading is not None:
                    reads.append((reading.status, sorted(reading.faces), thrown))
        assert watcher.sides.side is not None and watcher.sides.side < 25 * 1280 / 640
        return reads

    reads = table_reads()
    assert len(reads) == 6 and all(status == "ok" and faces == thrown for status, faces, thrown in reads)
    monkeypatch.setattr(vision.read, "RESCALED_READS", 0)
    assert [status for status, _, _ in table_reads()] == ["ok"] * 4 + ["reroll"] * 2


def test_a_die_taught_under_a_camera_mounted_high_is_read_through_the_table(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # Card dice 30-36 px in a 1280x960 camera's frames, 15-18 px in the reader's usual 640 px work frame: taught from
    # three shots a face of this camera, then six throws in one tray through the table's watcher. The model keeps
    # the side the dice were taught at, and the table reads each throw at it (session 47): all read right. Without
    # that side (a model file written before), the table has no measure of its dice until it accepts a throw: the
    # read at the camera's own resolution of a frame nothing measures reads 2 of the 6, and without it none.
    import vision.read
    from companion.config import VisionConfig
    from vision.bench import CARD_DIE, TAUGHT_LABELS, TAUGHT_LOOK
    from vision.models import DieModel, load_model, save_model
    from vision.teach import teach_model
    from vision.virtual_tray import render_tray, roll_frames

    far = {**TAUGHT_LOOK, "size": (1280, 960), "tray_seed": 7940, "die_size": (30.0, 36.0)}
    shots = {label: [render_tray(7941 + 10 * k + j, CARD_DIE, faces=[label, label], **far).image for j in range(3)]
             for k, label in enumerate(TAUGHT_LABELS)}
    taught = tmp_path / "cards.json"
    save_model(teach_model("cards", shots), taught)

    def table_reads() -> list[tuple[str, list[str], list[str]]]:
        watcher = TrayWatcher(Config(vision=VisionConfig(model=str(taught))))
        reads = []
        for seed in range(7980, 7986):
            faces = [TAUGHT_LABELS[seed % 4], TAUGHT_LABELS[(seed + 1) % 4]]
            for frame in roll_frames(seed, CARD_DIE, faces=faces, rolling=3, still=5, **far):
                _, reading = watcher(frame, "mex")
                if reading is not None:
                    reads.append((reading.status, sorted(reading.faces), sorted(faces)))
        return reads

    reads = table_reads()
    assert len(reads) == 6 and all(status == "ok" and faces == thrown for status, faces, thrown in reads)
    unmeasured = load_model(taught)
    save_model(DieModel(unmeasured.name, unmeasured.kinds, unmeasured.looks, unmeasured.embedder), taught)
    assert sum(status == "ok" for status, _, _ in table_reads()) <= 3       # the camera's own resolution alone: 2
    monkeypatch.setattr(vision.read, "_seen_small_or_not_at_all", lambda reading, scale: False)
    assert [status for status, _, _ in table_reads()] == ["reroll"] * 6


def test_the_table_says_once_when_its_dice_look_too_small_to_the_camera() -> None:
    # A 1280x960 camera high over the tray, its dice 24-28 px (12-14 px in the reader's 640 px work frame, off the
    # sides it reads best, vision.read.seen_off_size): once the table knows their side, from its second throw, the
    # players are told to bring the camera closer, once. Dice of the usual size: nothing said.
    from companion.app import DICE_LOOK
    from vision.models import D6
    from vision.virtual_tray import roll_frames

    def advice_after_each_throw(seeds: range, **look: Any) -> list[object]:
        watcher = TrayWatcher(Config())
        said = []
        for seed in seeds:
            for frame in roll_frames(seed, D6, n_dice=2, rolling=3, still=5, **look):
                _, reading = watcher(frame, "mex")
                if reading is not None:
                    said.append(watcher.camera_advice())
        return said

    far = advice_after_each_throw(range(7666, 7670), size=(1280, 960), tray_seed=7660, die_size=(24, 28))
    assert far == [None, DICE_LOOK["small"], None, None]
    usual = advice_after_each_throw(range(7666, 7669), size=(640, 480), tray_seed=7660, die_size=(34, 42))
    assert usual == [None, None, None]
