"""Train the face classifier (dev-only: needs torch) and export it to ONNX for OpenCV's dnn module.

Data: patches from vision.training.extract_crops (the real photos' train split only) and, when given, patches
of virtual-tray renders (vision.training.render_crops). Excape's 7 and X never appear on the real photos, so
they are also synthesised from real dice: a 7 is a real 6 with a centre pip painted in the pips' colour, an X is
a real face whose pips are inpainted with the body colour and a diagonal cross painted on. Pip layouts are
centrally symmetric, so the centroid of the pip pixels is the face's centre on every face.

    /tmp/trainvenv/bin/python -m vision.training.train_faces PATCHES.npz [MORE.npz ...] --out vision/weights/faces.onnx

The exported net takes (N, 3, CROP_SIZE, CROP_SIZE) float BGR crops, each standardised
(vision.recognise.crops_to_blob: 0..1 pixels to zero mean and unit contrast), and gives "logits" (N, len(CLASSES))
and "embedding" (N, EMBED), its last hidden layer (the reader uses only the logits).
"""

from __future__ import annotations

import argparse
import sys
import time

import cv2
import numpy as np
import torch
from torch import nn

from vision.recognise import CLASSES, CROP_MARGIN, CROP_SIZE, EMBED
from vision.training.export import export_trunk, standardise
from vision.training.extract_crops import DIE_PX, PATCH, centred_crop
from vision.training.photos import held_out_groups

DISTIL_TEMPERATURE = 3.0   # softens the teacher's outputs so the student also learns which faces look alike


def learning_rate(text: str) -> float:
    """argparse type of --lr: a positive number."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive learning rate, got {text}")
    return value


class FaceNet(nn.Module):
    def __init__(self, n_classes: int = len(CLASSES), embed: int = EMBED, widths: tuple[int, int, int] = (32, 64, 128),
                 crop_size: int = CROP_SIZE, convs: tuple[int, int, int] = (1, 2, 2)) -> None:
        super().__init__()

        def block(cin: int, cout: int, n: int) -> nn.Sequential:
            # BatchNorm right after the conv: the ONNX export folds it into the conv's weights (no cost at run time).
            layers: list[nn.Module] = []
            for k in range(n):
                layers += [nn.Conv2d(cin if k == 0 else cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
            return nn.Sequential(*layers, nn.MaxPool2d(2))

        a, b, c = widths
        # three halvings, e.g. 32 -> 4
        self.features = nn.Sequential(block(3, a, convs[0]), block(a, b, convs[1]), block(b, c, convs[2]))
        side = crop_size // 8   # three poolings, each rounding down (28 -> 14 -> 7 -> 3)
        self.embed = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(c * side * side, embed), nn.ReLU())
        self.head = nn.Linear(embed, n_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Each crop to zero mean and unit contrast: a die's pips are a pattern of contrast, whatever the dice
        # colour, tray or exposure, so a small net need not learn every brightness.
        return self.trunk(standardise(x))

    def trunk(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The net from the standardised crops on: what the ONNX file holds (vision.training.export)."""
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


# Views of a die that are no die to the classifier ("none"), besides the die itself ("whole"): "off_centre", cut
# 0.6-0.9 of its side away (half a die); "part", cut PART_SIDES of its side wide around a point of its face (one
# pip of a 2 or two of a 4 boxed alone, as the locator boxes a dark die on dark felt: read as a sure 1 or 2, the
# wrong throw the reader's lone-pip checks exist for).
VIEWS = ("whole", "off_centre", "part")
PART_SIDES = (0.4, 0.62)


def augment(patch: np.ndarray, rng: np.random.Generator, view: str = "whole",
            crop_size: int = CROP_SIZE, aligned: bool = False) -> np.ndarray:
    """A random crop_size crop of the die in the middle of a patch, as `view` (VIEWS): a turn, jitter, light,
    colour, blur, noise.

    Any turn by default: the reader's angle is only roughly the die's (shadows, perspective), and on held-out
    real dice nets trained so read better than nets trained on quarter turns and a few degrees (`aligned`).
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {VIEWS}")
    angle = 90 * int(rng.integers(4)) + rng.normal(0, 7) if aligned else rng.uniform(0, 360)
    side = DIE_PX * rng.uniform(0.85, 1.17)
    shift = rng.normal(0, 0.06, 2) * DIE_PX
    if view == "off_centre":
        direction = rng.uniform(0, 2 * np.pi)
        shift = np.array([np.cos(direction), np.sin(direction)]) * rng.uniform(0.6, 0.9) * DIE_PX
    elif view == "part":
        side = DIE_PX * rng.uniform(*PART_SIDES)
        direction = rng.uniform(0, 2 * np.pi)
        shift = np.array([np.cos(direction), np.sin(direction)]) * rng.uniform(0.2, 0.4) * DIE_PX
    scale = crop_size / (side * CROP_MARGIN)
    matrix = cv2.getRotationMatrix2D((PATCH / 2, PATCH / 2), angle, scale)
    matrix[:, 2] += crop_size / 2 - PATCH / 2 - matrix[:, :2] @ shift
    crop = cv2.warpAffine(patch, matrix, (crop_size, crop_size), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return np.clip(relight(crop, rng), 0, 255).astype(np.uint8)


def relight(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A float BGR crop (0..255) under other light: contrast, exposure, white balance, focus, sensor noise."""
    mean = crop.mean()
    crop = (crop - mean) * rng.uniform(0.7, 1.3) + mean      # contrast
    crop = crop * rng.uniform(0.65, 1.3) + rng.uniform(-30, 30)   # exposure
    crop = crop * (1 + rng.normal(0, 0.08, 3))    # white balance / hue cast
    if rng.random() < 0.3:
        crop = cv2.GaussianBlur(crop, (3, 3), rng.uniform(0.3, 1.1))
    return crop + rng.normal(0, rng.uniform(0, 7), crop.shape)


def build_examples(files: list[str], rng: np.random.Generator, synth: bool = True, val_every: int = 5
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Patches, their class indices, and whether each is held out for validation (synthesised faces follow the
    photo they were made from)."""
    patches, labels, held = [], [], []
    for name in files:
        data = np.load(name)
        if "groups" not in data:
            raise SystemExit(f"{name} has no 'groups' (photo or tray of each patch): cut it again with "
                             "extract_crops / render_crops")
        patches.append(data["patches"])
        labels.append(data["labels"])
        held.append(held_out_groups(data["groups"], val_every))
    all_patches = np.concatenate(patches)
    all_labels = np.concatenate(labels)
    all_held = np.concatenate(held)
    if all_patches.shape[1] != PATCH:
        raise SystemExit(f"patches are {all_patches.shape[1]} px, expected {PATCH}: cut them again")
    names = [c.partition(":")[2] if ":" in c else c for c in CLASSES]
    to_class = {name: i for i, name in enumerate(names)}
    to_class["X"] = CLASSES.index("symbol:cross")
    out_p, out_y, out_held = [], [], []
    for patch, label, is_held in zip(all_patches, all_labels, all_held, strict=True):
        made = [(patch, to_class[str(label)])]
        if synth and label == "6":
            for _ in range(2):
                seven = synth_seven(patch, rng)
                if seven is not None:
                    made.append((seven, to_class["7"]))
        if synth and label in ("1", "2", "3", "4", "5") and rng.random() < 0.4:
            cross = synth_cross(patch, rng)
            if cross is not None:
                made.append((cross, to_class["X"]))
        for p, y in made:
            out_p.append(p)
            out_y.append(y)
            out_held.append(bool(is_held))
    out_y_arr = np.array(out_y, np.int64)
    # Keep "none" from swamping the faces: at most twice as many as the commonest face.
    none_class = CLASSES.index("none")
    cap = 2 * int(np.bincount(out_y_arr[out_y_arr != none_class]).max())
    none_idx = np.flatnonzero(out_y_arr == none_class)
    drop = set(rng.choice(none_idx, max(0, len(none_idx) - cap), replace=False).tolist())
    keep = [i for i in range(len(out_y_arr)) if i not in drop]
    return np.stack([out_p[i] for i in keep]), out_y_arr[keep], np.array(out_held)[keep]


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0)


def load_saved(path: str, crop_size: int) -> tuple[FaceNet, dict]:
    """A net saved by --save-torch, in eval mode (its BatchNorm statistics fixed, no dropout), and its shape."""
    saved = torch.load(path, weights_only=False)
    if not isinstance(saved, dict) or set(saved) != {"shape", "state"}:
        raise SystemExit(f"{path} is not a net saved by train_faces --save-torch (expected its shape and state)")
    if saved["shape"]["crop_size"] != crop_size:
        raise SystemExit(f"the net {path} takes {saved['shape']['crop_size']} px crops, this one {crop_size}")
    # Nets saved before the standardisation left the graph record that they used it; none is trained without it now.
    shape = {key: value for key, value in saved["shape"].items() if key != "standardise"}
    if not saved["shape"].get("standardise", True):
        raise SystemExit(f"{path} was trained on raw pixels; the reader standardises every crop")
    net = FaceNet(**shape)
    net.load_state_dict(saved["state"])
    return net.eval(), shape


def distillation_loss(logits: torch.Tensor, teacher_logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """KL divergence from the teacher's softened outputs on the same crops to the student's (Hinton et al.), times
    temperature squared so its gradients keep the size of the label loss's whatever the temperature."""
    soft = torch.softmax(teacher_logits.detach() / temperature, dim=1)
    student = torch.log_softmax(logits / temperature, dim=1)
    return nn.functional.kl_div(student, soft, reduction="batchmean") * temperature * temperature


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("patches", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-synth", action="store_true", help="no synthesised 7 and X faces")
    parser.add_argument("--widths", default="32,64,128", help="channels of the three conv blocks (speed vs accuracy)")
    parser.add_argument("--val-every", type=int, default=5, help="hold out every N-th photo / tray for validation")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--convs", default="1,2,2", help="convolutions in each of the three blocks")
    parser.add_argument("--aligned", action="store_true", help="train on crops turned by quarter turns and a few "
                        "degrees, not any angle")
    parser.add_argument("--teacher", help="a trained net saved with --save-torch: the student also learns its soft "
                        "outputs on the same crops (distillation), so a small net learns what the big one knows")
    parser.add_argument("--distil-weight", type=float, default=0.5,
                        help="share of the loss from the teacher's soft outputs (the rest: the labels)")
    parser.add_argument("--temperature", type=float, default=DISTIL_TEMPERATURE,
                        help="softmax temperature of teacher and student in the distillation loss")
    parser.add_argument("--save-torch", help="also save the trained net (shape and weights) for use as a --teacher")
    parser.add_argument("--init", help="a net saved with --save-torch to start from (a fine-tune: its shape is kept, "
                        "--widths and --convs are ignored)")
    parser.add_argument("--lr", type=learning_rate, default=3e-3,
                        help="peak learning rate (a fine-tune wants less, ~1e-3)")
    parser.add_argument("--parts", type=float, default=0.0,
                        help="each epoch, this share of the dice again as a part of the die (VIEWS: 'part'), as no die")
    parser.add_argument("--crop-size", type=int, default=CROP_SIZE,
                        help="input side in px; the reader's vision.recognise.CROP_SIZE must match the committed net")
    args = parser.parse_args(argv)
    crop_size = args.crop_size
    if crop_size < 16:
        raise SystemExit(f"--crop-size must be at least 16 px (three halvings), got {crop_size}")
    if not 0 <= args.distil_weight <= 1:
        raise SystemExit(f"--distil-weight must be within 0..1, got {args.distil_weight}")
    if not 0 <= args.parts <= 1:
        raise SystemExit(f"--parts must be within 0..1, got {args.parts}")

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    patches, classes, held = build_examples(args.patches, rng, synth=not args.no_synth, val_every=args.val_every)
    print("examples per class:", dict(zip(CLASSES, np.bincount(classes, minlength=len(CLASSES)).tolist(),
                                          strict=True)))
    val, train = np.flatnonzero(held), rng.permutation(np.flatnonzero(~held))
    print(f"{len(train)} training examples, {len(val)} held out (every {args.val_every}th photo / tray)")
    none_class = CLASSES.index("none")
    die_idx = train[classes[train] != none_class]

    shape = {"widths": tuple(int(w) for w in args.widths.split(",")), "convs": tuple(int(c) for c in
             args.convs.split(",")), "crop_size": crop_size}
    if args.init:
        net, shape = load_saved(args.init, crop_size)
        net.train()     # its weights, to train on
    else:
        net = FaceNet(**shape)
    teacher = load_saved(args.teacher, crop_size)[0] if args.teacher else None
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    steps_per_epoch = (len(train) + len(die_idx) // 3 + round(len(die_idx) * args.parts)) // 128 + 1
    # One cycle: a short warm-up, then a cosine decay to almost nothing.
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.epochs * steps_per_epoch,
                                                   pct_start=0.1, anneal_strategy="cos")
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    # Validation crops are cut as the reader cuts them (centred, upright), so the figure is the reader's.
    val_x = to_tensor(np.stack([centred_crop(patches[i], crop_size) for i in val]))
    val_y = torch.from_numpy(classes[val])
    for epoch in range(args.epochs):
        started = time.monotonic()
        net.train()
        # Each epoch: every example once, plus off-centre views of dice as "none" (a half-die is no die), and with
        # --parts, parts of dice too.
        items = [(i, "whole") for i in rng.permutation(train)]
        items += [(i, "off_centre") for i in rng.choice(die_idx, len(die_idx) // 3, replace=False)]
        items += [(i, "part") for i in rng.choice(die_idx, round(len(die_idx) * args.parts), replace=False)]
        items = [items[k] for k in rng.permutation(len(items))]
        total = 0.0
        for start in range(0, len(items), 128):
            batch = items[start:start + 128]
            x = to_tensor(np.stack([augment(patches[i], rng, view, crop_size, args.aligned) for i, view in batch]))
            y = torch.tensor([int(classes[i]) if view == "whole" else none_class for i, view in batch])
            optimiser.zero_grad()
            logits, _ = net(x)
            loss = loss_fn(logits, y)
            if teacher is not None:
                with torch.no_grad():
                    teacher_logits = teacher(x)[0]
                loss = (1 - args.distil_weight) * loss + args.distil_weight * distillation_loss(
                    logits, teacher_logits, args.temperature)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        net.eval()
        with torch.no_grad():
            predicted = net(val_x)[0].argmax(1)
        accuracy = float((predicted == val_y).float().mean())
        print(f"epoch {epoch + 1}: loss {total / len(items):.4f}  validation accuracy {accuracy:.4f}  "
              f"({time.monotonic() - started:.0f} s)", flush=True)
    confusion = np.zeros((len(CLASSES), len(CLASSES)), int)
    for t, p in zip(val_y.tolist(), predicted.tolist(), strict=True):
        confusion[t, p] += 1
    print("validation confusion (rows: truth, columns: predicted, order as CLASSES):")
    print(confusion)

    net.eval()
    if args.save_torch:
        torch.save({"shape": shape, "state": net.state_dict()}, args.save_torch)
    export_trunk(net, (1, 3, crop_size, crop_size), args.out, "crops", ["logits", "embedding"], {"crops": {0: "n"}})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
