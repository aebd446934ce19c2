"""Train the dice locator (vision/weights/locator.onnx) on frames from locator_data; dev-only (needs torch).

The net marks each die's centre on a map STRIDE times coarser than its input, with the die's size and the
centre's offset within the cell ("objects as points", Zhou et al. 2019): a Gaussian bump per die is the target of
the centre map (focal loss), size and offset are learned at the centre cells only. Training reads random windows of
the frames, turned, mirrored, rescaled and recoloured; every 5th real photo and virtual tray is held out, and the
held-out frames' found rate (a peak within a third of a die of its centre) is printed each epoch.

    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.train_locator FRAMES.pkl [...] --out locator.onnx
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time

import cv2
import numpy as np
import torch
from torch import nn

from vision.locate import OUTPUTS, SIDE_UNIT, STRIDE, decode
from vision.training.export import export_trunk, standardise
from vision.training.photos import held_out_groups
from vision.training.train_faces import learning_rate

WINDOW = 160        # training window side, locator pixels (a fully convolutional net reads any size at run time)


def _conv(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


def _separable(channels: int, dilation: int) -> list[nn.Module]:
    # Depthwise 3x3 then pointwise: 6.5 times cheaper than a full 3x3 convolution at 24 channels.
    return [nn.Conv2d(channels, channels, 3, 1, dilation, dilation=dilation, groups=channels, bias=False),
            nn.BatchNorm2d(channels), nn.ReLU(),
            nn.Conv2d(channels, channels, 1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()]


class LocatorNet(nn.Module):
    def __init__(self, width: int = 24, stem: int = 8, dilations: tuple[int, ...] = (1, 2, 4, 1)) -> None:
        super().__init__()
        # Two halvings to the output's stride (4), then separable convolutions whose dilations reach past a die
        # (its outline, its neighbours, its shadow) without more halvings.
        self.body = nn.Sequential(*_conv(3, stem, 2), *_conv(stem, width, 2),
                                  *[m for d in dilations for m in _separable(width, d)])
        self.head = nn.Sequential(nn.Conv2d(width, width, 1), nn.ReLU(), nn.Conv2d(width, OUTPUTS, 1))
        self.head[-1].bias.data[0] = -4.0     # centres are rare: start the centre map near zero

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Each frame to zero mean and unit contrast: exposure and tray colour vary.
        return self.trunk(standardise(x))

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        """The net from the standardised frame on: what the ONNX file holds."""
        return self.head(self.body(x))


def _recolour(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = image.astype(np.float32)
    if rng.random() < 0.3:
        out = out[:, :, rng.permutation(3)]
    out = out * rng.uniform(0.6, 1.4) + rng.uniform(-40, 40)
    out += rng.normal(0, rng.uniform(0, 6), out.shape)
    if rng.random() < 0.2:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.2))
    return np.clip(out, 0, 255).astype(np.uint8)


def sample(frame: dict, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A WINDOW-square training window of a frame and its dice boxes (x, y, w, h, locator pixels)."""
    image, boxes = frame["image"], frame["boxes"].copy()
    scale = rng.uniform(0.8, 1.25)
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else
                       cv2.INTER_LINEAR)
    boxes *= scale
    h, w = image.shape[:2]
    if h < WINDOW or w < WINDOW:
        image = cv2.copyMakeBorder(image, 0, max(0, WINDOW - h), 0, max(0, WINDOW - w), cv2.BORDER_REFLECT)
        h, w = image.shape[:2]
    x0, y0 = int(rng.integers(0, w - WINDOW + 1)), int(rng.integers(0, h - WINDOW + 1))
    image = image[y0:y0 + WINDOW, x0:x0 + WINDOW]
    boxes[:, 0] -= x0
    boxes[:, 1] -= y0
    if rng.random() < 0.5:
        image = image[:, ::-1]
        boxes[:, 0] = WINDOW - boxes[:, 0] - boxes[:, 2]
    if rng.random() < 0.5:
        image = image[::-1]
        boxes[:, 1] = WINDOW - boxes[:, 1] - boxes[:, 3]
    if rng.random() < 0.5:
        image = image.transpose(1, 0, 2)
        boxes = boxes[:, [1, 0, 3, 2]]
    return _recolour(np.ascontiguousarray(image), rng), boxes


def targets(boxes: np.ndarray, cells: int, locator_scale: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre map (cells, cells) of Gaussian bumps, and per die centre cell the size and offset targets:
    (k, 2) cell indices (y, x) and (k, 3) values (log size, x offset, y offset)."""
    heat = np.zeros((cells, cells), np.float32)
    where, values = [], []
    ys, xs = np.mgrid[0:cells, 0:cells]
    for x, y, w, h in boxes:
        cx, cy = (x + w / 2) / STRIDE, (y + h / 2) / STRIDE
        if not (0 <= cx < cells and 0 <= cy < cells):
            continue
        side_cells = np.sqrt(w * h) / STRIDE
        sigma = max(0.6, side_cells / 6)
        heat = np.maximum(heat, np.exp(-((xs - cx + 0.5) ** 2 + (ys - cy + 0.5) ** 2) / (2 * sigma * sigma)))
        ix, iy = int(cx), int(cy)
        heat[iy, ix] = 1.0
        where.append((iy, ix))
        values.append((np.log(np.sqrt(w * h) / locator_scale / SIDE_UNIT), cx - ix, cy - iy))
    return heat, np.array(where, np.int64).reshape(-1, 2), np.array(values, np.float32).reshape(-1, 3)


def focal_loss(logits: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = heat >= 1.0
    positive = -torch.log(p) * (1 - p) ** 2
    negative = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4
    return (positive[centre].sum() + negative[~centre].sum()) / centre.sum().clamp(min=1)


def batch(frames: list[dict], picks: np.ndarray, rng: np.random.Generator):
    images, heats, where, values = [], [], [], []
    cells = WINDOW // STRIDE
    for k, i in enumerate(picks):
        image, boxes = sample(frames[i], rng)
        heat, w, v = targets(boxes, cells)
        images.append(image)
        heats.append(heat)
        where.append(np.column_stack([np.full(len(w), k), w]))
        values.append(v)
    x = torch.from_numpy(np.stack(images).transpose(0, 3, 1, 2).astype(np.float32) / 255.0)
    return x, torch.from_numpy(np.stack(heats)), torch.from_numpy(np.concatenate(where)), \
        torch.from_numpy(np.concatenate(values))


def found_rate(net: nn.Module, frames: list[dict]) -> str:
    """Held-out frames: the share of dice with a peak within a third of their side of their centre, and the false
    peaks."""
    net.eval()
    found = total = false = 0
    with torch.no_grad():
        for frame in frames:
            image = frame["image"]
            h, w = image.shape[:2]
            pad = cv2.copyMakeBorder(image, 0, -h % STRIDE, 0, -w % STRIDE, cv2.BORDER_REPLICATE)
            maps = net(torch.from_numpy(pad.transpose(2, 0, 1)[None].astype(np.float32) / 255.0))[0].numpy()
            spots = decode(maps, 1.0)
            centres = np.array([s.centre for s in spots]).reshape(-1, 2)
            used = set()
            for x, y, bw, bh in frame["boxes"]:
                total += 1
                if not len(centres):
                    continue
                d = np.hypot(centres[:, 0] - x - bw / 2, centres[:, 1] - y - bh / 2)
                j = int(np.argmin(d))
                if d[j] < np.sqrt(bw * bh) / 3 and j not in used:
                    used.add(j)
                    found += 1
            false += len(spots) - len(used)
    net.train()
    return f"{found / max(total, 1):.4f} of {total} ({false} false)"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("frames", nargs="+", help="pickles written by vision.training.locator_data")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=24)
    parser.add_argument("--steps", type=int, default=150, help="batches per epoch")
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--width", type=int, default=24, help="channels at the output's stride")
    parser.add_argument("--stem", type=int, default=8, help="channels of the first convolution")
    parser.add_argument("--dilations", default="1,2,4,1", help="dilations of the separable convolutions (reach)")
    parser.add_argument("--real-share", type=float, default=0.4, help="share of each batch from real photos")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--save-torch")
    parser.add_argument("--init", help="a net saved with --save-torch to start from (a fine-tune: its shape is kept, "
                        "--width, --stem and --dilations are ignored)")
    parser.add_argument("--lr", type=learning_rate, default=3e-3,
                        help="peak learning rate (a fine-tune wants less, ~1e-3)")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    frames = []
    for path in args.frames:
        with open(path, "rb") as f:
            frames += pickle.load(f)
    held = held_out_groups(np.array([f["group"] for f in frames]))
    real = np.array([f["source"] == "real" for f in frames])
    train_real, train_virtual = np.flatnonzero(real & ~held), np.flatnonzero(~real & ~held)
    val_real = [frames[i] for i in np.flatnonzero(real & held)]
    val_virtual = [frames[i] for i in np.flatnonzero(~real & held)][:150]
    print(f"training frames: {len(train_real)} real, {len(train_virtual)} virtual; held out {len(val_real)} real, "
          f"{len(val_virtual)} virtual", flush=True)
    dilations = tuple(int(d) for d in args.dilations.split(","))
    width, stem = args.width, args.stem
    if args.init:
        saved = torch.load(args.init)
        width, stem, dilations = saved["width"], saved["stem"], tuple(saved.get("dilations", dilations))
    net = LocatorNet(width, stem, dilations)
    if args.init:
        net.load_state_dict(saved["state"])
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.epochs * args.steps,
                                                   pct_start=0.1, anneal_strategy="cos")
    n_real = round(args.batch * args.real_share) if len(train_real) else 0
    for epoch in range(args.epochs):
        started, total = time.monotonic(), 0.0
        for _ in range(args.steps):
            picks = np.concatenate([rng.choice(train_real, n_real) if n_real else np.zeros(0, int),
                                    rng.choice(train_virtual, args.batch - n_real)])
            x, heat, where, values = batch(frames, picks, rng)
            out = net(x)
            loss = focal_loss(out[:, 0], heat)
            if len(where):
                at = out[where[:, 0], 1:, where[:, 1], where[:, 2]]
                loss = loss + nn.functional.l1_loss(at[:, 0], values[:, 0]) * 2 + \
                    nn.functional.l1_loss(at[:, 1:], values[:, 1:])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        report = ""
        if epoch % 3 == 2 or epoch == args.epochs - 1:
            report = f"  held out: real {found_rate(net, val_real)}; virtual {found_rate(net, val_virtual)}"
        print(f"epoch {epoch + 1}: loss {total / args.steps:.4f} ({time.monotonic() - started:.0f} s){report}",
              flush=True)
    net.eval()
    if args.save_torch:
        torch.save({"width": width, "stem": stem, "dilations": dilations, "state": net.state_dict()},
                   args.save_torch)
    export_trunk(net, (1, 3, 240, 320), args.out, "frame", ["maps"],
                 {"frame": {2: "h", 3: "w"}, "maps": {2: "h4", 3: "w4"}})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
