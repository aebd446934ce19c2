"""Every die of a tuning set as the reader read it, with its crops: the data a rule on the dice is looked for in.

    .venv/bin/python -m vision.training.die_log gold-pip-d6-throws /tmp/gold.npz --first 9933000 --trays 3000
    .venv/bin/python -m vision.training.die_log other-photos /tmp/photos.npz
    .venv/bin/python -m vision.training.die_log d6 /tmp/d6.npz --first 2000250 --trays 500 --look '{"tray": "felt"}'

SET is a tuning set (vision.training.tuning.SETS, read as `tuning read` reads it, `--dice` and `--look` alike) or a
census kind (tuning.CENSUS: two dice a throw, read expecting them, in the kind's look). For every labelled die the
final reading found (a box over its label by IoU 0.3, vision.bench.match_reading), one row: the tray, the die's
index, its label, the face read ("?" when unsure), sure, the reason it is not, the confidence, whether the tray was
accepted; and the die's crops cut where the reading's die was located, in the work frame of the reading the tray's
result came from (a throw read again at another scale is logged as read at the end): the classifier's crop
(vision.recognise.CROP_SIZE) and the crop the pip-layout checks fit (vision.centre_pip.CENTRE_SIZE). A die that
vision.second_looks read in smaller boxes keeps its own box, so its crop is of that box, not of the smaller ones.

Sessions 55-57 each wrote such a log in /tmp, matching dice by place, and crops from an earlier read of the same
die were taken for the final one's; this one finds the final reading's own die.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from vision.bench import match_reading
from vision.centre_pip import CENTRE_SIZE
from vision.face_checks import cut
from vision.read_dice import ReadDie
from vision.recognise import CROP_MARGIN, CROP_SIZE
from vision.training.tuning import CENSUS, SETS, renderer_look, set_frames

# The columns of a log, each an array of one row a die (np.savez: no pickled objects).
COLUMNS = ("tray", "die", "label", "face", "sure", "reason", "confidence", "accepted", "crop", "layout_crop")


@contextmanager
def frames_read() -> Iterator[list[tuple[np.ndarray, list[ReadDie]]]]:
    """Within it, every work frame vision.read reads a tray from, with the dice it read there (the answer of
    vision.read._read_frame), in the order read."""
    from vision import read

    seen: list[tuple[np.ndarray, list[ReadDie]]] = []
    original = read._read_frame

    def recorded(work: np.ndarray, *args: object, **kwargs: object) -> list[ReadDie]:
        dice = original(work, *args, **kwargs)
        seen.append((work, dice))
        return dice

    read._read_frame = recorded
    try:
        yield seen
    finally:
        read._read_frame = original


def _read_where(seen: list[tuple[np.ndarray, list[ReadDie]]], width: int, box: tuple[int, int, int, int],
                side: float) -> tuple[np.ndarray, ReadDie] | None:
    """The work frame and the die read there that a reading's die (its box and side in pixels of an image `width`
    wide) was made from, as vision.read turns a die read into a DieReading (in_image): the last such, or None."""
    from vision.read import in_image

    for work, dice in reversed(seen):
        scale = work.shape[1] / width
        for die in dice:
            if in_image(die, scale) == (tuple(box), side):
                return work, die
    return None


def log_dice(name: str, first: int | None = None, trays: int = 250, look: dict | None = None,
             dice: int | None = None) -> dict[str, np.ndarray]:
    """The log of a tuning set or census kind (the module's doc): COLUMNS, one row a die found."""
    from vision.read import read_tray

    if name in CENSUS:
        if dice is not None:
            raise SystemExit(f"a census kind's throws are of two dice: no --dice for {name!r}")
        # A throw set's dice a throw are its own (tuning.THROW_SETS); the other kinds give theirs.
        name, options = CENSUS[name]
        look, dice = {**options.get("look", {}), **(look or {})}, options.get("dice")
    elif name not in SETS:
        raise SystemExit(f"unknown set {name!r}: a tuning set ({', '.join(SETS)}) or a census kind "
                         f"({', '.join(CENSUS)})")
    rows: dict[str, list] = {column: [] for column in COLUMNS}
    for tray, image, truth, model, expect in set_frames(name, first, trays, renderer_look(look), dice):
        with frames_read() as seen:
            reading = read_tray(image, model, expect=len(truth) if expect else None)
        found, _ = match_reading(reading, [box for _, box, _ in truth])
        for j, die in sorted(found.items()):
            where = _read_where(seen, image.shape[1], die.box, die.side)
            if where is None:
                raise RuntimeError(f"tray {tray}: die {j} of the reading matches no die read (vision.read changed "
                                   "how a reading is made of the dice read?)")
            work, read_die = where
            rows["tray"].append(tray)
            rows["die"].append(j)
            rows["label"].append(truth[j][0])
            rows["face"].append(die.face)
            rows["sure"].append(die.sure)
            rows["reason"].append(die.reason or "")
            rows["confidence"].append(die.confidence)
            rows["accepted"].append(reading.status == "ok")
            rows["crop"].append(cut(work, [read_die.candidate])[0])
            rows["layout_crop"].append(cut(work, [read_die.candidate], CROP_MARGIN, CENTRE_SIZE)[0])
    crops = {"crop": (CROP_SIZE, CROP_SIZE, 3), "layout_crop": (CENTRE_SIZE, CENTRE_SIZE, 3)}
    return {column: (np.array(values, np.uint8).reshape(-1, *crops[column]) if column in crops else
                     np.array(values, np.float32 if column == "confidence" else None))
            for column, values in rows.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("set", help="a tuning set or a census kind")
    parser.add_argument("out", type=Path, help="the .npz to write")
    parser.add_argument("--first", type=int, help="first seed (default: the set's own)")
    parser.add_argument("--trays", type=int, default=250, help="virtual trays or throws (photo sets: every photo)")
    parser.add_argument("--look", type=json.loads, default={}, help="renderer look, JSON (vision.virtual_tray.Look)")
    parser.add_argument("--dice", type=int, help="dice a virtual d6 or excape tray, read expecting them")
    args = parser.parse_args(argv)
    if args.trays < 1:
        parser.error(f"--trays must be at least 1, got {args.trays}")
    log = log_dice(args.set, args.first, args.trays, args.look, args.dice)
    np.savez_compressed(args.out, **log)
    wrong = int(np.count_nonzero(log["sure"] & (log["face"] != log["label"])))
    print(f"{args.out}: {len(log['die'])} dice found, {int(np.count_nonzero(log['sure']))} read sure, {wrong} of them "
          "wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
