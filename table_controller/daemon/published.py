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
        self._open[_key(floor.get("code"), floor.get("hand"), floor.get("seat"))] = kept

    def resolved(self, alert_id: Any) -> None:
        """The alert ``alert_id`` ended (``alert_resolved``): it is no longer open."""
        self._drop(alert_id)

    def _drop(self, alert_id: Any) -> None:
        if alert_id is None:
            return
        for key in [k for k, v in self._open.items() if v.get("id") == alert_id]:
            del self._open[key]

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
