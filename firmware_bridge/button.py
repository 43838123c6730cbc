"""The automatic shuffler's green button: debounced presses, each one a new hand.

A new hand starts with the press of the shuffler's green button (rules.md §2, [002 #19], TDA 23).
A mechanical contact does not close cleanly: it chatters for a few milliseconds (a burst of
edges at press and at release). That chatter must never start two hands, and a spike picked up
by a long cable must not start one at all.

Debouncing (our code, not the GPIO driver's, so it is the same on every backend): a level counts
only once it has held, without any edge, for :data:`DEBOUNCE_S` = 25 ms. Button chatter lasts
1-5 ms (rarely up to 20 ms) while a deliberate press lasts 80 ms or more, so 25 ms swallows the
chatter, rejects spikes shorter than 25 ms, and delays a press by an unnoticeable 25 ms after
its last bounce. A press is reported once, as ``ButtonPressed(t)`` with ``t`` the time of its
first contact; the next press needs the button released (again held for 25 ms) first. A button
held down when the controller starts is not a press.

Edges (from the backend's callbacks) are time-stamped with the injected clock; :meth:`update`,
called by the daemon's loop every few milliseconds, also reads the pin (a real kernel can drop
edges in a fast burst) and reports the presses that have settled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from firmware_bridge.gpio.base import GpioBackend, Pull
from table_controller.vocabulary.observations import ButtonPressed

DEBOUNCE_S = 0.025


class ShufflerButton:
    """The green button on GPIO ``pin``; by default wired to GND with the internal pull-up
    (``active_low``: pressed reads low). ``clock`` returns monotonic seconds."""

    def __init__(self, gpio: GpioBackend, *, pin: int, clock: Callable[[], float] = time.monotonic,
                 debounce: float = DEBOUNCE_S, active_low: bool = True,
                 pull: Pull | None = None) -> None:
        if debounce <= 0:
            raise ValueError("debounce must be a positive number of seconds")
        self._gpio = gpio
        self._pin = pin
        self._clock = clock
        self._debounce = debounce
        self._active_low = active_low
        self._lock = threading.Lock()
        gpio.setup_input(pin, pull=pull or (Pull.UP if active_low else Pull.DOWN))
        now = clock()
        self._stable = self._pressed(gpio.read(pin))  # held at start: not a press
        self._raw = self._stable
        self._raw_since = now
        self._burst_start: float | None = None
        self._settled: list[ButtonPressed] = []
        gpio.add_edge_callback(pin, self._on_edge)

    @property
    def pin(self) -> int:
        return self._pin

    @property
    def pressed(self) -> bool:
        """The debounced state."""
        with self._lock:
            return self._stable

    def update(self, now: float | None = None) -> list[ButtonPressed]:
        """Read the pin, settle what has held long enough, and return the presses reported
        since the last call (almost always none or one)."""
        t = self._clock() if now is None else now
        level = self._gpio.read(self._pin)
        with self._lock:
            self._sample(self._pressed(level), t)
            self._settle(t)
            out, self._settled = self._settled, []
        return out

    def close(self) -> None:
        self._gpio.remove_edge_callbacks(self._pin)

    # -- internals -------------------------------------------------------------------------------

    def _pressed(self, level: bool) -> bool:
        return level != self._active_low

    def _on_edge(self, pin: int, level: bool) -> None:
        t = self._clock()
        with self._lock:
            self._sample(self._pressed(level), t)

    def _sample(self, pressed: bool, t: float) -> None:
        # What held until now may have settled before this change (when update is called rarely).
        self._settle(t)
        if pressed == self._raw:
            return
        self._raw = pressed
        self._raw_since = t
        if self._burst_start is None and pressed != self._stable:
            self._burst_start = t

    def _settle(self, t: float) -> None:
        if t - self._raw_since < self._debounce:
            return
        if self._raw != self._stable:
            self._stable = self._raw
            start = self._raw_since if self._burst_start is None else self._burst_start
            if self._stable:
                self._settled.append(ButtonPressed(t=start))
        self._burst_start = None
