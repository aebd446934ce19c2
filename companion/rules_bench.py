"""`dice-companion bench rules`: how fast the rules core and the journal are, and what a long game costs.

The figures that matter at the table: applying one event (evaluate), appending it to the fsync'd journal
(record), and replaying a whole journal at start-up (resume after a power cut). Random legal games are driven
from `expects()` with a seeded generator here in the bench (the rules core itself has no randomness).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import tracemalloc

from companion.journal import Journal
from companion.rules import Game, GameSetup, Roll, format_event, format_setup, parse_line, parse_log
from companion.rules.values import EXCAPE_DIE_A, EXCAPE_DIE_B

SETUPS = {
    "mex": GameSetup("mex", ("Ann", "Bob", "Cid", "Dan"), {"lives": 1000}),
    "excape": GameSetup("excape", ("Ann", "Bob", "Cid", "Dan"), {"goal": 100000}),
    "rapido": GameSetup("rapido", ("Ann", "Bob"), {"goal": 100000}),
}


def random_game(setup: GameSetup, events: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(setup)
    while len(game) < events and not game.over:
        expected = game.expects()
        if expected.kind == "roll":
            if setup.game == "mex":
                event = Roll((str(rng.randint(1, 6)), str(rng.randint(1, 6))))
            else:
                event = Roll((rng.choice(EXCAPE_DIE_A), rng.choice(EXCAPE_DIE_B)))
        else:
            event = parse_line(rng.choice(sorted(expected.actions)))
        game = game.apply(event)
    return game


def measure(setup: GameSetup, events: int, seed: int) -> dict[str, float]:
    game = random_game(setup, events, seed)
    log = "\n".join([format_setup(setup), *(format_event(e) for e in game.events)]) + "\n"
    start = time.perf_counter()
    parsed_setup, parsed = parse_log(log)
    replayed = Game.replay(parsed_setup, parsed)
    replay_s = time.perf_counter() - start
    assert replayed.to_json() == game.to_json(), "replay must reproduce the game"
    tracemalloc.start()
    Game.replay(parsed_setup, parsed)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(folder)
        journal.start(format_setup(setup))
        lines = log.splitlines()[1:201]
        start = time.perf_counter()
        for line in lines:
            journal.append(line)
        journal_s = (time.perf_counter() - start) / len(lines)
    apply_s = replay_s / len(parsed)
    return {"events": len(parsed), "apply_us": apply_s * 1e6, "replay_ms": replay_s * 1e3,
            "journal_ms": journal_s * 1e3, "ratio": journal_s / apply_s, "memory_kb": peak / 1024}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dice-companion bench rules", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000, help="events per random game (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| game   | events | apply+parse µs/event | replay whole log ms | journal append ms/event (fsync) "
          "| journal / apply | replay memory kB |")
    print("|--------|--------|----------------------|---------------------|---------------------------------"
          "|-----------------|------------------|")
    for name, setup in SETUPS.items():
        f = measure(setup, args.events, args.seed)
        print(f"| {name:<6} | {f['events']:>6.0f} | {f['apply_us']:>20.1f} | {f['replay_ms']:>19.1f} "
              f"| {f['journal_ms']:>31.3f} | {f['ratio']:>14.0f}x | {f['memory_kb']:>16.0f} |")
    return 0
