"""Speed figures for the hardware twins, printed rather than asserted (timed unit tests are flaky by nature).

What matters: the twins must not slow a scripted game or the demo (a frame per read, a screen per event, a GIF
of a whole game), and the still camera's sensor noise must stay cheap at the Pi camera's size.
Run `python -m hardware.bench`; `companion.bench` may call `hardware_figures()` and print them with its own.
"""

from __future__ import annotations

import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw


def _per_call_ms(action: Callable[[], object], repeats: int) -> float:
    action()  # warm up: first calls pay for imports and allocation
    start = time.perf_counter()
    for _ in range(repeats):
        action()
    return (time.perf_counter() - start) * 1000 / repeats


def _sample_screen(index: int) -> Image.Image:
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 127, 63), outline=1)
    draw.text((8, 8 + index % 40), f"throw {index}", fill=1)
    return image


def hardware_figures(repeats: int = 50) -> dict[str, float]:
    """Milliseconds per operation of each twin, measured here and now."""
    from hardware.buttons import ButtonTwin
    from hardware.camera import StillCamera
    from hardware.display import DummyDisplay, TerminalDisplay, render_text, save_gif

    figures: dict[str, float] = {}
    for width, height in ((640, 480), (1280, 960)):
        camera = StillCamera(size=(width, height))
        camera.show(np.full((height, width, 3), 200, dtype=np.uint8))
        figures[f"StillCamera.read {width}x{height} ms"] = _per_call_ms(camera.read, repeats)
    screens = [_sample_screen(index) for index in range(repeats)]
    dummy = DummyDisplay()
    figures["DummyDisplay.show ms"] = _per_call_ms(lambda: dummy.show(screens[len(dummy.frames) % repeats]), repeats)
    for style in ("halfblock", "braille"):
        figures[f"render_text {style} ms"] = _per_call_ms(lambda style=style: render_text(screens[0], style), repeats)
    terminal = TerminalDisplay(io.StringIO(), style="halfblock", in_place=True)
    counter = iter(range(10**9))
    figures["TerminalDisplay.show ms"] = _per_call_ms(lambda: terminal.show(screens[next(counter) % repeats]),
                                                      repeats)
    with ButtonTwin() as twin:
        figures["ButtonTwin.press ms"] = _per_call_ms(lambda: twin.press("stop"), repeats)
        twin.drain()
    with tempfile.TemporaryDirectory() as folder:
        gif_frames = screens * 4
        start = time.perf_counter()
        path = save_gif(gif_frames, Path(folder) / "bench.gif", ms_per_frame=300)
        figures[f"save_gif {len(gif_frames)} frames ms"] = (time.perf_counter() - start) * 1000
        figures[f"save_gif {len(gif_frames)} frames kB"] = path.stat().st_size / 1024
    return figures


def main(argv: list[str] | None = None) -> int:
    for name, value in hardware_figures().items():
        print(f"{name:<36} {value:9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
