"""Opening gpiozero devices the same way for every part, so a machine without GPIO gets one clear explanation.

gpiozero tries several pin libraries in turn and only warns about each failure before giving up with
"Unable to load any default pin factory!". Here those warnings are gathered into a single HardwareError that
names the part, the pin and what to do (install lgpio on a Pi, or use the twins elsewhere).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from hardware.errors import HardwareError


def _explain(err: Exception, fallbacks: list[str], what: str) -> HardwareError:
    from gpiozero.exc import BadPinFactory

    if isinstance(err, BadPinFactory):
        tried = f" (tried: {'; '.join(fallbacks)})" if fallbacks else ""
        return HardwareError(
            f"cannot open {what}: no GPIO pin library could start{tried}. On a Raspberry Pi install lgpio "
            "(python3-lgpio); elsewhere run with the twins (--twin), or set GPIOZERO_PIN_FACTORY=mock to test.")
    return HardwareError(f"cannot open {what}: {err}")


def open_gpio_device(construct: Callable[[], Any], what: str) -> Any:
    """Call `construct()` (a gpiozero device constructor); turn any gpiozero failure into a HardwareError.

    `what` names the part for the message, e.g. "the stop button on BCM pin 17".
    """
    from gpiozero.exc import GPIOZeroError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return construct()
        except GPIOZeroError as err:
            raise _explain(err, [str(w.message) for w in caught], what) from err
