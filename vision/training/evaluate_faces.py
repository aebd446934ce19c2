"""Score a face classifier on the validation split the trainer holds out, the way the reader decides.

The validation split is every N-th photo / virtual tray of the *train* split (train_faces.held_out_groups); the
test split stays the benchmark's. Each held-out patch is cut as the reader cuts a die (centred, upright) and read
by vision.recognise.read_faces (a second view when needed, a closer look at undecided dice, the sure
thresholds), so the figures are comparable between nets of any input size and can tune the thresholds. With
--quick, the reader's cascade is scored (the quick net reads every crop, the --weights net the crops the quick one
is not near certain of) and the full net's share printed:

    .venv/bin/python -m vision.training.evaluate_faces --weights vision/weights/faces.onnx \\
        [--quick vision/weights/faces_quick.onnx [--quick-certain 0.9]] \\
        --d6 /tmp/real.npz --mixed /tmp/virtual.npz --excape /tmp/excape.npz [--sure-probability 0.7 ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from vision import recognise
from vision.models import D6, EXCAPE, DieModel
from vision.recognise import FaceCascade, FaceClassifier, FaceNet, read_faces
from vision.training.extract_crops import centred_crop
from vision.training.photos import held_out_groups


def _appearance(label: str) -> str | None:
    if label == "none":
        return None
    return "symbol:cross" if label == "X" else f"pips:{label}"


def score(net: FaceClassifier, crop_size: int, patches: np.ndarray, labels: np.ndarray, models: list[DieModel]
          ) -> dict[str, int]:
    """Counts: dice whose best guess is right (top1), dice read right / silently wrong / unsure, tilted dice read
    as a sure face, "none" read as a die."""
    counts = dict.fromkeys(("dice", "top1", "right", "wrong", "unsure", "tilted", "tilted_sure", "none",
                            "none_as_die"), 0)
    for model in {m.name: m for m in models}.values():
        chosen = [i for i, m in enumerate(models) if m.name == model.name]
        if not chosen:
            continue
        crops = np.stack([centred_crop(patches[i], crop_size) for i in chosen])
        wide = np.stack([centred_crop(patches[i], crop_size, recognise.CLOSER_LOOK_MARGIN) for i in chosen])
        for i, guess in zip(chosen, read_faces(crops, model, net, wide), strict=True):
            truth = str(labels[i])
            if truth == "tilted":
                counts["tilted"] += 1
                counts["tilted_sure"] += guess.sure and guess.appearance is not None and not guess.tilted
            elif truth == "none":
                counts["none"] += 1
                counts["none_as_die"] += guess.sure and guess.appearance is not None
            else:
                counts["dice"] += 1
                counts["top1"] += guess.appearance == _appearance(truth)     # best guess, sure or not
                if not guess.sure or guess.tilted:
                    counts["unsure"] += 1
                elif guess.appearance == _appearance(truth):
                    counts["right"] += 1
                else:
                    counts["wrong"] += 1
    return counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", type=Path, required=True)
    parser.add_argument("--crop-size", type=int, default=recognise.CROP_SIZE)
    parser.add_argument("--d6", action="append", default=[], help="patches of d6 dice (the real photos)")
    parser.add_argument("--excape", action="append", default=[], help="patches of Excape dice only")
    parser.add_argument("--mixed", action="append", default=[], help="render_crops patches: odd trays Excape")
    parser.add_argument("--val-every", type=int, default=5)
    parser.add_argument("--quick", type=Path, help="a quick net to read every crop first (the reader's cascade)")
    parser.add_argument("--quick-certain", type=float, default=recognise.QUICK_CERTAIN,
                        help="the quick net's best class at least this probable: the full net does not read the crop")
    parser.add_argument("--sure-probability", type=float, default=recognise.SURE_PROBABILITY)
    parser.add_argument("--sure-margin", type=float, default=recognise.SURE_MARGIN)
    parser.add_argument("--close-margin", type=float, default=recognise.CLOSE_MARGIN)
    args = parser.parse_args(argv)
    # Threshold candidates are tried by setting the reader's own constants for this process only.
    recognise.SURE_PROBABILITY = args.sure_probability
    recognise.SURE_MARGIN = args.sure_margin
    recognise.CLOSE_MARGIN = args.close_margin
    net: FaceClassifier = FaceNet(args.weights)
    if args.quick:
        net = FaceCascade(FaceNet(args.quick), net, args.quick_certain)
    sets = [(f, "d6") for f in args.d6] + [(f, "excape") for f in args.excape] + [(f, "mixed") for f in args.mixed]
    if not sets:
        parser.error("give at least one patch file (--d6, --excape or --mixed)")
    quick = f"  quick {args.quick} certain >= {args.quick_certain}" if args.quick else ""
    print(f"{args.weights}{quick}  sure p>={args.sure_probability} margin>={args.sure_margin} "
          f"6/7>={args.close_margin}")
    print(f"{'set':<16} {'dice':>6} {'top-1':>8} {'right':>8} {'wrong':>8} {'unsure':>8} {'tilted sure':>12} "
          f"{'none as die':>12}")
    started = time.process_time()
    for name, kind in sets:
        data = np.load(name)
        held = held_out_groups(data["groups"], args.val_every)
        patches, labels, groups = data["patches"][held], data["labels"][held], data["groups"][held]
        models = [D6 if kind == "d6" or (kind == "mixed" and g % 2 == 0) else EXCAPE for g in groups]
        c = score(net, args.crop_size, patches, labels, models)
        n = max(c["dice"], 1)
        print(f"{Path(name).name:<16} {c['dice']:>6} {c['top1'] / n:>8.2%} {c['right'] / n:>8.2%} "
              f"{c['wrong'] / n:>8.2%} {c['unsure'] / n:>8.2%} "
              f"{c['tilted_sure']:>5}/{c['tilted']:<6} {c['none_as_die']:>5}/{c['none']:<6}")
    print(f"CPU {time.process_time() - started:.1f} s")
    if isinstance(net, FaceCascade):
        print(f"the full net read {net.crops_passed_on} of {net.crops_read} crops "
              f"({net.crops_passed_on / max(net.crops_read, 1):.1%}, second reads included; closer looks, always "
              "the full net's, are not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
