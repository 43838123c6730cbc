"""What the controller keeps of the alerts it published, for a snapshot and for ``status``:
how many, the last one, and the published form (with its id) of each alert the monitor holds
open. Bounded: an alert no longer open is forgotten, so a game of any length keeps only what
is open now."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from table_controller.monitor.remedies import RemedyBook
from table_controller.vocabulary.alerts import Alert

Key = tuple[Any, Any, Any]


def _key(code: Any, hand: Any, seat: Any) -> Key:
    return (code, hand, seat)


class PublishedAlerts:
    """The alerts of one run as published (floor form, with ids when delivered)."""

    def __init__(self) -> None:
        self.count = 0
        self.last: dict[str, Any] | None = None
        self._open: dict[Key, dict[str, Any]] = {}
        self._fresh: set[Key] = set()  # published since the last keep_held
        self._version = -1  # the book's version at the last keep_held (-1: never)

    def add(self, floor: Mapping[str, Any], *, update: bool = False) -> None:
        """One alert as published; a later one of the same code, hand and seat replaces it.
        ``update``: the alert of that ``id`` restated (alerts.md "Lifecycle"): it replaces the
        published form and is not counted again."""
        kept = dict(floor)
        if update:
            self._drop(floor.get("id"))
            if self.last is not None and self.last.get("id") == floor.get("id"):
                self.last = kept
        else:
            self.count += 1
            self.last = kept
        key = _key(floor.get("code"), floor.get("hand"), floor.get("seat"))
        self._open[key] = kept
        self._fresh.add(key)

    def resolved(self, alert_id: Any) -> None:
        """The alert ``alert_id`` ended (``alert_resolved``): it is no longer open."""
        self._drop(alert_id)

    def _drop(self, alert_id: Any) -> None:
        if alert_id is None:
            return
        for key in [k for k, v in self._open.items() if v.get("id") == alert_id]:
            del self._open[key]

    def keep_held(self, book: RemedyBook) -> None:
        """:meth:`keep` against the monitor's book, looking only at the keys published or
        lowered since the last call (a whole pass when the book closed a hand), so its cost
        does not grow with the number of alerts open (issue 10)."""
        lowered = book.lowered_since(self._version)
        keys: Iterable[Key] = list(self._open) if lowered is None else {*lowered, *self._fresh}
        for key in keys:
            if key in self._open and book.held(key) == 0:
                del self._open[key]
        self._version = book.version
        self._fresh.clear()

    def keep(self, open_alerts: Iterable[Alert]) -> None:
        """Forget the published alerts the monitor no longer holds open."""
        wanted = {_key(a.code, a.hand, a.seat) for a in open_alerts}
        for key in [k for k in self._open if k not in wanted]:
            del self._open[key]

    def find(self, alert: Alert) -> dict[str, Any] | None:
        """The published form of the open ``alert`` (the last one with its code, hand and
        seat), None if it was not published in this run."""
        found = self._open.get(_key(alert.code, alert.hand, alert.seat))
        return None if found is None else dict(found)
