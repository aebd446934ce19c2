"""Train the lying-flat check (vision/flat.py; dev-only: needs torch) and export it to ONNX for OpenCV's dnn.

Data: vision.training.flat_data crops (real photos' train split and virtual trays), every 5th photo / tray held
out (`photos.held_out_groups`). Each epoch shows every die once, cocked dice several times over (they are fewer),
each turned by a quarter turn, maybe mirrored (the ramp plane turns with it), shifted and rescaled a little (the
locator's centre and size are off by a pixel or two), its light and colour changed. Real photos' dice weigh
more: they are what a table's camera sees, and the only flat dice not rendered.

    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.train_flat A.npz [B.npz ...] --out flat.onnx
        [--widths 24,48,96] [--init SAVED.pt] [--teacher SAVED.pt --distil-weight 0.5]

--teacher distils: a smaller check learns the trusted one's answers on the same crops beside the labels (session 21
tried 12-24-48 to 24-32-64 nets so; vision/training/README.md has what they cost).

The exported net takes (N, 4, FLAT_CROP_SIZE, FLAT_CROP_SIZE) float (the BGR crop standardised as
vision.recognise.crops_to_blob does, then the ramp) and gives "logits" (N, 2): lying flat, not lying flat.
"""

from __future__ import annotations

import argparse
import sys
import time

import cv2
import numpy as np
import torch
from torch import nn

from vision.flat import FLAT_CROP_SIZE
from vision.training.export import export_trunk, standardise
from vision.training.flat_data import CUT_FOR, PATCH
from vision.training.photos import held_out_groups
from vision.training.train_faces import distillation_loss, learning_rate, relight

COCKED_REPEATS = 3      # each cocked die is shown this many times an epoch (about 1 die in 6 is cocked)
REAL_REPEATS = 3        # and each die of a photo this many times
# With --teacher: the teacher's answers soften at this temperature (two classes: a gentle one keeps how sure it was).
DISTIL_TEMPERATURE = 2.0


class FlatNet(nn.Module):
    def __init__(self, widths: tuple[int, int, int] = (24, 48, 96), size: int = FLAT_CROP_SIZE) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))

        a, b, c = widths
        self.features = nn.Sequential(block(4, a), block(a, b), block(b, c))
        side = size // 8
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(c * side * side, 64), nn.ReLU(),
                                  nn.Linear(64, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The colour crop to zero mean and unit contrast (a cocked die is a shape, whatever its colour or the
        # light); the ramp plane as it is.
        colour, position = x[:, :3], x[:, 3:]
        return self.trunk(torch.cat([standardise(colour), position], dim=1))

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        """The net from the standardised crop (and its ramp) on: what the ONNX file holds."""
        return self.head(self.features(x))


def augment(crop: np.ndarray, ramp: np.ndarray, rng: np.random.Generator, size: int = FLAT_CROP_SIZE
            ) -> np.ndarray:
    """A (4, size, size) input from a PATCH crop and its ramp: turned, mirrored, shifted, rescaled, recoloured."""
    scale = rng.uniform(0.9, 1.1)       # the draws in the order the committed check was trained with
    angle = 90.0 * int(rng.integers(4)) + rng.normal(0, 3)
    out = _cut_input(crop, ramp, size, angle, scale, rng.normal(0, 1.0, 2))
    if rng.random() < 0.5:
        out = out[:, ::-1]
    colour = np.clip(relight(np.ascontiguousarray(out[..., :3]), rng), 0, 255) / 255.0
    return np.dstack([colour, out[..., 3:]]).transpose(2, 0, 1)


def centred(crop: np.ndarray, ramp: np.ndarray, size: int = FLAT_CROP_SIZE) -> np.ndarray:
    """The input the reader gives the net: the middle of the patch, as cut, at the net's size."""
    out = _cut_input(crop, ramp, size, 0.0, 1.0, np.zeros(2))
    return np.dstack([out[..., :3] / 255.0, out[..., 3:]]).transpose(2, 0, 1)


def _cut_input(crop: np.ndarray, ramp: np.ndarray, size: int, angle: float, scale: float, shift: np.ndarray
               ) -> np.ndarray:
    """(size, size, 4) float32: the patch's middle (colour 0..255, then the ramp) turned by `angle` degrees, scaled
    by `scale` and shifted by `shift` px, at the scale of a `size` px crop (the patches are cut for CUT_FOR px)."""
    stacked = np.dstack([crop.astype(np.float32), ramp.astype(np.float32)])
    matrix = cv2.getRotationMatrix2D((PATCH / 2, PATCH / 2), angle, scale * size / CUT_FOR)
    matrix[:, 2] += size / 2 - PATCH / 2 + shift
    return cv2.warpAffine(stacked, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def widths(text: str) -> tuple[int, int, int]:
    """The three conv blocks' channels, from text such as "24,48,96"."""
    try:
        a, b, c = (int(w) for w in text.split(","))
    except ValueError as error:
        raise SystemExit(f"widths must be three whole numbers, as 24,48,96; got {text!r}") from error
    return a, b, c


def load_weights(net: FlatNet, path: str, option: str) -> None:
    """Weights saved with --save-torch into a net of the same widths."""
    try:
        net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    except (OSError, RuntimeError) as error:
        raise SystemExit(f"{option}: cannot load {path}: {error}") from error


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("crops", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--lr", type=learning_rate, default=3e-3, help="peak learning rate")
    parser.add_argument("--widths", default="24,48,96", help="channels of the three conv blocks")
    parser.add_argument("--size", type=int, default=FLAT_CROP_SIZE, help="the net's input side in pixels (a "
                        "multiple of 8; vision.flat.FLAT_CROP_SIZE must match it to run the net, and an --init or "
                        "--teacher check must have been trained at it: the teacher sees the student's crops)")
    parser.add_argument("--save-torch", help="also save the trained net's weights")
    parser.add_argument("--init", help="weights saved with --save-torch to start from (a fine-tune; same --widths)")
    parser.add_argument("--teacher", help="a check saved with --save-torch: the net also learns its answers on the "
                        "same crops (distillation), so a smaller, faster check decides as the trusted one does")
    parser.add_argument("--teacher-widths", default="24,48,96", help="the --teacher's --widths")
    parser.add_argument("--distil-weight", type=float, default=0.5,
                        help="share of the loss from the teacher's soft answers (the rest: the labels)")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        raise SystemExit(f"--epochs must be at least 1, got {args.epochs}")
    if args.size < 8 or args.size % 8:
        raise SystemExit(f"--size must be a multiple of 8 (three halvings), got {args.size}")
    if not 0 <= args.distil_weight <= 1:
        raise SystemExit(f"--distil-weight must be within 0..1, got {args.distil_weight}")

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    parts = [np.load(path) for path in args.crops]
    crops = np.concatenate([p["crops"] for p in parts])
    ramps = np.concatenate([p["ramps"] for p in parts])
    labels = np.concatenate([p["labels"] for p in parts])
    groups = np.concatenate([p["groups"] for p in parts])
    real = np.concatenate([p["real"] for p in parts])
    held = held_out_groups(groups)
    train, val = np.flatnonzero(~held), np.flatnonzero(held)
    print(f"{len(train)} training dice ({labels[train].sum()} not flat, {real[train].sum()} real), "
          f"{len(val)} held out ({labels[val].sum()} not flat, {real[val].sum()} real)")
    repeats = np.where(labels[train] == 1, COCKED_REPEATS, np.where(real[train], REAL_REPEATS, 1))
    epoch_items = np.repeat(train, repeats)

    net = FlatNet(widths(args.widths), args.size)
    if args.init:
        load_weights(net, args.init, "--init")
    teacher = None
    if args.teacher:
        teacher = FlatNet(widths(args.teacher_widths), args.size)
        load_weights(teacher, args.teacher, "--teacher")
        teacher.eval()
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    steps_per_epoch = len(epoch_items) // 128 + 1
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.epochs * steps_per_epoch,
                                                   pct_start=0.1, anneal_strategy="cos")
    loss_fn = nn.CrossEntropyLoss()
    val_x = torch.from_numpy(np.stack([centred(crops[i], ramps[i], args.size) for i in val]))
    val_y = labels[val]
    for epoch in range(args.epochs):
        started = time.monotonic()
        net.train()
        order = rng.permutation(epoch_items)
        total = 0.0
        for start in range(0, len(order), 128):
            batch = order[start:start + 128]
            x = torch.from_numpy(np.stack([augment(crops[i], ramps[i], rng, args.size) for i in batch])
                                 .astype(np.float32))
            y = torch.from_numpy(labels[batch])
            optimiser.zero_grad()
            logits = net(x)
            loss = loss_fn(logits, y)
            if teacher is not None:
                with torch.no_grad():
                    teacher_logits = teacher(x)
                loss = (1 - args.distil_weight) * loss + args.distil_weight * distillation_loss(
                    logits, teacher_logits, DISTIL_TEMPERATURE)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        net.eval()
        with torch.no_grad():
            p = torch.softmax(net(val_x), 1)[:, 1].numpy()
        flat_real, flat_virtual, cocked = p[(val_y == 0) & real[val]], p[(val_y == 0) & ~real[val]], p[val_y == 1]
        bar = float(np.quantile(np.concatenate([flat_real, flat_virtual]), 0.995))
        print(f"epoch {epoch + 1}: loss {total / len(order):.4f}  held out: cocked caught at p 0.5 "
              f"{np.mean(cocked >= 0.5):.3f}, flat called cocked real {np.mean(flat_real >= 0.5):.4f} virtual "
              f"{np.mean(flat_virtual >= 0.5):.4f}; at the bar calling 0.5% of flat dice cocked ({bar:.3f}): "
              f"cocked caught {np.mean(cocked >= bar):.3f}  ({time.monotonic() - started:.0f} s)", flush=True)
    if args.save_torch:
        torch.save(net.state_dict(), args.save_torch)
    export_trunk(net, (1, 4, args.size, args.size), args.out, "dice", ["logits"], {"dice": {0: "n"}})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
