"""The 128×64 one-bit screen: the OLED through luma.oled, and twins (luma's dummy device, the terminal, GIFs).

Screens are drawn elsewhere on a PIL image in mode "1" (lit pixel = 1); a display only shows it, the way
luma separates drawing (canvas), chip (ssd1306/sh1106) and bus (I2C). Every backend checks the image first so a
wrongly sized screen fails loudly here, with the expected size and mode, instead of as a garbled panel.

- `OledDisplay`: SSD1306 or SH1106 over I2C (the wrong driver garbles the picture, so it is configuration),
  `persist=True` so the last screen stays up when the program exits.
- `DummyDisplay`: luma.core's `dummy` device; keeps the last `.image` and every frame for a GIF.
- `TerminalDisplay`: draws the screen in a terminal with half-blocks, braille or plain ASCII, redrawn in place.
- `save_gif(frames, path, ms_per_frame)`: frames scaled ×4 nearest-neighbour into an animated GIF.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from PIL import Image

from hardware.device import Device
from hardware.errors import HardwareError

OLED_SIZE: tuple[int, int] = (128, 64)
OLED_MODE = "1"
OLED_DRIVERS: tuple[str, ...] = ("ssd1306", "sh1106")
TERMINAL_STYLES: tuple[str, ...] = ("auto", "halfblock", "braille", "ascii")


def check_screen_image(image: object, size: tuple[int, int] = OLED_SIZE) -> Image.Image:
    """Return `image` if it is a PIL image of the screen's size in mode "1"; otherwise say what was expected."""
    if not isinstance(image, Image.Image):
        raise HardwareError(f"a screen must be a PIL image of {size[0]}×{size[1]} in mode '1', "
                            f"got {type(image).__name__}")
    if image.size != size:
        raise HardwareError(f"a screen must be {size[0]}×{size[1]} pixels, got {image.size[0]}×{image.size[1]}")
    if image.mode != OLED_MODE:
        raise HardwareError(f"a screen must be a one-bit image (mode '1'), got mode {image.mode!r}; "
                            "draw on Image.new('1', (128, 64)) or convert('1') first")
    return image


class Display(Device):
    """What the app shows screens on: `show(image)` a 128×64 mode-"1" PIL image, `close()` when done."""

    size: tuple[int, int] = OLED_SIZE

    def show(self, image: Image.Image) -> None:
        raise NotImplementedError


class OledDisplay(Display):
    """A real SSD1306/SH1106 128×64 OLED on I2C via luma.oled; the last screen stays lit after exit.

    `rotate` is luma's quarter turns; only 0 and 2 (upside-down mounting) keep the panel 128×64 wide.
    `bus` is for tests only: an smbus-like object replacing the real /dev/i2c-N bus.
    """

    def __init__(self, driver: str = "ssd1306", i2c_port: int = 1, i2c_address: int = 0x3C, rotate: int = 0,
                 *, bus: Any = None) -> None:
        if driver not in OLED_DRIVERS:
            raise HardwareError(f"unknown OLED driver {driver!r}; expected one of: {', '.join(OLED_DRIVERS)} "
                                "(a garbled or shifted picture usually means the other one)")
        if isinstance(i2c_port, bool) or not isinstance(i2c_port, int) or i2c_port < 0:
            raise HardwareError(f"i2c_port must be a bus number such as 1 (for /dev/i2c-1), got {i2c_port!r}")
        if isinstance(i2c_address, bool) or not isinstance(i2c_address, int) or not 0x03 <= i2c_address <= 0x77:
            raise HardwareError(f"i2c_address must be a 7-bit I2C address 0x03-0x77 such as 0x3C, got {i2c_address!r}")
        if rotate not in (0, 2):
            raise HardwareError(f"rotate must be 0 or 2 (half a turn, for a panel mounted upside down), got {rotate!r}")
        self.driver = driver
        self._closed = False

        import luma.core.error
        from luma.core.interface.serial import i2c
        from luma.oled import device as oled_devices

        where = f"{driver} OLED at address 0x{i2c_address:02X} on /dev/i2c-{i2c_port}"
        try:
            serial = i2c(bus=bus, port=i2c_port, address=i2c_address)
            self._device = getattr(oled_devices, driver)(serial, width=OLED_SIZE[0], height=OLED_SIZE[1],
                                                         rotate=rotate)
        except luma.core.error.DevicePermissionError as err:
            raise HardwareError(f"cannot open the {where}: permission denied ({err}); add the user to the 'i2c' "
                                "group (sudo adduser $USER i2c) and log in again") from err
        except luma.core.error.DeviceNotFoundError as err:
            raise HardwareError(f"cannot open the {where}: {err}. Enable I2C (sudo raspi-config → Interface "
                                "Options → I2C), check the wiring, and find the address with `i2cdetect -y "
                                f"{i2c_port}` (usually 0x3C or 0x3D)") from err
        except (luma.core.error.Error, OSError) as err:
            raise HardwareError(f"cannot open the {where}: {err}") from err
        # luma blanks the panel when the program exits unless told to persist: keep the last screen up.
        self._device.persist = True

    def show(self, image: Image.Image) -> None:
        check_screen_image(image)
        try:
            self._device.display(image)
        except OSError as err:
            raise HardwareError(f"the {self.driver} OLED stopped answering ({err}); check its wiring") from err

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # With persist set this only releases the I2C bus; the picture stays on the panel.
        self._device.cleanup()


class DummyDisplay(Display):
    """The display twin: luma.core's `dummy` device. `.image` is the last screen shown, `.frames` every screen.

    `record=False` keeps only the last image (long interactive runs); `frames` then stays empty.
    """

    def __init__(self, record: bool = True) -> None:
        from luma.core.device import dummy

        self._device = dummy(width=OLED_SIZE[0], height=OLED_SIZE[1], mode=OLED_MODE)
        self.record = record
        self.frames: list[Image.Image] = []

    @property
    def image(self) -> Image.Image | None:
        """The last screen shown (a copy held by the dummy device), or None before the first show()."""
        return self._device.image

    def show(self, image: Image.Image) -> None:
        check_screen_image(image)
        self._device.display(image)
        if self.record:
            self.frames.append(self._device.image.copy())


def _lit_pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("L"), dtype=np.uint8) > 127


def _render_pairs(lit: np.ndarray, glyphs: str) -> list[str]:
    """Two pixel rows per text row; glyphs[top + 2*bottom] draws each pair."""
    top, bottom = lit[0::2], lit[1::2]
    codes = top.astype(np.uint8) + 2 * bottom.astype(np.uint8)
    table = np.array(list(glyphs))
    return ["".join(row) for row in table[codes]]


# Bit of each dot in a braille cell (2 wide, 4 tall), per Unicode's U+2800 block layout.
_BRAILLE_BITS = np.array([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=np.uint16)


def _render_braille(lit: np.ndarray) -> list[str]:
    height, width = lit.shape
    cells = lit.reshape(height // 4, 4, width // 2, 2).transpose(0, 2, 1, 3)
    codes = (cells * _BRAILLE_BITS).sum(axis=(2, 3))
    return ["".join(" " if code == 0 else chr(0x2800 + int(code)) for code in row) for row in codes]


def render_text(image: Image.Image, style: str = "halfblock", border: bool = True) -> str:
    """The screen as text: "halfblock" (▀▄█, 128×32 characters), "braille" (64×16), or "ascii" ('.: , 128×32).

    A lit pixel is ink; a border shows where the panel ends.
    """
    check_screen_image(image)
    lit = _lit_pixels(image)
    if style == "halfblock":
        rows = _render_pairs(lit, " ▀▄█")
    elif style == "braille":
        rows = _render_braille(lit)
    elif style == "ascii":
        rows = _render_pairs(lit, " '.:")
    else:
        raise HardwareError(f"unknown terminal style {style!r}; expected one of: halfblock, braille, ascii")
    if not border:
        return "\n".join(rows)
    width = len(rows[0])
    if style == "ascii":
        edge = "+" + "-" * width + "+"
        return "\n".join([edge, *(f"|{row}|" for row in rows), edge])
    return "\n".join(["┌" + "─" * width + "┐", *(f"│{row}│" for row in rows), "└" + "─" * width + "┘"])


def _can_encode(stream: TextIO, text: str) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def choose_terminal_style(stream: TextIO) -> str:
    """Half-blocks when the terminal is wide enough (130 columns), braille when not, ASCII without Unicode."""
    if not _can_encode(stream, "▀▄█┌─┐│└┘⣿"):
        return "ascii"
    columns = shutil.get_terminal_size(fallback=(80, 24)).columns
    return "halfblock" if columns >= OLED_SIZE[0] + 2 else "braille"


class TerminalDisplay(Display):
    """The OLED twin for an interactive run: each screen drawn as text in the terminal, redrawn in place.

    `style` "auto" picks half-blocks, braille or ASCII from the terminal's width and encoding. `in_place`
    (default: whether the stream is a terminal) moves the cursor back up to overwrite the previous screen;
    otherwise screens are printed one after another. A screen identical to the last one is not redrawn.
    """

    def __init__(self, stream: TextIO | None = None, style: str = "auto", in_place: bool | None = None) -> None:
        if style not in TERMINAL_STYLES:
            raise HardwareError(f"unknown terminal style {style!r}; expected one of: {', '.join(TERMINAL_STYLES)}")
        self.stream: TextIO = sys.stdout if stream is None else stream
        self.style = choose_terminal_style(self.stream) if style == "auto" else style
        if in_place is None:
            isatty = getattr(self.stream, "isatty", None)
            in_place = bool(isatty and isatty())
        self.in_place = in_place
        self._last_text: str | None = None
        self._lines_drawn = 0

    def show(self, image: Image.Image) -> None:
        text = render_text(image, self.style)
        if text == self._last_text:
            return
        if self.in_place and self._lines_drawn:
            # Cursor up to the first line of the previous screen; each new line overwrites an old one fully.
            self.stream.write(f"\x1b[{self._lines_drawn}A\r")
        self.stream.write(text + "\n")
        self.stream.flush()
        self._last_text = text
        self._lines_drawn = text.count("\n") + 1

    def close(self) -> None:
        self.stream.flush()


def save_gif(frames: Iterable[Image.Image], path: str | Path, ms_per_frame: int | Sequence[int] = 500,
             scale: int = 4) -> Path:
    """Write screens as an animated, looping GIF, each pixel scaled `scale`× (nearest) so it is viewable.

    `ms_per_frame` is one duration for all frames or one per frame. Pillow merges identical consecutive frames
    into one frame shown for their summed time, which keeps long games small. Returns the path written.
    """
    images = list(frames)
    if not images:
        raise HardwareError("save_gif needs at least one frame; nothing was shown")
    for index, image in enumerate(images):
        if not isinstance(image, Image.Image):
            raise HardwareError(f"frame {index} is a {type(image).__name__}, expected a PIL image")
        if image.size != images[0].size:
            raise HardwareError(f"all frames must be the same size: frame 0 is {images[0].size[0]}×"
                                f"{images[0].size[1]}, frame {index} is {image.size[0]}×{image.size[1]}")
    if isinstance(scale, bool) or not isinstance(scale, int) or scale < 1:
        raise HardwareError(f"scale must be a whole number >= 1, got {scale!r}")
    durations = [ms_per_frame] * len(images) if isinstance(ms_per_frame, int) else list(ms_per_frame)
    if len(durations) != len(images):
        raise HardwareError(f"got {len(durations)} frame durations for {len(images)} frames; expected one each")
    if any(isinstance(ms, bool) or not isinstance(ms, int) or ms < 10 for ms in durations):
        raise HardwareError(f"frame durations must be whole milliseconds >= 10 (GIF timing is in 10 ms steps), "
                            f"got {ms_per_frame!r}")
    target = Path(path)
    if not target.parent.is_dir():
        raise HardwareError(f"cannot write the GIF {target}: folder {target.parent} does not exist")
    width, height = images[0].size
    scaled = [image.convert("L").resize((width * scale, height * scale), Image.Resampling.NEAREST)
              for image in images]
    try:
        scaled[0].save(target, format="GIF", save_all=True, append_images=scaled[1:], duration=durations, loop=0)
    except OSError as err:
        raise HardwareError(f"cannot write the GIF {target}: {err}") from err
    return target
