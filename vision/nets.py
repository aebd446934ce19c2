"""Loading the reader's committed ONNX nets (locator, face classifier, lying-flat check) for OpenCV's dnn module.

One place for what a missing or damaged weights file means to a user: a clear error naming the net and the file,
never an OpenCV traceback at the first throw.
"""

from __future__ import annotations

from pathlib import Path

import cv2

from vision.models import ModelError


def load_net(weights: Path, what: str) -> cv2.dnn.Net:
    """The ONNX net at `weights`; ModelError, naming `what` net it is, if the file is missing or unreadable."""
    if not weights.is_file():
        raise ModelError(f"{what} weights missing: {weights} (reinstall dice-companion)")
    try:
        return cv2.dnn.readNetFromONNX(str(weights))
    except cv2.error as error:
        raise ModelError(f"{what} weights unreadable: {weights} is not a valid ONNX net "
                         f"(reinstall dice-companion): {str(error).strip().splitlines()[-1]}") from error
