"""Shared test fixtures.

`shared_photos` points at the read-only real-photo set beside the checkout (../shared/data/tray-d6-photos);
tests that need it skip cleanly when a user cloned the project without it. The few photos the suite always
needs are copied into tests/data/ with their licence.

Property tests run under a hypothesis profile named by HYPOTHESIS_PROFILE: "ci" by default (derandomized, so
the suite passes or fails the same on every machine and run), "explore" for scripts/explore.sh (random draws,
every failure printed with the blob that reproduces it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from budget import examples
from hypothesis import HealthCheck, settings

from vision.training.photos import DEFAULT_PHOTOS

# No deadline and no too-slow health check: CI's machine may be slower than the one a test was written on, and a
# property test is about what the code does, not how fast (speed lives in the benchmarks).
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "database": None, "print_blob": True}
settings.register_profile("ci", derandomize=True, **_UNTIMED)
settings.register_profile("explore", derandomize=False, max_examples=examples(100), **_UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent
TEST_DATA = REPO / "tests" / "data"
# The tools' one spelling of where the shared photos lie beside the checkout (the bench and training tools use it).
SHARED_PHOTOS = DEFAULT_PHOTOS


@pytest.fixture
def shared_photos() -> Path:
    if not (SHARED_PHOTOS / "split_test.txt").is_file():
        pytest.skip("../shared/data/tray-d6-photos is not present beside this checkout")
    return SHARED_PHOTOS


@pytest.fixture
def test_data() -> Path:
    return TEST_DATA


@pytest.fixture
def factory() -> Iterator[object]:
    """A fresh gpiozero MockFactory (pins tests drive with drive_low/drive_high), closed afterwards."""
    from gpiozero.pins.mock import MockFactory  # tests only: the package itself never imports gpiozero eagerly

    mock_factory = MockFactory()
    yield mock_factory
    mock_factory.reset()
    mock_factory.close()


@pytest.fixture
def sides_asked(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """The die_side each call of vision.read.read_tray is given from now on (the dice's side a table remembers:
    vision.dice_sides), in order; the reads themselves as they are."""
    import vision.read

    asked: list[float | None] = []
    read_tray = vision.read.read_tray

    def recording(*args: Any, die_side: float | None = None, **kwargs: Any) -> Any:
        asked.append(die_side)
        return read_tray(*args, die_side=die_side, **kwargs)

    monkeypatch.setattr(vision.read, "read_tray", recording)
    return asked


@pytest.fixture
def shown(tmp_path: Path) -> Any:
    """`shown(reading)`: a fresh Mex game's controller, on the twin display, once it has been given `reading` (a
    NotAThrow or a tray reading); its last_screen and notice are what the players see."""
    from companion.controller import Controller
    from companion.journal import Journal
    from companion.rules import GameSetup
    from hardware.display import DummyDisplay

    def show(reading: Any) -> Controller:
        controller = Controller(Journal(tmp_path / "shown-journal"), GameSetup("mex", ("Ann", "Bob")),
                                display=DummyDisplay())
        controller.start()
        controller.on_reading(reading)
        return controller

    return show
