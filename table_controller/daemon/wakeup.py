"""Wakes the controller's loop when a sensor thread has something for it.

The loop waits for console requests up to its period (20 ms); observations the RFID link's
thread or the camera's thread deliver meanwhile would wait for the end of that wait. A sensor
that delivers from its own thread calls :meth:`Wakeup.set`, which makes a pipe readable; the
console server's poll watches the pipe too and returns at once (docs/running.md, "Faults and
latency"). Setting it from any thread is safe and never blocks.
"""

from __future__ import annotations

import contextlib
import os


class Wakeup:
    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._fds: tuple[int, ...] = (self._read, self._write)

    def fileno(self) -> int:
        return self._read

    def set(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):  # full: it is readable already
            os.write(self._write, b"\x01")

    def clear(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            while os.read(self._read, 4096):
                pass

    def close(self) -> None:
        """Close the pipe; again is a no-op (its numbers may belong to another file by then)."""
        fds, self._fds = self._fds, ()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
