"""Finding the tray at the table (the menu's "Find the tray"), and the tray saved beside the journal."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.app import TrayWatcher
from companion.calibrate import main as calibrate
from companion.config import Config
from companion.controller import Controller
from companion.errors import DiceCompanionError
from companion.journal import Journal
from companion.rules import GameSetup
from companion.saved_tray import SAVED_TRAY_FILE, SavedTray, load_saved_tray, save_tray
from companion.screens import TRAY_PICTURE, TrayView, illegible_texts
from hardware.buttons import ButtonEvent
from hardware.display import DummyDisplay
from vision.result import box_iou
from vision.tray_region import find_tray_region
from vision.virtual_tray import empty_tray, render_tray


def press(controller: Controller, button: str, kind: str = "press") -> None:
    controller.on_button(ButtonEvent(button, kind))


def open_find_tray(controller: Controller) -> None:
    if controller.mode == "menu":
        press(controller, "reroll")           # back to the game first
    press(controller, "select", "hold")
    items = [key for key, _ in controller.menu_items()]
    for _ in range(items.index("tray")):
        press(controller, "select")
    press(controller, "stop")


def test_the_tray_found_at_the_table_is_shown_kept_and_used_after_a_restart(tmp_path: Path) -> None:
    saved_in = tmp_path / "journal"
    watcher = TrayWatcher(Config(), saved_in=saved_in)
    controller = Controller(Journal(saved_in), GameSetup("mex", ("Ann", "Bob")), display=DummyDisplay(),
                            watcher=watcher)
    controller.start()
    rendered = render_tray(4_401_001, size=(320, 240))          # the camera moved: the tray is elsewhere now
    for _ in range(3):
        controller.on_frame(empty_tray(4_401_001, size=(320, 240)))
    open_find_tray(controller)
    assert controller.mode == "confirm_tray"
    view = controller.view()
    assert isinstance(view, TrayView) and view.picture.size[0] <= TRAY_PICTURE[0]
    assert view.picture.size[1] <= TRAY_PICTURE[1]
    shown = controller.last_screen
    assert shown is not None and illegible_texts(shown) == [] and shown.says("Tray found") and shown.says("of")
    found = controller.found_tray
    assert found is not None and box_iou(found.region, rendered.rim) >= 0.9
    press(controller, "stop")                                   # keep it
    assert controller.mode == "menu" and controller.notice == "tray kept"
    assert load_saved_tray(saved_in) == SavedTray(found.region, (320, 240))
    controller.on_frame(empty_tray(4_401_001, size=(320, 240)))
    assert watcher.tracker.tray == found.region
    # The next start uses it, scaled to the camera's frames, instead of the config's (none here).
    again = TrayWatcher(Config(), saved_in=saved_in)
    again(empty_tray(4_401_001, size=(640, 480)), "mex")
    assert again.tracker.tray == tuple(2 * v for v in found.region)


def test_cancelled_or_not_found_the_tray_stays_as_it_was(tmp_path: Path) -> None:
    saved_in = tmp_path / "journal"
    config = Config()
    config = replace(config, camera=replace(config.camera, width=320, height=240, tray=(10, 10, 300, 220)))
    watcher = TrayWatcher(config, saved_in=saved_in)
    controller = Controller(Journal(saved_in), GameSetup("mex", ("Ann", "Bob")), display=DummyDisplay(),
                            watcher=watcher)
    controller.start()
    open_find_tray(controller)                                  # no picture yet: said why
    assert controller.mode == "menu" and controller.message is not None
    assert "no picture yet" in " ".join(controller.message.lines)
    controller.on_frame(empty_tray(4_401_001, size=(320, 240)))
    open_find_tray(controller)
    press(controller, "reroll")                                 # cancel
    assert controller.mode == "menu" and controller.notice == "tray as it was"
    assert not (saved_in / SAVED_TRAY_FILE).exists() and watcher.tracker.tray == (10, 10, 300, 220)
    controller.on_frame(np.zeros((240, 320, 3), np.uint8))      # the lens covered
    open_find_tray(controller)
    assert controller.mode == "menu" and "all black" in " ".join(controller.message.lines)


def test_a_saved_tray_that_cannot_be_saved_is_used_all_the_same(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    watcher = TrayWatcher(Config(), saved_in=blocker)
    controller = Controller(Journal(tmp_path / "journal"), GameSetup("mex", ("Ann", "Bob")), display=DummyDisplay(),
                            watcher=watcher)
    controller.start()
    controller.on_frame(empty_tray(4_401_001, size=(320, 240)))
    open_find_tray(controller)
    region = controller.found_tray.region  # type: ignore[union-attr]
    press(controller, "stop")
    assert controller.notice == "tray not saved" and "cannot save the tray" in " ".join(controller.message.lines)
    controller.on_frame(empty_tray(4_401_001, size=(320, 240)))
    assert watcher.tracker.tray == region


@pytest.mark.parametrize("text", ["{", '{"tray": [1, 2, 3]}', '{"tray": [0, 0, 700, 10], "frame": [640, 480]}',
                                  '{"frame": [640, 480]}'])
def test_a_saved_tray_file_that_is_not_one_is_set_aside_with_a_warning(tmp_path: Path, text: str,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / SAVED_TRAY_FILE).write_text(text)
    with caplog.at_level(logging.WARNING):
        assert load_saved_tray(tmp_path) is None
    assert "is not a saved tray" in caplog.text


def test_save_tray_writes_the_file_whole(tmp_path: Path) -> None:
    save_tray(tmp_path / "new", SavedTray((1, 2, 300, 200), (320, 240)))
    assert json.loads((tmp_path / "new" / SAVED_TRAY_FILE).read_text()) == {"tray": [1, 2, 300, 200],
                                                                             "frame": [320, 240]}
    with pytest.raises(DiceCompanionError, match="cannot save the tray"):
        save_tray(tmp_path / "new" / SAVED_TRAY_FILE, SavedTray((1, 2, 300, 200), (320, 240)))


def test_calibrating_into_the_config_deletes_the_tray_found_at_the_table(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    journal = tmp_path / "journal"
    save_tray(journal, SavedTray((1, 2, 300, 200), (320, 240)))
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nsource = "virtual"\nwidth = 640\nheight = 480\n[journal]\ndirectory = "{journal}"\n')
    assert calibrate(["--config", str(config), "--write"]) == 0
    assert not (journal / SAVED_TRAY_FILE).exists() and "the config's applies" in capsys.readouterr().out


def test_a_grey_or_four_channel_camera_is_found_too(tmp_path: Path) -> None:
    import cv2

    frame = empty_tray(4_401_001, size=(320, 240))
    for shown in (cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)):
        watcher = TrayWatcher(Config())
        watcher(shown, "mex")
        found = watcher.find_tray()
        assert found.frame_size == (320, 240) and found.picture.mode == "L"
        assert found.region == watcher.find_tray().region


def test_a_tray_that_moved_since_it_was_set_is_said_once_while_it_lasts(shown: Any) -> None:
    from companion.app import TRAY_MOVED

    # Set on one tray (4,407,000: its rim 36 px in from the left), the camera now sees another (8 px in): the first
    # empty tray read says so, once; the tray it was set on says nothing.
    set_on = empty_tray(4_407_000, size=(640, 480))
    now = empty_tray(4_407_001, size=(640, 480))
    for frames, said in (([now] * 12, [TRAY_MOVED]), ([set_on] * 12, [])):
        config = Config()
        config = replace(config, camera=replace(config.camera, width=640, height=480, tray=find_tray_region(set_on)))
        watcher = TrayWatcher(config)
        readings = [r for frame in frames if (r := watcher(frame, "mex")[1]) is not None]
        assert readings == said
    # In the game too, and once while it lasts: bumped, a throw and the tray emptied again (not said again), back in
    # place, bumped again (said again).
    from vision.virtual_tray import roll_frames

    config = Config()
    config = replace(config, camera=replace(config.camera, width=640, height=480, tray=find_tray_region(set_on)))
    watcher = TrayWatcher(config)
    throw = roll_frames(4_407_001, size=(640, 480), rolling=3, still=6)
    # (A whole view changed looks, still, like a hand resting in the tray: the tracker reads it after its patience,
    # vision.motion, hence 40 frames.)
    blocks = [[set_on] * 40, [now] * 40, throw, [now] * 40, [set_on] * 40, [now] * 40]
    said = [watcher(frame, "mex")[1] is TRAY_MOVED for block in blocks for frame in block]
    starts = np.cumsum([0, *map(len, blocks)])
    assert [int(np.searchsorted(starts, k, side="right")) - 1 for k, s in enumerate(said) if s] == [1, 5]
    # As the controller shows it: a message, and a short bottom line.
    controller = shown(TRAY_MOVED)
    assert controller.last_screen is not None and illegible_texts(controller.last_screen) == []
    assert controller.last_screen.says("Tray moved?") and controller.last_screen.says("Find the tray")
    assert controller.notice == "tray moved? menu: find it"


def test_dice_left_in_the_tray_while_it_is_found_again_are_no_new_throw() -> None:
    # A throw lies in the tray, one die outside the region set, so it was refused; the players set a region of the
    # same size that holds both dice. The tracker sees its crop change, as motion, and reads the tray again; the
    # dice lie where they were read, showing the same faces (vision.result.TrayReading.lies_as): no roll, and nothing
    # said. The next throw is a roll.
    from companion.controller import FoundTray
    from vision.virtual_tray import roll_frames

    config = Config()
    config = replace(config, camera=replace(config.camera, width=320, height=240, tray=(100, 0, 220, 240)))
    watcher = TrayWatcher(config)
    throw = roll_frames(38, faces=["6", "2"], size=(320, 240), rolling=3, still=6, clean=True)
    centres = sorted(d.box[0] + d.box[2] / 2 for d in render_tray(38, faces=["6", "2"], size=(320, 240),
                                                                     clean=True).dice)
    assert centres[0] < 100 < 120 < centres[1] < 220            # the left die outside the old region, not the new
    readings = [r for f in throw if (r := watcher(f, "mex")[1]) is not None]
    assert len(readings) == 1 and "outside the tray" in str(readings[0].reason)
    watcher.use_tray(FoundTray((0, 0, 220, 240), (320, 240), None, (0, 0, 1, 1)))
    reads = watcher.reads
    again = [r for f in [throw[-1]] * 8 if (r := watcher(f, "mex")[1]) is not None]
    assert watcher.reads == reads + 1 and again == [] and watcher.tracker.tray == (0, 0, 220, 240)
    after = roll_frames(32, faces=["5", "5"], size=(320, 240), rolling=3, still=6, clean=True)
    rolls = [sorted(r.faces) for f in after if (r := watcher(f, "mex")[1]) is not None]
    assert rolls == [["5", "5"]]
