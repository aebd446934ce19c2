#!/usr/bin/env bash
# Install Dice Companion as an appliance on Raspberry Pi OS (64-bit, Bookworm or later). Run as root from a
# checkout:   sudo bash systemd/install.sh
# DRY_RUN=1 prints every step instead of running it (used by the tests on a plain PC).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${PREFIX:-/opt/dice-companion}
CONF_DIR=${CONF_DIR:-/etc/dice-companion}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
USER_NAME=${USER_NAME:-dice}

run() {
    if [ "${DRY_RUN:-0}" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}

if [ "${DRY_RUN:-0}" != 1 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo bash systemd/install.sh), or DRY_RUN=1 to see the steps" >&2
    exit 2
fi

# System packages: picamera2 and lgpio come from Raspberry Pi OS (not PyPI); the venv sees them through
# --system-site-packages. i2c-tools gives i2cdetect to find the OLED's address.
run apt-get update
run apt-get install -y python3-venv python3-picamera2 python3-lgpio i2c-tools
if command -v raspi-config >/dev/null 2>&1; then
    run raspi-config nonint do_i2c 0   # enable the I2C bus the OLED is on
fi

# A service user with access to GPIO, I2C and the camera, and nothing else.
if ! id "$USER_NAME" >/dev/null 2>&1; then
    run useradd --system --home-dir /var/lib/dice-companion --shell /usr/sbin/nologin "$USER_NAME"
fi
for group in gpio i2c video; do
    if getent group "$group" >/dev/null 2>&1; then run usermod -aG "$group" "$USER_NAME"; fi
done

# The code and its own venv under $PREFIX (a copy, so the checkout can be edited without touching the unit).
run mkdir -p "$PREFIX"
run cp -a "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/LICENSE" "$SRC/companion" "$SRC/vision" "$SRC/hardware" \
    "$PREFIX/"
run python3 -m venv --system-site-packages "$PREFIX/.venv"
run "$PREFIX/.venv/bin/pip" install --quiet -c "$SRC/constraints.txt" "$PREFIX"   # the versions tested

# The config is the user's: installed once, never overwritten.
run mkdir -p "$CONF_DIR"
if [ ! -e "$CONF_DIR/config.toml" ]; then
    run install -m 0644 "$SRC/systemd/config.toml" "$CONF_DIR/config.toml"
fi

run install -m 0644 "$SRC/systemd/dice-companion.service" "$UNIT_DIR/dice-companion.service"
run systemctl daemon-reload
run systemctl enable --now dice-companion.service
echo "Dice Companion installed. Logs: journalctl -u dice-companion -f   Config: $CONF_DIR/config.toml"
