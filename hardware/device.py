"""What every device seam shares: `close()` (safe to call more than once) and use as a context manager."""

from __future__ import annotations

from typing import Self


class Device:
    """Base of the buttons, display, camera and signals seams."""

    def close(self) -> None:
        """Release the device's resources; safe to call more than once."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
