"""Train the face classifier (dev-only: needs torch) and export it to ONNX for OpenCV's dnn module.

Data: patches from vision.training.extract_crops (the real photos' train split only) and, when given, patches
of virtual-tray renders (vision.training.render_crops). Excape's 7 and X never appear on the real photos, so
they are also synthesised from real dice: a 7 is a real 6 with a centre pip painted in the pips' colour, an X is
a real face whose pips are inpainted with the body colour and a diagonal cross painted on. Pip layouts are
centrally symmetric, so the centroid of the pip pixels is the face's centre on every face.

    /tmp/trainvenv/bin/python -m vision.training.train_faces PATCHES.npz [MORE.npz ...] --out vision/weights/faces.onnx

The exported net takes (N, 3, CROP_SIZE, CROP_SIZE) float BGR in 0..1 and gives "logits" (N, len(CLASSES))
and "embedding" (N, EMBED) (what `dice-companion teach` stores per taught face).
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np
import torch
from torch import nn

from vision.recognise import CLASSES, CROP_MARGIN, CROP_SIZE, EMBED
from vision.training.extract_crops import PATCH, PATCH_SPAN

DIE_PX = PATCH / PATCH_SPAN  # a die's side inside a patch


class FaceNet(nn.Module):
    def __init__(self, n_classes: int = len(CLASSES), embed: int = EMBED, widths: tuple[int, int, int] = (16, 32, 64)
                 ) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                                 nn.MaxPool2d(2))

        a, b, c = widths
        self.features = nn.Sequential(block(3, a), block(a, b), block(b, c))   # 28 -> 14 -> 7 -> 3
        self.embed = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(c * 3 * 3, embed), nn.ReLU())
        self.head = nn.Linear(embed, n_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        e = self.embed(self.features(x))
        return self.head(e), e


def _pip_mask(patch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Pixels of the pips on the die in the middle of a patch, the body colour and the pip colour."""
    c, r = PATCH // 2, int(DIE_PX * 0.42)
    inner = patch[c - r:c + r, c - r:c + r].reshape(-1, 3).astype(np.float32)
    body = np.median(inner, axis=0)
    dist = np.linalg.norm(patch.astype(np.float32) - body, axis=2)
    window = np.zeros(dist.shape, bool)
    window[c - r:c + r, c - r:c + r] = True
    threshold = max(float(np.percentile(dist[window], 85)), 40.0)
    mask = (dist > threshold) & window
    if mask.sum() < 4:
        return None
    pip = patch[mask].astype(np.float32).mean(axis=0)
    return mask, body, pip


def synth_seven(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    found = _pip_mask(patch)
    if found is None:
        return None
    mask, _, pip = found
    ys, xs = np.nonzero(mask)
    centre = (round(xs.mean() * 16), round(ys.mean() * 16))
    radius = round(DIE_PX * rng.uniform(0.075, 0.095) * 16)
    out = patch.copy()
    cv2.circle(out, centre, radius, tuple(float(v) for v in pip), -1, cv2.LINE_AA, 4)
    return out


def synth_cross(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    found = _pip_mask(patch)
    if found is None:
        return None
    mask, _, pip = found
    ys, xs = np.nonzero(mask)
    cx, cy = xs.mean(), ys.mean()
    out = cv2.inpaint(patch, cv2.dilate(mask.astype(np.uint8) * 255, np.ones((3, 3), np.uint8)), 3,
                      cv2.INPAINT_TELEA)
    half_face = DIE_PX / 2 * 0.85
    length, width = half_face * rng.uniform(0.55, 0.7), half_face * rng.uniform(0.1, 0.16)
    base = np.pi / 4 + rng.uniform(-0.12, 0.12)
    for angle in (base, base - np.pi / 2):
        along = np.array([np.cos(angle), np.sin(angle)])
        across = np.array([-along[1], along[0]])
        corners = [np.array([cx, cy]) + along * a * length + across * b * width
                   for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        cv2.fillConvexPoly(out, (np.array(corners) * 16).round().astype(np.int32), tuple(float(v) for v in pip),
                           cv2.LINE_AA, 4)
    return out


def augment(patch: np.ndarray, rng: np.random.Generator, off_centre: bool = False) -> np.ndarray:
    """A random CROP_SIZE crop of the die in the middle of a patch: quarter turns, jitter, light, blur, noise."""
    # Any turn: the detector's angle is only roughly the die's (shadows, perspective), so the net must not care.
    angle = rng.uniform(0, 360)
    side = DIE_PX * rng.uniform(0.88, 1.14)
    shift = rng.normal(0, 0.06, 2) * DIE_PX
    if off_centre:
        direction = rng.uniform(0, 2 * np.pi)
        shift = np.array([np.cos(direction), np.sin(direction)]) * rng.uniform(0.6, 0.9) * DIE_PX
    scale = CROP_SIZE / (side * CROP_MARGIN)
    matrix = cv2.getRotationMatrix2D((PATCH / 2, PATCH / 2), angle, scale)
    matrix[:, 2] += CROP_SIZE / 2 - PATCH / 2 - matrix[:, :2] @ shift
    crop = cv2.warpAffine(patch, matrix, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    crop = crop * rng.uniform(0.7, 1.25) + rng.uniform(-25, 25)
    crop = crop * (1 + rng.normal(0, 0.06, 3))    # white balance
    if rng.random() < 0.25:
        crop = cv2.GaussianBlur(crop, (3, 3), rng.uniform(0.3, 1.0))
    crop = crop + rng.normal(0, rng.uniform(0, 6), crop.shape)
    return np.clip(crop, 0, 255).astype(np.uint8)


def build_examples(files: list[str], rng: np.random.Generator, synth: bool = True) -> tuple[np.ndarray, np.ndarray]:
    patches, labels = [], []
    for name in files:
        data = np.load(name)
        patches.append(data["patches"])
        labels.append(data["labels"])
    all_patches = np.concatenate(patches)
    all_labels = np.concatenate(labels)
    names = [c.partition(":")[2] if ":" in c else c for c in CLASSES]
    to_class = {name: i for i, name in enumerate(names)}
    to_class["X"] = CLASSES.index("symbol:cross")
    out_p, out_y = [], []
    for patch, label in zip(all_patches, all_labels, strict=True):
        out_p.append(patch)
        out_y.append(to_class[str(label)])
        if synth and label == "6":
            for _ in range(2):
                seven = synth_seven(patch, rng)
                if seven is not None:
                    out_p.append(seven)
                    out_y.append(to_class["7"])
        if synth and label in ("1", "2", "3", "4", "5") and rng.random() < 0.4:
            cross = synth_cross(patch, rng)
            if cross is not None:
                out_p.append(cross)
                out_y.append(to_class["X"])
    out_y_arr = np.array(out_y, np.int64)
    # Keep "none" from swamping the faces: at most twice as many as the commonest face.
    none_class = CLASSES.index("none")
    cap = 2 * int(np.bincount(out_y_arr[out_y_arr != none_class]).max())
    none_idx = np.flatnonzero(out_y_arr == none_class)
    drop = set(rng.choice(none_idx, max(0, len(none_idx) - cap), replace=False).tolist())
    keep = [i for i in range(len(out_y_arr)) if i not in drop]
    return np.stack([out_p[i] for i in keep]), out_y_arr[keep]


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("patches", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-synth", action="store_true", help="no synthesised 7 and X faces")
    parser.add_argument("--widths", default="16,32,64", help="channels of the three conv blocks (speed vs accuracy)")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    patches, classes = build_examples(args.patches, rng, synth=not args.no_synth)
    print("examples per class:", dict(zip(CLASSES, np.bincount(classes, minlength=len(CLASSES)).tolist(),
                                          strict=True)))
    order = rng.permutation(len(classes))
    n_val = len(classes) // 10
    val, train = order[:n_val], order[n_val:]
    none_class = CLASSES.index("none")
    die_idx = train[classes[train] != none_class]

    net = FaceNet(widths=tuple(int(w) for w in args.widths.split(",")))
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps_per_epoch = (len(train) + len(die_idx) // 3) // 128 + 1
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=args.epochs * steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    val_x = to_tensor(np.stack([augment(patches[i], rng) for i in val]))
    val_y = torch.from_numpy(classes[val])
    for epoch in range(args.epochs):
        net.train()
        # Each epoch: every example once, plus off-centre views of dice as "none" (a half-die is no die).
        items = [(i, False) for i in rng.permutation(train)]
        items += [(i, True) for i in rng.choice(die_idx, len(die_idx) // 3, replace=False)]
        items = [items[k] for k in rng.permutation(len(items))]
        total = 0.0
        for start in range(0, len(items), 128):
            batch = items[start:start + 128]
            x = to_tensor(np.stack([augment(patches[i], rng, off) for i, off in batch]))
            y = torch.tensor([none_class if off else int(classes[i]) for i, off in batch])
            optimiser.zero_grad()
            logits, _ = net(x)
            loss = loss_fn(logits, y)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        net.eval()
        with torch.no_grad():
                predicted = net(val_x)[0].argmax(1)
        accuracy = float((predicted == val_y).float().mean())
        print(f"epoch {epoch + 1}: loss {total / len(items):.4f}  held-out accuracy {accuracy:.4f}", flush=True)
    confusion = np.zeros((len(CLASSES), len(CLASSES)), int)
    for t, p in zip(val_y.tolist(), predicted.tolist(), strict=True):
        confusion[t, p] += 1
    print("held-out confusion (rows: truth, columns: predicted, order as CLASSES):")
    print(confusion)

    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, CROP_SIZE, CROP_SIZE), args.out, input_names=["crops"],
                      output_names=["logits", "embedding"], dynamic_axes={"crops": {0: "n"}}, opset_version=13,
                      dynamo=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
