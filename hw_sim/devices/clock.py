"""A clock that the simulator drives.

The controller's waiting parts (the RFID presence debouncer, the shuffler-button debouncer, the
camera tracker, the dealing monitor's settle time) take a ``clock`` callable returning monotonic
seconds. On a table that is ``time.monotonic``; in the simulator it is a :class:`SimClock`, which
moves only when the simulator advances it, so a scenario waits out a 600 ms hold time instantly
and every run is the same.

It is a :class:`hw_sim.devices.gpio.ManualClock`, so the simulated GPIO pins stamp each bounce
edge at its exact scheduled time.
"""

from __future__ import annotations

import threading

from hw_sim.devices.gpio import ManualClock


class SimClock(ManualClock):
    """Monotonic seconds under the simulator's control; callable like ``time.monotonic``.

    Safe to read from other threads (the serial link's reader thread reads it).
    """

    def __init__(self, start: float = 1000.0) -> None:
        super().__init__(float(start))
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def now(self) -> float:
        return self()

    def set(self, t: float) -> None:
        with self._lock:
            if t < self._now:
                raise ValueError(f"a monotonic clock cannot go back from {self._now} to {t}")
            self._now = t

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` (never back) and return the new time."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back: advance({seconds})")
        with self._lock:
            self._now += seconds
            return self._now

    def advance_to(self, t: float) -> float:
        """Move time forward to ``t`` if it lies ahead; return the (possibly unchanged) time."""
        with self._lock:
            if t > self._now:
                self._now = t
            return self._now
