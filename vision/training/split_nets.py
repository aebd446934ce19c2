"""Write the two parts of each committed net the reader runs split (vision.nets.SPLIT_AT): the front, from the net's
input to the tensor where it is cut, and the back, from that tensor to the net's outputs, beside the whole file
(vision.nets.split_parts). The reader runs the front on OpenCV's classic engine and the back on the new one.

Run after committing new weights, before recording the nets' known answers (dev-only: needs the `onnx` package, e.g.
the training venv):

    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.split_nets
    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.known_answers
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.nets import SPLIT_AT, WEIGHTS_DIR, split_parts


def split(weights: Path, cut: str) -> tuple[Path, Path]:
    """Write `weights`' front and back parts, cut at tensor `cut`; ValueError if the net has no such tensor."""
    import onnx  # dev-only
    import onnx.utils

    model = onnx.load(str(weights))
    tensors = {name for node in model.graph.node for name in node.output}
    if cut not in tensors:
        raise ValueError(f"{weights.name} has no tensor {cut!r} to cut at (SPLIT_AT in vision/nets.py names one of "
                         "its nodes' outputs)")
    inputs = [model.graph.input[0].name]
    outputs = [output.name for output in model.graph.output]
    front, back = split_parts(weights)
    onnx.utils.extract_model(str(weights), str(front), inputs, [cut])
    onnx.utils.extract_model(str(weights), str(back), [cut], outputs)
    return front, back


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args(argv)
    for stem, cut in SPLIT_AT.items():
        front, back = split(WEIGHTS_DIR / f"{stem}.onnx", cut)
        print(f"{stem}: {front.name}, {back.name} (cut at {cut})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
