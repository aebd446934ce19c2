"""Record each committed net's known answer (vision/weights/known_answers.npz), which vision.nets checks when the
reader loads the net: its SHA-256, an input cut from a virtual tray as the reader cuts it, and the output ONNX's
own reference evaluator (plain numpy, independent of OpenCV) gives for that input.

Run after committing new weights and splitting them (vision.training.split_nets; dev-only: needs the `onnx`
package, e.g. the training venv):

    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.known_answers
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision.centre_pip import CENTRE_SIZE
from vision.flat import flat_inputs
from vision.locate import STRIDE, LocatedDie, to_locator_scale, to_work
from vision.models import D6
from vision.nets import KNOWN_ANSWERS, SPLIT_AT, WEIGHTS_DIR, file_digest, split_parts
from vision.recognise import crop_die, crops_to_blob
from vision.virtual_tray import render_tray

TRAY_SEED = 424_242     # any tray will do: the answers check arithmetic, not accuracy
DICE = 2                # dice per recorded input: enough to catch a batch handled wrongly, small in the repo
# The locator reads a window of the frame (it is fully convolutional): a multiple of its stride, around a die.
WINDOW = (12 * STRIDE, 16 * STRIDE)


def recorded_inputs() -> dict[str, tuple[np.ndarray, str]]:
    """Per committed net (by file stem): the input it is checked on, and the output to compare. The dice are cut
    where the tray's ground truth puts them, not where the locator finds them: no net is loaded here (loading one
    checks its known answer, which this records)."""
    rendered = render_tray(TRAY_SEED, D6, size=(640, 480), n_dice=DICE)
    work, scale_to_work = to_work(rendered.image)
    dice = []
    for die in rendered.dice:
        x, y, w, h = (v * scale_to_work for v in die.box)
        dice.append(LocatedDie(box=(round(x), round(y), round(w), round(h)),
                               rect=((x + w / 2, y + h / 2), (0.8 * max(w, h),) * 2, 0.0), touches_edge=False,
                               probability=1.0))
    small, scale = to_locator_scale(work)
    (cx, cy) = dice[0].rect[0]
    h, w = WINDOW
    top = int(np.clip(round(cy * scale) - h // 2, 0, small.shape[0] - h)) // STRIDE * STRIDE
    left = int(np.clip(round(cx * scale) - w // 2, 0, small.shape[1] - w)) // STRIDE * STRIDE
    frame = crops_to_blob(small[None, top:top + h, left:left + w])
    crops = crops_to_blob(np.stack([crop_die(work, d.rect[0], d.side, d.rect[2]) for d in dice]))
    fine = crops_to_blob(np.stack([crop_die(work, d.rect[0], d.side, d.rect[2], size=CENTRE_SIZE) for d in dice]))
    flat = flat_inputs(work, dice)
    return {"locator": (frame, "maps"), "locator_second": (frame, "maps"), "faces": (crops, "logits"),
            "faces_quick": (crops, "logits"), "faces_cross": (crops, "logits"), "faces_fine": (fine, "logits"),
            "flat": (flat, "logits"), "flat_first": (flat, "logits"), "flat_taught": (flat, "logits")}


def _check_parts(weights: Path, given: np.ndarray, output: str, answer: np.ndarray) -> None:
    """SystemExit unless the net's two parts, one after the other, give its whole file's answer: parts cut from an
    earlier net (new weights, not split again) would be recorded as the committed ones."""
    from onnx.reference import ReferenceEvaluator  # dev-only

    front, back = (ReferenceEvaluator(str(part)) for part in split_parts(weights))
    middle = front.run(None, {front.input_names[0]: given})[0]
    parts = back.run([output], {back.input_names[0]: middle})[0]
    if not np.allclose(parts, answer, atol=1e-4 * max(1.0, float(np.abs(answer).max()))):
        raise SystemExit(f"{weights.name}: its parts {', '.join(p.name for p in split_parts(weights))} do not give "
                         "its answer: split the nets again first (python -m vision.training.split_nets)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=KNOWN_ANSWERS)
    args = parser.parse_args(argv)
    from onnx.reference import ReferenceEvaluator  # dev-only

    record: dict[str, np.ndarray] = {}
    for name, (given, output) in recorded_inputs().items():
        weights = WEIGHTS_DIR / f"{name}.onnx"
        evaluator = ReferenceEvaluator(str(weights))
        answer = evaluator.run([output], {evaluator.input_names[0]: given})[0]
        record |= {f"{name}.sha256": np.array(file_digest(weights)), f"{name}.output_name": np.array(output),
                   f"{name}.input": given, f"{name}.output": np.asarray(answer, np.float32)}
        if name in SPLIT_AT:        # the parts the reader runs (vision.training.split_nets wrote them)
            _check_parts(weights, given, output, answer)
            record |= {f"{part.stem}.sha256": np.array(file_digest(part)) for part in split_parts(weights)}
        print(f"{name}: input {given.shape}, {output} {answer.shape}")
    np.savez_compressed(args.out, **record)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
