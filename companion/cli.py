"""`dice-companion` command line: one subcommand per module, imported only when it runs.

Each subcommand module exposes `main(argv: list[str]) -> int` and builds its own argparse parser, so the
rules core, vision and the app stay independent and `dice-companion replay` never loads OpenCV.
"""

from __future__ import annotations

import importlib
import sys

from companion import __version__
from companion.errors import DiceCompanionError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("companion.demo", "play a whole game on the twins and record the OLED to a GIF"),
    "run": ("companion.app", "run the companion at the table (real devices on a Pi, twins elsewhere)"),
    "replay": ("companion.replay", "apply a table log and print the resulting game state"),
    "read": ("vision.cli", "read the dice in tray photos"),
    "teach": ("vision.teach", "learn a custom die from camera shots of each face"),
    "calibrate": ("companion.calibrate", "find the tray in the camera's view and write its region into the config"),
    "bench": ("companion.bench", "print speed, memory and accuracy figures"),
}


def _usage() -> str:
    lines = [f"usage: dice-companion COMMAND [options]   (version {__version__})", "", "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "`dice-companion COMMAND --help` shows a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if args[0] == "--version":
        print(__version__)
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"dice-companion: unknown command {name!r}; expected one of: {', '.join(COMMANDS)}",
              file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        return int(module.main(rest) or 0)
    except DiceCompanionError as err:
        print(f"dice-companion {name}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
