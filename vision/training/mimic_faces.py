"""Train a smaller face net to give a committed one's answers (dev-only: needs torch), and export it to ONNX.

The reader's rules were chosen on the committed nets' outputs, so a net trained on the labels again (or distilled at
a softened temperature) reads otherwise where those rules look: sessions 14 and 41 found such nets, smaller or not,
reading more dice wrong on the tuning battery. A student here learns the committed net's very logits on the crops
the reader gives it (vision.training.face_inputs: `harvest`, then `teach`), each crop in any of its eight views: the
loss is the KL divergence from the teacher's softmax at temperature 1 (the probabilities the reader's bars are set
on), plus a little of the squared logit error (MIMIC_LOGIT_WEIGHT) so classes far from likely keep their order.

A tenth of the crops (HELD_OUT, drawn by a fixed seed) is never trained on; after each epoch the student is compared
with the teacher there: the best class, and whether each is near certain (QUICK_CERTAIN, the cascade's bar).

    PYTHONPATH=. /tmp/trainvenv/bin/python -m vision.training.mimic_faces /tmp/quick.npz --widths 8,16,32 \\
        --convs 1,1,2 --epochs 24 --out /tmp/quick_student.onnx
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from vision.recognise import CROP_SIZE, QUICK_CERTAIN, crops_to_blob
from vision.training.export import export_trunk
from vision.training.face_inputs import VIEWS, views
from vision.training.train_faces import FaceNet

MIMIC_LOGIT_WEIGHT = 0.02
HELD_OUT = 0.1
BATCH = 256


def agreement(student: np.ndarray, teacher: np.ndarray) -> str:
    """How alike two nets' logits (N, classes) are, said in a line."""
    ps, pt = (torch.softmax(torch.from_numpy(x), 1).numpy() for x in (student, teacher))
    sure_s, sure_t = ps.max(1) >= QUICK_CERTAIN, pt.max(1) >= QUICK_CERTAIN
    apart = np.abs(ps - pt).max(1)
    return (f"best class the same {np.mean(ps.argmax(1) == pt.argmax(1)):.4f}, near certain alike "
            f"{np.mean(sure_s == sure_t):.4f} (student only {np.mean(sure_s & ~sure_t):.4f}, teacher only "
            f"{np.mean(sure_t & ~sure_s):.4f}), both near certain of other classes "
            f"{np.sum(sure_s & sure_t & (ps.argmax(1) != pt.argmax(1)))}, |p - p'| mean {apart.mean():.4f}, "
            f"99th percentile {np.percentile(apart, 99):.3f}")


def train(crops: np.ndarray, logits: np.ndarray, net: FaceNet, epochs: int, per_epoch: int, lr: float,
          seed: int = 0) -> None:
    """Train `net` in place to give `logits` (VIEWS, N, classes) on `crops` (N, h, w, 3) in their views."""
    rng = np.random.default_rng(seed)
    held_out = rng.random(len(crops)) < HELD_OUT
    trained = np.flatnonzero(~held_out)
    held_blob = torch.from_numpy(crops_to_blob(crops[held_out]))
    per_epoch = min(per_epoch, len(trained) * VIEWS)
    if per_epoch < BATCH:
        raise SystemExit(f"{len(trained)} crops to train on, {VIEWS} views each: fewer than a batch ({BATCH}); "
                         "harvest more")
    steps = max(1, epochs * (per_epoch // BATCH))
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.1)
    for epoch in range(epochs):
        start, losses = time.time(), []
        order = rng.permutation(len(trained) * VIEWS)[:per_epoch]
        net.train()
        for first in range(0, per_epoch - BATCH + 1, BATCH):
            pick = order[first:first + BATCH]
            view, index = pick % VIEWS, trained[pick // VIEWS]
            batch = np.empty((len(pick), *crops.shape[1:]), crops.dtype)
            for v in range(VIEWS):
                chosen = view == v
                batch[chosen] = views(crops[index[chosen]], v)
            target = torch.from_numpy(logits[view, index])
            out = net.trunk(torch.from_numpy(crops_to_blob(batch)))[0]
            loss = nn.functional.kl_div(torch.log_softmax(out, 1), torch.log_softmax(target, 1), log_target=True,
                                        reduction="batchmean") + MIMIC_LOGIT_WEIGHT * ((out - target) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            losses.append(loss.item())
        net.eval()
        with torch.no_grad():
            student = torch.cat([net.trunk(held_blob[k:k + 2048])[0] for k in range(0, len(held_blob), 2048)])
        print(f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}, {time.time() - start:.0f} s; held out: "
              f"{agreement(student.numpy(), logits[0][held_out])}", flush=True)


def _three(text: str) -> tuple[int, int, int]:
    values = tuple(int(v) for v in text.split(","))
    if len(values) != 3 or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected three positive numbers, e.g. 8,16,32; got {text!r}")
    return values  # type: ignore[return-value]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("taught", type=Path, help="crops and a committed net's logits (face_inputs teach)")
    parser.add_argument("--widths", type=_three, required=True, help="the student's three blocks' channels")
    parser.add_argument("--convs", type=_three, required=True, help="convolutions in each of its blocks")
    parser.add_argument("--epochs", type=int, default=24)
    parser.add_argument("--per-epoch", type=int, default=400_000, help="crop views an epoch")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one cycle)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the student's ONNX file (and .pt beside it)")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.per_epoch < BATCH:
        parser.error(f"--epochs must be at least 1 and --per-epoch at least {BATCH}")
    torch.set_num_threads(args.threads)
    taught = np.load(args.taught)
    crops, logits = taught["crops"], taught["logits"]
    net = FaceNet(n_classes=logits.shape[2], widths=args.widths, convs=args.convs)
    print(f"{len(crops)} crops; student {args.widths} {args.convs}, {sum(p.numel() for p in net.parameters())} "
          "parameters", flush=True)
    train(crops, logits, net, args.epochs, args.per_epoch, args.lr)
    torch.save(net.state_dict(), args.out.with_suffix(".pt"))
    export_trunk(net, (1, 3, CROP_SIZE, CROP_SIZE), str(args.out), "crops", ["logits", "embedding"],
                 {"crops": {0: "n"}})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
