"""Loading the reader's nets: a missing or damaged weights file is a clear error naming the net, for every net."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.flat import FlatNet
from vision.locate import Locator
from vision.models import ModelError
from vision.recognise import FaceNet


@pytest.mark.parametrize(("net", "what"), [(Locator, "dice locator"), (FaceNet, "face classifier"),
                                           (FlatNet, "lying-flat check")])
def test_a_damaged_weights_file_is_a_clear_error_naming_the_net(tmp_path: Path, net: type, what: str) -> None:
    damaged = tmp_path / "net.onnx"
    damaged.write_bytes(b"\x08\x07half a download")
    with pytest.raises(ModelError, match=f"{what} weights unreadable: .*net.onnx is not a valid ONNX net"):
        net(damaged)
    with pytest.raises(ModelError, match=f"{what} weights missing"):
        net(tmp_path / "nowhere.onnx")
