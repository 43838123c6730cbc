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
from dataclasses import dataclass, field, replace

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


@dataclass(slots=True)
class RemedyBook:
    entries: list[OpenAlert] = field(default_factory=list)

    def open(self, alert: Alert, verify: Verify = _nothing_to_check,
             apply: Apply = _nothing_follows, *, voids_hand: bool = False) -> None:
        if alert.severity in (Severity.INFO, Severity.FAULT):
            return
        self.entries.append(OpenAlert(alert, verify, apply, voids_hand))

    def latest(self, code: str) -> OpenAlert | None:
        return next((e for e in reversed(self.entries) if e.alert.code == code), None)

    def has(self, code: str, *, seat: int | None = None) -> bool:
        return any(e.alert.code == code and (seat is None or e.alert.seat == seat)
                   for e in self.entries)

    def restate(self, entry: OpenAlert, alert: Alert) -> Alert:
        """The open alert of ``entry`` restated with more detail (more premature cards, say):
        the same error, so the same ``ref``; returns the alert to publish as an update."""
        entry.alert = replace(alert, ref=entry.alert.ref)
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
            entry.alert = again
            return Resolution(again, done=False)
        self.entries.remove(entry)
        entry.apply(t)
        by: ResolvedBy = "floor" if entry.verify is _nothing_to_check else "verified"
        return Resolution(entry.alert, done=True, voids_hand=entry.voids_hand,
                          ended=_ended(entry.alert, by, t))

    def close_hand(self, t: float) -> list[AlertResolved]:
        """The hand ended (or the next one began): every alert still open ends with it."""
        out = [_ended(e.alert, "hand_end", t) for e in self.entries if e.alert.ref is not None]
        self.entries.clear()
        return out

    @property
    def alerts(self) -> tuple[Alert, ...]:
        return tuple(e.alert for e in self.entries)
