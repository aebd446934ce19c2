"""The README is part of the product: its commands must be the ones CI runs, its pictures must exist and its
wiring table must be the one the code checks against the Pi header."""

import re
from pathlib import Path

from hardware.wiring import wiring_table_markdown

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_starts_with_the_setup_and_run_command_then_the_test_command():
    block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0].startswith("bash scripts/setup.sh && .venv/bin/dice-companion demo")
    assert block[1].split("#")[0].strip() == "bash scripts/test.sh"


def test_ci_runs_exactly_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert "exec bash scripts/test.sh" in ci


def test_every_picture_the_readme_shows_exists():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert pictures
    for picture in pictures:
        assert (REPO / picture).is_file(), picture


def test_wiring_table_matches_the_code():
    assert wiring_table_markdown().strip() in README
