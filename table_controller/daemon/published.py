"""What the controller keeps of the alerts it published, for a snapshot and for ``status``:
how many, the last one, and the published form (with its id) of each alert the monitor holds
open. Bounded: an alert no longer open is forgotten, so a game of any length keeps only what
is open now."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

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

    def add(self, floor: Mapping[str, Any]) -> None:
        """One alert as published; a later one of the same code, hand and seat replaces it."""
        self.count += 1
        self.last = dict(floor)
        self._open[_key(floor.get("code"), floor.get("hand"), floor.get("seat"))] = self.last

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
