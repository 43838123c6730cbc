"""The simulator's GPIO backend (``"sim"``): pins a test or the simulated table can drive.

In the spirit of gpiozero's mock pins (STYLE.md): :class:`SimGpio` implements the same
:class:`~firmware_bridge.gpio.base.GpioBackend` a Pi uses, plus controls made for tests:

- :meth:`SimGpio.drive` / :meth:`SimGpio.release` act as the outside world on an input (a button
  contact pulling the pin to a level; released, the pull resistor decides);
- :meth:`SimGpio.press` schedules a button press with contact bounce: a burst of edges over a few
  milliseconds at press and at release, generated from a seeded ``random.Random`` so a test sees
  the same burst every run; :meth:`SimGpio.run_until` plays scheduled changes in time order;
- :meth:`SimGpio.history` is every level change of a pin with its time (outputs: what the
  controller wrote; inputs: what the outside drove).

With a :class:`ManualClock` the simulation is fully deterministic: :meth:`run_until` sets the
clock to each scheduled change's time before delivering it, so a debouncer reading that clock
sees the edge times exactly. What it does not emulate: electrical timing (an edge is delivered
instantly and never lost, while a real kernel can miss edges in a fast burst), pin alternate
functions, and the Pi's default pulls at boot.
"""

from __future__ import annotations

import heapq
import itertools
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from firmware_bridge.gpio.base import (
    Edge,
    EdgeCallback,
    GpioBackend,
    GpioError,
    Pull,
    check_pin,
)

Clock = Callable[[], float]


class ManualClock:
    """A clock that moves only when told to: ``clock()`` returns the current time in seconds."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def __call__(self) -> float:
        return self._now

    def set(self, t: float) -> None:
        if t < self._now:
            raise ValueError(f"a monotonic clock cannot go back from {self._now} to {t}")
        self._now = t

    def advance(self, seconds: float) -> float:
        self.set(self._now + seconds)
        return self._now


@dataclass(frozen=True, slots=True)
class PinChange:
    t: float
    level: bool


@dataclass(frozen=True, slots=True)
class Bounce:
    """Contact bounce: ``min_extra``..``max_extra`` extra open/close pairs within ``duration``
    seconds of the first contact. Mechanical push buttons typically chatter for 1-5 ms."""

    duration: float = 0.004
    min_extra: int = 2
    max_extra: int = 8


def bounce_burst(*, start: float, to: bool | None, away: bool | None, bounce: Bounce,
                 rng: random.Random) -> list[tuple[float, bool | None]]:
    """Drive changes for a contact settling on ``to``: the first at ``start``, then chatter
    between ``away`` and ``to`` inside ``bounce.duration``, always ending on ``to``."""
    pairs = rng.randint(bounce.min_extra, bounce.max_extra)
    times = sorted(start + rng.uniform(0.0, bounce.duration) for _ in range(2 * pairs))
    changes: list[tuple[float, bool | None]] = [(start, to)]
    for i, t in enumerate(times):
        changes.append((max(t, start), away if i % 2 == 0 else to))
    return changes


@dataclass
class _Pin:
    mode: str = "unset"          # "input" | "output" | "unset"
    pull: Pull = Pull.OFF
    drive: bool | None = None    # what the outside world drives on an input; None: nothing
    written: bool = False        # what the controller drives on an output
    callbacks: list[tuple[Edge, EdgeCallback]] = field(default_factory=list)
    history: list[PinChange] = field(default_factory=list)
    last: bool | None = None

    def level(self) -> bool:
        if self.mode == "output":
            return self.written
        if self.drive is not None:
            return self.drive
        if self.pull is Pull.UP:
            return True
        if self.pull is Pull.DOWN:
            return False
        return self.last if self.last is not None else False  # floating: keeps its last level


class SimGpio(GpioBackend):
    """Simulated GPIO chip. ``clock`` stamps the history (default ``time.monotonic``)."""

    name = "sim"

    def __init__(self, *, clock: Clock | None = None) -> None:
        self._clock: Clock = clock or time.monotonic
        self._pins: dict[int, _Pin] = {}
        self._lock = threading.RLock()
        self._schedule: list[tuple[float, int, int, bool | None]] = []
        self._seq = itertools.count()

    @property
    def clock(self) -> Clock:
        return self._clock

    # -- GpioBackend -----------------------------------------------------------------------------

    def setup_input(self, pin: int, *, pull: Pull) -> None:
        with self._lock:
            p = self._pin(pin)
            p.mode, p.pull = "input", Pull(pull)
        self._changed(pin)

    def read(self, pin: int) -> bool:
        with self._lock:
            p = self._pin(pin)
            if p.mode == "unset":
                raise GpioError(f"GPIO{pin} is not set up")
            return p.level()

    def add_edge_callback(self, pin: int, callback: EdgeCallback, *,
                          edge: Edge = Edge.BOTH) -> None:
        with self._lock:
            p = self._pin(pin)
            if p.mode != "input":
                raise GpioError(f"GPIO{pin} is not set up as an input")
            p.callbacks.append((Edge(edge), callback))

    def remove_edge_callbacks(self, pin: int) -> None:
        with self._lock:
            self._pin(pin).callbacks.clear()

    def setup_output(self, pin: int, *, initial: bool = False) -> None:
        with self._lock:
            p = self._pin(pin)
            p.mode, p.written = "output", initial
            p.callbacks.clear()
        self._changed(pin)

    def write(self, pin: int, level: bool) -> None:
        with self._lock:
            p = self._pin(pin)
            if p.mode != "output":
                raise GpioError(f"GPIO{pin} is not set up as an output")
            p.written = bool(level)
        self._changed(pin)

    def cleanup(self) -> None:
        with self._lock:
            for p in self._pins.values():
                p.mode, p.callbacks = "unset", []
            self._schedule.clear()

    # -- test and simulator controls -------------------------------------------------------------

    def drive(self, pin: int, level: bool | None) -> None:
        """The outside world drives input ``pin`` to ``level`` now (None: lets go of it)."""
        with self._lock:
            p = self._pin(pin)
            if p.mode == "output":
                raise GpioError(f"GPIO{pin} is an output: driving it from outside is a short")
            p.drive = level
        self._changed(pin)

    def release(self, pin: int) -> None:
        self.drive(pin, None)

    def schedule(self, pin: int, changes: Iterable[tuple[float, bool | None]]) -> None:
        """Drive changes to apply at given times by :meth:`run_until`."""
        check_pin(pin)
        with self._lock:
            for t, level in changes:
                heapq.heappush(self._schedule, (t, next(self._seq), pin, level))

    def press(self, pin: int, *, at: float, hold: float = 0.12, rng: random.Random,
              bounce: Bounce | None = None, active_low: bool = True) -> None:
        """Schedule a push of a button wired from ``pin`` to GND (``active_low``) or to 3.3 V:
        contact at ``at``, let go at ``at + hold``, each with a bounce burst (``bounce`` None: a
        default :class:`Bounce`)."""
        shape = bounce or Bounce()
        contact = not active_low
        self.schedule(pin, bounce_burst(start=at, to=contact, away=None, bounce=shape, rng=rng))
        self.schedule(pin, bounce_burst(start=at + hold, to=None, away=contact, bounce=shape,
                                        rng=rng))

    def run_until(self, t: float) -> int:
        """Apply every scheduled change due at or before ``t``, in time order; returns how many.

        With a :class:`ManualClock` the clock is set to each change's time first, then to ``t``.
        """
        applied = 0
        while True:
            with self._lock:
                if not self._schedule or self._schedule[0][0] > t:
                    break
                when, _, pin, level = heapq.heappop(self._schedule)
            if isinstance(self._clock, ManualClock) and when > self._clock():
                self._clock.set(when)
            self.drive(pin, level)
            applied += 1
        if isinstance(self._clock, ManualClock) and t > self._clock():
            self._clock.set(t)
        return applied

    def next_due(self) -> float | None:
        """The time of the next scheduled change (None: nothing scheduled), so a simulation
        loop can stop its clock exactly there."""
        with self._lock:
            return self._schedule[0][0] if self._schedule else None

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._schedule)

    def history(self, pin: int) -> list[PinChange]:
        """Every level change of ``pin`` since it was set up, with the clock's time."""
        with self._lock:
            return list(self._pin(pin).history)

    def clear_history(self) -> None:
        with self._lock:
            for p in self._pins.values():
                p.history.clear()

    # -- internals -------------------------------------------------------------------------------

    def _pin(self, pin: int) -> _Pin:
        check_pin(pin)
        return self._pins.setdefault(pin, _Pin())

    def _changed(self, pin: int) -> None:
        """Record a level change of ``pin`` and deliver its edge to the callbacks."""
        with self._lock:
            p = self._pins[pin]
            level = p.level()
            if level == p.last:
                return
            first = p.last is None
            p.last = level
            p.history.append(PinChange(self._clock(), level))
            callbacks = [] if first or p.mode != "input" else list(p.callbacks)
        for edge, callback in callbacks:
            if edge is Edge.BOTH or (edge is Edge.RISING) == level:
                callback(pin, level)
