"""The alerts the dealer station shows, from their first publication until they end
(alerts.md, lifecycle).

The board hears every alert the monitor raises (``Controller.on_output``), in the floor's
form. An alert carries its own ``id`` once the controller numbers them (issue 11); until then
the board gives each one a number of its own, stable for the alert's life. A publication about
an error that is still open (the same code, hand and seat while the monitor holds as many of
them open as the board shows) is an update: it replaces the earlier version under the same id.

When an alert ends:

- stop, fix and warn alerts the monitor holds open (docs/monitor.md) end when it no longer holds
  them: the remedy was verified, or the hand ended. The monitor resolves the latest alert of a
  code first, so the board closes the newest of a code first;
- ``SENSOR_OFFLINE`` ends with ``SENSOR_RECOVERED``; fault and info alerts end when the dealer
  resolves their code (their lamp goes off), info alerts also when the next hand starts;
- a game alert the monitor never held (it asks for nothing) is a notice until the next hand
  starts or the dealer dismisses it.

Hole cards are never shown: :func:`present` names each as "seat 3's card" (alerts.md: hole
cards only on channels allowed to carry them), and masks any left with ``??``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_controller.vocabulary.alerts import CATALOGUE, Alert, Severity, mask_cards

GAME = frozenset({Severity.STOP.value, Severity.FIX.value, Severity.WARN.value})
Key = tuple[str, Any, Any]  # code, hand, seat


@dataclass(slots=True)
class Shown:
    """One alert on the station: its id, the latest version published, whether the monitor
    holds it open (else it is a notice), whether the buzzer was silenced for it."""

    id: Any
    key: Key
    payload: dict[str, Any]
    held: bool
    hand_at: int | None  # the hand in progress when it was raised
    updates: int = 0
    silenced: bool = False


def _key(payload: Mapping[str, Any]) -> Key:
    return (str(payload.get("code")), payload.get("hand"), payload.get("seat"))


def _alert_key(alert: Alert) -> Key:
    return (alert.code, alert.hand, alert.seat)


@dataclass(slots=True)
class AlertBoard:
    """``open_alerts``: the monitor's open alerts now (read when an alert is published and
    after each step)."""

    open_alerts: Callable[[], Sequence[Alert]]
    shown: list[Shown] = field(default_factory=list)
    _next_id: int = 1

    # ------------------------------------------------------------------ what was published
    def published(self, payload: Mapping[str, Any], *, hand: int | None) -> Shown:
        """An alert as published (floor form); ``hand``: the hand in progress."""
        body = dict(payload)
        key = _key(body)
        own_id = body.get("id")
        if own_id is not None:
            for entry in self.shown:
                if entry.id == own_id:
                    return self._update(entry, body)
        severity = str(body.get("severity"))
        held_now = sum(1 for a in self.open_alerts() if _alert_key(a) == key)
        same = [e for e in self.shown if e.key == key and e.held == (held_now > 0)]
        if own_id is None and same and (held_now == 0 or len(same) >= held_now) \
                and severity in GAME:
            return self._update(same[-1], body)
        if own_id is None:
            own_id = self._next_id
            self._next_id += 1
        entry = Shown(id=own_id, key=key, payload=body,
                      held=severity in GAME and held_now > 0, hand_at=hand)
        self.shown.append(entry)
        return entry

    @staticmethod
    def _update(entry: Shown, body: dict[str, Any]) -> Shown:
        entry.payload = body
        entry.updates += 1
        entry.silenced = False  # published again: it sounds again
        return entry

    def code_resolved(self, code: str) -> None:
        """The dealer resolved ``code``: a fault or info alert (or a notice) of that code ends;
        a held game alert ends when the monitor lets it go (:meth:`reconcile`)."""
        for entry in reversed(self.shown):
            if entry.key[0] == code and not entry.held:
                self.shown.remove(entry)
                return

    def recovered(self) -> None:
        """``SENSOR_RECOVERED``: the sensor answers again, its offline alert ends."""
        self.shown = [e for e in self.shown if e.key[0] != "SENSOR_OFFLINE"]

    def acknowledged(self) -> None:
        """The buzzer was silenced for the alerts showing now."""
        for entry in self.shown:
            entry.silenced = True

    def dismiss(self, alert_id: Any) -> bool:
        """The dealer dismisses a notice (an alert nothing holds open). False: no such
        notice."""
        for entry in self.shown:
            if entry.id == alert_id and not entry.held:
                self.shown.remove(entry)
                return True
        return False

    # ------------------------------------------------------------------ after each step
    def reconcile(self, hand: int | None) -> None:
        """Close the held alerts the monitor no longer holds (newest of a key first) and the
        notices of an earlier hand once a new hand runs."""
        counts: dict[Key, int] = {}
        for alert in self.open_alerts():
            k = _alert_key(alert)
            counts[k] = counts.get(k, 0) + 1
        keep: list[Shown] = []
        seen: dict[Key, int] = {}
        for entry in self.shown:
            if entry.held:
                seen[entry.key] = seen.get(entry.key, 0) + 1
                if seen[entry.key] > counts.get(entry.key, 0):
                    continue
            elif hand is not None and entry.hand_at != hand \
                    and entry.key[0] != "SENSOR_OFFLINE" \
                    and str(entry.payload.get("severity")) != Severity.FAULT.value:
                continue  # a notice of an earlier hand (or of the time between hands)
            keep.append(entry)
        self.shown = keep


def present(entry: Shown, hidden: Mapping[str, int | None]) -> dict[str, Any]:
    """The alert as the station shows it: hole cards named by their seat, never shown.
    ``hidden``: each hole card (``As``) -> the seat holding it (None: not known)."""
    p = entry.payload
    code = str(p.get("code"))

    def name(card: str) -> str:
        seat = hidden.get(card)
        return f"seat {seat}'s card" if seat is not None else "a hole card"

    cards: list[dict[str, Any]] = []
    for c in p.get("cards") or []:
        text = str(c)
        if text in hidden:
            cards.append({"seat": hidden[text], "text": name(text)})
        else:
            cards.append({"card": text, "text": text})
    texts = {k: str(p.get(k) or "") for k in ("message", "remedy")}
    if hidden:
        pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, sorted(hidden)))
                             + r")(?![A-Za-z0-9])")
        texts = {k: pattern.sub(lambda m: name(m.group(1)), v) for k, v in texts.items()}
    safe = mask_cards({**texts, "cards": []}, hidden)  # nothing of a hole card may remain
    spec = CATALOGUE.get(code)
    return {"id": entry.id, "code": code, "severity": str(p.get("severity")),
            "hand": p.get("hand"), "seat": p.get("seat"), "rule": p.get("rule"),
            "title": spec.message if spec is not None else code,
            "message": safe["message"], "remedy": safe["remedy"], "cards": cards,
            "time": p.get("time"), "updates": entry.updates, "held": entry.held,
            "silenced": entry.silenced}


def hidden_seats(hidden: Iterable[str], where: Mapping[str, int]) -> dict[str, int | None]:
    """Each hidden card -> its seat where known."""
    return {c: where.get(c) for c in hidden}
