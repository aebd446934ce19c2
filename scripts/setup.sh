#!/usr/bin/env bash
# Create .venv and install the companion with its dev tools. Idempotent: safe to run every time.
# On a Raspberry Pi the venv sees the system's site-packages, because picamera2 comes from apt
# (python3-picamera2), not from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    venv_flags=()
    if grep -qi "raspberry pi" /proc/device-tree/model 2>/dev/null; then
        venv_flags+=(--system-site-packages)
    fi
    "$PYTHON" -m venv "${venv_flags[@]}" .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml constraints.txt | sha1sum | cut -c1-12)
if [ ! -e "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -c constraints.txt -e '.[dev]'   # the tested versions: constraints.txt
    rm -f .venv/.installed-*
    touch "$stamp"
fi
