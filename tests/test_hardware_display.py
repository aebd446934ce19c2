"""Display seam: the dummy twin keeps what was shown, terminal rendering, GIFs, the OLED over a fake I2C bus."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from hardware.display import (
    DummyDisplay,
    OledDisplay,
    TerminalDisplay,
    check_screen_image,
    render_text,
    save_gif,
)
from hardware.errors import HardwareError


def screen(*lit: tuple[int, int]) -> Image.Image:
    image = Image.new("1", (128, 64))
    for xy in lit:
        image.putpixel(xy, 1)
    return image


def drawn_screen(text: str) -> Image.Image:
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 127, 63), outline=1)
    draw.text((6, 6), text, fill=1)
    return image


class FakeI2CBus:
    """Stands in for smbus2.SMBus: records what luma sends (mode 0x00 = command, 0x40 = display data)."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, int, list[int]]] = []

    def write_i2c_block_data(self, address: int, mode: int, data: list[int]) -> None:
        self.writes.append((address, mode, list(data)))

    def data_bytes(self) -> list[int]:
        return [byte for _, mode, data in self.writes if mode == 0x40 for byte in data]


def test_dummy_display_keeps_exactly_the_last_image_and_every_frame() -> None:
    first, second = drawn_screen("63"), drawn_screen("MEXX!")
    display = DummyDisplay()
    assert display.image is None
    display.show(first)
    display.show(second)
    assert display.image is not None
    assert display.image.tobytes() == second.tobytes()
    assert [frame.tobytes() for frame in display.frames] == [first.tobytes(), second.tobytes()]
    second.putpixel((64, 32), 1)  # later drawing on the caller's image must not change what was recorded
    assert display.frames[1].getpixel((64, 32)) == 0
    display.close()


def test_dummy_display_without_recording_keeps_only_the_last_image() -> None:
    display = DummyDisplay(record=False)
    display.show(drawn_screen("54"))
    assert display.frames == []
    assert display.image is not None


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        (Image.new("1", (128, 32)), "must be 128×64 pixels, got 128×32"),
        (Image.new("L", (128, 64)), "mode '1'.*got mode 'L'"),
        ("screen.png", "PIL image of 128×64 in mode '1', got str"),
    ],
)
def test_wrong_images_are_refused_with_what_was_expected(image: object, expected: str) -> None:
    with pytest.raises(HardwareError, match=expected):
        check_screen_image(image)
    with pytest.raises(HardwareError, match=expected):
        DummyDisplay().show(image)  # type: ignore[arg-type]


def test_halfblock_rendering_of_known_pixels() -> None:
    lines = render_text(screen((0, 0), (1, 1), (2, 0), (2, 1), (127, 63)), "halfblock", border=False).splitlines()
    assert len(lines) == 32
    assert all(len(line) == 128 for line in lines)
    assert lines[0][:4] == "▀▄█ "
    assert lines[31][-1] == "▄"
    assert sum(char != " " for line in lines for char in line) == 4


def test_braille_rendering_of_known_pixels() -> None:
    lines = render_text(screen((0, 0), (1, 3), (2, 0), (3, 0), (3, 1), (3, 2), (3, 3)), "braille",
                        border=False).splitlines()
    assert (len(lines), len(lines[0])) == (16, 64)
    assert lines[0][0] == chr(0x2800 + 0x01 + 0x80)  # top-left dot, bottom-right dot
    assert lines[0][1] == chr(0x2800 + 0x01 + 0x08 + 0x10 + 0x20 + 0x80)  # left top + whole right column
    assert lines[0][2:].strip() == ""


def test_ascii_fallback_and_border() -> None:
    text = render_text(screen((0, 0), (0, 1), (5, 1)), "ascii")
    lines = text.splitlines()
    assert lines[0] == "+" + "-" * 128 + "+"
    assert lines[1].startswith("|:    .") and lines[1].endswith("|")
    assert len(lines) == 34
    text.encode("ascii")  # must not need Unicode


def test_terminal_display_redraws_in_place_and_skips_repeats() -> None:
    out = io.StringIO()
    display = TerminalDisplay(out, style="halfblock", in_place=True)
    display.show(screen((0, 0)))
    first = out.getvalue()
    assert first.count("\n") == 34 and "\x1b[" not in first
    display.show(screen((0, 0)))
    assert out.getvalue() == first  # same screen: nothing written
    display.show(screen((1, 0)))
    redraw = out.getvalue()[len(first):]
    assert redraw.startswith("\x1b[34A\r")
    assert redraw.split("\n")[1] == "│ ▀" + " " * 126 + "│"


def test_terminal_display_on_a_pipe_prints_screens_one_after_another() -> None:
    out = io.StringIO()
    display = TerminalDisplay(out, style="ascii")
    assert not display.in_place
    display.show(screen((0, 0)))
    display.show(screen((9, 9)))
    assert "\x1b" not in out.getvalue()
    assert out.getvalue().count("+" + "-" * 128 + "+") == 4


def test_terminal_auto_style_falls_back_to_ascii_without_unicode() -> None:
    ascii_stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert TerminalDisplay(ascii_stream).style == "ascii"
    with pytest.raises(HardwareError, match="unknown terminal style 'sixel'"):
        TerminalDisplay(io.StringIO(), style="sixel")


def test_gif_is_written_scaled_and_readable(tmp_path: Path) -> None:
    frames = [screen((0, 0)), screen((127, 63)), drawn_screen("70")]
    path = save_gif(frames, tmp_path / "game.gif", ms_per_frame=[200, 300, 1000])
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.size == (512, 256)
        assert gif.n_frames == 3
        assert gif.info["loop"] == 0
        gif.seek(1)
        assert gif.info["duration"] == 300
        pixels = gif.convert("L")
        assert pixels.getpixel((511, 255)) == 255 and pixels.getpixel((508, 252)) == 255  # 4×4 block
        assert pixels.getpixel((507, 251)) == 0 and pixels.getpixel((0, 0)) == 0
        gif.seek(2)
        expected = frames[2].convert("L").resize((512, 256), Image.Resampling.NEAREST)
        assert gif.convert("L").tobytes() == expected.tobytes()


def test_gif_errors_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(HardwareError, match="at least one frame"):
        save_gif([], tmp_path / "empty.gif")
    with pytest.raises(HardwareError, match="does not exist"):
        save_gif([screen()], tmp_path / "missing" / "x.gif")
    with pytest.raises(HardwareError, match="2 frame durations for 1 frames"):
        save_gif([screen()], tmp_path / "x.gif", ms_per_frame=[100, 100])
    with pytest.raises(HardwareError, match="same size"):
        save_gif([screen(), Image.new("1", (10, 10))], tmp_path / "x.gif")


# luma.oled 3.16 still calls Image.getdata, which Pillow 13 deprecates; that is theirs to change, not a failure.
LUMA_GETDATA = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")


@LUMA_GETDATA
@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_oled_sends_the_whole_screen_over_i2c_and_stays_lit_on_close(driver: str) -> None:
    bus = FakeI2CBus()
    oled = OledDisplay(driver, i2c_address=0x3D, bus=bus)
    assert {address for address, _, _ in bus.writes} == {0x3D}
    bus.writes.clear()
    lit = Image.new("1", (128, 64), 1)
    oled.show(lit)
    assert bus.data_bytes() == [0xFF] * 1024  # 128 columns × 8 pages, every pixel on
    sent_before_close = len(bus.writes)
    oled.close()
    oled.close()
    assert len(bus.writes) == sent_before_close  # persist: no display-off or clear at close


@LUMA_GETDATA
def test_oled_upside_down_rotates_the_picture() -> None:
    bus = FakeI2CBus()
    oled = OledDisplay("ssd1306", rotate=2, bus=bus)
    bus.writes.clear()
    oled.show(screen((0, 0)))  # top-left pixel lands in the last column of the last page, bottom bit
    data = bus.data_bytes()
    assert data[-1] == 0x80 and sum(data) == 0x80


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"driver": "ssd1309"}, "unknown OLED driver 'ssd1309'"),
        ({"i2c_address": 0x100}, "7-bit I2C address"),
        ({"rotate": 1}, "rotate must be 0 or 2"),
        ({"i2c_port": -1}, "i2c_port must be a bus number"),
    ],
)
def test_oled_settings_are_checked(kwargs: dict[str, object], expected: str) -> None:
    with pytest.raises(HardwareError, match=expected):
        OledDisplay(bus=FakeI2CBus(), **kwargs)  # type: ignore[arg-type]


@pytest.mark.skipif(Path("/dev/i2c-7").exists(), reason="this machine has an I2C bus 7")
def test_oled_without_an_i2c_bus_says_how_to_enable_it() -> None:
    with pytest.raises(HardwareError, match=r"/dev/i2c-7.*Enable I2C"):
        OledDisplay(i2c_port=7)
