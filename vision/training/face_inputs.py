"""The crops the reader gives each face net, and a committed net's logits on them: the data a smaller net learns to
give the same answers from (vision.training.mimic_faces).

The reader asks its face nets about far more than whole, centred dice: dice cut wider, views shifted towards a
die's corners, windows around a lone pip, parts of dice, candidates that are no die. Its rules were chosen on the
committed nets' answers to all of them (vision/training/README.md), so a net meant to take a committed one's place
learns from those very inputs, gathered as the reader reads (`harvest`), and from the committed net's logits on each
crop in its eight views (`teach`: a face may lie any way up in a die's crop).

Sources, never the benchmark's: the train split's photos outside the validation split (photos.held_out_groups; the
tuning battery's held-out photos stay unseen), read at their size with their count and without, at 0.8, 1.25 and
1.6 times it, and once brighter with their count; virtual trays from training seeds (below the benchmark's,
checked), a mix of d6 and Excape, plain, marbled, black on felt and touching looks, a hazard on some, at 640x480 and
1280x960, read with and without their count; and, asked for, throws of two d6 on dark felt read with their count
(FELT_BLACK of them black dice, as at a Mex table): where the locator boxes one pip of a dark 2 alone and the 1s'
doubts look around it (vision.face_checks.doubted_ones), the crops a student got wrong in sessions 50 and 51.

    .venv/bin/python -m vision.training.face_inputs harvest /tmp/h_photos.npz --photos
    .venv/bin/python -m vision.training.face_inputs harvest /tmp/h_trays.npz --trays 3000 --first-seed 811000
    .venv/bin/python -m vision.training.face_inputs harvest /tmp/h_felt.npz --felt-throws 2000 --first-seed 817000
    .venv/bin/python -m vision.training.face_inputs teach vision/weights/faces_quick.onnx /tmp/quick.npz \\
        /tmp/h_photos.npz /tmp/h_trays.npz
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from vision.models import D6, EXCAPE
from vision.recognise import CLASSES, CROP_SIZE, FaceNet, crops_to_blob

# The face nets whose inputs are kept, by weights file stem (vision.nets.LoadedNet.name).
FACE_NETS = ("faces_quick", "faces", "faces_cross")
PHOTO_SCALES = (0.8, 1.25, 1.6)     # the photos read again at these sizes: cameras nearer and farther
VIEWS = 8                           # a crop's quarter turns, then the same mirrored
TEACH_BATCH = 32                    # crops a pass, of the order of the reader's own batches
FELT_BLACK = 0.7                    # of the felt throws, the share of black dice (the others the renderer's colours)


@contextmanager
def kept_inputs() -> Iterator[dict[str, list[np.ndarray]]]:
    """Within it, every batch of uint8 crops a face net of FACE_NETS is given is kept, by net, in the dict yielded."""
    kept: dict[str, list[np.ndarray]] = {name: [] for name in FACE_NETS}
    run = FaceNet.run

    def keeping(net: FaceNet, crops: np.ndarray) -> np.ndarray:
        if net.name in kept and len(crops):
            kept[net.name].append(np.array(crops, np.uint8))
        return run(net, crops)

    FaceNet.run = keeping       # type: ignore[method-assign]
    try:
        yield kept
    finally:
        FaceNet.run = run       # type: ignore[method-assign]


def read_photos() -> None:
    """Read the train split's photos outside the validation split as the harvest does (the module's docstring)."""
    from vision.read import read_tray
    from vision.training.tuning import photo_set

    for _, photo in photo_set("other-photos"):
        image = photo.load()
        read_tray(image, D6)
        read_tray(image, D6, expect=len(photo.dice))
        for scale in PHOTO_SCALES:
            read_tray(cv2.resize(image, None, fx=scale, fy=scale,
                                 interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR), D6)
        read_tray(cv2.convertScaleAbs(image, alpha=0.8, beta=10), D6, expect=len(photo.dice))


def read_trays(first: int, trays: int) -> None:
    """Render and read `trays` virtual trays from seed `first`, each's model, look, hazard, size, dice and whether it
    is read with its count drawn from its seed."""
    from vision.bench import BLACK_ON_FELT
    from vision.read import read_tray
    from vision.training.render_crops import check_training_seeds
    from vision.training.tuning import HAZARDS
    from vision.virtual_tray import render_tray

    check_training_seeds(first, trays)
    for seed in range(first, first + trays):
        rng = np.random.default_rng(seed)
        model = D6 if rng.random() < 0.6 else EXCAPE
        look: dict[str, object] = {}
        kind = rng.random()
        if kind < 0.12:
            look["die_colour"] = "marbled"
        elif kind < 0.22:
            look.update(BLACK_ON_FELT)
        elif kind < 0.28:
            look["touching"] = True
        hazards = frozenset()
        if rng.random() < 0.15:
            hazards = frozenset({HAZARDS[int(rng.integers(len(HAZARDS)))]})
        size = (1280, 960) if rng.random() < 0.2 else (640, 480)
        dice = int(rng.choice([2, 2, 3, 5, 8, 12, 20]))
        counted = rng.random() < 0.5 and not hazards
        rendered = render_tray(seed, model, n_dice=dice, size=size, hazards=hazards, **look)
        read_tray(rendered.image, model, expect=dice if counted else None)


def read_felt_throws(first: int, throws: int) -> None:
    """Render and read `throws` throws of two d6 on dark felt from seed `first`, each read with its count, its dice
    black by a draw from its seed (FELT_BLACK)."""
    from vision.bench import BLACK_ON_FELT
    from vision.read import read_tray
    from vision.training.render_crops import check_training_seeds
    from vision.virtual_tray import render_tray

    check_training_seeds(first, throws)
    for seed in range(first, first + throws):
        black = np.random.default_rng(seed).random() < FELT_BLACK
        rendered = render_tray(seed, D6, n_dice=2, **(BLACK_ON_FELT if black else {"tray": "felt"}))
        read_tray(rendered.image, D6, expect=2)


def harvest(out: Path, photos: bool, first: int | None, trays: int, felt_throws: int = 0) -> dict[str, int]:
    """Read the sources asked for, keeping every face net's inputs; save them to `out` (one uint8 array of crops a
    net) and return how many each net was given. The felt throws' seeds follow the trays'."""
    start = first if first is not None else 0
    with kept_inputs() as kept:
        if photos:
            read_photos()
        if trays:
            read_trays(start, trays)
        if felt_throws:
            read_felt_throws(start + trays, felt_throws)
    arrays = {name: np.concatenate(batches) if batches else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
              for name, batches in kept.items()}
    np.savez_compressed(out, **arrays)
    return {name: len(array) for name, array in arrays.items()}


def views(crops: np.ndarray, view: int) -> np.ndarray:
    """(N, h, w, 3) crops in view 0..VIEWS-1: turned `view` quarter turns, mirrored from view 4 on."""
    turned = np.rot90(crops, view % 4, axes=(1, 2))
    return np.ascontiguousarray(turned[:, :, ::-1] if view >= 4 else turned)


def teach(weights: Path, crops: np.ndarray) -> np.ndarray:
    """(VIEWS, N, len(CLASSES)) float32: the net at `weights`' logits on every crop in every view (its whole file, on
    OpenCV's new engine, as the reader's answers to within 5e-6)."""
    net = cv2.dnn.readNetFromONNX(str(weights), cv2.dnn.ENGINE_NEW)
    logits = np.zeros((VIEWS, len(crops), len(CLASSES)), np.float32)
    for view in range(VIEWS):
        seen = views(crops, view)
        for start in range(0, len(crops), TEACH_BATCH):
            net.setInput(crops_to_blob(seen[start:start + TEACH_BATCH]))
            logits[view, start:start + TEACH_BATCH] = net.forward("logits").reshape(-1, len(CLASSES))
    return logits


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("harvest", help="read photos and virtual trays, keeping each face net's inputs")
    gather.add_argument("out", type=Path)
    gather.add_argument("--photos", action="store_true", help="the train split's photos outside the validation split")
    gather.add_argument("--trays", type=int, default=0, help="virtual trays (training seeds)")
    gather.add_argument("--felt-throws", type=int, default=0,
                        help="throws of two d6 on dark felt, read with their count (seeds after the trays')")
    gather.add_argument("--first-seed", type=int, help="the first tray's seed (default 0)")
    answers = commands.add_parser("teach", help="a committed net's logits on harvested crops, in every view")
    answers.add_argument("weights", type=Path, help="the net's ONNX file (vision/weights/faces_quick.onnx, ...)")
    answers.add_argument("out", type=Path)
    answers.add_argument("harvests", type=Path, nargs="+")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.command == "harvest":
        if args.trays < 0 or args.felt_throws < 0:
            parser.error(f"--trays and --felt-throws must be 0 or more, got {args.trays} and {args.felt_throws}")
        if not (args.photos or args.trays or args.felt_throws):
            parser.error("nothing to read: give --photos, --trays N, --felt-throws N or several")
        print(args.out, harvest(args.out, args.photos, args.first_seed, args.trays, args.felt_throws))
        return 0
    if not args.weights.is_file():
        parser.error(f"no such weights file: {args.weights}")
    if args.weights.stem not in FACE_NETS:
        parser.error(f"{args.weights.name} is not one of the face nets {', '.join(FACE_NETS)}")
    crops = np.concatenate([np.load(path)[args.weights.stem] for path in args.harvests])
    np.savez(args.out, crops=crops, logits=teach(args.weights, crops))
    print(f"{args.out}: {len(crops)} crops, {VIEWS} views each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
