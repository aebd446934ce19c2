"""Importing the hardware seams loads no hardware library: each backend loads its own when it starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

HEAVY = ("gpiozero", "luma", "picamera2", "cv2", "smbus2", "termios")


def test_importing_every_hardware_module_loads_no_hardware_library() -> None:
    code = (
        "import sys\n"
        "import hardware, hardware.bench, hardware.buttons, hardware.camera, hardware.display, hardware.errors, "
        "hardware.gpio, hardware.signals, hardware.wiring\n"
        f"print(sorted({{name.split('.')[0] for name in sys.modules}} & set({HEAVY!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_hardware_errors_share_the_project_error_root() -> None:
    from companion.errors import DiceCompanionError
    from hardware.errors import HardwareError

    assert issubclass(HardwareError, DiceCompanionError)
