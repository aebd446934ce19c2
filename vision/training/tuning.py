"""Tuning sets for the reader's rules: read one, keep what every die was read as, and compare two such records.

How a rule or a bar of the reader (vision/read.py and the modules it calls) is chosen: read the tuning sets with the
code before and after, compare die by die, and look at every die read otherwise, above all any die newly read sure
and wrong. Never the benchmark's data (vision.bench: the test split's photos, virtual seeds 1,000,000-1,999,999):
the figures that count are on data the rules were not chosen on.

Sets (a die is found when a reading's box overlaps its label by IoU >= 0.3, as in the benchmark):
- "held-out-photos": every 5th photo of the real train split (photos.held_out_groups); "other-photos": the rest
  (the nets were trained on those: a check, not a figure);
- "d6", "excape": virtual trays of that model, seeds from TUNING_SEED_START (`--look` sets the renderer's look,
  e.g. '{"die_colour": "marbled"}'; `--dice N`: N dice a tray, read expecting N, as the table reads a throw: the
  companion's games throw 2);
- "cocked", "stacked", "cut", "blurred", "hand": virtual trays with that hazard, d6 and Excape in turn, seeds from
  HAZARD_SEED_START + 1,000 per hazard, read expecting the dice thrown as the table does;
- THROW_SETS, e.g. "black-pairs-on-felt": throws of a look the reader once misread (two black d6 on dark felt, as at
  a Mex table), read expecting the dice thrown. `--runs N` reads throws as the table does: in runs of N throws of
  one set of dice, each read with the side the run's throws before showed (vision.dice_sides).

    .venv/bin/python -m vision.training.tuning read d6 --first 2000250 --trays 1000 --save /tmp/before.pkl
    (change the code)
    .venv/bin/python -m vision.training.tuning read d6 --first 2000250 --trays 1000 --save /tmp/after.pkl
    .venv/bin/python -m vision.training.tuning compare /tmp/before.pkl /tmp/after.pkl
    .venv/bin/python -m vision.training.tuning battery /tmp/before [--only d6,excape]   # every set a rule is judged on
    .venv/bin/python -m vision.training.tuning battery /tmp/fresh --shift 10000000 --quick /tmp/student.onnx
                          # the same kinds from seeds no rule was chosen on: a new net is judged there too
    .venv/bin/python -m vision.training.tuning compare /tmp/before /tmp/after           # two battery folders
                          # (a change meant to read every frame the same: compare's last line, if any, counts the
                          # trays whose whole readings differ, confidences and boxes too)
    .venv/bin/python -m vision.training.tuning census /tmp/census --first 9000000 [--throws 3000] --show-wrong
                          # throws of two dice of each kind (CENSUS) from fresh seeds, read as the table reads
                          # them: how many were accepted with a face not thrown (compare two census folders too)
    .venv/bin/python -m vision.training.tuning show stacked 3920214 --first 3920000 --out /tmp/tray.png
                                          # one tray: drawn (labels green, dice read red/orange), said die by die
    .venv/bin/python -m vision.training.tuning speed --quick /tmp/student.onnx    # a candidate net's time, as a
                          # ratio to the committed nets' on the same frames, read in turns in one process
"""

from __future__ import annotations

import argparse
import collections
import json
import pickle
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.bench import (
    BENCH_SEED_START,
    BLACK_ON_FELT,
    SPEED_DICE,
    SPEED_FRAMES_EACH,
    faces_are,
    match_reading,
    run_die_size,
)
from vision.models import D6, EXCAPE, DieModel

TUNING_SEED_START = 2_000_000        # virtual tuning trays: above every seed the benchmark reads
HAZARD_SEED_START = 3_000_000        # hazard tuning trays: + 1,000 per hazard, in HAZARDS order
HAZARDS = ("cocked", "stacked", "cut", "blurred", "hand")
PHOTO_SETS = ("held-out-photos", "other-photos")
# Throws of a look the reader once misread, as the table reads them (expecting the dice thrown): name -> model, first
# seed, dice a throw, look. Black dice on dark felt: the locator may box one pip of a 2, a Mexx nobody threw.
THROW_SETS: dict[str, tuple[DieModel, int, int, dict]] = {
    "black-pairs-on-felt": (D6, 3_200_000, 2, BLACK_ON_FELT),
}
SETS = (*PHOTO_SETS, "d6", "excape", *HAZARDS, *THROW_SETS)
# The sets a rule is judged on, read in one go (`battery DIR`; `compare OLD_DIR NEW_DIR`): name in the folder -> set
# and read_set's options. The ranges the reader's rules were chosen on; judge a rule on a range nobody has read too
# (vision/training/README.md keeps count of the ranges read).
BATTERY: dict[str, tuple[str, dict]] = {
    "held-out-photos": ("held-out-photos", {}),
    "other-photos": ("other-photos", {}),
    "d6": ("d6", {"first": TUNING_SEED_START + 250, "trays": 1000}),
    "excape": ("excape", {"first": TUNING_SEED_START + 250, "trays": 1000}),
    "marbled-d6": ("d6", {"first": TUNING_SEED_START + 5_000, "trays": 300, "look": {"die_colour": "marbled"}}),
    "marbled-excape": ("excape", {"first": TUNING_SEED_START + 5_300, "trays": 300,
                                  "look": {"die_colour": "marbled"}}),
    **{hazard: (hazard, {"trays": 200}) for hazard in HAZARDS},
    "black-pairs-on-felt": ("black-pairs-on-felt", {"trays": 800}),
    "d6-throws": ("d6", {"first": 3_220_000, "trays": 1000, "dice": 2}),
    "excape-throws": ("excape", {"first": 3_230_000, "trays": 1000, "dice": 2}),
    # Two dice that come to rest against each other (the renderer's touching look, session 35).
    "touching-throws": ("d6", {"first": 4_843_000, "trays": 1000, "dice": 2, "look": {"touching": True}}),
}


# A census of silent misreads (`census FOLDER --first N`): throws of two dice of each kind read as the table reads
# them, each kind from its own fresh seeds (CENSUS_SPACING apart from --first on), and how many were accepted with a
# face not thrown. The battery holds ~1,000 throws a kind, where the bars were set; misreads left are a few in
# several thousand fresh throws (session 54: 3,000 of each kind, seeds 9,000,000+), marbled dice first. The last kind,
# d6 marbled with gold pips (as many players' dice are), came in session 55: 8 of 3,000 and 11 of 2,000 throws
# (9,620,000+, 9,700,000+) accepted with a face not thrown, more than any other kind but the gold-pip Excape dice.
CENSUS: dict[str, tuple[str, dict]] = {
    "d6-throws": ("d6", {"dice": 2}),
    "excape-throws": ("excape", {"dice": 2}),
    "black-pairs-on-felt": ("black-pairs-on-felt", {}),
    "marbled-d6-throws": ("d6", {"dice": 2, "look": {"die_colour": "marbled"}}),
    "marbled-excape-throws": ("excape", {"dice": 2, "look": {"die_colour": "marbled"}}),
    "gold-pip-excape-throws": ("excape", {"dice": 2, "look": {"die_colour": "marbled", "pip_colour": "gold"}}),
    "gold-pip-d6-throws": ("d6", {"dice": 2, "look": {"die_colour": "marbled", "pip_colour": "gold"}}),
}
CENSUS_SPACING = 10_000


@dataclass(frozen=True)
class DieRecord:
    """One die of a tuning set and what the reader made of it (face, sure, reason: None when not found)."""

    label: str
    hazard: bool
    face: str | None
    sure: bool | None
    reason: str | None

    @property
    def right(self) -> bool:
        return bool(self.sure) and self.face == self.label

    @property
    def wrong(self) -> bool:
        return bool(self.sure) and self.face != self.label


@dataclass
class SetRecord:
    """A tuning set as read: every die by (tray, die index), every tray's status."""

    name: str
    dice: dict[tuple[str, int], DieRecord] = field(default_factory=dict)
    accepted: dict[str, bool] = field(default_factory=dict)
    false_dice: int = 0                 # sure dice where there is no die
    # Trays accepted whose faces, all told, are not the dice's: a die read wrong, or one whose box matched no label
    # (its die then "not found", the die read "sure on no die"), which no die's record shows as wrong.
    faces_wrong: set[str] = field(default_factory=set)
    # Each tray's whole reading (its repr: status, reason, every die's face, confidence, box and side): a change meant
    # to read every frame the same (a faster step) is judged on these, bit for bit (compare). Empty in records saved
    # before session 41.
    readings: dict[str, str] = field(default_factory=dict)


def check_tuning_seeds(first: int, trays: int) -> None:
    """Refuse (SystemExit, with the reason) virtual trays that would reach the benchmark's seeds."""
    if first < BENCH_SEED_START * 2 and first + trays > BENCH_SEED_START:
        raise SystemExit(f"tuning trays must not use the benchmark's seeds {BENCH_SEED_START:,}-"
                         f"{2 * BENCH_SEED_START - 1:,}: {trays} trays from seed {first:,}")


def set_frames(name: str, first: int | None, trays: int, look: dict, dice: int | None = None, runs: int = 0
            ) -> Iterator[tuple[str, np.ndarray, list, DieModel, bool]]:
    """(tray id, image, [(label, box, hazard)], model, read expecting the dice thrown) for each tray of a set; `dice`:
    that many dice a virtual tray (d6 and excape sets), read expecting them; `runs`: the trays in runs of that many,
    each run's dice of one size (vision.bench.run_die_size)."""
    if name in PHOTO_SETS:
        for tray, photo in photo_set(name):
            yield tray, photo.load(), [(d.label, d.box, False) for d in photo.dice], D6, False
        return
    start = first if first is not None else _default_start(name)
    check_tuning_seeds(start, trays)
    for seed in range(start, start + trays):
        sized = {**look, "die_size": run_die_size(seed - (seed - start) % runs)} if runs else look
        yield _virtual_frame(name, seed, start, sized, dice)


def photo_set(name: str) -> Iterator:
    """(file name, photo) of a photo set: the train split's held-out photos, or the others."""
    from vision.training.photos import held_out_groups, load_split

    photos = load_split("train")
    for photo, held_out in zip(photos, held_out_groups(np.arange(len(photos))), strict=True):
        if held_out == (name == "held-out-photos"):
            yield photo.path.name, photo


def renderer_look(look: dict | None) -> dict:
    """A look given as JSON, for the renderer: its lists (colours, size ranges) as tuples."""
    return {key: tuple(value) if isinstance(value, list) else value for key, value in (look or {}).items()}


def _default_start(name: str) -> int:
    if name in THROW_SETS:
        return THROW_SETS[name][1]
    if name in HAZARDS:
        return HAZARD_SEED_START + 1_000 * HAZARDS.index(name)
    return TUNING_SEED_START


def _virtual_frame(name: str, seed: int, start: int, look: dict, dice: int | None = None
                   ) -> tuple[str, np.ndarray, list, DieModel, bool]:
    """One virtual tray of a set, as set_frames yields it: a hazard set's trays alternate d6 and Excape from its
    `start`."""
    from vision.virtual_tray import render_tray

    hazard = name in HAZARDS
    if name in THROW_SETS:
        model, _, dice, preset = THROW_SETS[name]
        look = {**preset, **look}
    elif hazard:
        model = D6 if (seed - start) % 2 == 0 else EXCAPE
    else:
        model = D6 if name == "d6" else EXCAPE
    rendered = render_tray(seed, model, n_dice=dice, hazards=frozenset({name}) if hazard else frozenset(), **look)
    return (str(seed), rendered.image, [(d.label, d.box, bool(d.hazards)) for d in rendered.dice], model,
            hazard or dice is not None)


def read_set(name: str, trays: int = 250, first: int | None = None, look: dict | None = None,
             dice: int | None = None, runs: int = 0) -> SetRecord:
    """Read a tuning set with the reader as it is now (`dice`: that many dice a virtual d6 or Excape tray, read
    expecting them; `runs`: throws read as a table reads them, in runs of that many throws of one set of dice, each
    read with the side the run's throws before showed, vision.dice_sides)."""
    from vision.dice_sides import DiceSides
    from vision.read import read_tray

    if name not in SETS:
        raise SystemExit(f"unknown tuning set {name!r}; expected one of: {', '.join(SETS)}")
    if dice is not None and (name not in ("d6", "excape") or dice < 1):
        raise SystemExit(f"dice a tray (--dice) are for the d6 and excape sets, and at least 1: got {dice} for "
                         f"set {name!r}")
    if runs < 0 or (runs and not (name in THROW_SETS or dice is not None)):
        raise SystemExit(f"runs of throws (--runs) are for throws read expecting their dice (a throw set, or --dice) "
                         f"and at least 1: got {runs} for set {name!r}")
    record = SetRecord(name)
    look = renderer_look(look)
    sides = DiceSides()
    for k, (tray, image, truth, model, expect) in enumerate(set_frames(name, first, trays, look, dice, runs)):
        if runs and k % runs == 0:
            sides.forget()                  # another set of dice
        reading = read_tray(image, model, expect=len(truth) if expect else None, die_side=sides.side)
        if runs:
            sides.remember(reading)
        record.accepted[tray] = reading.status == "ok"
        record.readings[tray] = repr(reading)
        if reading.status == "ok" and not faces_are(reading, [label for label, _, _ in truth]):
            record.faces_wrong.add(tray)
        found, elsewhere = match_reading(reading, [box for _, box, _ in truth])
        record.false_dice += sum(d.sure for d in elsewhere)
        for j, (label, _, hazard) in enumerate(truth):
            die = found.get(j)
            record.dice[(tray, j)] = DieRecord(label, hazard, die and die.face, die and die.sure, die and die.reason)
    return record


def show_tray(name: str, tray: str, out: Path, first: int | None = None, look: dict | None = None,
              dice: int | None = None, zoom: int = 2) -> list[str]:
    """Read one tray of a set as `read` does, draw it to `out` (PNG, `zoom` times the frame's size: each labelled
    die's box green, each die read red when sure, orange when not, with its face), and say what each labelled die
    was read as. A hazard set's tray is
    d6 or Excape by its place from the set's first seed (`first`, by default the set's own), as `read` reads it."""
    import cv2

    from vision.read import read_tray

    if name not in SETS:
        raise SystemExit(f"unknown tuning set {name!r}; expected one of: {', '.join(SETS)}")
    if zoom < 1:
        raise SystemExit(f"--zoom must be at least 1, got {zoom}")
    look = renderer_look(look)
    if name in PHOTO_SETS:
        photo = dict(photo_set(name)).get(tray)
        if photo is None:
            raise SystemExit(f"no photo {tray!r} in set {name!r}")
        frame = (tray, photo.load(), [(d.label, d.box, False) for d in photo.dice], D6, False)
    else:
        try:
            seed = int(tray)
        except ValueError as error:
            raise SystemExit(f"a virtual tray is a seed (a whole number), got {tray!r}") from error
        start = first if first is not None else _default_start(name)
        if seed < start:
            raise SystemExit(f"tray {seed:,} is before the set's first seed {start:,} (--first)")
        check_tuning_seeds(seed, 1)
        frame = _virtual_frame(name, seed, start, look, dice)
    _, image, truth, model, expect = frame
    reading = read_tray(image, model, expect=len(truth) if expect else None)
    found, elsewhere = match_reading(reading, [box for _, box, _ in truth])
    drawn = cv2.resize(image, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_NEAREST)
    for _, (x, y, w, h), _ in truth:
        cv2.rectangle(drawn, (zoom * x - 1, zoom * y - 1), (zoom * (x + w), zoom * (y + h)), (0, 200, 0), 1)
    for die in reading.dice:
        x, y, w, h = (zoom * v for v in die.box)
        colour = (0, 0, 255) if die.sure else (0, 165, 255)
        cv2.rectangle(drawn, (x, y), (x + w - 1, y + h - 1), colour, 1)
        cv2.putText(drawn, die.face, (x, max(y - 4, 12)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    if not cv2.imwrite(str(out), drawn):
        raise SystemExit(f"cannot write {out} (a .png path in a folder that exists)")
    lines = [f"tray {tray} ({model.name}): {reading.status}" + (f", {reading.reason}" if reading.reason else "")]
    for j, (label, box, hazard) in enumerate(truth):
        die = found.get(j)
        said = "not found" if die is None else die.face if die.sure else f"unsure ({die.reason})"
        lines.append(f"  die {j} ({label}{', hazard' if hazard else ''}) at {list(box)}: {said}"
                     + ("" if die is None else f" at {list(die.box)}, p {die.confidence:.3f}"))
    lines += [f"  read where no die is labelled: {d.face} ({'sure' if d.sure else d.reason}) at {list(d.box)}, "
              f"p {d.confidence:.3f}" for d in elsewhere]
    return lines


def summary(record: SetRecord) -> str:
    """One line: dice, found, read right and wrong, why the others were not read right, trays accepted."""
    dice = list(record.dice.values())
    n = max(len(dice), 1)
    why = collections.Counter("not found" if d.face is None else d.reason for d in dice
                              if not d.right and not d.wrong)
    hazard = [d for d in dice if d.hazard]
    line = (f"{record.name}: {len(dice)} dice, found {sum(d.face is not None for d in dice) / n:.2%}, "
            f"right {sum(d.right for d in dice) / n:.2%} ({sum(d.right for d in dice)}), "
            f"wrong {sum(d.wrong for d in dice)}, sure on no die {record.false_dice}; "
            f"not read right: {dict(why.most_common())}; trays accepted {sum(record.accepted.values())} "
            f"of {len(record.accepted)}, {_accepted_wrong(record)} of them with a die read wrong")
    hidden = _wrong_by_faces_alone(record)
    if hidden:
        line += f" ({len(hidden)} by their faces alone: a die missed, or read where it matched no label)"
    if hazard:
        line += (f"; hazard dice {len(hazard)}: read sure {sum(bool(d.sure) for d in hazard)}, "
                 f"not found {sum(d.face is None for d in hazard)}")
    return line


def _accepted_wrong(record: SetRecord) -> int:
    """Trays accepted with a die read sure and wrong, or with faces that are not the dice's (SetRecord.faces_wrong;
    records saved before session 28 have none): a throw the game would count as another."""
    return len({tray for (tray, _), die in record.dice.items() if die.wrong and record.accepted[tray]}
               | _faces_wrong(record))


def _faces_wrong(record: SetRecord) -> set[str]:
    return getattr(record, "faces_wrong", set())


def _wrong_by_faces_alone(record: SetRecord) -> set[str]:
    """The trays accepted with faces not the dice's where no die's record is wrong: a die missed, or read where it
    matched no label."""
    return _faces_wrong(record) - {tray for (tray, _), die in record.dice.items() if die.wrong}


def wrong_dice(record: SetRecord) -> list[str]:
    """A line for each die read sure and wrong, saying whether its tray was accepted (a throw the game would count
    as another: ACCEPTED), then one for each tray accepted with faces not the dice's where no die's record is wrong
    (a die missed, or read where it matched no label): the trays to look at first (`show`)."""
    lines = [f"tray {tray} die {j} ({die.label}): read as a sure {die.face}, the tray "
             f"{'ACCEPTED' if record.accepted[tray] else 'refused'}"
             for (tray, j), die in record.dice.items() if die.wrong]
    return lines + [f"tray {tray}: ACCEPTED with faces not the dice's (a die missed, or read where it matched no "
                    "label)" for tray in sorted(_wrong_by_faces_alone(record))]


def compare(old: SetRecord, new: SetRecord) -> list[str]:
    """Every die read otherwise (face or sure), and every tray accepted otherwise, old -> new; NEW WRONG marks a die
    read sure and wrong now that was not before, HAZARD a die with the set's hazard; then how many trays' whole
    readings differ at all (none, for a change that reads every frame the same)."""
    if old.dice.keys() != new.dice.keys():
        raise SystemExit(f"the records are not of the same dice ({old.name}: {len(old.dice)}, "
                         f"{new.name}: {len(new.dice)})")
    lines = []
    for key, was in old.dice.items():
        now = new.dice[key]
        if (was.face, was.sure) != (now.face, now.sure):
            marks = " NEW WRONG" if now.wrong and not was.wrong else ""
            marks += " HAZARD" if was.hazard else ""
            lines.append(f"tray {key[0]} die {key[1]} ({was.label}): {_said(was)} -> {_said(now)}{marks}")
    lines += [f"tray {tray}: accepted {ok} -> {new.accepted[tray]}" for tray, ok in old.accepted.items()
              if new.accepted[tray] != ok]
    was_wrong, now_wrong = _faces_wrong(old), _faces_wrong(new)
    lines += [f"tray {tray}: accepted with faces not the dice's {tray in was_wrong} -> {tray in now_wrong}"
              + (" NEW WRONG" if tray in now_wrong else "") for tray in sorted(was_wrong ^ now_wrong)]
    # Readings are kept whole since session 41; a record saved before has none to compare.
    was_read, now_read = getattr(old, "readings", {}), getattr(new, "readings", {})
    both = [tray for tray in was_read if tray in now_read]
    otherwise = [tray for tray in both if was_read[tray] != now_read[tray]]
    if otherwise:
        lines.append(f"{len(otherwise)} of {len(both)} trays read otherwise in their whole readings (a confidence, a "
                     f"box or a side, if no line above names them): {', '.join(otherwise[:5])}"
                     + (", ..." if len(otherwise) > 5 else ""))
    return lines


# Candidate nets a set can be read with instead of the committed ones (`--faces PATH` etc.): option -> the module
# and the name of its weights path, and the functions whose caches hold the loaded net (the cross-check net is held
# by the shared classifier too, which reads marbled-looking dice with it).
NET_OPTIONS = {
    "faces": ("vision.recognise", "WEIGHTS", ("face_net",)),
    "quick": ("vision.recognise", "QUICK_WEIGHTS", ("face_net",)),
    "faces_second": ("vision.recognise", "SECOND_WEIGHTS", ("face_net",)),
    "cross_check": ("vision.recognise", "CROSS_CHECK_WEIGHTS", ("cross_check_net", "face_net")),
    "flat": ("vision.flat", "WEIGHTS", ("flat_net",)),
    "flat_first": ("vision.flat", "FIRST_LOOK_WEIGHTS", ("first_look_net",)),
    "flat_taught": ("vision.flat", "TAUGHT_WEIGHTS", ("taught_flat_net",)),
    "locator": ("vision.locate", "WEIGHTS", ("locator",)),
    "second_locator": ("vision.locate", "SECOND_WEIGHTS", ("second_locator",)),
}


def use_nets(**paths: Path | None) -> None:
    """Read with these weights files instead of the committed ones (NET_OPTIONS; None: the committed one), loaded
    unchecked (vision.nets checks only the committed files): to judge a net just trained before committing it."""
    import importlib

    for option, path in paths.items():
        if path is None:
            continue
        _check_weights_file(option, path)
        module_name, attribute, loaders = NET_OPTIONS[option]
        module = importlib.import_module(module_name)
        setattr(module, attribute, Path(path).resolve())
        for loader in loaders:
            getattr(module, loader).cache_clear()


def _check_weights_file(option: str, path: Path) -> None:
    """SystemExit, with the reason, unless `option` names a net (NET_OPTIONS) and `path` is a file."""
    if option not in NET_OPTIONS:
        raise SystemExit(f"no net {option!r}; expected one of: {', '.join(NET_OPTIONS)}")
    if not Path(path).is_file():
        raise SystemExit(f"--{option.replace('_', '-')}: no such weights file: {path}")


# `speed`'s frames: as the benchmark's speed frames (SPEED_FRAMES_EACH 640x480 d6 trays of each of SPEED_DICE dice),
# from tuning seeds, not the benchmark's own.
SPEED_SEED_START = 8_720_000


def speed_frames(each: int = SPEED_FRAMES_EACH) -> tuple[list[np.ndarray], list[int]]:
    """`speed`'s frames, and the dice thrown in each."""
    from vision.virtual_tray import render_tray

    thrown = [n for n in SPEED_DICE for _ in range(each)]
    frames = [render_tray(SPEED_SEED_START + k + 10 * j, D6, size=(640, 480), n_dice=n).image
              for k, n in enumerate(SPEED_DICE) for j in range(each)]
    return frames, thrown


def speed_ratio(candidates: dict[str, Path], rounds: int = 3, each: int = SPEED_FRAMES_EACH,
                counted: bool = False) -> list[str]:
    """The speed frames read with the committed nets and with `candidates` (NET_OPTIONS -> weights file) in their
    place, in turns, `rounds` times over in one process (a busy machine slows both alike), each frame read twice a
    round: for each, the median over frames of each frame's fastest read, each net's CPU ms and inputs a frame, then
    the candidates' time as a ratio to the committed nets' (the median of the frames' ratios, and of the medians), on
    one core as the benchmark reads.
    counted: read as the table reads a throw, the dice thrown known. A candidate runs whole, on the engine OpenCV
    picks (vision.nets splits committed nets only): with DICE_COMPANION_NETS=whole the committed ones do too."""
    import importlib
    import time

    import cv2

    from vision.nets import tallied
    from vision.read import read_tray

    if not candidates:
        raise SystemExit("speed: give at least one candidate net (e.g. --quick FILE) to compare with the committed "
                         "nets")
    for option, path in candidates.items():
        _check_weights_file(option, path)       # before the frames are rendered, not after
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)        # one core, as the benchmark times the reader
    frames, thrown = speed_frames(each)
    committed = {option: getattr(importlib.import_module(NET_OPTIONS[option][0]), NET_OPTIONS[option][1])
                 for option in candidates}
    variants = {"committed": committed, "candidate": candidates}
    fastest = {name: np.full(len(frames), np.inf) for name in variants}
    spent: dict[str, dict[str, list[float]]] = {name: {} for name in variants}
    try:
        for _ in range(rounds):
            for name, paths in variants.items():
                use_nets(**paths)
                read_tray(frames[0], D6)        # the nets loaded (and checked) before the clock runs
                with tallied() as nets:
                    for k, frame in enumerate(frames):
                        for _ in range(2):
                            start = time.process_time()
                            read_tray(frame, D6, expect=thrown[k] if counted else None)
                            fastest[name][k] = min(fastest[name][k], time.process_time() - start)
                for net, tally in nets.items():
                    total = spent[name].setdefault(net, [0.0, 0.0])
                    total[0] += tally.seconds
                    total[1] += tally.inputs
    finally:
        use_nets(**committed)
        cv2.setNumThreads(threads)
    reads = rounds * 2 * len(frames)
    lines = []
    for name in variants:
        nets_said = ", ".join(f"{net} {1000 * seconds / reads:.2f} ({inputs / reads:.2f})"
                              for net, (seconds, inputs) in sorted(spent[name].items()))
        lines.append(f"{name}: {1000 * np.median(fastest[name]):.2f} ms a frame (median of each frame's fastest "
                     f"read; mean {1000 * fastest[name].mean():.2f}); CPU ms a frame by net (inputs): {nets_said}")
    ratios = fastest["candidate"] / fastest["committed"]
    lines.append(f"candidate / committed: {np.median(ratios):.3f} (median of the {len(frames)} frames' ratios), "
                 f"{np.median(fastest['candidate']) / np.median(fastest['committed']):.3f} (ratio of the medians)")
    return lines


def read_battery(folder: Path, only: list[str] | None = None, shift: int = 0, show_wrong: bool = False) -> None:
    """Read the BATTERY's sets (or `only` those), each saved to FOLDER/NAME.pkl, printing each one's summary (and,
    with `show_wrong`, its wrong_dice under it).

    shift: every virtual set's first seed that much further on, the same kinds of trays from seeds no rule was chosen
    on (the photo sets are read as they are). The battery's own ranges are where the reader's bars were set on the
    committed nets' answers: a net whose answers sit a few hundredths otherwise crosses those bars there first, so a
    new net is judged on shifted ranges too (session 51: a student let one of the battery's felt throws through wrong,
    and read 2,000 fresh felt throws as the committed nets do)."""
    unknown = sorted(set(only or ()) - set(BATTERY))
    if unknown:
        raise SystemExit(f"not in the battery: {', '.join(unknown)}; it holds: {', '.join(BATTERY)}")
    if shift < 0:
        raise SystemExit(f"--shift must be 0 or more, got {shift}")
    folder.mkdir(parents=True, exist_ok=True)
    for name in only or BATTERY:
        which, options = BATTERY[name]
        if shift and which not in PHOTO_SETS:
            options = {**options, "first": (options.get("first") or _default_start(which)) + shift}
        _read_and_kept(folder, name, which, options, show_wrong)


def _read_and_kept(folder: Path, name: str, which: str, options: dict, show_wrong: bool) -> SetRecord:
    """One set of a battery or a census read (read_set), saved to FOLDER/NAME.pkl, its summary printed under its
    name (and, with `show_wrong`, its wrong_dice under it)."""
    record = read_set(which, **options)
    (folder / f"{name}.pkl").write_bytes(pickle.dumps(record))
    print(f"{name}: {summary(record)}", flush=True)
    for line in wrong_dice(record) if show_wrong else []:
        print(f"  {line}", flush=True)
    return record


def read_census(folder: Path, first: int, throws: int, only: list[str] | None = None, show_wrong: bool = False
                ) -> list[str]:
    """Read CENSUS's kinds (or `only` those), `throws` throws each, the k-th kind from seed first + k *
    CENSUS_SPACING, each saved to FOLDER/NAME.pkl with its summary printed (and its wrong_dice, with `show_wrong`);
    return a line a kind: throws accepted with a face not thrown, and dice read right."""
    unknown = sorted(set(only or ()) - set(CENSUS))
    if unknown:
        raise SystemExit(f"not in the census: {', '.join(unknown)}; it reads: {', '.join(CENSUS)}")
    if not 1 <= throws <= CENSUS_SPACING:
        raise SystemExit(f"--throws must be 1 to {CENSUS_SPACING:,} (each kind's seeds start that far apart), got "
                         f"{throws}")
    # Each kind to be read keeps its place in CENSUS (its seeds from first + k * CENSUS_SPACING), read or not; the
    # seeds of every kind to be read are checked before the first is read, and only theirs: with --only, a kind left
    # out may lie where the benchmark's seeds are.
    kinds = [(k, name) for k, name in enumerate(CENSUS) if not only or name in only]
    for k, _ in kinds:
        check_tuning_seeds(first + k * CENSUS_SPACING, throws)
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for k, name in kinds:
        which, options = CENSUS[name]
        start = first + k * CENSUS_SPACING
        record = _read_and_kept(folder, name, which, {**options, "trays": throws, "first": start}, show_wrong)
        dice = record.dice.values()
        lines.append(f"{name} ({start:,}+): {_accepted_wrong(record)} of {len(record.accepted)} throws accepted with "
                     f"a face not thrown; {sum(d.right for d in dice)} of {len(dice)} dice read right")
    return lines


def compare_folders(old: Path, new: Path) -> list[str]:
    """compare() for every record two battery folders both hold (by file name), each set's lines under its name;
    a set the new folder lacks is said to be missing."""
    lines = []
    for path in sorted(old.glob("*.pkl")):
        other = new / path.name
        if not other.exists():
            lines.append(f"== {path.stem}: not in {new}")
            continue
        was, now = (pickle.loads(p.read_bytes()) for p in (path, other))
        changes = compare(was, now)
        lines.append(f"== {path.stem}: {len(changes)} change{'s' * (len(changes) != 1)}; now {summary(now)}")
        lines += changes
    return lines


def _said(die: DieRecord) -> str:
    if die.face is None:
        return "not found"
    return die.face if die.sure else f"unsure ({die.reason})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    read = commands.add_parser("read", help="read a tuning set, print its summary, save what each die was read as")
    read.add_argument("set", choices=SETS)
    read.add_argument("--trays", type=int, default=250, help="virtual trays (photo sets: every photo of theirs)")
    read.add_argument("--first", type=int, help="first seed (default: the set's own)")
    read.add_argument("--look", type=json.loads, default={}, help="renderer look, JSON (vision.virtual_tray.Look)")
    read.add_argument("--dice", type=int, help="dice a virtual d6 or excape tray, read expecting them (a throw at "
                      "the table: 2)")
    read.add_argument("--runs", type=int, default=0, help="throws in runs of this many of one set of dice, each read "
                      "with the side the run's throws before showed, as the table reads them (a throw set, or --dice)")
    read.add_argument("--save", type=Path, help="where to keep the record, for compare")
    read.add_argument("--show-wrong", action="store_true", help="after the summary, each die read sure and wrong and "
                      "whether its tray was accepted, and each tray accepted with faces not the dice's")
    battery = commands.add_parser("battery", help="read the sets a rule is judged on (BATTERY) into a folder")
    battery.add_argument("folder", type=Path)
    battery.add_argument("--only", help="these of the battery's sets, comma-separated")
    battery.add_argument("--shift", type=int, default=0, help="every virtual set's first seed this much further on: "
                         "the same kinds of trays, from seeds no rule was chosen on (e.g. 10000000)")
    battery.add_argument("--show-wrong", action="store_true", help="under each set's summary, each die read sure and "
                         "wrong and whether its tray was accepted, and each tray accepted with faces not the dice's")
    census = commands.add_parser("census", help="throws of two dice of each kind (CENSUS) read as the table reads "
                                 "them, from fresh seeds: how many were accepted with a face not thrown")
    census.add_argument("folder", type=Path)
    census.add_argument("--first", type=int, required=True, help="the first kind's first seed; each next kind's "
                        f"{CENSUS_SPACING:,} further on (use seeds no rule was chosen on)")
    census.add_argument("--throws", type=int, default=3000, help="throws of each kind (default 3000)")
    census.add_argument("--only", help="these of the census's kinds, comma-separated")
    census.add_argument("--show-wrong", action="store_true", help="under each kind's summary, each die read sure and "
                        "wrong and whether its throw was accepted")
    speed = commands.add_parser("speed", help="a candidate net's time as a ratio to the committed nets' on the same "
                                "frames, read in turns in one process")
    speed.add_argument("--rounds", type=int, default=3, help="turns of each (default 3)")
    speed.add_argument("--frames-each", type=int, default=SPEED_FRAMES_EACH,
                       help=f"frames of each number of dice ({', '.join(map(str, SPEED_DICE))}; "
                            f"default {SPEED_FRAMES_EACH})")
    speed.add_argument("--counted", action="store_true", help="read as the table reads a throw, the dice known")
    for command in (read, battery, census, speed):
        for option in NET_OPTIONS:
            command.add_argument(f"--{option.replace('_', '-')}", type=Path, dest=option,
                                 help=f"read with this {option.replace('_', ' ')} net instead of the committed one")
    show = commands.add_parser("show", help="read one tray of a set, draw it to a PNG, say what each die was read as")
    show.add_argument("set", choices=SETS)
    show.add_argument("tray", help="a virtual tray's seed, or a photo's file name")
    show.add_argument("--out", type=Path, required=True, help="the PNG to draw it to")
    show.add_argument("--first", type=int, help="the set's first seed, if not its own (a hazard set's trays "
                      "alternate d6 and Excape from it)")
    show.add_argument("--look", type=json.loads, default={}, help="renderer look, JSON (vision.virtual_tray.Look)")
    show.add_argument("--dice", type=int, help="dice a virtual d6 or excape tray, read expecting them")
    show.add_argument("--zoom", type=int, default=2, help="the drawing's size, in times the frame's (default 2)")
    both = commands.add_parser("compare", help="every die two records of the same set read otherwise (two battery "
                               "folders: each set they both hold)")
    both.add_argument("old", type=Path)
    both.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.command == "speed":
        if args.rounds < 1 or args.frames_each < 1:
            raise SystemExit(f"--rounds and --frames-each must be at least 1, got {args.rounds} and "
                             f"{args.frames_each}")
        candidates = {option: getattr(args, option) for option in NET_OPTIONS if getattr(args, option) is not None}
        for line in speed_ratio(candidates, args.rounds, args.frames_each, args.counted):
            print(line)
        return 0
    if args.command in ("read", "battery", "census"):
        use_nets(**{option: getattr(args, option) for option in NET_OPTIONS})
    if args.command == "census":
        for line in read_census(args.folder, args.first, args.throws, args.only.split(",") if args.only else None,
                                args.show_wrong):
            print(line)
        return 0
    if args.command == "read":
        if args.trays < 1:
            raise SystemExit(f"--trays must be at least 1, got {args.trays}")
        record = read_set(args.set, args.trays, args.first, args.look, args.dice, args.runs)
        print(summary(record))
        for line in wrong_dice(record) if args.show_wrong else []:
            print(f"  {line}")
        if args.save:
            args.save.write_bytes(pickle.dumps(record))
        return 0
    if args.command == "show":
        for line in show_tray(args.set, args.tray, args.out, args.first, args.look, args.dice, args.zoom):
            print(line)
        return 0
    if args.command == "battery":
        read_battery(args.folder, args.only.split(",") if args.only else None, args.shift, args.show_wrong)
        return 0
    if args.old.is_dir() or args.new.is_dir():
        if not (args.old.is_dir() and args.new.is_dir()):
            raise SystemExit(f"compare two records or two battery folders, not one of each: {args.old}, {args.new}")
        for line in compare_folders(args.old, args.new):
            print(line)
        return 0
    old, new = (pickle.loads(path.read_bytes()) for path in (args.old, args.new))
    for line in compare(old, new):
        print(line)
    print(f"before: {summary(old)}\nafter:  {summary(new)}")
    return 0


if __name__ == "__main__":
    # Run the importable module's main, not this copy's: the records it saves then name their classes
    # vision.training.tuning.SetRecord, not __main__.SetRecord, and any script can load them. (Records saved before
    # still load here: this copy, __main__, defines the same classes.)
    from vision.training import tuning

    sys.exit(tuning.main(sys.argv[1:]))
