"""`dice-companion demo`: a whole game on the twins with nobody at the keyboard, recorded to an animated GIF.

The virtual tray renders every throw (dice tumbling in, then at rest, all in the one tray of the demo's seed, drawn
as a camera sees it), the real motion tracker and reader see it, a simple deterministic player presses the twin
buttons, and the rules core referees, exactly as in `dice-companion run`. Every OLED frame goes into the GIF (shown
at a brisk pace: about twice real time, with each screen held long enough to read) and every event into the game's
table log.

The player: Mex keeps 54 or better (and any double), rerolls lower throws while it may, and ends the round
early on a double of 5 or 6; the tie-break chooser alternates pips and mex. Excape/Rapido places a pair worth
50 or more, or after three throws, on the space that ejects the most pairs (the highest such space), and
rerolls otherwise. One throw in twelve lands with a die cocked against the wall, so the GIF also shows the
companion asking for a re-roll and saying why. Every game uses its defaults (Mex 12 lives, Excape/Rapido goal 21);
`--lives` / `--goal` make a shorter game.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.config import Config
from companion.controller import Controller
from companion.errors import ConfigError
from companion.journal import Journal
from companion.rules import GameSetup
from companion.rules.excape import ExcapeState
from companion.rules.mex import MexState
from companion.rules.values import EXCAPE_DIE_A, EXCAPE_DIE_B, MEX_FACES, mex_value

PLAYER_NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")
DEFAULT_PLAYERS = {"mex": 3, "excape": 3, "rapido": 2}
FRAME_SECONDS = 0.1          # virtual time per camera frame
PRESS_SECONDS = 0.6          # virtual time a player takes to press a button
PICKUP_SECONDS = 1.0         # ... to pick the dice up before throwing
READ_SECONDS = 3.0           # ... to read a result message first
MAX_THROWS = 2000            # a safety net: no demo game needs nearly this many
ROLL_OPTIONS = {"rolling": 3, "still": 4}
DEMO_TRAY_SIZE = (320, 240)
COCKED_EVERY = 12            # one throw in this many lands with a die cocked against the wall


class VirtualClock:
    """Time in the demo: advanced by the frames and presses, so message timeouts behave as at a table."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class RecordingDisplay:
    """The display twin plus the virtual time each screen appeared (for the GIF's frame durations)."""

    def __init__(self, clock: VirtualClock) -> None:
        from hardware.display import DummyDisplay

        self.device = DummyDisplay(record=True)
        self.clock = clock
        self.times: list[float] = []

    @property
    def frames(self) -> list[Any]:
        return self.device.frames

    def show(self, image: Any) -> None:
        self.device.show(image)
        self.times.append(self.clock())

    def close(self) -> None:
        self.device.close()


@dataclass
class DemoResult:
    game: Any
    log_path: Path | None
    gif_path: Path | None
    throws: int
    refused: int
    misreads: int
    frames: int
    seconds: float


def gif_durations(times: list[float], end: float) -> list[int]:
    """Milliseconds per frame: half the virtual time, at least 80 ms, at most 2.5 s (a long wait is skipped)."""
    following = [*times[1:], end]
    return [round(min(2500, max(80, (after - before) * 500)) / 10) * 10
            for before, after in zip(times, following, strict=True)]


class Player:
    """The deterministic strategy that presses the buttons for whoever is to act."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.count_toggle = False

    def action(self) -> str:
        game = self.controller.game
        expected = game.expects()
        state = game.state
        if expected.kind == "count":
            self.count_toggle = not self.count_toggle
            return "count pips" if self.count_toggle else "count mex"
        if isinstance(state, MexState):
            assert state.current is not None
            value = mex_value(state.current)
            if value >= 500 and "end-round" in expected.actions:
                return "end-round"
            if value >= 54 or "reroll" not in expected.actions:
                return "stop"
            return "reroll"
        assert isinstance(state, ExcapeState)
        spaces = game.legal_spaces()
        value = state.current_value or 0
        if spaces and (value >= 50 or state.rolls >= 3):
            best = max(spaces, key=lambda space: (len(game.ejections_if_placed(space)), space))
            return f"place {best}"
        return "reroll"


def throw_faces(rng: random.Random, game: str) -> list[str]:
    if game == "mex":
        return [rng.choice(MEX_FACES), rng.choice(MEX_FACES)]
    faces = [rng.choice(EXCAPE_DIE_A), rng.choice(EXCAPE_DIE_B)]
    rng.shuffle(faces)
    return faces


def play_demo(game: str, players: int, *, seed: int = 1, options: dict[str, Any] | None = None,
              journal_dir: Path, gif: Path | None, config: Config | None = None) -> DemoResult:
    from companion.app import TrayWatcher
    from hardware.buttons import ButtonTwin
    from hardware.display import save_gif
    from hardware.signals import SignalTwin
    from vision.models import D6, EXCAPE
    from vision.virtual_tray import empty_tray, render_tray, roll_frames

    started = time.perf_counter()
    config = config or Config()
    setup = GameSetup(game, PLAYER_NAMES[:players], options or {})
    clock = VirtualClock()
    display = RecordingDisplay(clock)
    watcher = TrayWatcher(config)
    controller = Controller(Journal(journal_dir), setup, display=display, signals=SignalTwin(), watcher=watcher,
                            clock=clock)
    controller.start_new(setup)
    buttons = ButtonTwin(hold_seconds=config.buttons.hold_seconds, bounce_seconds=config.buttons.bounce_seconds)
    player = Player(controller)
    rng = random.Random(seed)
    model = D6 if game == "mex" else EXCAPE
    throws = refused = misreads = 0

    def feed(frame: Any) -> None:
        clock.now += FRAME_SECONDS
        controller.on_frame(frame)
        controller.tick()

    try:
        for _ in range(3):
            feed(empty_tray(seed, size=DEMO_TRAY_SIZE))
        while not controller.game.over and throws < MAX_THROWS:
            expected = controller.game.expects()
            if expected.kind == "roll":
                # The player reads the screen and picks the dice up: longer when a result is on show.
                clock.now += READ_SECONDS if controller.message is not None else PICKUP_SECONDS
                controller.tick()
                faces = throw_faces(rng, game)
                throws += 1
                before = len(controller.journal_lines)
                throw_seed = seed * 10_007 + throws
                if throws % COCKED_EVERY == COCKED_EVERY // 2:
                    # Now and then a die lands leaning on the wall: the companion must ask for a re-roll.
                    frames = roll_frames(throw_seed, model, faces=faces, size=DEMO_TRAY_SIZE,
                                         tray_seed=seed, rolling=ROLL_OPTIONS["rolling"], still=0)
                    cocked = render_tray(throw_seed, model, faces=faces, size=DEMO_TRAY_SIZE,
                                         tray_seed=seed, hazards=frozenset({"cocked"})).image
                    frames += [cocked] * ROLL_OPTIONS["still"]
                else:
                    frames = roll_frames(throw_seed, model, faces=faces, size=DEMO_TRAY_SIZE,
                                         tray_seed=seed, **ROLL_OPTIONS)
                for frame in frames:
                    feed(frame)
                taken = [line for line in controller.journal_lines[before:] if line.startswith("roll")]
                if not taken:
                    refused += 1
                elif sorted(taken[-1].split()[1:]) != sorted(faces):
                    misreads += 1
                continue
            for press in controller.buttons_for(player.action()):
                clock.now += PRESS_SECONDS
                if press.kind == "press":
                    buttons.press(press.button)
                else:
                    buttons.hold(press.button)
                for event in buttons.drain():
                    controller.on_button(event)
                controller.tick()
        # Let the last screen be read before the GIF loops.
        clock.now += 3.0
        controller.tick()
    finally:
        buttons.close()
    log_path = controller.journal.finish()
    gif_path = None
    if gif is not None:
        gif.parent.mkdir(parents=True, exist_ok=True)
        gif_path = save_gif(display.frames, gif, gif_durations(display.times, clock.now), scale=2)
    return DemoResult(controller.game, log_path, gif_path, throws, refused, misreads, len(display.frames),
                      time.perf_counter() - started)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dice-companion demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("mex", "excape", "rapido"), default="mex")
    parser.add_argument("--players", type=int, help="number of players (default: mex 3, excape 3, rapido 2)")
    parser.add_argument("--gif", default=None, help="the animated GIF to write (default: out/demo-GAME.gif); "
                                                    "'none' writes no GIF")
    parser.add_argument("--seed", type=int, default=1, help="the dice and the virtual tray follow this seed")
    parser.add_argument("--lives", type=int, help="Mex lives (default 12)")
    parser.add_argument("--goal", type=int, help="Excape/Rapido goal (default 21)")
    parser.add_argument("--journal", default="out/demo-journal", help="journal directory (default: %(default)s)")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    players = args.players or DEFAULT_PLAYERS[args.game]
    if not 2 <= players <= len(PLAYER_NAMES):
        raise ConfigError(f"--players {players}: the demo seats 2 to {len(PLAYER_NAMES)} players")
    options: dict[str, Any] = {}
    if args.lives:
        if args.game != "mex":
            raise ConfigError("--lives is a Mex option; Excape and Rapido play to a goal (--goal)")
        options["lives"] = args.lives
    if args.goal:
        if args.game == "mex":
            raise ConfigError("--goal is an Excape/Rapido option; Mex plays with lives (--lives)")
        options["goal"] = args.goal
    # No --gif: the default file; `--gif none`: no GIF at all.
    if args.gif is None:
        gif: Path | None = Path(f"out/demo-{args.game}.gif")
    else:
        gif = None if args.gif.lower() == "none" else Path(args.gif)
    result = play_demo(args.game, players, seed=args.seed, options=options, journal_dir=Path(args.journal), gif=gif)
    game = result.game
    outcome = f"{game.winner} wins" if game.over else "no winner (stopped by the safety limit)"
    print(f"{args.game}: {outcome} after {result.throws} throws ({result.refused} refused by the camera, "
          f"{result.misreads} misread) in {result.seconds:.1f} s")
    if result.gif_path:
        print(f"OLED frames ({result.frames}): {result.gif_path}")
    print(f"table log: {result.log_path}")
    sys.stdout.flush()
    return 0
