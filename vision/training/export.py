"""What every trainer shares about a net's input and its export (dev-only: needs torch).

Each net learns on its input brought to zero mean and unit contrast (`standardise`), but the ONNX file holds only
what comes after that step (the net's `trunk`): the reader standardises the input itself
(vision.recognise.crops_to_blob, the same sums). In the graph, that step (ReduceMean) is what OpenCV 4.x and
OpenCV 5's classic engine compute wrongly; out of it, each net can run on the engine fastest for it.
"""

from __future__ import annotations

import torch
from torch import nn


def standardise(x: torch.Tensor) -> torch.Tensor:
    """Each image of a batch (N, C, H, W) to zero mean and unit contrast over all its channels and pixels."""
    centred = x - x.mean(dim=(1, 2, 3), keepdim=True)
    return centred / torch.sqrt((centred * centred).mean(dim=(1, 2, 3), keepdim=True) + 1e-3)


class _Trunk(nn.Module):
    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        return self.net.trunk(x)


def export_trunk(net: nn.Module, input_shape: tuple[int, ...], out: str, input_name: str,
                 output_names: list[str], dynamic_axes: dict[str, dict[int, str]]) -> None:
    """Write the ONNX file of a trained net's trunk (its graph from the standardised input on), in eval mode."""
    net.eval()
    torch.onnx.export(_Trunk(net), torch.zeros(*input_shape), out, input_names=[input_name],
                      output_names=output_names, dynamic_axes=dynamic_axes, opset_version=13, dynamo=False,
                      do_constant_folding=True)
