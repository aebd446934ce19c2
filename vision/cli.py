"""`dice-companion read IMAGE... [--dice d6|excape|MODEL_FILE] [--expect N] [--tray X,Y,W,H|auto] [--die-side PX]
[--json]`: read tray photos.

Each image is read on its own: one that cannot be opened, is not an image or is one the reader cannot use (too
small to show dice) gets an error line (on stderr) and the others are still read; the exit code is 2 if any image
failed, else 0. With --json every image gives one JSON object per line (TrayReading.to_json); without, one readable
line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.dice_sides import measured_side
from vision.locate import TrayRegionError
from vision.models import load_model
from vision.read import ReadError, read_tray, seen_off_size
from vision.recognise import check_model
from vision.result import TrayReading
from vision.tray_region import TrayRegionNotFound, find_tray_region


def load_image(path: str) -> np.ndarray | str:
    """The image as BGR, or a message saying why it cannot be read."""
    file = Path(path)
    if not file.exists():
        return "no such file"
    if not file.is_file():
        return "not a file"
    try:
        data = np.fromfile(str(file), dtype=np.uint8)
    except OSError as err:
        return f"cannot open it ({err.strerror or err})"
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        return "not an image OpenCV can decode (expected a JPEG, PNG, BMP, TIFF or WebP photo)"
    return image


def describe(path: str, reading: TrayReading, width: int | None = None, taught: bool = False) -> str:
    """The readable line for one image: its dice's faces ("?" after one unsure) and whether the throw stands; with
    the image's `width`, and its dice measuring off the sides read best (vision.read.seen_off_size), what to do about
    the camera: `read` is how a camera's view is tried out."""
    faces = " ".join(d.face if d.sure else f"{d.face}?" if d.face != "?" else "?" for d in reading.dice)
    line = f"{path}: {len(reading.dice)} {'die' if len(reading.dice) == 1 else 'dice'}"
    line += f": {faces}" if faces else ""
    line += " (ok)" if reading.status == "ok" else f" (re-roll: {reading.reason})"
    side = measured_side(reading)
    look = None if side is None or width is None else seen_off_size(side, width, taught)
    if look is not None:
        line += (f"; the dice look {look} ({side:.0f} px in a {width} px wide picture), and are read less surely: "
                 + ("bring the camera closer" if look == "small" else "raise the camera"))
    return line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dice-companion read", description="Read the dice in tray photos.")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo(s) of the tray, seen from above")
    parser.add_argument("--dice", default="d6", metavar="d6|excape|MODEL_FILE",
                        help="die model: a built-in name or a model file made by `dice-companion teach`")
    parser.add_argument("--expect", type=int, metavar="N",
                        help="how many dice were rolled: another count is a re-roll, and a throw found whole is "
                             "read once (without it, every photo is also looked over for dice a first look missed)")
    parser.add_argument("--tray", type=_tray_option, metavar="X,Y,W,H|auto",
                        help="read inside this tray region (pixels of each image), or the one found in each image "
                             "(auto, as `dice-companion calibrate` finds it); default: the whole image")
    parser.add_argument("--die-side", type=_die_side_option, metavar="PX",
                        help="the dice's top-face side in pixels of the images, as the table's earlier throws showed "
                             "it: read as the companion reads a throw at a table that knows its dice (a die boxed much "
                             "smaller is doubted as one pip of a die)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per image (JSON Lines)")
    return parser


def _tray_option(text: str) -> tuple[int, int, int, int] | str:
    if text == "auto":
        return text
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 4 or min(values[:2]) < 0 or min(values[2:]) <= 0:
        raise argparse.ArgumentTypeError(f"expected X,Y,W,H (whole pixels, a width and height of 1 or more) or auto, "
                                         f"got {text!r}")
    return values  # type: ignore[return-value]


def _die_side_option(text: str) -> float:
    try:
        side = float(text)
    except ValueError:
        side = math.nan
    if not (math.isfinite(side) and side > 0):
        raise argparse.ArgumentTypeError(f"expected a side in pixels (a number above 0), got {text!r}")
    return side


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.expect is not None and args.expect < 0:
        print(f"dice-companion read: --expect must be 0 or more, got {args.expect}", file=sys.stderr)
        return 2
    model = load_model(args.dice)
    check_model(model)      # a model this reader cannot use is refused before any image is read
    failed = False
    for path in args.images:
        image = load_image(path)
        if isinstance(image, str):
            print(f"dice-companion read: {path}: {image}", file=sys.stderr)
            failed = True
            continue
        try:
            tray = find_tray_region(image) if args.tray == "auto" else args.tray
            reading = read_tray(image, model, tray=tray, expect=args.expect, die_side=args.die_side)
        except (ReadError, TrayRegionError, TrayRegionNotFound) as error:   # this file only
            print(f"dice-companion read: {path}: {error}", file=sys.stderr)
            failed = True
            continue
        print(json.dumps(reading.to_json(path)) if args.json else
              describe(path, reading, image.shape[1], model.taught), flush=True)
    return 2 if failed else 0
