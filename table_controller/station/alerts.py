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
from dataclasses import dataclass
from typing import Any, Protocol

from table_controller.vocabulary.alerts import CATALOGUE, Alert, Severity, mask_cards

GAME = frozenset({Severity.STOP.value, Severity.FIX.value, Severity.WARN.value})
Key = tuple[str, Any, Any]  # code, hand, seat


class HeldAlerts(Protocol):
    """What the board asks of the monitor's open alerts (``RemedyBook`` answers it in
    constant time, whatever the number open)."""

    @property
    def version(self) -> int:
        """Changes whenever an alert opens, is restated or ends."""
        ...

    def held(self, key: Key) -> int:
        """How many alerts are open under ``key`` (code, hand, seat)."""
        ...

    def lowered_since(self, version: int) -> Iterable[Key] | None:
        """The keys whose count went down after ``version``; None: any may have."""
        ...


class ScannedHeld:
    """:class:`HeldAlerts` read off a sequence of open alerts, scanning it (for a board with
    no monitor's book at hand): every reconcile is a whole pass."""

    def __init__(self, open_alerts: Callable[[], Sequence[Alert]]) -> None:
        self.open_alerts = open_alerts
        self._reads = 0

    @property
    def version(self) -> int:
        self._reads += 1
        return self._reads

    def held(self, key: Key) -> int:
        return sum(1 for a in self.open_alerts() if _alert_key(a) == key)

    def lowered_since(self, version: int) -> Iterable[Key] | None:
        return None


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


def _stale_notice(entry: Shown, hand: int | None) -> bool:
    """A notice of an earlier hand (or of the time between hands) once ``hand`` runs."""
    return (not entry.held and hand is not None and entry.hand_at != hand
            and entry.key[0] != "SENSOR_OFFLINE"
            and str(entry.payload.get("severity")) != Severity.FAULT.value)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class AlertBoard:
    """``held``: the monitor's open alerts now (read when an alert is published and after
    each step).

    Indexed (issue 10): by id, by key, and the count of held entries per key, so that a
    publication and a step cost the same with 10 or 3,000 alerts showing. :meth:`reconcile`
    passes over everything only when a new hand runs or the monitor closed a hand; otherwise
    it looks at the keys whose count went down since its last pass and the ones published
    since."""

    def __init__(self, held: HeldAlerts) -> None:
        self.held = held
        self._shown: dict[int, Shown] = {}  # id(entry) -> entry, in the order shown
        self._by_id: dict[Any, dict[int, Shown]] = {}
        self._by_key: dict[Key, dict[int, Shown]] = {}
        self._held_count: dict[Key, int] = {}
        self._next_id = 1
        self._seen: tuple[int, int | None] | None = None  # version, hand of the last pass
        self._dirty_keys: set[Key] = set()
        self._full = True

    @property
    def shown(self) -> list[Shown]:
        """The alerts showing, oldest first."""
        return list(self._shown.values())

    # ------------------------------------------------------------------ the indices
    def _add(self, entry: Shown) -> None:
        ident = id(entry)
        self._shown[ident] = entry
        if _hashable(entry.id):
            self._by_id.setdefault(entry.id, {})[ident] = entry
        self._by_key.setdefault(entry.key, {})[ident] = entry
        if entry.held:
            self._held_count[entry.key] = self._held_count.get(entry.key, 0) + 1

    def _drop(self, entry: Shown) -> None:
        ident = id(entry)
        del self._shown[ident]
        if _hashable(entry.id):
            _discard(self._by_id, entry.id, ident)
        _discard(self._by_key, entry.key, ident)
        if entry.held:
            n = self._held_count[entry.key] - 1
            if n:
                self._held_count[entry.key] = n
            else:
                del self._held_count[entry.key]

    def _with_id(self, alert_id: Any) -> Iterable[Shown]:
        if not _hashable(alert_id):
            return ()
        return tuple(self._by_id.get(alert_id, {}).values())

    # ------------------------------------------------------------------ what was published
    def published(self, payload: Mapping[str, Any], *, hand: int | None) -> Shown:
        """An alert as published (floor form); ``hand``: the hand in progress."""
        body = dict(payload)
        key = _key(body)
        own_id = body.get("id")
        if own_id is not None:
            for entry in self._with_id(own_id):
                return self._update(entry, body)
        severity = str(body.get("severity"))
        held_now = self.held.held(key)
        if own_id is None and severity in GAME:
            same = [e for e in self._by_key.get(key, {}).values()
                    if e.held == (held_now > 0)]
            if same and (held_now == 0 or len(same) >= held_now):
                return self._update(same[-1], body)
        if own_id is None:
            own_id = self._next_id
            self._next_id += 1
        entry = Shown(id=own_id, key=key, payload=body,
                      held=severity in GAME and held_now > 0, hand_at=hand)
        self._add(entry)
        self._touched(entry)
        return entry

    def _update(self, entry: Shown, body: dict[str, Any]) -> Shown:
        entry.payload = body
        entry.updates += 1
        entry.silenced = False  # published again: it sounds again
        self._touched(entry)
        return entry

    def _touched(self, entry: Shown) -> None:
        """What the next :meth:`reconcile` must look at for ``entry``."""
        if entry.held:
            self._dirty_keys.add(entry.key)
        elif self._seen is not None and _stale_notice(entry, self._seen[1]):
            self._full = True

    def code_resolved(self, code: str) -> None:
        """The dealer resolved ``code``: a fault or info alert (or a notice) of that code ends;
        a held game alert ends when the monitor lets it go (:meth:`reconcile`)."""
        for entry in reversed(self._shown.values()):
            if entry.key[0] == code and not entry.held:
                self._drop(entry)
                return

    def recovered(self) -> None:
        """``SENSOR_RECOVERED``: the sensor answers again, its offline alert ends."""
        for entry in [e for e in self._shown.values() if e.key[0] == "SENSOR_OFFLINE"]:
            self._drop(entry)

    def acknowledged(self) -> None:
        """The buzzer was silenced for the alerts showing now."""
        for entry in self._shown.values():
            entry.silenced = True

    def dismiss(self, alert_id: Any) -> bool:
        """The dealer dismisses a notice (an alert nothing holds open). False: no such
        notice."""
        for entry in self._with_id(alert_id):
            if not entry.held:
                self._drop(entry)
                return True
        return False

    # ------------------------------------------------------------------ after each step
    def reconcile(self, hand: int | None) -> None:
        """Close the held alerts the monitor no longer holds (newest of a key first) and the
        notices of an earlier hand once a new hand runs."""
        version = self.held.version
        seen = self._seen
        lowered: Iterable[Key] | None = None
        if not self._full and seen is not None and seen[1] == hand:
            lowered = () if seen[0] == version else self.held.lowered_since(seen[0])
        if lowered is None:
            self._whole_pass(hand)
        else:
            for key in {*lowered, *self._dirty_keys}:
                self._trim(key)
        self._seen = (version, hand)
        self._dirty_keys.clear()
        self._full = False

    def _trim(self, key: Key) -> None:
        """Keep the oldest as many held entries of ``key`` as the monitor holds open."""
        excess = self._held_count.get(key, 0) - self.held.held(key)
        if excess <= 0:
            return
        newest: list[Shown] = []
        for entry in reversed(self._by_key[key].values()):
            if entry.held:
                newest.append(entry)
                if len(newest) == excess:
                    break
        for entry in newest:
            self._drop(entry)

    def _whole_pass(self, hand: int | None) -> None:
        for key in list(self._held_count):
            self._trim(key)
        for entry in [e for e in self._shown.values() if _stale_notice(e, hand)]:
            self._drop(entry)


def _discard(index: dict[Any, dict[int, Shown]], key: Any, ident: int) -> None:
    bucket = index[key]
    del bucket[ident]
    if not bucket:
        del index[key]


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
