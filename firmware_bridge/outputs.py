"""The dealer's alert lamps (red, amber) and buzzer, driven through a GPIO backend.

Each alert severity (``table_controller.vocabulary.alerts.Severity``, docs/alerts.md) has
a pattern:

========  ==========================  ===============================  =======================
severity  red lamp                    amber lamp                       buzzer
========  ==========================  ===============================  =======================
stop      steady                      off                              0.5 s on / 0.5 s off,
                                                                       until acknowledged
fix       off                         steady                           two 0.15 s beeps
fault     0.5 s on / 0.5 s off        0.5 s off / 0.5 s on             one 1 s beep
          (alternating with amber)
warn      off                         0.5 s on / 0.5 s off for 10 s    one 0.15 s beep
info      off                         one 0.3 s flash                  silent
========  ==========================  ===============================  =======================

``stop`` (the hand cannot go on as dealt) must stop the dealer's hands at once, so it alone keeps
sounding until acknowledged; ``fix`` asks for a correction and stays lit until the controller
resolves the alert; ``fault`` (a sensor, not the game) has its own alternating look; ``warn`` and
``info`` go out by themselves when their pattern ends. Several alerts may be active: the lamps
show the most serious (stop > fix > fault > warn > info; the newest among equals), and resolving
it falls back to the next. :meth:`AlertOutputs.acknowledge` silences the buzzer for the alerts
active now; a new alert sounds again.

Time is passed in (``now``, monotonic seconds): :meth:`AlertOutputs.update` advances the patterns
and is called by the daemon's loop; :meth:`AlertOutputs.next_change` says when it next needs to
be. Pins are written only when their level changes.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from firmware_bridge.gpio.base import GpioBackend
from table_controller.vocabulary.alerts import Alert, Severity

_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Pattern:
    """Steps of (level, seconds), played once or repeated."""

    steps: tuple[tuple[bool, float], ...] = ()
    repeat: bool = False

    @property
    def length(self) -> float:
        return sum(d for _, d in self.steps)

    @property
    def finite(self) -> bool:
        """True when the pattern ends (and stays off) after :attr:`length` seconds."""
        return not self.repeat and math.isfinite(self.length)

    def level_at(self, elapsed: float) -> bool:
        return self._locate(elapsed)[0]

    def next_change(self, elapsed: float) -> float | None:
        """Seconds from the start to the next step boundary after ``elapsed`` (None: none)."""
        return self._locate(elapsed)[1]

    def _locate(self, elapsed: float) -> tuple[bool, float | None]:
        length = self.length
        if not self.steps or length <= 0:
            return False, None
        elapsed += _EPS  # a step boundary reached by float arithmetic counts as reached
        base = 0.0
        if elapsed >= length:
            if not self.repeat:
                return False, None
            base = math.floor(elapsed / length) * length
        t = base
        for level, seconds in self.steps:
            t += seconds
            if elapsed < t:
                return level, (t if math.isfinite(t) else None)
        return False, None  # unreachable: elapsed < base + length


def steady() -> Pattern:
    return Pattern(((True, math.inf),))


def blink(on: float, off: float, *, times: int | None = None, start_off: bool = False) -> Pattern:
    """``on`` seconds on, ``off`` off; ``times`` cycles then off, or forever (None)."""
    cycle = ((False, off), (True, on)) if start_off else ((True, on), (False, off))
    if times is None:
        return Pattern(cycle, repeat=True)
    return Pattern(cycle * times, repeat=False)


@dataclass(frozen=True, slots=True)
class AlertPattern:
    red: Pattern = Pattern()
    amber: Pattern = Pattern()
    buzzer: Pattern = Pattern()

    @property
    def finite(self) -> bool:
        return self.red.finite and self.amber.finite and self.buzzer.finite


PATTERNS: Mapping[Severity, AlertPattern] = {
    Severity.STOP: AlertPattern(red=steady(), buzzer=blink(0.5, 0.5)),
    Severity.FIX: AlertPattern(amber=steady(), buzzer=blink(0.15, 0.15, times=2)),
    Severity.FAULT: AlertPattern(red=blink(0.5, 0.5), amber=blink(0.5, 0.5, start_off=True),
                                 buzzer=Pattern(((True, 1.0),))),
    Severity.WARN: AlertPattern(amber=blink(0.5, 0.5, times=10),
                                buzzer=Pattern(((True, 0.15),))),
    Severity.INFO: AlertPattern(amber=Pattern(((True, 0.3),))),
}
PRIORITY: tuple[Severity, ...] = (Severity.STOP, Severity.FIX, Severity.FAULT, Severity.WARN,
                                  Severity.INFO)


@dataclass(frozen=True, slots=True)
class _Active:
    severity: Severity
    since: float
    order: int


class AlertOutputs:
    """Red lamp, amber lamp and buzzer on GPIO pins ``red``, ``amber``, ``buzzer``.

    Lamps and buzzer hang off transistor or relay drivers (docs/wiring.md); ``active_low`` is for
    driver boards that switch on a low input.
    """

    def __init__(self, gpio: GpioBackend, *, red: int, amber: int, buzzer: int,
                 active_low: bool = False,
                 patterns: Mapping[Severity, AlertPattern] = PATTERNS) -> None:
        missing = [s.value for s in Severity if s not in patterns]
        if missing:
            raise ValueError(f"no output pattern for severity {', '.join(missing)}")
        if len({red, amber, buzzer}) != 3:
            raise ValueError(f"red, amber and buzzer need three different pins, got "
                             f"{red}, {amber}, {buzzer}")
        self._gpio = gpio
        self._pins = {"red": red, "amber": amber, "buzzer": buzzer}
        self._active_low = active_low
        self._patterns = dict(patterns)
        self._lock = threading.Lock()
        self._alerts: dict[str, _Active] = {}
        self._acknowledged: set[str] = set()
        self._counter = 0
        self._written: dict[str, bool] = {}
        for name, pin in self._pins.items():
            gpio.setup_output(pin, initial=self._physical(False))
            self._written[name] = False

    # -- what the controller says ----------------------------------------------------------------

    def show(self, key: str, severity: Severity, now: float) -> None:
        """Alert ``key`` (an alert code) of ``severity`` is active from ``now``; showing a key
        again restarts its pattern and sounds it again."""
        with self._lock:
            self._counter += 1
            self._alerts[key] = _Active(Severity(severity), now, self._counter)
            self._acknowledged.discard(key)
        self.update(now)

    def show_alert(self, alert: Alert, now: float) -> None:
        self.show(alert.code, alert.severity, now)

    def resolve(self, key: str, now: float) -> None:
        """Alert ``key`` is over (unknown keys are ignored: it may have gone out by itself)."""
        with self._lock:
            self._alerts.pop(key, None)
            self._acknowledged.discard(key)
        self.update(now)

    def acknowledge(self, now: float, *, key: str | None = None) -> None:
        """The dealer acknowledged: silence the buzzer for every alert active now (``key``:
        for that alert alone, e.g. acknowledged from the floor)."""
        with self._lock:
            if key is None:
                self._acknowledged.update(self._alerts)
            elif key in self._alerts:
                self._acknowledged.add(key)
        self.update(now)

    def clear(self, now: float) -> None:
        """Everything off (a new hand, or the floor reset the table)."""
        with self._lock:
            self._alerts.clear()
            self._acknowledged.clear()
        self.update(now)

    def close(self) -> None:
        """Lamps and buzzer off."""
        with self._lock:
            self._alerts.clear()
            for name in self._pins:
                self._write(name, False)

    # -- time ------------------------------------------------------------------------------------

    @property
    def showing(self) -> Severity | None:
        with self._lock:
            top = self._top()
            return None if top is None else top[1].severity

    def update(self, now: float) -> None:
        """Set lamps and buzzer to what the patterns say at ``now``."""
        with self._lock:
            self._expire(now)
            levels = {"red": False, "amber": False, "buzzer": False}
            top = self._top()
            if top is not None:
                key, active = top
                pattern = self._patterns[active.severity]
                elapsed = now - active.since
                levels["red"] = pattern.red.level_at(elapsed)
                levels["amber"] = pattern.amber.level_at(elapsed)
                levels["buzzer"] = (key not in self._acknowledged
                                    and pattern.buzzer.level_at(elapsed))
            for name, level in levels.items():
                self._write(name, level)

    def next_change(self, now: float) -> float | None:
        """The time of the next pattern step after ``now`` (None: nothing will change)."""
        with self._lock:
            top = self._top()
            if top is None:
                return None
            key, active = top
            pattern = self._patterns[active.severity]
            elapsed = now - active.since
            outputs = [pattern.red, pattern.amber]
            if key not in self._acknowledged:
                outputs.append(pattern.buzzer)
            times = [t for t in (p.next_change(elapsed) for p in outputs) if t is not None]
            return active.since + min(times) if times else None

    # -- internals -------------------------------------------------------------------------------

    def _top(self) -> tuple[str, _Active] | None:
        if not self._alerts:
            return None
        return min(self._alerts.items(),
                   key=lambda kv: (PRIORITY.index(kv[1].severity), -kv[1].order))

    def _expire(self, now: float) -> None:
        """Drop alerts whose whole pattern has played (warn, info)."""
        for key, active in list(self._alerts.items()):
            pattern = self._patterns[active.severity]
            length = max(pattern.red.length, pattern.amber.length, pattern.buzzer.length)
            if pattern.finite and now - active.since >= length:
                del self._alerts[key]
                self._acknowledged.discard(key)

    def _physical(self, on: bool) -> bool:
        return on != self._active_low

    def _write(self, name: str, on: bool) -> None:
        if self._written.get(name) == on:
            return
        self._gpio.write(self._pins[name], self._physical(on))
        self._written[name] = on
