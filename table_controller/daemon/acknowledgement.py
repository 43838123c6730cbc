"""Which alerts a person has not acknowledged yet (docs/running.md, "Acknowledging an alert").

An alert that needs a person (every severity but info: the hand, the procedure or a sensor)
is *unacknowledged* from the moment it is raised until the dealer acknowledges (console
``{"cmd": "acknowledge"}``: every alert showing now) or the floor does (``{"cmd":
"acknowledge", "id": 17, "by": "anna"}``, or the same over the alert channel: that alert
alone). An acknowledgement silences the alert's buzzer; it does not resolve the alert (the
remedy does). The list is bounded: the :data:`MAX_KEPT` latest.

This is not the alert channel's ``ack`` (:mod:`.alert_delivery`), which says a floor
*received* an alert, before anyone looked at it.
"""

from __future__ import annotations

from table_controller.vocabulary.alerts import Severity

NEEDS_A_PERSON = frozenset({Severity.STOP, Severity.FIX, Severity.WARN, Severity.FAULT})
MAX_KEPT = 64


class Unacknowledged:
    def __init__(self) -> None:
        self._codes: dict[int, str] = {}  # alert id -> code, oldest first

    def raised(self, alert_id: int, code: str, severity: Severity) -> None:
        if severity not in NEEDS_A_PERSON:
            return
        self._codes[alert_id] = code
        while len(self._codes) > MAX_KEPT:
            del self._codes[next(iter(self._codes))]

    def take_all(self) -> list[int]:
        """Every one is acknowledged (the dealer's button); returns their ids."""
        ids = list(self._codes)
        self._codes.clear()
        return ids

    def take(self, alert_id: int) -> str | None:
        """Alert ``alert_id`` is acknowledged; returns its code (None: it was not waiting,
        acknowledged before or not one that needs a person)."""
        return self._codes.pop(alert_id, None)

    def waiting(self, code: str) -> bool:
        """Another alert with ``code`` still waits (its buzzer stays on)."""
        return code in self._codes.values()

    @property
    def ids(self) -> list[int]:
        return list(self._codes)
