"""`dice-companion bench WHAT`: print speed, memory and accuracy figures of one part of the companion.

Each bench lives beside the code it measures and is imported only when asked for, so `bench vision` never
loads the rules and later benches never load OpenCV.
"""

from __future__ import annotations

import importlib
import sys

# what -> (module with main(argv) -> int, one-line help)
BENCHES: dict[str, tuple[str, str]] = {
    "vision": ("vision.bench", "reader accuracy on real photos and virtual trays, ms per frame, peak memory"),
    "rules": ("companion.rules_bench", "rules core and journal: µs per event, fsync cost, replay of a long game"),
    "render": ("vision.render_bench", "virtual tray: ms per rendered die and image"),
    "hardware": ("hardware.bench", "the device twins: camera read, display show, button press, GIF writing"),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: dice-companion bench WHAT [options]\n\nbenches:")
        for name, (_, help_) in BENCHES.items():
            print(f"  {name:<8} {help_}")
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in BENCHES:
        print(f"dice-companion bench: unknown bench {name!r}; expected one of: {', '.join(BENCHES)}",
              file=sys.stderr)
        return 2
    return int(importlib.import_module(BENCHES[name][0]).main(rest) or 0)
