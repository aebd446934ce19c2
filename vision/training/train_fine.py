"""Train the fine face net (vision/weights/faces_fine.onnx; dev-only: needs torch) on the reader's own crops.

The reader's face nets read a die at CROP_SIZE (28 px); a die 40 px wide in the frame is shrunk to ~20 px there,
and the swirls of a marbled die with gold pips then look like pips. This net reads the same die cut at the same
margin but at CENTRE_SIZE (64 px: the crop the pip-layout checks fit), and it learns from the very crops the reader
cuts, boxes off-centre, parts of dice and all: `vision.training.die_log` logs of census kinds read on training seeds,
each die's crop with its true face (the die's label, whatever the reader made of it). The reader asks it whether a
face read sure is one it sees otherwise (vision.face_checks.with_fine_faces_checked), and which face a die left
unsure shows (with_colourful_faces_read_finely, session 59).

    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.train_fine LOG.npz [LOG.npz ...] --out faces_fine.onnx
        [--real PHOTOS_LOG.npz --real-repeats 4] [--epochs 7] [--threads 2]

Every tenth tray of each log (chosen by a seeded draw) is held out, and the accuracy on it printed after each
epoch. Each crop is shown turned by a quarter turn and maybe mirrored (no face of pips, 7 or X changes by either),
its bytes scaled and shifted a little (light). Real photos' dice (`--real`, a die log of the train split's photos
outside its validation photos) are shown `--real-repeats` times an epoch: they are the only dice not rendered.

The exported net takes (N, 3, CENTRE_SIZE, CENTRE_SIZE) float (the BGR crop standardised as
vision.recognise.crops_to_blob does) and gives "logits" (N, len(FINE_CLASSES)).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from torch import nn

from vision.centre_pip import CENTRE_SIZE
from vision.models import D6, EXCAPE
from vision.recognise import FINE_CLASSES, crops_to_blob
from vision.training.export import export_trunk

BATCH = 128
HELD_OUT = 10           # one tray in this many, per log, for the accuracy printed
# A log's labels are the built-in models' labels ("1".."7", "X"); the net's classes are their appearances.
APPEARANCE_OF = {face.label: face.appearance for model in (D6, EXCAPE) for face in model.faces}


def _block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]


class FineNet(nn.Module):
    """Four convolutions, each halving the crop (64 -> 4 px), then two dense layers: ~3.8 M multiply-adds a crop
    at 8-16-32-32 channels. The layout of the pips matters, so the last 4x4 cells are kept apart (no pooling
    over them)."""

    def __init__(self, widths: tuple[int, ...] = (8, 16, 32, 32)) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        channels = 3
        for width in widths:
            layers += _block(channels, width)
            channels = width
        self.features = nn.Sequential(*layers)
        side = CENTRE_SIZE >> len(widths)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(channels * side * side, 64), nn.ReLU(),
                                  nn.Linear(64, len(FINE_CLASSES)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The input is standardised already (crops_to_blob, in numpy as the reader does it): the trunk is all.
        return self.trunk(x)

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def load_logs(paths: list[str], repeats: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The logs' 64 px crops, their true faces (indices into FINE_CLASSES) and each die's tray as "log:tray" (a log
    given `repeats` times is its dice that many times, one tray name for all)."""
    crops, faces, trays = [], [], []
    for path, times in zip(paths, repeats, strict=True):
        log = np.load(path)
        unknown = sorted(set(log["label"]) - set(APPEARANCE_OF))
        if unknown:
            raise SystemExit(f"{path}: labels {unknown} are no face of the built-in models "
                             f"({', '.join(APPEARANCE_OF)}), which the fine net learns")
        for _ in range(times):
            crops.append(log["layout_crop"])
            faces.append(np.array([FINE_CLASSES.index(APPEARANCE_OF[label]) for label in log["label"]]))
            trays.append(np.array([f"{path}:{tray}" for tray in log["tray"]]))
    return np.concatenate(crops), np.concatenate(faces), np.concatenate(trays)


def views(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A batch turned by one quarter turn, maybe mirrored, its light changed: the same faces."""
    turned = np.rot90(crops, int(rng.integers(4)), axes=(1, 2))
    if rng.random() < 0.5:
        turned = turned[:, :, ::-1]
    lit = turned.astype(np.float32) * rng.uniform(0.8, 1.2) + rng.uniform(-20, 20)
    return np.clip(lit, 0, 255).astype(np.uint8)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs", nargs="+", help="die logs (vision.training.die_log) of rendered dice")
    parser.add_argument("--real", action="append", default=[], help="a die log of real photos")
    parser.add_argument("--real-repeats", type=int, default=4)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-torch", help="also save the torch weights here")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.real_repeats < 1:
        parser.error("--epochs and --real-repeats must be at least 1")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    repeats = [1] * len(args.logs) + [args.real_repeats] * len(args.real)
    crops, faces, trays = load_logs([*args.logs, *args.real], repeats)
    rng = np.random.default_rng(args.seed)
    names = np.unique(trays)
    held = np.isin(trays, rng.choice(names, len(names) // HELD_OUT, replace=False))
    print(f"dice: {int((~held).sum())} to learn from, {int(held.sum())} held out; per face",
          dict(zip(FINE_CLASSES, np.bincount(faces[~held], minlength=len(FINE_CLASSES)).tolist(), strict=True)))
    net = FineNet()
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    order = np.flatnonzero(~held)
    steps = len(order) // BATCH
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=args.epochs * steps)
    held_blob, held_faces = torch.from_numpy(crops_to_blob(crops[held])), faces[held]
    for epoch in range(args.epochs):
        net.train()
        rng.shuffle(order)
        started, total = time.time(), 0.0
        for step in range(steps):
            batch = order[step * BATCH:(step + 1) * BATCH]
            blob = torch.from_numpy(crops_to_blob(views(crops[batch], rng)))
            loss = nn.functional.cross_entropy(net(blob), torch.from_numpy(faces[batch]), label_smoothing=0.02)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        net.eval()
        with torch.no_grad():
            read = torch.cat([net(held_blob[k:k + 512]) for k in range(0, len(held_blob), 512)]).argmax(1).numpy()
        print(f"epoch {epoch + 1}: loss {total / steps:.4f}, held-out dice read right {np.mean(read == held_faces):.4f}"
              f" ({time.time() - started:.0f} s)", flush=True)
    if args.save_torch:
        torch.save(net.state_dict(), args.save_torch)
    export_trunk(net, (1, 3, CENTRE_SIZE, CENTRE_SIZE), args.out, "crops", ["logits"],
                 {"crops": {0: "n"}, "logits": {0: "n"}})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
