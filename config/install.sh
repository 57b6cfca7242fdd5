#!/bin/sh
# Installs roomsync as a systemd service, as docs/operations.md describes; run as root from a
# checkout:  sudo sh config/install.sh
#
#   /opt/roomsync                  a virtual environment holding roomsync and its dependencies
#   /etc/roomsync/roomsync.toml    the settings (config/roomsync.toml, only if none is there yet)
#   /etc/roomsync/secrets.env      the secrets as ROOMSYNC_* variables, mode 0600 (fill it in)
#   /etc/systemd/system/roomsync.service
#   the system user roomsync, and its state directory /var/lib/roomsync (systemd's StateDirectory)
#
# ROOT=/some/dir installs under that directory instead of / (the tests do, then check the unit
# with systemd-analyze verify --root); the user and systemctl are skipped there.
set -eu
ROOT="${ROOT:-}"
CHECKOUT="$(cd "$(dirname "$0")/.." && pwd)"

python3 -m venv "$ROOT/opt/roomsync"
"$ROOT/opt/roomsync/bin/pip" install --quiet --upgrade pip
"$ROOT/opt/roomsync/bin/pip" install --quiet "$CHECKOUT"

install -d -m 0755 "$ROOT/etc/roomsync" "$ROOT/etc/systemd/system"
[ -f "$ROOT/etc/roomsync/roomsync.toml" ] || install -m 0640 "$CHECKOUT/config/roomsync.toml" "$ROOT/etc/roomsync/roomsync.toml"
[ -f "$ROOT/etc/roomsync/secrets.env" ] || install -m 0600 /dev/null "$ROOT/etc/roomsync/secrets.env"
install -m 0644 "$CHECKOUT/config/roomsync.service" "$ROOT/etc/systemd/system/roomsync.service"

if [ -z "$ROOT" ]; then
    id roomsync >/dev/null 2>&1 || useradd --system --home-dir /var/lib/roomsync --create-home roomsync
    chgrp roomsync /etc/roomsync/roomsync.toml
    systemctl daemon-reload
    echo "installed; fill in /etc/roomsync/secrets.env, then:"
    echo "  sudo -u roomsync env ROOMSYNC_CONFIG=/etc/roomsync/roomsync.toml ROOMSYNC_DATA_DIR=/var/lib/roomsync /opt/roomsync/bin/roomsync db upgrade"
    echo "  sudo systemctl enable --now roomsync"
fi
