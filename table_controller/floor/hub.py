"""What the floor knows right now about each table, fed by the table followers and read by the
dashboard.

Each message a follower receives goes through :meth:`FloorHub.receive`: it is stored (once per
``seq``), the table's live state is updated, and every listener (the dashboard's live streams)
is told. A table that has said nothing, not even a heartbeat, for :data:`SILENT_AFTER` seconds
is shown offline (:meth:`FloorHub.check_silence`). The hub holds no sockets: the followers own
them (``table_controller.floor.follower``), which keeps it testable on its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.floor.store import FloorStore

log = logging.getLogger(__name__)

SILENT_AFTER = 4.0
"""Seconds without a word from a table before it is shown offline. Its follower hears it at
least every 0.5 s (the welcome to each hello) and the floor looks every 0.25 s, so a table that
goes silent is offline on the dashboard within 5 s (issue 13)."""
SEVERITY_ORDER = ("stop", "fix", "warn", "fault", "info")

Listener = Callable[[dict[str, Any]], None]


@dataclass(slots=True)
class TableState:
    """One table as the dashboard shows it."""

    id: str
    name: str
    online: bool = False
    last_heard: float | None = None  # monotonic
    hand: int | None = None
    button: int | None = None
    pot: int = 0
    board: list[str] = field(default_factory=list)
    stacks: dict[str, int] = field(default_factory=dict)
    sensors: dict[str, bool] = field(default_factory=dict)
    seq: dict[str, int] = field(default_factory=dict)
    problem: str | None = None  # why the follower cannot reach it, if it cannot

    def public(self, open_alerts: Mapping[str, int]) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "online": self.online, "hand": self.hand,
                "button": self.button, "pot": self.pot, "board": list(self.board),
                "players": len(self.stacks), "stacks": dict(self.stacks),
                "sensors": dict(self.sensors), "seq": dict(self.seq),
                "open_alerts": dict(open_alerts), "problem": self.problem}


class FloorHub:
    def __init__(self, store: FloorStore, tables: Mapping[str, str],
                 clock: Callable[[], float], wall: Callable[[], float] = time.time) -> None:
        """``tables``: id -> display name, from the floor's configuration; ``clock``:
        monotonic seconds (silences); ``wall``: wall seconds (when a message was received,
        kept in the store to compare with the table's ``time``)."""
        self.store = store
        self.clock = clock
        self.wall = wall
        self.tables = {tid: TableState(tid, name) for tid, name in tables.items()}
        self._listeners: list[Listener] = []
        self._lock = threading.RLock()
        self._ack_senders: dict[str, Callable[[int, str], bool]] = {}

    # ------------------------------------------------------------------ listeners
    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every change; returns the function that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def stop() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return stop

    def _tell(self, event: dict[str, Any]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # one broken stream must not stop the floor
                log.exception("floor listener failed")

    # ------------------------------------------------------------------ from the followers
    def heard(self, table: str) -> None:
        """The table answered (a heartbeat, a snapshot, any message)."""
        with self._lock:
            state = self.tables[table]
            state.last_heard = self.clock()
            was, state.online, state.problem = state.online, True, None
        if not was:
            self._tell({"type": "table", "table": self.table_view(table)})

    def unreachable(self, table: str, problem: str) -> None:
        with self._lock:
            state = self.tables[table]
            changed = state.online or state.problem != problem
            state.online, state.problem = False, problem
        if changed:
            self._tell({"type": "table", "table": self.table_view(table)})

    def check_silence(self) -> list[str]:
        """Mark offline the tables silent for :data:`SILENT_AFTER`; returns their ids."""
        now = self.clock()
        gone = []
        with self._lock:
            for state in self.tables.values():
                if state.online and (state.last_heard is None
                                     or now - state.last_heard >= SILENT_AFTER):
                    state.online = False
                    gone.append(state.id)
        for table in gone:
            self._tell({"type": "table", "table": self.table_view(table)})
        return gone

    def receive(self, table: str, channel: str, message: Mapping[str, Any]) -> bool:
        """One message from ``table``: stored, applied, announced. False if it was already
        stored (a resend or an overlapping catch-up)."""
        self.heard(table)
        if not self.store.record(table, channel, message, received=self.wall()):
            return False
        with self._lock:
            state = self.tables[table]
            seq = message.get("seq")
            if isinstance(seq, int):
                state.seq[channel] = max(seq, state.seq.get(channel, 0))
            self._apply(state, message)
        self._tell({"type": "message", "table": table, "message": dict(message),
                    "state": self.table_view(table)})
        return True

    def apply_snapshot(self, table: str, snapshot: Mapping[str, Any]) -> None:
        """The table's whole state (the answer to a snapshot request)."""
        self.heard(table)
        with self._lock:
            state = self.tables[table]
            hand = snapshot.get("hand")
            state.hand = hand.get("number") if isinstance(hand, dict) else hand
            state.button = snapshot.get("button")
            seen = [str(c) for c in snapshot.get("board_seen") or [] if c]
            state.board = seen or [str(c) for c in snapshot.get("board") or []]
            state.pot = int(snapshot.get("pot") or 0)
            stacks = snapshot.get("stacks")
            if isinstance(stacks, dict):
                state.stacks = {str(k): int(v) for k, v in stacks.items()}
        self._tell({"type": "table", "table": self.table_view(table)})

    def _apply(self, state: TableState, m: Mapping[str, Any]) -> None:
        kind = m.get("type")
        if kind == "hand_start":
            state.hand = m.get("hand")
            state.button = m.get("button")
            state.board, state.pot = [], 0
            state.stacks = {str(k): int(v) for k, v in dict(m.get("stacks") or {}).items()}
        elif kind == "hand_end":
            state.hand = None
            state.board, state.pot = [], 0
            state.stacks = {str(k): int(v) for k, v in dict(m.get("stacks") or {}).items()}
        elif kind == "sensor":
            state.sensors[str(m.get("source"))] = bool(m.get("online"))
        elif kind == "action" and isinstance(m.get("pot"), int):  # the hand after it
            state.pot = int(m["pot"])
            state.stacks.update({str(k): int(v) for k, v in dict(m.get("stacks") or {}).items()})
        elif kind == "card" and m.get("zone") == "board" and isinstance(m.get("card"), str):
            card = str(m["card"])
            if m.get("event") == "removed":
                state.board = [c for c in state.board if c != card]
            elif card not in state.board:
                state.board.append(card)
        elif kind == "state":  # a table's periodic summary (pot and board as they stand)
            state.pot = int(m.get("pot") or state.pot)
            state.board = [str(c) for c in m.get("board") or state.board]

    # ------------------------------------------------------------------ acknowledgements
    def on_acknowledge(self, table: str, send: Callable[[int, str], bool]) -> None:
        """The follower of ``table`` sends an acknowledgement back to it with ``send``."""
        self._ack_senders[table] = send

    def acknowledge(self, table: str, alert_id: int, by: str, time: str) -> bool:
        """A person acknowledged an alert on the floor: recorded, and sent back to the table.
        False if the alert is not known."""
        if table not in self.tables or not self.store.acknowledge(table, alert_id, by=by,
                                                                  time=time):
            return False
        send = self._ack_senders.get(table)
        if send is not None:
            try:
                send(alert_id, by)
            except Exception:
                log.exception("acknowledgement of %s alert %d not sent", table, alert_id)
        self._tell({"type": "acknowledged", "table": table, "id": alert_id, "by": by})
        return True

    # ------------------------------------------------------------------ views
    def table_view(self, table: str) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for alert in self.store.alerts(table, open_only=True):
            counts[alert.severity] = counts.get(alert.severity, 0) + 1
        with self._lock:
            return self.tables[table].public(
                {s: counts[s] for s in SEVERITY_ORDER if s in counts})

    def table_views(self) -> list[dict[str, Any]]:
        return [self.table_view(t) for t in sorted(self.tables)]
