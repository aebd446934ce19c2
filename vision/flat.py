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

Nearly every die a reader sees lies flat, and the check is sure of it, so the reader asks a smaller net distilled
from it first (FIRST_LOOK_WEIGHTS: 12-24-48 channels against 24-48-96, ~0.11 ms a die against ~0.26): a die the first
look is sure lies flat (under SURELY_FLAT) is taken as flat, every other die is measured by the check itself. Dice
whose exact probability the reader weighs below the cocked bar (an unsure die, judged again if the check is sure it
lies flat; a die read as an X, doubted at a slight lean) are always measured by the check. On the benchmark's speed
frames the check then measures 0.17 of the 9.4 dice a frame: ~1.1 ms of lying-flat checks a frame instead of ~2.4.

A user's own (taught) die is judged by a check of its own, the same net fine-tuned on more dice printed with letters,
digits and signs (TAUGHT_WEIGHTS), which measures every one of its dice.
"""

from __future__ import annotations

from collections.abc import Sequence
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
FIRST_LOOK_WEIGHTS = WEIGHTS.with_name("flat_first.onnx")
# The check for a user's own die (`dice-companion teach`): the check above fine-tuned on more dice printed with letters,
# digits and signs (vision/training/README.md, "Session 37"). Whether a taught die lies flat rests on this check alone
# (the face classifier's "tilted" is not asked of symbols it never saw: vision.recognise._taught_guesses), and the
# check above let more cocked taught dice through than cocked d6. It measures every taught die itself, no first look:
# the first look learned the other check's answers.
TAUGHT_WEIGHTS = WEIGHTS.with_name("flat_taught.onnx")
# Under this probability from the first look, a die is taken as lying flat without the check itself. Chosen on the
# held-out dice of the check's training data (9,923, 2,523 of them cocked: vision/training/README.md, "Session 30") and
# on every die the reader measured on 1,200 trays with a cocked die (4,206,000+, 4,214,000+, 4,229,000+; 400 each) and
# 1,000 d6 trays (4,224,000+): of the 1,473 cocked dice the check calls cocked there, the first look gave none less
# than 0.072, and it gives 97.0% of the 7,154 flat dice less than 0.02 (held out: 94.2%, none of the cocked dice the
# check catches).
SURELY_FLAT = 0.02


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
    """An ONNX "lying flat?" net: for each die, the probability that it is not lying flat."""

    def __init__(self, weights: Path = WEIGHTS, what: str = "lying-flat check") -> None:
        # OpenCV 5.0's classic engine runs this net 1.4-1.7 times as fast as its new one (8 dice: ~3 ms against
        # ~4-7 ms on the dev machine), with the same answer to 1e-5; the other nets run fastest on the new one.
        # OpenCV 5.1 has no classic engine any more: there the net runs on the one engine it has.
        # The first look, a smaller net of the same layers, runs fastest on the classic engine too.
        self._net = load_net(weights, what, getattr(cv2.dnn, "ENGINE_CLASSIC", None))

    def not_flat(self, inputs: np.ndarray) -> np.ndarray:
        """(N, 4, size, size) flat_inputs -> (N,) probabilities that each die is not lying flat."""
        if len(inputs) == 0:
            return np.zeros(0, np.float32)
        return softmax(self._net.run(inputs).reshape(len(inputs), 2))[:, 1].astype(np.float32)


@cache
def flat_net() -> FlatNet:
    """The shared net (WEIGHTS), loaded on first use (never at import)."""
    return FlatNet(WEIGHTS)


@cache
def first_look_net() -> FlatNet:
    """The shared first look (FIRST_LOOK_WEIGHTS), loaded on first use (never at import)."""
    return FlatNet(FIRST_LOOK_WEIGHTS, "lying-flat first look")


@cache
def taught_flat_net() -> FlatNet:
    """The shared check for taught dice (TAUGHT_WEIGHTS), loaded on first use (never at import)."""
    return FlatNet(TAUGHT_WEIGHTS, "lying-flat check for taught dice")


def not_flat(work: np.ndarray, dice: list[LocatedDie], measured: Sequence[bool] | None = None,
             taught: bool = False) -> np.ndarray:
    """(N,) the probability that each located die of a work frame is not lying flat (cocked).

    measured: for each die, whether its probability must be the check's own; the others are given the first look's
    when it is sure they lie flat (under SURELY_FLAT: their exact value does not matter, only that it is under
    NOT_FLAT). None (the default): every die measured by the check, no first look. taught: the dice are a taught
    die's, every one measured by the check for taught dice (TAUGHT_WEIGHTS)."""
    if taught and measured is not None:
        raise ValueError("a taught die's every die is measured by its own check: no first look to spare some")
    inputs = flat_inputs(work, dice)
    if taught:
        return taught_flat_net().not_flat(inputs)
    if measured is None:
        return flat_net().not_flat(inputs)
    if len(measured) != len(dice):
        raise ValueError(f"measured gives {len(measured)} dice for {len(dice)} located")
    leaning = first_look_net().not_flat(inputs)
    again = np.flatnonzero(np.asarray(measured, bool) | (leaning >= SURELY_FLAT))
    if len(again):
        leaning[again] = flat_net().not_flat(inputs[again])
    return leaning
