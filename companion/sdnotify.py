"""Tell systemd we are alive (sd_notify protocol), so a hung main loop is restarted by the watchdog.

The protocol is one datagram to the socket named in $NOTIFY_SOCKET; outside systemd the variable is unset and
every call does nothing. Written out (a dozen lines) rather than adding a dependency for it.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send e.g. "READY=1", "WATCHDOG=1" or "STATUS=...". Returns False when not run by systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # abstract namespace socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
    except OSError:
        return False  # systemd went away; the app itself must keep running
    return True
