"""The floor's store: every message the floor received from every table, and what it derives
from them (alerts with their lifecycle and acknowledgements, hands, staff and their sessions).

SQLite by default (a file, nothing to install); PostgreSQL when the floor's configuration says
``store = "postgresql://..."`` (a floor that spans a property, or several floor servers on one
database; the ``psycopg`` package, extra ``postgresql``). The two run the same SQL: written with
``?`` placeholders, turned into ``%s`` for PostgreSQL.

Messages are kept whole (``body``, JSON text) under ``(table, channel, seq)``, so a message
received twice (a resend, a catch-up that overlaps what already arrived) is stored once, and a
table's gaps in ``seq`` can be found. The derived rows follow the message schemas of
docs/running.md: ``alert`` (first publication, or ``"update": true``; the same alert arrives on
the floor channel and on the alert channel, and is one alert), ``alert_resolved``, the table's
``acknowledged`` notice, ``hand_start`` and ``hand_end`` (which also ends the hand's alerts
still open: ``resolved_by = "hand_end"``, alerts.md).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS messages (
        table_id TEXT NOT NULL, channel TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL,
        hand BIGINT, time TEXT, received DOUBLE PRECISION NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (table_id, channel, seq))""",
    "CREATE INDEX IF NOT EXISTS messages_hand ON messages (table_id, hand)",
    """CREATE TABLE IF NOT EXISTS alerts (
        table_id TEXT NOT NULL, alert_id BIGINT NOT NULL, code TEXT NOT NULL,
        severity TEXT NOT NULL, hand BIGINT, seat BIGINT, raised TEXT, updates BIGINT NOT NULL,
        body TEXT NOT NULL, resolved_by TEXT, resolved TEXT, acked_by TEXT, acked TEXT,
        PRIMARY KEY (table_id, alert_id))""",
    "CREATE INDEX IF NOT EXISTS alerts_code ON alerts (code)",
    """CREATE TABLE IF NOT EXISTS hands (
        table_id TEXT NOT NULL, hand BIGINT NOT NULL, started TEXT, ended TEXT, button BIGINT,
        seats TEXT, start_stacks TEXT, end_stacks TEXT, pot BIGINT, voided BIGINT,
        PRIMARY KEY (table_id, hand))""",
    "CREATE INDEX IF NOT EXISTS hands_started ON hands (started)",
    """CREATE TABLE IF NOT EXISTS staff (
        username TEXT PRIMARY KEY, password_hash TEXT NOT NULL, role TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS sessions (
        token_hash TEXT PRIMARY KEY, username TEXT NOT NULL,
        expires DOUBLE PRECISION NOT NULL)""",
)


class StoreError(Exception):
    """The store cannot be opened or written; the text names it."""


@dataclass(frozen=True, slots=True)
class StoredAlert:
    table: str
    id: int
    code: str
    severity: str
    hand: int | None
    seat: int | None
    raised: str | None
    updates: int
    body: dict[str, Any]
    resolved_by: str | None
    resolved: str | None
    acked_by: str | None
    acked: str | None

    @property
    def open(self) -> bool:
        return self.resolved_by is None


@dataclass(frozen=True, slots=True)
class StoredHand:
    table: str
    hand: int
    started: str | None
    ended: str | None
    button: int | None
    seats: tuple[int, ...]
    start_stacks: dict[str, int]
    end_stacks: dict[str, int] | None
    pot: int | None
    voided: bool | None


class _Connection(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def close(self) -> None: ...


def pot_of(start: Mapping[str, int], end: Mapping[str, int], body: Mapping[str, Any]) -> int:
    """The hand's pot: the ``pot`` the table gives in ``hand_end`` when it does, otherwise the
    chips that changed hands (the sum of what the losing seats lost)."""
    given = body.get("pot")
    if isinstance(given, int) and not isinstance(given, bool):
        return given
    return sum(max(0, start.get(seat, 0) - end.get(seat, 0)) for seat in start)


class FloorStore:
    """One store, shared by the floor's threads (a lock around every statement)."""

    def __init__(self, db: _Connection, *, placeholder: str, where: str) -> None:
        self._db = db
        self._mark = placeholder
        self.where = where
        self._lock = threading.RLock()
        with self._transaction():
            for statement in SCHEMA:
                self._db.execute(statement)

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, url: str | Path) -> FloorStore:
        """``postgresql://...`` (or ``postgres://``), else a SQLite file path (``sqlite:///``
        prefix allowed; ``:memory:`` for tests)."""
        text = str(url)
        if text.startswith(("postgresql://", "postgres://")):
            return cls._postgresql(text)
        path = text.removeprefix("sqlite:///") if text.startswith("sqlite:///") else text
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: consistent after a power cut
            db.execute("PRAGMA busy_timeout=5000")
        except sqlite3.Error as exc:
            raise StoreError(f"floor store {path}: {exc}") from None
        return cls(_SqliteConnection(db), placeholder="?", where=path)

    @classmethod
    def _postgresql(cls, url: str) -> FloorStore:
        try:
            import psycopg
        except ImportError:
            raise StoreError("store = postgresql://...: the psycopg package is not installed "
                             "(pip install 'table-controller[postgresql]')") from None
        try:
            db = psycopg.connect(url)
        except psycopg.Error as exc:
            raise StoreError(f"floor store {_safe(url)}: {exc}") from None
        return cls(db, placeholder="%s", where=_safe(url))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ plumbing
    def _sql(self, sql: str) -> str:
        return sql if self._mark == "?" else sql.replace("?", self._mark)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._lock:
            try:
                if isinstance(self._db, _SqliteConnection):
                    self._db.execute("BEGIN")
                yield
            except BaseException:
                self._db.rollback()
                raise
            else:
                self._db.commit()

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            rows = list(self._db.execute(self._sql(sql), tuple(params)).fetchall())
            if not isinstance(self._db, _SqliteConnection):
                self._db.commit()  # end the read transaction psycopg opened
            return rows

    def _run(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._db.execute(self._sql(sql), tuple(params))

    # ------------------------------------------------------------------ messages in
    def record(self, table: str, channel: str, message: Mapping[str, Any], *,
               received: float) -> bool:
        """Store one message of ``table`` (it must carry an int ``seq``); False when that seq
        of that channel was already stored (nothing changes then)."""
        seq = message.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise StoreError(f"table {table}: a message without an integer seq: {message!r}")
        kind = str(message.get("type", ""))
        hand = message.get("hand") if isinstance(message.get("hand"), int) else None
        time = message.get("time") if isinstance(message.get("time"), str) else None
        body = json.dumps(message, sort_keys=True)
        with self._transaction():
            seen = self._run("SELECT 1 FROM messages WHERE table_id = ? AND channel = ? "
                             "AND seq = ?", (table, channel, seq)).fetchone()
            if seen is not None:
                return False
            self._run("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      (table, channel, seq, kind, hand, time, received, body))
            self._derive(table, kind, message, body)
        return True

    def _derive(self, table: str, kind: str, m: Mapping[str, Any], body: str) -> None:
        if kind == "alert" and isinstance(m.get("id"), int):
            row = self._run("SELECT body FROM alerts WHERE table_id = ? AND alert_id = ?",
                            (table, m["id"])).fetchone()
            if row is None:
                self._run("INSERT INTO alerts VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, NULL, NULL, "
                          "NULL, NULL)", (table, m["id"], str(m.get("code")),
                                          str(m.get("severity")), _int(m.get("hand")),
                                          _int(m.get("seat")), m.get("time"), body))
            elif _same_alert(json.loads(row[0]), m):  # the other channel's copy
                pass
            else:
                self._run("UPDATE alerts SET body = ?, updates = updates + ? "
                          "WHERE table_id = ? AND alert_id = ?",
                          (body, int(bool(m.get("update"))), table, m["id"]))
        elif kind == "alert_resolved" and isinstance(m.get("id"), int):
            self._run("UPDATE alerts SET resolved_by = ?, resolved = ? "
                      "WHERE table_id = ? AND alert_id = ?",
                      (str(m.get("by", "")), m.get("time"), table, m["id"]))
        elif kind == "acknowledged" and isinstance(m.get("id"), int):  # at the table
            self._run("UPDATE alerts SET acked_by = ?, acked = ? WHERE table_id = ? "
                      "AND alert_id = ? AND acked_by IS NULL",
                      (str(m.get("by", "")), m.get("time"), table, m["id"]))
        elif kind == "hand_start" and isinstance(m.get("hand"), int):
            stacks = {str(k): v for k, v in dict(m.get("stacks") or {}).items()}
            self._run("DELETE FROM hands WHERE table_id = ? AND hand = ?", (table, m["hand"]))
            self._run("INSERT INTO hands VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, NULL, NULL)",
                      (table, m["hand"], m.get("time"), _int(m.get("button")),
                       json.dumps(sorted(int(s) for s in stacks)), json.dumps(stacks)))
        elif kind == "hand_end" and isinstance(m.get("hand"), int):
            row = self._run("SELECT start_stacks FROM hands WHERE table_id = ? AND hand = ?",
                            (table, m["hand"])).fetchone()
            end = {str(k): v for k, v in dict(m.get("stacks") or {}).items()}
            if row is None:  # the start was missed (the floor joined mid-hand)
                self._run("INSERT INTO hands VALUES (?, ?, NULL, NULL, NULL, ?, ?, NULL, NULL, "
                          "NULL)", (table, m["hand"], json.dumps(sorted(int(s) for s in end)),
                                    json.dumps({})))
                start: dict[str, int] = {}
            else:
                start = json.loads(row[0])
            self._run("UPDATE hands SET ended = ?, end_stacks = ?, pot = ?, voided = ? "
                      "WHERE table_id = ? AND hand = ?",
                      (m.get("time"), json.dumps(end), pot_of(start, end, m),
                       int(bool(m.get("voided"))), table, m["hand"]))
            self._run("UPDATE alerts SET resolved_by = 'hand_end', resolved = ? "
                      "WHERE table_id = ? AND hand = ? AND resolved_by IS NULL",
                      (m.get("time"), table, m["hand"]))

    # ------------------------------------------------------------------ sequence numbers
    def last_seq(self, table: str, channel: str) -> int | None:
        rows = self._all("SELECT MAX(seq) FROM messages WHERE table_id = ? AND channel = ?",
                         (table, channel))
        value = rows[0][0] if rows else None
        return None if value is None else int(value)

    def missing(self, table: str, channel: str) -> list[tuple[int, int]]:
        """The gaps in ``seq`` below the highest one stored: ``(first, last)`` ranges."""
        seqs = [int(r[0]) for r in self._all(
            "SELECT seq FROM messages WHERE table_id = ? AND channel = ? ORDER BY seq",
            (table, channel))]
        return [(a + 1, b - 1) for a, b in itertools.pairwise(seqs) if b > a + 1]

    def count(self, table: str | None = None, *, kind: str | None = None) -> int:
        sql, params = "SELECT COUNT(*) FROM messages WHERE 1 = 1", list[Any]()
        if table is not None:
            sql, params = sql + " AND table_id = ?", [*params, table]
        if kind is not None:
            sql, params = sql + " AND type = ?", [*params, kind]
        return int(self._all(sql, params)[0][0])

    # ------------------------------------------------------------------ alerts
    def alerts(self, table: str | None = None, *, open_only: bool = False,
               code: str | None = None) -> list[StoredAlert]:
        sql, params = "SELECT * FROM alerts WHERE 1 = 1", list[Any]()
        if table is not None:
            sql, params = sql + " AND table_id = ?", [*params, table]
        if open_only:
            sql += " AND resolved_by IS NULL"
        if code is not None:
            sql, params = sql + " AND code = ?", [*params, code]
        return [_alert(r) for r in self._all(sql + " ORDER BY table_id, alert_id", params)]

    def acknowledge(self, table: str, alert_id: int, *, by: str, time: str) -> bool:
        """Record the floor's acknowledgement; False if the alert is not known."""
        with self._transaction():
            done = self._run("UPDATE alerts SET acked_by = ?, acked = ? WHERE table_id = ? "
                             "AND alert_id = ?", (by, time, table, alert_id))
            return bool(done.rowcount)

    # ------------------------------------------------------------------ hands
    def hands(self, *, table: str | None = None, since: str | None = None,
              until: str | None = None, seat: int | None = None, code: str | None = None,
              min_pot: int | None = None, max_pot: int | None = None,
              limit: int = 200) -> list[StoredHand]:
        """Hands matching every filter given: table, start time range (ISO text), a seat dealt
        in, an alert code raised in the hand, pot size range."""
        sql, params = "SELECT * FROM hands h WHERE 1 = 1", list[Any]()
        for clause, value in (("h.table_id = ?", table), ("h.started >= ?", since),
                              ("h.started <= ?", until), ("h.pot >= ?", min_pot),
                              ("h.pot <= ?", max_pot)):
            if value is not None:
                sql, params = f"{sql} AND {clause}", [*params, value]
        if code is not None:
            sql += (" AND EXISTS (SELECT 1 FROM alerts a WHERE a.table_id = h.table_id "
                    "AND a.hand = h.hand AND a.code = ?)")
            params.append(code)
        rows = [_hand(r) for r in self._all(sql + " ORDER BY h.started DESC, h.table_id, "
                                            "h.hand DESC", params)]
        if seat is not None:
            rows = [h for h in rows if seat in h.seats]
        return rows[:limit]

    def hand_messages(self, table: str, hand: int) -> list[dict[str, Any]]:
        """Every message of one hand on the table's floor channel (which has every card,
        action, alert and the hand's end), in the order the table sent them."""
        rows = self._all("SELECT body FROM messages WHERE table_id = ? AND hand = ? "
                         "AND channel = 'floor' ORDER BY seq", (table, hand))
        return [json.loads(r[0]) for r in rows]

    # ------------------------------------------------------------------ staff
    def put_staff(self, username: str, password_hash: str, role: str) -> None:
        with self._transaction():
            self._run("DELETE FROM staff WHERE username = ?", (username,))
            self._run("INSERT INTO staff VALUES (?, ?, ?)", (username, password_hash, role))

    def staff(self, username: str) -> tuple[str, str] | None:
        """``(password_hash, role)`` of ``username``."""
        rows = self._all("SELECT password_hash, role FROM staff WHERE username = ?",
                         (username,))
        return None if not rows else (str(rows[0][0]), str(rows[0][1]))

    def put_session(self, token_hash: str, username: str, expires: float) -> None:
        with self._transaction():
            self._run("INSERT INTO sessions VALUES (?, ?, ?)", (token_hash, username, expires))

    def session(self, token_hash: str, now: float) -> str | None:
        """The user of a session that has not expired."""
        rows = self._all("SELECT username FROM sessions WHERE token_hash = ? AND expires > ?",
                         (token_hash, now))
        return None if not rows else str(rows[0][0])

    def drop_sessions(self, *, token_hash: str | None = None, before: float | None = None
                      ) -> None:
        with self._transaction():
            if token_hash is not None:
                self._run("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))
            if before is not None:
                self._run("DELETE FROM sessions WHERE expires <= ?", (before,))


class _SqliteConnection:
    """sqlite3 in autocommit mode with explicit transactions (BEGIN ... COMMIT)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._db.execute(sql, params)

    def commit(self) -> None:
        if self._db.in_transaction:
            self._db.execute("COMMIT")

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def close(self) -> None:
        self._db.close()


def _same_alert(stored: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """The same version of an alert (each channel numbers its messages: ``seq`` differs)."""
    def strip(m: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in m.items() if k != "seq"}
    return strip(stored) == strip(new)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    head, sep, tail = url.partition("@")
    if not sep:
        return url
    scheme, _, credentials = head.partition("://")
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{tail}"


def _alert(r: tuple[Any, ...]) -> StoredAlert:
    return StoredAlert(table=r[0], id=int(r[1]), code=r[2], severity=r[3], hand=_opt(r[4]),
                       seat=_opt(r[5]), raised=r[6], updates=int(r[7]), body=json.loads(r[8]),
                       resolved_by=r[9], resolved=r[10], acked_by=r[11], acked=r[12])


def _hand(r: tuple[Any, ...]) -> StoredHand:
    return StoredHand(table=r[0], hand=int(r[1]), started=r[2], ended=r[3], button=_opt(r[4]),
                      seats=tuple(json.loads(r[5] or "[]")),
                      start_stacks=json.loads(r[6] or "{}"),
                      end_stacks=None if r[7] is None else json.loads(r[7]),
                      pot=_opt(r[8]), voided=None if r[9] is None else bool(r[9]))


def _opt(value: Any) -> int | None:
    return None if value is None else int(value)
