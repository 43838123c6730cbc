"""Open alerts and the check that their remedy was carried out.

Every alert that asks the dealer or the floor for something (severity stop, fix, warn) stays
open until the floor resolves it (``DealingMonitor.resolve``) or its hand ends. On resolve the
monitor looks at the table picture: when the stated remedy is not what the sensors see, it
says so again (the same code, with what is still wrong) and the alert stays open. A stop alert
that voids the hand (a misdeal, a fouled deck) says so with ``voids_hand``: the monitor voids
the hand once its remedy is carried out.

One error is one alert (alerts.md, "Lifecycle"): :meth:`RemedyBook.restate` gives a changed
alert the ``ref`` of the open one it replaces, so it is published as an update; a resolve and
the end of the hand give :class:`~table_controller.monitor.records.AlertResolved` records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from table_controller.monitor.records import AlertResolved, ResolvedBy
from table_controller.vocabulary.alerts import Alert, Severity

Verify = Callable[[], str | None]
"""Returns None when the remedy is carried out, else what is still wrong."""
Apply = Callable[[float], None]
"""What follows a carried-out remedy in the hand's state (the street dealt again, the deal
going on...)."""


def _nothing_to_check() -> str | None:
    return None


def _nothing_follows(_t: float) -> None:
    return None


@dataclass(slots=True)
class OpenAlert:
    alert: Alert
    verify: Verify = _nothing_to_check
    apply: Apply = _nothing_follows
    voids_hand: bool = False


@dataclass(frozen=True, slots=True)
class Resolution:
    """The answer to a resolve. ``done``: the remedy is carried out and the alert closed (its
    ``apply`` has run); else ``alert`` is the alert stated again with what is still wrong.
    ``voids_hand``: closing it voids the hand. ``ended``: the record of its end when done."""

    alert: Alert
    done: bool
    voids_hand: bool = False
    ended: AlertResolved | None = None


def _ended(alert: Alert, by: ResolvedBy, t: float) -> AlertResolved:
    assert alert.ref is not None
    return AlertResolved(ref=alert.ref, code=alert.code, hand=alert.hand, by=by, t=t)


HeldKey = tuple[str, int | None, int | None]
"""An open alert's code, hand and seat: how the dealer station matches its publications."""


def held_key(alert: Alert) -> HeldKey:
    return (alert.code, alert.hand, alert.seat)


class RemedyBook:
    """The open alerts, oldest first, with indices kept as they change, so that nothing a
    loop step asks of them walks them all (issue 10: thousands stay open when nobody resolves
    them): the alerts of a code, how many are open under a key (:func:`held_key`), and a
    ``version`` that changes with every change, with the keys whose count went down since a
    version (:meth:`lowered_since`)."""

    __slots__ = (
        "_alerts",
        "_by_code",
        "_cleared",
        "_counts",
        "_entries",
        "_lowered",
        "_version",
    )

    def __init__(self) -> None:
        self._entries: dict[int, OpenAlert] = {}  # id(entry) -> entry, oldest first
        self._by_code: dict[str, dict[int, OpenAlert]] = {}
        self._counts: dict[HeldKey, int] = {}
        self._lowered: dict[HeldKey, int] = {}  # key -> version it went down at, in order
        self._cleared = 0  # the version of the last close_hand: every count went down
        self._version = 0
        self._alerts: tuple[Alert, ...] | None = ()

    @property
    def entries(self) -> tuple[OpenAlert, ...]:
        return tuple(self._entries.values())

    @property
    def version(self) -> int:
        """Changes (increases) whenever an alert opens, is restated or ends."""
        return self._version

    def held(self, key: tuple[Any, Any, Any]) -> int:
        """How many alerts are open under ``key``."""
        return self._counts.get(key, 0)

    def lowered_since(self, version: int) -> list[HeldKey] | None:
        """The keys whose count went down after ``version``, newest first; None when every
        count may have (a hand was closed since)."""
        if version < self._cleared:
            return None
        out: list[HeldKey] = []
        for key, at in reversed(self._lowered.items()):
            if at <= version:
                break
            out.append(key)
        return out

    def _changed(self) -> None:
        self._version += 1
        self._alerts = None

    def _count(self, key: HeldKey, by: int) -> None:
        n = self._counts.get(key, 0) + by
        if n > 0:
            self._counts[key] = n
        else:
            self._counts.pop(key, None)
        if by < 0:
            self._lowered.pop(key, None)
            self._lowered[key] = self._version

    def open(self, alert: Alert, verify: Verify = _nothing_to_check,
             apply: Apply = _nothing_follows, *, voids_hand: bool = False) -> None:
        if alert.severity in (Severity.INFO, Severity.FAULT):
            return
        entry = OpenAlert(alert, verify, apply, voids_hand)
        self._changed()
        self._entries[id(entry)] = entry
        self._by_code.setdefault(alert.code, {})[id(entry)] = entry
        self._count(held_key(alert), 1)

    def _set(self, entry: OpenAlert, alert: Alert) -> None:
        self._changed()
        before, after = held_key(entry.alert), held_key(alert)
        entry.alert = alert
        if before != after:
            self._count(after, 1)
            self._count(before, -1)

    def latest(self, code: str) -> OpenAlert | None:
        of_code = self._by_code.get(code)
        return None if not of_code else next(reversed(of_code.values()))

    def has(self, code: str, *, seat: int | None = None) -> bool:
        of_code = self._by_code.get(code)
        if not of_code:
            return False
        return seat is None or any(e.alert.seat == seat for e in of_code.values())

    def of_code(self, code: str) -> tuple[Alert, ...]:
        """The open alerts of ``code``, oldest first."""
        return tuple(e.alert for e in self._by_code.get(code, {}).values())

    def restate(self, entry: OpenAlert, alert: Alert) -> Alert:
        """The open alert of ``entry`` restated with more detail (more premature cards, say):
        the same error, so the same ``ref``; returns the alert to publish as an update."""
        self._set(entry, replace(alert, ref=entry.alert.ref))
        return entry.alert

    def resolve(self, code: str, t: float) -> Resolution | None:
        """Check and close the last open alert with ``code``. None: no such alert is open."""
        entry = self.latest(code)
        if entry is None:
            return None
        problem = entry.verify()
        if problem is not None:
            again = replace(entry.alert, t=t, message=f"Remedy not carried out: {problem}",
                            remedy=entry.alert.remedy)
            self._set(entry, again)
            return Resolution(again, done=False)
        self._changed()
        del self._entries[id(entry)]
        of_code = self._by_code[code]
        del of_code[id(entry)]
        if not of_code:
            del self._by_code[code]
        self._count(held_key(entry.alert), -1)
        entry.apply(t)
        by: ResolvedBy = "floor" if entry.verify is _nothing_to_check else "verified"
        return Resolution(entry.alert, done=True, voids_hand=entry.voids_hand,
                          ended=_ended(entry.alert, by, t))

    def close_hand(self, t: float) -> list[AlertResolved]:
        """The hand ended (or the next one began): every alert still open ends with it."""
        out = [_ended(e.alert, "hand_end", t) for e in self._entries.values()
               if e.alert.ref is not None]
        if self._entries:
            self._changed()
            self._cleared = self._version
        self._entries.clear()
        self._by_code.clear()
        self._counts.clear()
        self._lowered.clear()
        return out

    @property
    def alerts(self) -> tuple[Alert, ...]:
        """The open alerts, oldest first (one tuple per version: asking again costs nothing
        until something changes)."""
        if self._alerts is None:
            self._alerts = tuple(e.alert for e in self._entries.values())
        return self._alerts
