"""A pseudo-terminal that stands in for a USB serial device, with a stable path and real unplugs.

The device side holds the pty master; the Pi side opens :attr:`PtyPort.path` with pyserial like
any ``/dev/ttyACM0``. ``path`` is a symlink (in a private temporary directory) to the current
pty slave, so it stays the same across :meth:`unplug` / :meth:`plug`, as a
``/dev/serial/by-id/`` name does for a real device.

:meth:`unplug` closes the master and removes the symlink: pyserial on the Pi side then gets the
same errors as with a pulled USB cable (a read raises ``SerialException``, a write ``EIO``, and
reopening the path fails). :meth:`plug` creates a fresh pty and points the symlink at it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import shutil
import tempfile
import threading
import time
import tty


class PortUnplugged(OSError):
    """Raised by :meth:`PtyPort.write` while the port is unplugged."""


class PtyPort:
    def __init__(self, *, name: str = "rfid") -> None:
        self._dir = tempfile.mkdtemp(prefix="hw_sim_pty_")
        self.path = os.path.join(self._dir, name)
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self.generation = 0
        self.plug()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def plug(self) -> None:
        """Create a fresh pty (raw mode, no echo) and point :attr:`path` at its slave."""
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing before the Pi side configures it
            os.set_blocking(master, False)
            tmp = self.path + ".new"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, self.path)
            # The device keeps its own slave fd open so the pty survives the Pi side closing and
            # reopening it (a master whose slaves are all closed reads EIO).
            self._master, self._slave = master, slave
            self.generation += 1

    def unplug(self) -> None:
        """Close the pty and remove :attr:`path`; the Pi side sees an unplugged device."""
        with self._lock:
            if os.path.lexists(self.path):
                os.unlink(self.path)
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None

    def replug(self) -> None:
        self.unplug()
        self.plug()

    def close(self) -> None:
        self.unplug()
        shutil.rmtree(self._dir, ignore_errors=True)

    def fileno(self) -> int | None:
        return self._master

    def write(self, data: bytes, *, timeout: float = 1.0) -> None:
        """Write all of ``data`` to the Pi side; raises :class:`PortUnplugged` when unplugged and
        :class:`TimeoutError` when nobody drains the pty for ``timeout`` seconds (the rest of
        ``data`` is lost, like bytes sent to a device whose buffer is full)."""
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            if time.monotonic() > deadline:
                raise TimeoutError(f"pty full: {len(view)} of {len(data)} bytes not written")
            with self._lock:
                fd = self._master
                if fd is None:
                    raise PortUnplugged(errno.ENODEV, "port unplugged")
                try:
                    n = os.write(fd, view)
                except BlockingIOError:
                    n = 0
            if n:
                view = view[n:]
            else:
                # unplugged meanwhile: the next round raises PortUnplugged
                with contextlib.suppress(OSError, ValueError):
                    select.select([], [fd], [], 0.05)

    def read(self, timeout: float) -> bytes:
        """Bytes the Pi side wrote, waiting up to ``timeout`` seconds; b"" if none or unplugged."""
        fd = self._master
        if fd is None:
            return b""
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        except (OSError, ValueError):
            return b""  # closed by unplug() meanwhile
        if not ready:
            return b""
        with self._lock:
            if self._master != fd:
                return b""
            try:
                return os.read(fd, 4096)
            except (BlockingIOError, OSError):
                return b""
