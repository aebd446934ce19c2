"""constraints.txt, the versions a fresh install takes (scripts/setup.sh, systemd/install.sh): every dependency of
pyproject.toml is pinned there, to a version its own range admits, and the venv the tests run in holds those."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent


def _pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, pinned = line.partition("==")
        assert sep, f"constraints.txt: {line!r} is not an exact pin (name==version)"
        pins[canonicalize_name(name)] = pinned
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    listed = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return [Requirement(r) for r in listed]


def test_every_dependency_is_pinned_within_its_range() -> None:
    pins = _pins()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pins[name]}, outside pyproject.toml's {requirement.specifier}")


@pytest.mark.parametrize("requirement", _requirements(), ids=lambda r: r.name)
def test_the_venv_holds_the_pinned_versions(requirement: Requirement) -> None:
    try:
        installed = version(requirement.name)
    except PackageNotFoundError:
        pytest.fail(f"{requirement.name} is not installed: run scripts/setup.sh")
    assert installed == _pins()[canonicalize_name(requirement.name)], (
        f"{requirement.name} {installed} installed, constraints.txt pins another: run scripts/setup.sh")
