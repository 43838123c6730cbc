"""systemd's notification protocol (``Type=notify``, sd_notify(3)): ``READY=1`` once the
controller is serving, ``WATCHDOG=1`` from its loop at least every half ``WatchdogSec``,
``STOPPING=1`` when it stops, and ``STATUS=...`` lines for ``systemctl status``.

A notification is one datagram on the unix socket named by ``$NOTIFY_SOCKET`` (a path, or
``@name`` in the abstract namespace). Without that variable (not started by systemd) every call
does nothing. The watchdog interval comes from ``$WATCHDOG_USEC`` (for this process only when
``$WATCHDOG_PID`` is unset or is this process's id).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


class Notifier:
    """``env``: the environment to read (default ``os.environ``)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        path = env.get("NOTIFY_SOCKET") or None
        if path is not None and path.startswith("@"):
            path = "\0" + path[1:]  # the abstract namespace
        self._address = path
        self._sock: socket.socket | None = None
        self.watchdog_interval: float | None = None
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        if usec and usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_interval = int(usec) / 1e6 / 2  # sd_watchdog_enabled: ping twice
        self._next_ping: float | None = None
        self._failed = False

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def send(self, *fields: str) -> bool:
        """One notification of ``KEY=value`` fields; False if it could not be sent."""
        if self._address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(fields).encode(), self._address)
        except OSError as exc:
            if not self._failed:  # once: the loop calls this all the time
                log.warning("systemd notify socket %r: %s", self._address, exc)
            self._failed = True
            return False
        self._failed = False
        return True

    def ready(self, status: str = "") -> bool:
        fields = ["READY=1", f"MAINPID={os.getpid()}"]
        if status:
            fields.append(f"STATUS={status}")
        return self.send(*fields)

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def tick(self, now: float) -> bool:
        """Called from the controller's loop (``now``: monotonic seconds): ``WATCHDOG=1`` when
        one is due. A loop that hangs stops the pings, and systemd restarts the service."""
        if self.watchdog_interval is None or self._address is None:
            return False
        if self._next_ping is not None and now < self._next_ping:
            return False
        self._next_ping = now + self.watchdog_interval
        return self.send("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
