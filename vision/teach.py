"""`dice-companion teach`: learn a user's own die from a few camera shots of each face, store it as a model file.

    dice-companion teach OUT.json --face LABEL IMAGE [IMAGE ...] --face LABEL IMAGE [IMAGE ...] ... [--name NAME]

Each shot shows the tray with one or more dice all showing the face LABEL up (any symbol: a numeral, an X, a
logo). The reader's locator finds the dice; each one's crop is kept (grey, at even contrast) as a look of that
face. `dice-companion read --dice OUT.json` then reads such dice by the kept crop they match best, in any quarter
turn (vision.recognise.template_scores). Each face needs 3 whole dice in its shots (MIN_LOOKS); more shots, in
different places and light, make the reading sure more often. Once written, each shot is read back by the looks the
other shots gave (read_back): how surely each face reads, and which faces look alike in these shots, is said.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field, replace

import numpy as np

from vision.flat import NOT_FLAT, not_flat
from vision.locate import WORK_WIDTH, LocatedDie, find_dice, to_work
from vision.models import DieKind, DieModel, Face, ModelError, save_model
from vision.read import (
    TAUGHT_SEEN_SIDES,
    WORK_WIDTHS,
    ReadError,
    checked_image,
    read_tray,
    rescaled,
    seen_off_size,
)
from vision.recognise import (
    TEMPLATE_FORMAT,
    TEMPLATE_SIZE,
    crop_die,
    face_templates,
    square_up_many,
)

# Each face needs this many whole dice in its shots: with fewer, a throw in another spot or light matches another
# face's looks better than its own (seen here: a J taught from 2 dice read, sure, as Q).
MIN_LOOKS = 3
TEACH_SURE_DIE = 0.5    # a die the locator sees less surely than this is not kept as a look


class TeachError(ModelError):
    """The shots given to `teach` cannot make a model."""


@dataclass(frozen=True)
class ShotDice:
    """One shot's whole dice lying flat: a TEMPLATE_SIZE crop of each (the looks it gives its face), and each one's side
    as a fraction of the shot's width."""

    crops: list[np.ndarray]
    sides: list[float]


def shot_dice(image: np.ndarray) -> ShotDice:
    """The whole dice lying flat in one shot, looked at at their scale: a shot whose dice the reader's work frame
    (WORK_WIDTH wide) shows off the taught sides (vision.read.TAUGHT_WORK_SIDES) is looked at again as read_tray reads
    a throw of them (vision.read.rescaled), so that the taught looks and the dice read later are cut at one scale.
    (Looked at 640 px wide only, card dice 30-36 px in 1280x960 shots gave 15-18 px crops, too few whole dice were
    found, and the die taught from them read 14% of its dice right; session 47.)"""
    image = checked_image(image)
    own = int(np.clip(image.shape[1], *WORK_WIDTHS))
    # Dice too small or too big for the locator at WORK_WIDTH are sought at the shot's own resolution, then at the
    # least width: they are measured where they are seen, and cut where the reader will read them.
    for width in dict.fromkeys((WORK_WIDTH, own, WORK_WIDTHS[0])):
        work, _ = to_work(image, width)
        dice = whole_dice(work)
        if dice:
            break
    if dice:
        width = rescaled(work.shape[1], float(np.median([c.side for c in dice])), image.shape[1], taught=True)
        if width != work.shape[1]:
            work, _ = to_work(image, width)
            dice = whole_dice(work)
    turns = square_up_many(work, [c.rect[0] for c in dice], [c.side for c in dice], [c.rect[2] for c in dice])
    crops = [crop_die(work, c.rect[0], c.side, turn, size=TEMPLATE_SIZE) for c, turn in zip(dice, turns, strict=True)]
    return ShotDice(crops, [c.side / work.shape[1] for c in dice])


def whole_dice(work: np.ndarray) -> list[LocatedDie]:
    """The dice of a work frame that may be taught from: whole, lying flat, and the size of the others."""
    # A taught look must be a whole die: not cut by the frame edge, surely a die (the locator knows dice by their
    # shape, whatever their faces show; the face classifier knows only pips, 7 and X), and the size of the others.
    # Nor leaning (a die cocked against the wall shows two faces: no look of either).
    # No faint peaks sought: every one is far below TEACH_SURE_DIE.
    dice = [c for c in find_dice(work, faint=None) if not c.touches_edge and c.probability >= TEACH_SURE_DIE]
    dice = [c for c, leaning in zip(dice, not_flat(work, dice, taught=True), strict=True) if leaning < NOT_FLAT]
    if not dice:
        return []
    median_side = float(np.median([c.side for c in dice]))
    return [c for c in dice if 0.8 * median_side <= c.side <= 1.25 * median_side]


# label -> for each of its shots, the whole dice in it (shot_dice)
ShotCrops = dict[str, list[ShotDice]]


def shot_crops(shots: dict[str, list[np.ndarray]]) -> ShotCrops:
    """Each shot's whole dice, by face label: what a model is taught from (model_from_crops), and what its shots are
    read back against (read_back)."""
    if len(shots) < 2:
        raise TeachError(f"a die needs at least 2 taught faces, got {len(shots)}")
    return {label: [shot_dice(image) for image in images] for label, images in shots.items()}


def teach_model(name: str, shots: dict[str, list[np.ndarray]]) -> DieModel:
    """A model whose faces are the labels of `shots` (label -> images showing that face up)."""
    return model_from_crops(name, shot_crops(shots))


def model_from_crops(name: str, crops: ShotCrops) -> DieModel:
    """A model whose faces are the labels of `crops` (shot_crops), each kept as the looks of its shots' dice."""
    looks: dict[str, tuple[tuple[float, ...], ...]] = {}
    faces = []
    for label, shots in crops.items():
        found = [crop for shot in shots for crop in shot.crops]
        if len(found) == 0:
            raise TeachError(f"no die found in the shots of face {label!r}: show the die on the tray, "
                             "whole and in focus, seen from above")
        if len(found) < MIN_LOOKS:
            raise TeachError(f"face {label!r}: only {len(found)} whole {'die' if len(found) == 1 else 'dice'} "
                             f"found in its shots, {MIN_LOOKS} needed: add shots of that face (dice flat, apart "
                             "from each other, whole in view)")
        appearance = f"taught:{label}"
        faces.append(Face(label=label, appearance=appearance))
        looks[appearance] = tuple(tuple(float(v) for v in row) for row in face_templates(np.stack(found)))
    sides = [side for shots in crops.values() for shot in shots for side in shot.sides]
    return DieModel(name=name, kinds=(DieKind(name=name, faces=tuple(faces)),), looks=looks,
                    embedder=TEMPLATE_FORMAT, side_fraction=float(np.median(sides)))


@dataclass(frozen=True)
class ReadBack:
    """A taught face's shots, each read by the looks the other shots gave (leave one shot out): a check of the shots
    (a weak face, faces alike, a shot under the wrong label), not a promise about the throws to come."""

    label: str
    dice: int                                       # dice found in the shots read back
    right: int                                      # read sure, as this face
    wrong: dict[str, int] = field(default_factory=dict)   # read sure as another face: its label -> how many
    shots_left: int = 0                             # shots not read back: the others give too few looks

    def line(self) -> str:
        said = f"{self.label}: {self.right} of {self.dice} sure and right"
        if self.wrong:
            said += ", " + ", ".join(f"{n} read as {other}" for other, n in sorted(self.wrong.items()))
        if self.shots_left:
            said += f" ({self.shots_left} shot{'s' if self.shots_left > 1 else ''} not read back: too few looks "
            said += "without it)"
        return said


def read_back(model: DieModel, shots: dict[str, list[np.ndarray]], taught_from: ShotCrops) -> list[ReadBack]:
    """Each shot read by `model` with that shot's own looks (`taught_from`: the shot_crops the model was taught
    from) left out: a die matches its own look at 1.0, so reading a shot with them says nothing. Faces whose looks
    match another face's show up as dice read as that face."""
    results = []
    for label, images in shots.items():
        appearance = f"taught:{label}"
        crops = taught_from[label]
        dice = right = left = 0
        wrong: dict[str, int] = {}
        for j, image in enumerate(images):
            others = [crop for k, shot in enumerate(crops) if k != j for crop in shot.crops]
            if len(others) < MIN_LOOKS:
                left += 1
                continue
            looks = tuple(tuple(float(v) for v in row) for row in face_templates(np.stack(others)))
            reading = read_tray(image, replace(model, looks={**model.looks, appearance: looks}))
            dice += len(reading.dice)
            right += sum(d.sure and d.face == label for d in reading.dice)
            for d in reading.dice:
                if d.sure and d.face != label:
                    wrong[d.face] = wrong.get(d.face, 0) + 1
        results.append(ReadBack(label, dice, right, wrong, left))
    return results


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dice-companion teach",
                                     description="Learn a custom die from camera shots of each face.")
    parser.add_argument("out", metavar="MODEL_FILE", help="where to write the model (JSON)")
    parser.add_argument("--face", nargs="+", action="append", required=True, metavar=("LABEL", "IMAGE"),
                        help="a face's label followed by one or more shots showing that face up")
    parser.add_argument("--name", help="the die's name (default: the model file's stem)")
    return parser


def main(argv: list[str]) -> int:
    from vision.cli import load_image

    args = _parser().parse_args(argv)
    groups: dict[str, list[str]] = {}
    for group in args.face:
        label, paths = group[0], group[1:]
        if not paths:
            raise TeachError(f"--face {label} needs at least one IMAGE after the label")
        if label in groups:
            raise TeachError(f"face {label!r} is given twice; put all its shots after one --face")
        groups[label] = paths
    shots: dict[str, list[np.ndarray]] = {}
    for label, paths in groups.items():
        images = []
        for path in paths:
            image = load_image(path)
            if isinstance(image, str):
                raise TeachError(f"{path}: {image}")
            try:
                checked_image(image)            # a thumbnail's upscaled blur once passed for a die
            except ReadError as error:
                raise TeachError(f"{path}: {error}") from error
            images.append(image)
        shots[label] = images
    name = args.name or args.out.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    crops = shot_crops(shots)
    model = model_from_crops(name, crops)
    save_model(model, args.out)
    counts = ", ".join(f"{f.label}: {len(model.looks[f.appearance])} dice" for f in model.faces)
    print(f"wrote {args.out}: die {name!r} with faces {counts}")
    width = int(np.median([image.shape[1] for images in shots.values() for image in images]))
    side = (model.side_fraction or 0.0) * width
    print(f"the dice are {side:.0f} px wide in these {width} px wide shots")
    # Judged as the table judges the dice it reads (vision.read.seen_off_size): one answer, before play and during.
    look = seen_off_size(side, width, taught=True)
    if look is not None:
        low, high = (bound * width / WORK_WIDTH for bound in TAUGHT_SEEN_SIDES)
        print(f"dice under {low:.0f} px wide in these shots are read less surely: bring the camera closer to the tray, "
              "and teach again" if look == "small" else
              f"dice over {high:.0f} px wide in these shots are read less surely: raise the camera higher above the "
              "tray, and teach again")
    checked = read_back(model, shots, crops)
    print("each shot read back by the looks of the others:")
    for result in checked:
        print(f"  {result.line()}")
    alike = sorted({" and ".join(sorted((r.label, other))) for r in checked for other in r.wrong})
    if alike:
        print(f"faces that look alike in these shots: {'; '.join(alike)}. The die may be read as the wrong face: "
              "add shots of those faces (other spots in the tray, the light as at play) and teach again")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
