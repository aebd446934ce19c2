"""`dice-companion run`: the companion at the table.

On a Raspberry Pi it opens the devices the config names (GPIO buttons, the OLED, the Pi camera, buzzer/LED).
Elsewhere, or with `--twin`, it runs on twins: keyboard buttons, the OLED drawn in the terminal, and a camera
that is a webcam, a replay folder/video, or the virtual tray (press `t` to throw the dice). With `--script FILE`
it plays a recorded game with no keyboard (see companion.script).

The main loop is single-threaded: read a frame, hand it to the controller, drain the button queue, tick, and
tell systemd's watchdog we are alive. The journal goes to the config's directory, or ./out/journal for twins.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.config import Config, load_config
from companion.controller import CameraAdvice, Controller, FoundTray, NotAThrow
from companion.errors import ConfigError, DiceCompanionError
from companion.journal import Journal
from companion.rules import GameSetup
from companion.saved_tray import SavedTray, load_saved_tray, save_tray
from companion.screens import TRAY_PICTURE
from companion.sdnotify import notify

log = logging.getLogger("companion.app")

TWIN_JOURNAL = Path("out/journal")
VIRTUAL_SIZE = (320, 240)   # the virtual tray renders fast at this size and the reader handles any size
IDLE_SECONDS = 0.03         # pause per loop when the camera has no new frame (replay at its end)
TWIN_FRAME_SECONDS = 1 / 12  # the pace of twin cameras that could otherwise deliver frames as fast as asked
PHOTO_HOLD_FRAMES = 12      # a replayed photo stays in view this many frames: time to settle and be read
# A companion that cannot start (a damaged install, no camera) shows why on the table's screen for this long before
# it exits, and systemd starts it again (a camera plugged back in is then found): long enough to read, and a retry
# every ~20 s rather than a screen that blinks every 2 s.
CANNOT_START_SECONDS = 20.0
# The folders of a long absolute path in a message (a venv's site-packages, a home directory) would fill the OLED's
# five lines before the remedy at the end ("reinstall dice-companion"): the file's name says which file. Short
# paths stay whole (/dev/video0, /etc/dice-companion/companion.toml).
_FOLDERS = re.compile(r"(?<![\w.~])/(?:[^\s/'\"]+/){3,}(?=[^\s/'\"])")


def on_raspberry_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text(errors="replace").lower()
    except OSError:
        return False


def setup_from_config(config: Config) -> GameSetup:
    """The game a fresh start offers: [game] kind, players and options."""
    return GameSetup(config.game.kind, config.game.players, dict(config.game.options))


class TrayWatcher:
    """vision's motion tracker and reader behind one call: `(frame, game) -> (motion state, reading or None)`.

    The tracker decides when the dice have come to rest (once per throw); only then is the tray read, from the mean
    of the still frames (vision.settled), with the die model for the game being played (or the taught model from
    the config).
    """

    def __init__(self, config: Config | None = None, saved_in: Path | None = None) -> None:
        """saved_in: where the tray found at the table is saved (companion.saved_tray; the journal's directory), to
        be used instead of the config's at the next start; None: it is used until the companion stops."""
        from vision.dice_sides import DiceSides
        from vision.models import BUILTIN_MODELS, load_model
        from vision.motion import MotionTracker
        from vision.read import load_nets
        from vision.recognise import check_model
        from vision.settled import SettledFrames

        self.config = config or Config()
        self.tracker = MotionTracker(still_frames=self.config.vision.still_frames)
        camera = self.config.camera
        self.saved_in = saved_in
        configured = SavedTray(camera.tray, (camera.width, camera.height)) if camera.tray else None  # type: ignore[arg-type]
        # The tray's region and the size of the frame it was found in: the one found at the table, else the config's
        self.tray = (load_saved_tray(saved_in) if saved_in is not None else None) or configured
        self._frame_size: tuple[int, int] | None = None     # the frames' size: the tracker's tray is scaled to it
        self._last_frame: Any = None
        self._settled = SettledFrames()         # a settle is read from the mean of its still frames
        self._said_moved = False                 # "Tray moved?" said, and the tray not seen back in place since
        self._models = dict(BUILTIN_MODELS)
        self._custom = load_model(self.config.vision.model) if self.config.vision.model else None
        if self._custom is not None:
            check_model(self._custom)    # refused at start, not at the first throw of a game
        load_nets()                      # so are nets this install or this OpenCV would get wrong
        self.reads = 0
        self._last_reading: Any = None
        # How big the dice look, from the throws counted (in pixels of frames of _frame_size, of the model last read):
        # forgotten when either changes, or the tray's region does.
        self.sides = DiceSides()
        self._sides_of: Any = None
        # "small" or "big" (vision.read.seen_off_size) once the dice's side is known, said once while it lasts
        self._size_said: str | None = None
        self._advice: CameraAdvice | None = None

    def read_next_settle(self) -> None:
        """Read the next still tray as a new throw, whatever it shows: a script's photo is a new throw by its line,
        even one showing the dice as the last one did (else taken for the same throw, and not counted)."""
        self.tracker.request_read()
        self._last_reading = None

    def model_for(self, game: str) -> Any:
        if self._custom is not None:
            return self._custom
        return self._models["d6" if game == "mex" else "excape"]

    def __call__(self, frame: Any, game: str) -> tuple[str, Any]:
        from vision.read import read_tray

        shape = getattr(frame, "shape", ())      # not a frame: the tracker says so
        if len(shape) >= 2 and (shape[1], shape[0]) != self._frame_size:
            # (the tracker takes frames of a new size as a first frame: nothing to compare with)
            self.tracker.tray = tray_in_frame(self.tray, (shape[1], shape[0]))
            self._frame_size = (shape[1], shape[0])
            self.sides.forget()
        update = self.tracker.update(frame)
        self._last_frame = frame
        self._settled.add(frame, update)
        if not update.read_now:
            return update.state, None
        model = self.model_for(game)
        if model is not self._sides_of:
            self.sides.forget()
            self._sides_of = model
        reading = read_tray(self._settled.picture(update), model, tray=self.tracker.tray, expect=2,
                            die_side=self.sides.side)
        self.tracker.mark_read(len(reading.dice))
        self.reads += 1
        # Dice that lay in the tray as the companion started (after a power cut, the last throw: its roll is in the
        # journal already), or that lie as they did when last read (the same throw, read again after something
        # changed over the tray that the tracker could not take out, a lamp lit on one side): no roll.
        no_throw = update.was_there or reading.lies_as(self._last_reading)
        # Or they lie as a throw accepted did, moved together: the table, the camera or the tray knocked (a knock the
        # tracker did not take for one, or the tray bumped, its dice with it, where the table stayed). Said: the
        # players saw nothing thrown, and a throw so taken (about once in 17,000, vision.result) can be entered by
        # hand. (A refused throw so moved is read as any throw: refused again, or now read and counted.)
        last = self._last_reading
        knocked = not no_throw and last is not None and last.status == "ok" and reading.lies_as_moved(last)
        if update.occupied and reading.dice and not no_throw and not knocked:
            # Read only because a hand (or arm) lay still in the tray past the tracker's patience: dice half under
            # it read as other faces, and counted, it was a throw nobody made, and the dice as they lay before it
            # came in a second one once it left. Said, not counted, and not remembered as the tray's last throw.
            # (A stale empty reference, the camera bumped since the tray was seen empty, makes a settle look so until
            # an empty tray is read again: that costs one throw thrown again. A lamp does not: light is taken out.)
            return update.state, HAND_IN_TRAY
        if not update.occupied:
            # Found empty under what may be a hand, the tray's last throw is still the one read before: the dice it
            # hid, seen again once it left, are that throw, no new one.
            self._last_reading = reading
        if update.was_there and reading.dice:
            # Said, not silently dropped: dice thrown while the companion started (it boots in ~30 s) would seem
            # ignored for no reason. Not said for the same throw read again: nothing new happened at the table.
            return update.state, STARTED_WITH_DICE
        if not reading.dice:
            # An empty tray: the region set (calibrated, or found at the table) is compared with the tray in view.
            # A camera or tray bumped since the start, or in the game, leaves dice by one wall "on the tray's rim",
            # or out of the region, throw after throw: said once, for the players to find the tray again, and not
            # again until the tray was seen back in place (~3.5 ms an emptied tray).
            moved = self._tray_moved(frame)
            said, self._said_moved = self._said_moved, moved
            if moved and not said:
                self.sides.forget()              # the camera may have moved too: the dice may look bigger or smaller
                return update.state, TRAY_MOVED
        if no_throw:
            return update.state, None
        if knocked:
            return update.state, SAME_THROW_MOVED
        self.sides.remember(reading)
        self._judge_dice_size(model)
        return update.state, reading

    def _judge_dice_size(self, model: Any) -> None:
        """Once the table knows how big its dice look, and again whenever that changes between usual and off
        (vision.read.seen_off_size: another camera height, other dice): advice for the players when they look small
        or big (camera_advice)."""
        from vision.read import seen_off_size

        side, size = self.sides.side, self._frame_size
        if side is None or size is None:
            return
        verdict = seen_off_size(side, size[0], taught=model.taught)
        if verdict != self._size_said:
            self._size_said = verdict
            self._advice = None if verdict is None else DICE_LOOK[verdict]

    def camera_advice(self) -> CameraAdvice | None:
        """What the players should mend about the camera, learned from the throws read (each piece of advice once,
        then None): dice that look too small or big to be read surely."""
        advice, self._advice = self._advice, None
        return advice

    def _tray_moved(self, frame: Any) -> bool:
        """Whether the region in use lies TRAY_MOVED_SHIFT or more (of the frame's shorter side) off the tray found
        in `frame`, on any side; False when none is in use or no tray is found."""
        from vision.tray_region import TrayRegionNotFound, find_tray_region

        if self.tracker.tray is None:
            return False
        try:
            found = find_tray_region(frame)
        except TrayRegionNotFound:
            return False
        (x, y, w, h), (fx, fy, fw, fh) = self.tracker.tray, found
        shift = max(abs(x - fx), abs(y - fy), abs(x + w - fx - fw), abs(y + h - fy - fh))
        return shift >= TRAY_MOVED_SHIFT * min(frame.shape[:2])

    def find_tray(self) -> FoundTray:
        """The tray in the camera's last frame (vision.tray_region), to show the players before they keep it."""
        import cv2
        from PIL import Image

        from vision.read import checked_image
        from vision.tray_region import find_tray_region

        if self._last_frame is None:
            raise DiceCompanionError("the camera has given no picture yet")
        region = find_tray_region(self._last_frame)
        frame = checked_image(self._last_frame)     # BGR, as find_tray_region took it (a grey or BGRA camera too)
        height, width = frame.shape[:2]
        scale = min(TRAY_PICTURE[0] / width, TRAY_PICTURE[1] / height)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        picture = Image.fromarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA))
        return FoundTray(region, (width, height), picture, _scaled(region, scale, scale, size))

    def use_tray(self, found: FoundTray) -> None:
        """Watch and read the tray found from now on, and save it for the next start (DiceCompanionError if it cannot
        be saved: it is used all the same)."""
        self.tray = SavedTray(found.region, found.frame_size)
        self._frame_size = None                  # the tracker's region scaled again at the next frame (and the dice's
                                                 # side forgotten: a tray found again may be seen from elsewhere)
        self._said_moved = False
        if self.saved_in is not None:
            save_tray(self.saved_in, self.tray)


# The region in use and the tray found in view differ by this much of the frame's shorter side on a side: the tray
# has moved (a die's width at 640x480 is 0.05-0.12 of it). Found in an empty virtual tray and again with six dice in
# it (4,407,000+, 400 trays), the region moved by at most 0.025, and by nothing on 399 of them.
TRAY_MOVED_SHIFT = 0.04
TRAY_MOVED = NotAThrow("The tray in view is not where it was set: Menu, Find the tray.",
                       "tray moved? menu: find it", "Tray moved?")

HAND_IN_TRAY = NotAThrow("Something large lay still in the tray (a hand?): not counted. Clear it and throw again.",
                         "hand in tray? throw again", "Hand in tray?")

SAME_THROW_MOVED = NotAThrow("Dice as last read, moved together (knocked?): not counted again. Thrown? Hold SELECT, "
                             "Correct read", "knock? same throw", "Same throw")

# The camera's view of the dice, learned from the throws counted: said once (the throw still counts).
DICE_LOOK = {
    "small": CameraAdvice("Dice look small to the camera: read less surely. Move it closer to the tray.",
                          "dice small: camera closer"),
    "big": CameraAdvice("Dice look big to the camera: read less surely. Move it higher above the tray.",
                        "dice big: camera higher"),
}

STARTED_WITH_DICE = NotAThrow("Dice lying in the tray at start are not counted: the next throw is.",
                              "dice at start not counted")

# A frame whose sides' ratio differs from the calibrated frame's by more than this does not show the same view.
SAME_VIEW_ASPECT = 0.01


def tray_in_frame(tray: SavedTray | None, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The tray's region (in pixels of the frame it was found in: the config's [camera] width x height, or the saved
    tray's) in a frame of `size`: scaled when the camera gives another size of the same view (a webcam picks its
    nearest mode; the twin's virtual tray renders small). ConfigError when the frame's sides have another ratio: not
    the view the tray was found in."""
    if tray is None:
        return None
    calibrated = tray.frame_size
    if size == calibrated:
        return tray.region
    if abs(size[0] / size[1] - calibrated[0] / calibrated[1]) > SAME_VIEW_ASPECT * calibrated[0] / calibrated[1]:
        raise ConfigError(f"the camera gives {size[0]}x{size[1]} frames, not the {calibrated[0]}x{calibrated[1]} view "
                          f"the tray was found in: find the tray again (menu), or set [camera] width and height to "
                          f"{size[0]} and {size[1]} and calibrate again (dice-companion calibrate --write)")
    return _scaled(tray.region, size[0] / calibrated[0], size[1] / calibrated[1], size)


def _scaled(region: tuple[int, int, int, int], sx: float, sy: float, size: tuple[int, int]
            ) -> tuple[int, int, int, int]:
    """A region (x, y, w, h) scaled by sx and sy, its edges rounded, kept inside a frame of `size` and at least a
    pixel wide and high."""
    x, y, w, h = region
    x0, y0 = min(round(x * sx), size[0] - 1), min(round(y * sy), size[1] - 1)
    return x0, y0, max(1, min(round((x + w) * sx), size[0]) - x0), max(1, min(round((y + h) * sy), size[1]) - y0)


class VirtualTrayCamera:
    """The camera twin for interactive runs: an empty virtual tray until `throw()` renders a new random roll."""

    def __init__(self, game: str, seed: int = 0, size: tuple[int, int] = VIRTUAL_SIZE) -> None:
        self.game = game
        self.size = size
        self._seeds: Iterator[int] = itertools.count(seed * 100_003 + 1)
        self._queue: list[Any] = []
        from vision.virtual_tray import empty_tray

        self._still = empty_tray(seed, size=size, clean=True)

    def throw(self) -> None:
        from vision.models import D6, EXCAPE
        from vision.virtual_tray import roll_frames

        frames = roll_frames(next(self._seeds), D6 if self.game == "mex" else EXCAPE, size=self.size,
                             rolling=4, still=2, clean=True)
        self._queue.extend(frames)

    def read(self) -> Any:
        if self._queue:
            self._still = self._queue.pop(0)
        return self._still

    def close(self) -> None:
        self._queue.clear()


class HeldPhotos:
    """A folder of photos replayed as a camera would see them: each photo held still for a while, then the next. The
    first is the tray as the companion starts: dice in it are no throw it saw (vision.motion, `was_there`)."""

    def __init__(self, photos: Any, hold: int = PHOTO_HOLD_FRAMES) -> None:
        self.photos = photos
        self.hold = hold
        self._frame: Any = None
        self._left = 0

    def read(self) -> Any:
        if self._left == 0:
            frame = self.photos.read()
            if frame is None:
                return self._frame  # the last photo stays in view
            self._frame, self._left = frame, self.hold
        self._left -= 1
        return self._frame

    def close(self) -> None:
        self.photos.close()


def _keyboard_with_throw(camera: VirtualTrayCamera | None) -> Any:
    """Keyboard buttons; with the virtual tray, key `t` throws the dice."""
    from hardware.buttons import KeyboardButtons

    class ThrowingKeyboard(KeyboardButtons):
        def feed(self, data: bytes) -> None:
            if camera is not None and b"t" in data:
                camera.throw()
                data = data.replace(b"t", b"")
            super().feed(data)

    return ThrowingKeyboard()


def camera_choice(camera_args: list[str] | None, default: str) -> tuple[str, str | None]:
    """The camera kind and replay path an option `--camera KIND [PATH]` names (`default` without it)."""
    if not camera_args:
        return default, None
    if len(camera_args) > 2:
        raise ConfigError("--camera takes a kind and, for replay, one path")
    return camera_args[0], camera_args[1] if len(camera_args) == 2 else None


def build_camera(kind: str, replay_path: str | None, config: Config, game: str, twin: bool) -> Any:
    """The camera the companion reads: a live one (webcam, Pi camera) watched, said and opened again when it gives
    no picture mid-game (hardware.camera_watch); a replay or the virtual tray as it is."""
    from hardware import camera as cameras
    from hardware.camera_watch import WatchedCamera

    if kind == "virtual":
        return VirtualTrayCamera(game)
    if kind == "webcam":
        return WatchedCamera(lambda: cameras.WebcamCamera(config.camera.webcam_index, config.camera.width,
                                                          config.camera.height, config.camera.mains_hz))
    if kind == "replay":
        path = replay_path or config.camera.replay_path
        if not path:
            raise ConfigError("--camera replay needs a folder or video: --camera replay PATH")
        replay = cameras.ReplayCamera(path)
        return HeldPhotos(replay) if Path(path).is_dir() else replay
    if kind == "picamera2":
        return WatchedCamera(lambda: cameras.PiCamera(config.camera.width, config.camera.height,
                                                      config.camera.mains_hz))
    raise ConfigError(f"unknown camera {kind!r}; expected virtual, webcam, replay or picamera2")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dice-companion run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="the TOML config (default: /etc/dice-companion/config.toml if present)")
    parser.add_argument("--twin", action="store_true", help="use the software twins even on a Raspberry Pi")
    parser.add_argument("--script", metavar="FILE", help="play a recorded-game script on the twins, then exit")
    parser.add_argument("--json", action="store_true", help="with --script: print the final state as JSON")
    parser.add_argument("--camera", nargs="+", metavar=("KIND", "PATH"),
                        help="twin camera: virtual (default, key t throws), webcam, or replay PATH")
    parser.add_argument("--journal", metavar="DIR", help="journal directory (default: the config's; ./out/journal "
                                                         "for twins)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the controller decides")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    twin = args.twin or args.script is not None or not on_raspberry_pi()
    try:
        config = load_config(args.config)
    except ConfigError as error:
        if not twin:    # a misspelt key on the Pi: said on the OLED too, as its default settings drive it
            cannot_start(Config(), False, error)
        raise
    journal_dir = Path(args.journal) if args.journal else (TWIN_JOURNAL if twin else Path(config.journal.directory))
    if args.script:
        from companion.script import print_result, run_script

        result = run_script(Path(args.script), journal_dir=journal_dir, config=config)
        print_result(result, as_json=args.json)
        return 0
    if args.json:
        raise ConfigError("--json only goes with --script FILE")
    return run_interactive(config, journal_dir, twin, args.camera)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def build_display(config: Config, twin: bool) -> Any:
    """The table's screen: the OLED the config names, or its twin (the terminal, or none without one)."""
    from hardware.display import DummyDisplay, OledDisplay, TerminalDisplay

    if twin:
        return TerminalDisplay() if sys.stdout.isatty() else DummyDisplay(record=False)
    return OledDisplay(config.display.driver, config.display.i2c_port, config.display.i2c_address,
                       config.display.rotate)


def cannot_start(config: Config, twin: bool, error: DiceCompanionError, display: Any = None) -> None:
    """Why the companion cannot start, on the table's screen: at the table there is no other (the full message goes
    to the systemd journal too). On `display`, or on one opened from `config` for it (and closed again); held there
    on the Pi (CANNOT_START_SECONDS). A screen that cannot open or show it is logged, never raised over `error`."""
    from companion import screens

    opened_here = display is None
    try:
        display = build_display(config, twin) if opened_here else display
    except DiceCompanionError as err:
        log.error("no screen to show why the companion cannot start: %s", err)
        return
    view = screens.MessageView("Cannot start", (on_the_screen(str(error)),), footer="more: journalctl",
                               big_title=False)
    try:
        display.show(screens.render(view).image)
    except Exception as err:  # the error to report is the one that stopped the start, not the screen's
        log.error("showing why the companion cannot start failed: %s", err)
    if not twin:
        time.sleep(CANNOT_START_SECONDS)
    if opened_here:
        _close([display])


def on_the_screen(message: str) -> str:
    """An error message as the OLED shows it: long absolute paths as their file names (the journal keeps them
    whole)."""
    return _FOLDERS.sub("", message)


def run_interactive(config: Config, journal_dir: Path, twin: bool, camera_args: list[str] | None) -> int:
    from hardware.signals import GpioSignals, SignalTwin

    setup = setup_from_config(config)
    camera_kind, replay_path = camera_choice(camera_args, "virtual" if twin else config.camera.source)
    # The screen first: whatever else fails to start is then shown on it.
    display = build_display(config, twin)
    opened: list[Any] = [display]
    try:
        journal = Journal(journal_dir)
        camera = build_camera(camera_kind, replay_path, config, setup.game, twin)
        opened.append(camera)
        if twin:
            buttons = _keyboard_with_throw(camera if isinstance(camera, VirtualTrayCamera) else None)
            opened.append(buttons)
            signals: Any = SignalTwin()
            from hardware.buttons import KEY_HELP

            if getattr(buttons, "active", False):
                print(KEY_HELP + ("; t = throw the dice" if camera_kind == "virtual" else ""), file=sys.stderr)
            else:
                print("standard input is not a terminal: running without buttons (Ctrl-C or SIGTERM stops)",
                      file=sys.stderr)
        else:
            from hardware.buttons import GpioButtons

            buttons = GpioButtons({"stop": config.buttons.stop, "reroll": config.buttons.reroll,
                                   "select": config.buttons.select}, config.buttons.hold_seconds,
                                  config.buttons.bounce_seconds)
            opened.append(buttons)
            signals = GpioSignals(config.signals.buzzer_pin or None, config.signals.led_pin or None)
        opened.append(signals)
        controller = Controller(journal, setup, display=display, signals=signals,
                                watcher=TrayWatcher(config, saved_in=journal_dir))
    except DiceCompanionError as error:
        cannot_start(config, twin, error, display)
        _close(opened)
        raise
    # systemd stops the service with SIGTERM: leave through the same path as Ctrl-C, closing every device.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        controller.start()
        notify("READY=1")
        paced = twin and camera_kind in ("virtual", "replay")
        while True:
            started = time.monotonic()
            frame = camera.read()
            if frame is None:
                time.sleep(IDLE_SECONDS)
            else:
                controller.on_frame(frame)
            controller.on_camera(getattr(camera, "fault", None))    # a live camera's watch (build_camera)
            for event in buttons.drain():
                controller.on_button(event)
            if isinstance(camera, VirtualTrayCamera):
                camera.game = controller.game.setup.game  # the menu may have switched games
            controller.tick()
            notify("WATCHDOG=1")
            if paced:
                time.sleep(max(0.0, TWIN_FRAME_SECONDS - (time.monotonic() - started)))
    except KeyboardInterrupt:
        notify("STOPPING=1")
        print(f"\nthe game is saved in {journal.current_path}", file=sys.stderr)
        return 0
    finally:
        _close([buttons, camera, display, signals])


def _close(devices: list[Any]) -> None:
    """Close each device, whatever the others do."""
    for device in devices:
        try:
            device.close()
        except Exception as err:  # closing one device must not stop the others closing
            log.error("closing %s failed: %s", type(device).__name__, err)
