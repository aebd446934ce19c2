"""Is a die lying flat? A small learned check, apart from reading its face.

A cocked die (leaning on another die or the tray's wall) shows a second face beside its top one; so does a flat
die far from the middle of the frame, seen in perspective, but only on its side facing the camera, and more the
farther out it lies. The face classifier, shown the die alone, mixes the two up: it calls some flat dice near the
frame's edges "tilted" and reads some cocked dice as a sure face. This net is told where the die lies: besides the
die's colour crop, cut wider than the classifier's so the die's whole outline shows, it is given a fourth plane, a
ramp that rises across the crop towards the frame's edge, steeper the farther the die lies from the frame's
centre (where a camera looking down sees no side at all). Turning or mirroring the crop turns its ramp with it,
so the net learns the pose, not the crop's orientation.

The net (trained dev-only by vision/training/train_flat.py, run here with OpenCV's dnn) gives each die the
probability that it is not lying flat.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.locate import LocatedDie
from vision.nets import load_net
from vision.recognise import crop_die, crops_to_blob, softmax

FLAT_CROP_SIZE = 32         # the net's input side in pixels
FLAT_CROP_MARGIN = 1.5      # crop side / die side: the die's outline, its shadow and the tray around it
RAMP_GAIN = 4.0             # the ramp's slope per (die side x frame widths from the frame's centre): values ~±1
WEIGHTS = Path(__file__).resolve().parent / "weights" / "flat.onnx"
# The probability from which a die is cocked: the reader refuses it (vision.read_dice.doubt), vision.teach keeps no
# look of it. Offline on tuning data (held-out photos, 500 virtual d6 and 500 Excape trays, 200 trays with a cocked
# die): at 0.7 it called 1 of 313 real dice, 1 of 2,310 flat d6 and none of 993 Excape dice cocked, and 4 of 199
# cocked dice still stood as a sure face; at 0.5, 1, 1 and 1 flat dice for 3 cocked ones; at 0.9, none for 8. The
# check retrained with more cocked trays (vision/training/README.md) catches 98.0% of its held-out cocked dice at
# 0.7, 98.4% at 0.5 and 96.8% at 0.9, calling no real flat die cocked at any of them.
NOT_FLAT = 0.7
# Below this probability the check is sure a die lies flat: the reader then judges a die its usual reads left unsure
# on its faces alone, the face classifier's "tilted" left out (vision.face_checks.judged_lying_flat). 0.01 and 0.03
# read the tuning sets alike.
LYING_FLAT = 0.01


def ramp(work_size: tuple[int, int], die: LocatedDie, size: int = FLAT_CROP_SIZE,
         margin: float = FLAT_CROP_MARGIN) -> np.ndarray:
    """The position plane of a die's crop (size x size float32): at each crop pixel, how far its frame point lies
    beyond the die's centre in the direction away from the frame's centre (in die sides), times the die's distance
    from the frame's centre (in frame widths) and RAMP_GAIN.

    work_size: (width, height) of the work frame. The crop is cut as vision.recognise.crop_die cuts it (same
    centre, side, turn and scale), so each ramp pixel belongs to the image pixel beside it.
    """
    width, height = work_size
    (cx, cy), (side, _), angle = die.rect
    away_x, away_y = (cx - width / 2) / width, (cy - height / 2) / width    # frame widths from the frame's centre
    # Crop pixel q shows frame point p = centre + A^-1 (q - size/2), A = s R the crop's turn-and-scale
    # (cv2.getRotationMatrix2D: scale s, turn R): so the ramp is linear in q, with gradient A^-T away / side, and
    # A^-T = R / s since R is a rotation.
    scale = size / (side * margin)
    cos, sin = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    gain = RAMP_GAIN / (scale * side)
    gradient_x, gradient_y = (cos * away_x + sin * away_y) * gain, (cos * away_y - sin * away_x) * gain
    offsets = np.arange(size, dtype=np.float32) - size / 2     # crop_die puts the centre at size / 2
    return (offsets[None, :] * gradient_x + offsets[:, None] * gradient_y).astype(np.float32)


def flat_inputs(work: np.ndarray, dice: list[LocatedDie], size: int = FLAT_CROP_SIZE,
                margin: float = FLAT_CROP_MARGIN) -> np.ndarray:
    """The net's input for each die of a work frame: (N, 4, size, size) float32, the BGR crop as the nets take it
    (vision.recognise.crops_to_blob: 0..1, then standardised) and the die's ramp."""
    out = np.empty((len(dice), 4, size, size), np.float32)
    if dice:
        out[:, :3] = crops_to_blob(np.stack([crop_die(work, d.rect[0], d.side, d.rect[2], size=size, margin=margin)
                                             for d in dice]))
        out[:, 3] = [ramp((work.shape[1], work.shape[0]), d, size, margin) for d in dice]
    return out


class FlatNet:
    """The ONNX "lying flat?" net: for each die, the probability that it is not lying flat."""

    def __init__(self, weights: Path = WEIGHTS) -> None:
        # OpenCV 5.0's classic engine runs this net 1.4-1.7 times as fast as its new one (8 dice: ~3 ms against
        # ~4-7 ms on the dev machine), with the same answer to 1e-5; the other nets run fastest on the new one.
        # OpenCV 5.1 has no classic engine any more: there the net runs on the one engine it has.
        self._net = load_net(weights, "lying-flat check", getattr(cv2.dnn, "ENGINE_CLASSIC", None))

    def not_flat(self, inputs: np.ndarray) -> np.ndarray:
        """(N, 4, size, size) flat_inputs -> (N,) probabilities that each die is not lying flat."""
        if len(inputs) == 0:
            return np.zeros(0, np.float32)
        self._net.setInput(np.ascontiguousarray(inputs, dtype=np.float32))
        return softmax(self._net.forward().reshape(len(inputs), 2))[:, 1].astype(np.float32)


@cache
def flat_net() -> FlatNet:
    """The shared net (WEIGHTS), loaded on first use (never at import)."""
    return FlatNet(WEIGHTS)


def not_flat(work: np.ndarray, dice: list[LocatedDie]) -> np.ndarray:
    """(N,) the probability that each located die of a work frame is not lying flat (cocked)."""
    return flat_net().not_flat(flat_inputs(work, dice))
