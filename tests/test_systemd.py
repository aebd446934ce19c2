"""The appliance files: the unit starts the installed command with the shipped config, and the installer's
steps are complete (checked with DRY_RUN, since this is not a Pi)."""

import configparser
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "dice-companion.service"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read(UNIT)
    return parser


def test_unit_runs_the_companion_with_the_installed_config():
    service = _unit()["Service"]
    assert service["ExecStart"].split() == [
        "/opt/dice-companion/.venv/bin/dice-companion", "run", "--config", "/etc/dice-companion/config.toml"]
    assert service["Restart"] == "always"
    assert service["Type"] == "notify" and int(service["WatchdogSec"]) > 0
    assert service["StateDirectory"] == "dice-companion"  # = the default journal directory in config.toml
    assert service["StandardOutput"] == "journal"


def test_installer_dry_run_lists_every_step():
    env = {**os.environ, "DRY_RUN": "1"}
    out = subprocess.run(["bash", str(REPO / "systemd" / "install.sh")], env=env, check=True,
                         capture_output=True, text=True).stdout
    for step in ("apt-get install -y python3-venv python3-picamera2", "venv --system-site-packages",
                 f"pip install --quiet -c {REPO / 'constraints.txt'} /opt/dice-companion", "dice-companion.service",
                 "systemctl enable --now dice-companion.service"):
        assert step in out, step


def test_sdnotify_is_silent_outside_systemd(monkeypatch):
    from companion.sdnotify import notify

    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False


def test_sdnotify_sends_a_datagram(tmp_path, monkeypatch):
    import socket

    from companion.sdnotify import notify

    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert notify("WATCHDOG=1") is True
        assert server.recv(64) == b"WATCHDOG=1"
