"""The table's journal: every observation, console request, alert and hand, in SQLite.

Append-only: rows are only ever inserted (a hand is one row when it starts and one when it
ends). Each record is committed on its own in WAL mode, so a record the controller has written
survives the process being killed; ``synchronous=NORMAL`` keeps the database consistent after a
power cut (the commits since the last checkpoint may be lost then, never the file). The WAL's
checkpoints run on their own thread every second (:mod:`table_controller.daemon.checkpoint`),
not inside a commit of the controller's loop.

A write that fails (disk full, a reader holding a lock too long) never stops the table: the
record stays queued in memory, the failure is logged once, and every later write and
:meth:`Journal.flush` retries the queue in order. :meth:`Journal.close` flushes.

Each start of the controller is a *run* (hand numbers count from 1 in a run, alerts.md), so
hands are named by ``(run, number)``; the queries default to the latest run.

The one exception to append-only: the body of each published message is kept (``published``,
so a floor that missed messages gets them again, :meth:`Journal.messages`) for the last
:data:`KEEP_BODIES` messages of each channel; older bodies are cleared (their row stays).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.daemon.checkpoint import CHECKPOINT_INTERVAL, Checkpointer
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardObservation,
    Observation,
    SensorStatus,
)

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
RETRY_INTERVAL = 1.0
"""Seconds between two attempts while writes fail, so a locked or full disk does not stall the
controller's loop at every record (each attempt may wait the busy timeout)."""
KEEP_BODIES = 50_000
"""Published messages per channel whose body the journal keeps (about a day of play at a busy
table; the row of an older message stays, its body is cleared)."""
PRUNE_EVERY = 1_000
"""Bodies are cleared in batches, at every this many messages of a channel."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run INTEGER PRIMARY KEY, started_wall TEXT NOT NULL, started_t REAL NOT NULL,
    table_name TEXT NOT NULL, config TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS observations (
    id INTEGER PRIMARY KEY, run INTEGER NOT NULL, hand INTEGER, t REAL NOT NULL,
    wall TEXT NOT NULL, kind TEXT NOT NULL, event TEXT, zone TEXT, source TEXT, key TEXT,
    card TEXT, face TEXT, deck TEXT, foreign_card INTEGER, joker INTEGER, online INTEGER,
    detail TEXT, accepted INTEGER NOT NULL, error TEXT);
CREATE INDEX IF NOT EXISTS observations_time ON observations (run, t);
CREATE TABLE IF NOT EXISTS console (
    id INTEGER PRIMARY KEY, run INTEGER NOT NULL, hand INTEGER, t REAL NOT NULL,
    wall TEXT NOT NULL, request TEXT NOT NULL, ok INTEGER NOT NULL, error TEXT,
    after INTEGER);
CREATE TABLE IF NOT EXISTS alerts (
    id INTEGER PRIMARY KEY, run INTEGER NOT NULL, hand INTEGER, t REAL NOT NULL,
    wall TEXT NOT NULL, code TEXT NOT NULL, severity TEXT NOT NULL, seat INTEGER,
    json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS alerts_hand ON alerts (run, hand);
CREATE TABLE IF NOT EXISTS alert_events (
    id INTEGER PRIMARY KEY, run INTEGER NOT NULL, alert INTEGER NOT NULL,
    after INTEGER NOT NULL, hand INTEGER, t REAL NOT NULL, wall TEXT NOT NULL,
    kind TEXT NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS alert_events_hand ON alert_events (run, hand);
CREATE TABLE IF NOT EXISTS hand_starts (
    run INTEGER NOT NULL, number INTEGER NOT NULL, t REAL NOT NULL, wall TEXT NOT NULL,
    button INTEGER, stacks TEXT NOT NULL, PRIMARY KEY (run, number));
CREATE TABLE IF NOT EXISTS hand_ends (
    run INTEGER NOT NULL, number INTEGER NOT NULL, t REAL NOT NULL, wall TEXT NOT NULL,
    voided INTEGER NOT NULL, cause TEXT, stacks TEXT NOT NULL, phh TEXT, phh_error TEXT,
    PRIMARY KEY (run, number));
CREATE TABLE IF NOT EXISTS published (
    run INTEGER NOT NULL, channel TEXT NOT NULL, seq INTEGER NOT NULL, topic TEXT NOT NULL,
    body TEXT);
CREATE INDEX IF NOT EXISTS published_seq ON published (channel, seq);
CREATE TABLE IF NOT EXISTS deliveries (
    alert INTEGER PRIMARY KEY, run INTEGER NOT NULL, seq INTEGER NOT NULL, t REAL NOT NULL,
    wall TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS acks (
    alert INTEGER NOT NULL, run INTEGER NOT NULL, t REAL NOT NULL, wall TEXT NOT NULL,
    client TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS acks_alert ON acks (alert);
"""


_ALERT_LIVES = ("SELECT run, hand, json, id AS pos, 0 AS late, 0 AS event FROM alerts "
                "UNION ALL SELECT run, hand, json, after, 1, id FROM alert_events")
"""Each alert's first publication (one row per id) and its updates and ends, with the place
of each: an event comes after the last alert journaled before it, events in their order."""
_ALERT_ORDER = "pos, late, event"


class JournalError(Exception):
    """The journal file cannot be opened or read; the text names the file."""


@dataclass(frozen=True, slots=True)
class HandRecord:
    run: int
    number: int
    start_t: float | None
    start_wall: str | None
    button: int | None
    stacks_before: dict[int, int]
    end_t: float | None
    end_wall: str | None
    voided: bool | None
    cause: str | None
    stacks_after: dict[int, int] | None
    phh: str | None
    phh_error: str | None

    @property
    def finished(self) -> bool:
        return self.end_t is not None


@dataclass(frozen=True, slots=True)
class ObservationRecord:
    id: int
    run: int
    hand: int | None
    t: float
    wall: str
    kind: str  # card | button | sensor
    fields: dict[str, Any]
    accepted: bool
    error: str | None


@dataclass(frozen=True, slots=True)
class ConsoleRecord:
    """A console request the controller carried out (its JSON text)."""

    run: int
    id: int
    t: float
    wall: str
    request: str


def _stacks(text: str | None) -> dict[int, int] | None:
    if text is None:
        return None
    return {int(k): int(v) for k, v in json.loads(text).items()}


def _stacks_json(stacks: Mapping[int, int]) -> str:
    return json.dumps({str(k): v for k, v in sorted(stacks.items())})


class Journal:
    """One journal file. Thread-safe (one lock); writes come from the controller's loop."""

    def __init__(self, db: sqlite3.Connection, *, path: str, readonly: bool,
                 checkpointer: Checkpointer | None = None) -> None:
        self._db = db
        self.checkpointer = checkpointer  # the WAL's checkpoints, off the loop
        self.path = path
        self.readonly = readonly
        self._lock = threading.Lock()
        self._pending: deque[tuple[str, tuple[Any, ...]]] = deque()
        self._failing = False
        self._retry_at = 0.0  # while failing, the next attempt (monotonic seconds)
        self.retry_interval = RETRY_INTERVAL
        self.run: int | None = None
        self.failures = 0
        self.keep_bodies = KEEP_BODIES

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False,
             busy_timeout: float = 0.2,
             checkpoint_interval: float = CHECKPOINT_INTERVAL) -> Journal:
        """Open (creating it unless ``readonly``) the journal at ``path``. ``busy_timeout``:
        seconds a write waits for a reader's lock before it is queued for a retry;
        ``checkpoint_interval``: seconds between two checkpoints of the WAL (on their own
        thread, :mod:`table_controller.daemon.checkpoint`)."""
        text = str(path)
        if readonly and not Path(text).exists():
            raise JournalError(f"no journal at {text}")
        try:
            if readonly:
                db = sqlite3.connect(f"file:{Path(text).resolve()}?mode=ro", uri=True,
                                     check_same_thread=False, isolation_level=None)
            else:
                Path(text).parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(text, check_same_thread=False, isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise JournalError(f"cannot open journal {text}: {exc}") from None
        try:
            db.execute(f"PRAGMA busy_timeout = {max(0, int(busy_timeout * 1000))}")
            if not readonly:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
                db.execute("PRAGMA wal_autocheckpoint = 0")  # the Checkpointer's job
                db.executescript(_SCHEMA)
                _add_body_column(db)
                _add_console_order(db)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                           (str(SCHEMA_VERSION),))
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None or int(row[0]) > SCHEMA_VERSION:
                raise JournalError(f"{text}: not a journal of this controller "
                                   f"(schema {row[0] if row else 'missing'})")
        except sqlite3.Error as exc:
            db.close()
            raise JournalError(f"{text} is not a usable journal: {exc}") from None
        except JournalError:
            db.close()
            raise
        return cls(db, path=text, readonly=readonly,
                   checkpointer=None if readonly else Checkpointer(
                       text, interval=checkpoint_interval))

    def close(self) -> None:
        """Flush what is queued and close the file (its last checkpoint with it)."""
        if self.checkpointer is not None:
            self.checkpointer.stop()
        if not self.readonly:
            left = self.flush(force=True)
            if left:
                log.error("journal %s: %d record(s) could not be written at close", self.path,
                          left)
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ writing
    def start_run(self, *, t: float, wall: str, table_name: str, config: str) -> int:
        """Start a run (one start of the controller); later records belong to it."""
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO runs (started_wall, started_t, table_name, config) "
                "VALUES (?, ?, ?, ?)", (wall, t, table_name, config))
            self.run = int(cur.lastrowid or 0)
            return self.run

    def record_observation(self, obs: Observation, *, hand: int | None, wall: str,
                           error: str | None = None) -> None:
        """``error``: why the controller refused it (it is kept all the same)."""
        base = (self._run(), hand, obs.t, wall)
        row: tuple[Any, ...]
        if isinstance(obs, CardObservation):
            row = ("card", obs.event.value, obs.zone, obs.source.value, obs.key,
                   None if obs.card is None else str(obs.card), obs.face.value, obs.deck,
                   int(obs.foreign), int(obs.joker), None, None)
        elif isinstance(obs, ButtonPressed):
            row = ("button", None, None, None, None, None, None, None, None, None, None, None)
        elif isinstance(obs, SensorStatus):
            row = ("sensor", None, None, obs.source.value, None, None, None, None, None, None,
                   int(obs.online), obs.detail)
        else:
            row = ("unknown", None, None, None, None, None, None, None, None, None, None,
                   repr(obs))
        self._write(
            "INSERT INTO observations (run, hand, t, wall, kind, event, zone, source, key, "
            "card, face, deck, foreign_card, joker, online, detail, accepted, error) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*base, *row, int(error is None), error))

    def record_console(self, request: Mapping[str, Any] | str, *, t: float, wall: str,
                       hand: int | None, error: str | None) -> None:
        """The request goes after the last observation journaled before it (``after``), so a
        restart replays the observations and the requests of a live hand in the order the
        controller took them (:mod:`table_controller.daemon.replay`)."""
        text = request if isinstance(request, str) else json.dumps(request, sort_keys=True)
        self._write("INSERT INTO console (run, hand, t, wall, request, ok, error, after) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, "
                    "(SELECT COALESCE(MAX(id), 0) FROM observations))",
                    (self._run(), hand, t, wall, text, int(error is None), error))

    def record_alert(self, alert: Alert, payload: Mapping[str, Any]) -> None:
        """``payload``: the alert as published (alerts.md JSON, with every card: the journal
        is a private record); its ``id``, when it has one, is the row's id."""
        self._write("INSERT INTO alerts (id, run, hand, t, wall, code, severity, seat, json) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (payload.get("id"), self._run(), alert.hand, alert.t, payload["time"],
                     alert.code, alert.severity.value, alert.seat, json.dumps(payload)))

    def record_published(self, channel: str, seq: int, topic: str, *,
                         body: str | None = None) -> None:
        """A message with ``seq`` went out on ``channel`` (so the numbering continues after a
        restart, docs/running.md "Sequence numbers"); ``body``: its JSON text, kept for
        :meth:`messages` (the last :attr:`keep_bodies` of the channel)."""
        self._write("INSERT INTO published (run, channel, seq, topic, body) "
                    "VALUES (?, ?, ?, ?, ?)", (self._run(), channel, seq, topic, body))
        if body is not None and seq % PRUNE_EVERY == 0 and seq > self.keep_bodies:
            cut = seq - self.keep_bodies
            self._write("UPDATE published SET body = NULL WHERE channel = ? AND seq > ? "
                        "AND seq <= ? AND body IS NOT NULL",
                        (channel, cut - 10 * PRUNE_EVERY, cut))

    def record_delivery(self, alert_id: int, *, seq: int, t: float, wall: str) -> None:
        """Alert ``alert_id`` (journaled before) is to be delivered until acknowledged."""
        self._write("INSERT OR IGNORE INTO deliveries (alert, run, seq, t, wall) "
                    "VALUES (?, ?, ?, ?, ?)", (alert_id, self._run(), seq, t, wall))

    def record_ack(self, alert_id: int, *, t: float, wall: str, client: str) -> None:
        self._write("INSERT INTO acks (alert, run, t, wall, client) VALUES (?, ?, ?, ?, ?)",
                    (alert_id, self._run(), t, wall, client))

    def record_alert_event(self, *, alert_id: int, hand: int | None, t: float,
                           payload: Mapping[str, Any]) -> None:
        """An update (``"update": true``) or the end (``alert_resolved``) of alert ``alert_id``,
        as published (alerts.md, "Lifecycle"). The alerts table keeps one row per alert id;
        these go apart, each placed after the last alert journaled before it, so ``alerts()``
        shows each alert's whole life in order."""
        self._write("INSERT INTO alert_events (run, alert, after, hand, t, wall, kind, json) "
                    "VALUES (?, ?, (SELECT COALESCE(MAX(id), 0) FROM alerts), ?, ?, ?, ?, ?)",
                    (self._run(), alert_id, hand, t, str(payload.get("time", "")),
                     str(payload.get("type", "")), json.dumps(payload)))

    def record_hand_start(self, *, number: int, t: float, wall: str, button: int | None,
                          stacks: Mapping[int, int]) -> None:
        self._write("INSERT OR IGNORE INTO hand_starts (run, number, t, wall, button, stacks) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (self._run(), number, t, wall, button, _stacks_json(stacks)))

    def record_hand_end(self, *, number: int, t: float, wall: str, voided: bool,
                        cause: str | None, stacks: Mapping[int, int], phh: str | None,
                        phh_error: str | None, run: int | None = None) -> None:
        """``run``: the run the hand started in (default: this one), for a hand a killed run
        left without an end."""
        self._write("INSERT OR IGNORE INTO hand_ends (run, number, t, wall, voided, cause, "
                    "stacks, phh, phh_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (self._run() if run is None else run, number, t, wall, int(voided), cause,
                     _stacks_json(stacks), phh, phh_error))

    @property
    def pending(self) -> int:
        """Records queued because a write failed (0 when everything is on disk)."""
        with self._lock:
            return len(self._pending)

    def flush(self, *, force: bool = False) -> int:
        """Retry the queued records in order (while writes fail, at most every
        :data:`RETRY_INTERVAL` seconds unless ``force``); returns how many are still queued."""
        with self._lock:
            self._drain(force=force)
            return len(self._pending)

    def _run(self) -> int:
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        if self.run is None:
            raise JournalError(f"journal {self.path}: start_run() first")
        return self.run

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        with self._lock:
            self._pending.append((sql, params))
            self._drain()

    def _drain(self, *, force: bool = False) -> None:
        if self._failing and not force and time.monotonic() < self._retry_at:
            return
        while self._pending:
            sql, params = self._pending[0]
            try:
                self._db.execute(sql, params)  # autocommit: one record, one transaction
            except sqlite3.Error as exc:
                self.failures += 1
                if not self._failing:
                    log.error("journal %s: write failed (%s); %d record(s) queued, retrying",
                              self.path, exc, len(self._pending))
                self._failing = True
                self._retry_at = time.monotonic() + self.retry_interval
                return
            self._pending.popleft()
            if self._failing:
                log.warning("journal %s: writing again", self.path)
                self._failing = False

    # ------------------------------------------------------------------ queries
    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise JournalError(f"journal {self.path}: {exc}") from None

    def runs(self) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute("SELECT run, started_wall, table_name, config FROM runs "
                              "ORDER BY run").fetchall()
        return [{"run": r[0], "started": r[1], "table": r[2], "config": r[3]} for r in rows]

    def sensor_counts(self, *, run: int | None = None) -> dict[str, dict[str, Any]]:
        """Per sensor (``rfid``, ``camera``, ``button``) in ``run`` (default: the latest): how
        many observations, how many the monitor refused, the time ``t`` of the last one."""
        with self._read() as db:
            rows = db.execute(
                "SELECT CASE WHEN kind = 'button' THEN 'button' ELSE source END, COUNT(*), "
                "SUM(accepted = 0), MAX(t) FROM observations WHERE run = ? GROUP BY 1",
                (self._which(run),)).fetchall()
        return {str(r[0]): {"observations": int(r[1]), "refused": int(r[2] or 0),
                            "last_t": r[3]} for r in rows if r[0] is not None}

    def last_seqs(self) -> dict[str, int]:
        """Channel -> the last sequence number journaled on it (every run)."""
        with self._read() as db:
            rows = db.execute("SELECT channel, MAX(seq) FROM published GROUP BY channel"
                              ).fetchall()
        return {str(r[0]): int(r[1]) for r in rows}

    def messages(self, channel: str, *, after: int, limit: int, max_bytes: int
                 ) -> tuple[list[str], bool]:
        """The JSON texts of the messages of ``channel`` with ``seq > after`` whose body is
        kept, in order: at most ``limit`` of them and about ``max_bytes`` (at least one).
        Returns ``(texts, more)``: ``more`` when there are others after the last one given."""
        with self._read() as db:
            if not _has_body_column(db):
                return [], False
            rows = db.execute("SELECT body FROM published WHERE channel = ? AND seq > ? AND "
                              "body IS NOT NULL ORDER BY seq LIMIT ?",
                              (channel, after, limit + 1)).fetchall()
        texts: list[str] = []
        size = 0
        for (text,) in rows[:limit]:
            if texts and size + len(text) > max_bytes:
                return texts, True
            texts.append(str(text))
            size += len(text)
        return texts, len(rows) > limit

    def first_kept(self, channel: str) -> int | None:
        """The ``seq`` of the oldest message of ``channel`` whose body is kept."""
        with self._read() as db:
            if not _has_body_column(db):
                return None
            row = db.execute("SELECT MIN(seq) FROM published WHERE channel = ? AND "
                             "body IS NOT NULL", (channel,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def last_alert_id(self) -> int:
        """The largest alert id in the journal (0 if none): ids increase across runs."""
        with self._read() as db:
            row = db.execute("SELECT MAX(id) FROM alerts").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    def unacknowledged(self) -> list[tuple[int, int, dict[str, Any]]]:
        """``(alert id, seq, alert object)`` of every delivery no ack has come for, oldest
        first (every run: a restart resends them)."""
        with self._read() as db:
            rows = db.execute(
                "SELECT d.alert, d.seq, a.json FROM deliveries AS d "
                "JOIN alerts AS a ON a.id = d.alert "
                "WHERE NOT EXISTS (SELECT 1 FROM acks AS k WHERE k.alert = d.alert) "
                "ORDER BY d.seq").fetchall()
        return [(int(r[0]), int(r[1]), json.loads(r[2])) for r in rows]

    def acks(self, *, run: int | None = None) -> list[dict[str, Any]]:
        """The acknowledgements of ``run`` (default: the latest), in order."""
        with self._read() as db:
            rows = db.execute("SELECT alert, t, wall, client FROM acks WHERE run = ? "
                              "ORDER BY rowid", (self._which(run),)).fetchall()
        return [{"id": r[0], "t": r[1], "time": r[2], "client": r[3]} for r in rows]

    def latest_run(self) -> int | None:
        with self._read() as db:
            row = db.execute("SELECT MAX(run) FROM runs").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def _which(self, run: int | None) -> int | None:
        return run if run is not None else self.latest_run()

    def _run_rows(self, select: str, *, hand: int | None, run: int | None) -> list[Any]:
        """Rows of ``select`` (a query over one table) for ``run`` (default: the latest) and,
        when given, ``hand``, in the order they were written."""
        sql = select + " WHERE run = ?"
        params: tuple[Any, ...] = (self._which(run),)
        if hand is not None:
            sql += " AND hand = ?"
            params += (hand,)
        with self._read() as db:
            return list(db.execute(sql + " ORDER BY id", params).fetchall())

    def hands(self, *, run: int | None = None) -> list[HandRecord]:
        """Every hand of ``run`` (default: the latest), started or ended, by number."""
        which = self._which(run)
        with self._read() as db:
            rows = db.execute(_HANDS + " ORDER BY number", (which, which)).fetchall()
        return [_hand(r) for r in rows]

    def all_hands(self) -> list[HandRecord]:
        """Every hand of every run, in the order they were played (run, then number)."""
        out: list[HandRecord] = []
        for r in self.runs():
            out += self.hands(run=int(r["run"]))
        return out

    def all_alerts(self) -> list[tuple[int, dict[str, Any]]]:
        """Every alert of every run, with its updates and ends, in order, with its run."""
        with self._read() as db:
            rows = db.execute(f"SELECT run, json FROM ({_ALERT_LIVES}) "
                              f"ORDER BY run, {_ALERT_ORDER}").fetchall()
        return [(int(r[0]), json.loads(r[1])) for r in rows]

    def hand(self, number: int, *, run: int | None = None) -> HandRecord | None:
        which = self._which(run)
        with self._read() as db:
            row = db.execute(f"SELECT * FROM ({_HANDS}) WHERE number = ?",
                             (which, which, number)).fetchone()
        return None if row is None else _hand(row)

    def alerts(self, *, hand: int | None = None, run: int | None = None
               ) -> list[dict[str, Any]]:
        """The alerts (alerts.md JSON objects) of ``hand``, or of the whole run, in order,
        with their updates and ends (alerts.md "Lifecycle")."""
        sql = f"SELECT json FROM ({_ALERT_LIVES}) WHERE run = ?"
        params: tuple[Any, ...] = (self._which(run),)
        if hand is not None:
            sql += " AND hand = ?"
            params += (hand,)
        with self._read() as db:
            rows = db.execute(sql + f" ORDER BY {_ALERT_ORDER}", params).fetchall()
        return [json.loads(r[0]) for r in rows]

    def console_requests(self, *, hand: int | None = None, run: int | None = None
                         ) -> list[dict[str, Any]]:
        rows = self._run_rows("SELECT t, wall, hand, request, ok, error FROM console",
                              hand=hand, run=run)
        return [{"t": r[0], "time": r[1], "hand": r[2], "request": r[3], "ok": bool(r[4]),
                 "error": r[5]} for r in rows]

    def hand_inputs(self, number: int) -> list[ObservationRecord | ConsoleRecord]:
        """What the controller took in during hand ``number`` (every run: a resumed hand goes
        on in the next run), in the order it took them: the observations the monitor accepted
        and the console requests it carried out. Raises :class:`JournalError` when a request
        has no place among the observations (a journal older than resume)."""
        with self._read() as db:
            runs = [int(r[0]) for r in db.execute(
                "SELECT DISTINCT run FROM observations WHERE hand = ? UNION "
                "SELECT DISTINCT run FROM console WHERE hand = ? ORDER BY 1",
                (number, number)).fetchall()]
            rows = db.execute(
                "SELECT run, id, after, t, wall, request FROM console "
                "WHERE hand = ? AND ok = 1 ORDER BY run, id", (number,)).fetchall()
        out: list[ObservationRecord | ConsoleRecord] = []
        for run in runs:
            obs = [o for o in self.observations(hand=number, run=run) if o.accepted]
            obs.sort(key=lambda o: o.id)
            cons = [r for r in rows if r[0] == run]
            if any(r[2] is None for r in cons):
                raise JournalError(f"journal {self.path}: hand {number}'s console requests "
                                   "have no place among its observations (a journal made "
                                   "before resume)")
            merged: list[tuple[int, int, ObservationRecord | ConsoleRecord]] = \
                [(o.id, 0, o) for o in obs]
            merged += [(int(r[2]), 1, ConsoleRecord(run=run, id=int(r[1]), t=float(r[3]),
                                                   wall=str(r[4]), request=str(r[5])))
                       for r in cons]
            merged.sort(key=lambda m: (m[0], m[1], m[2].id))
            out += [m[2] for m in merged]
        return out

    def hand_alerts(self, number: int) -> list[dict[str, Any]]:
        """The first publication of every alert of hand ``number`` (every run), by id."""
        with self._read() as db:
            rows = db.execute("SELECT json FROM alerts WHERE hand = ? ORDER BY id",
                              (number,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def alert_times(self, number: int) -> list[float]:
        """The times ``t`` of every alert record of hand ``number`` (every run)."""
        with self._read() as db:
            rows = db.execute("SELECT t FROM alerts WHERE hand = ? UNION ALL "
                              "SELECT t FROM alert_events WHERE hand = ?",
                              (number, number)).fetchall()
        return [float(r[0]) for r in rows]

    def ended_alerts(self, ids: list[int]) -> set[int]:
        """Which of the alert ``ids`` have their end (``alert_resolved``) journaled."""
        if not ids:
            return set()
        marks = ", ".join("?" for _ in ids)
        with self._read() as db:
            rows = db.execute(f"SELECT DISTINCT alert FROM alert_events WHERE kind = "
                              f"'alert_resolved' AND alert IN ({marks})", ids).fetchall()
        return {int(r[0]) for r in rows}

    def acknowledged(self, ids: list[int]) -> set[int]:
        """Which of the alert ``ids`` the floor acknowledged."""
        if not ids:
            return set()
        marks = ", ".join("?" for _ in ids)
        with self._read() as db:
            rows = db.execute(f"SELECT DISTINCT alert FROM acks WHERE alert IN ({marks})",
                              ids).fetchall()
        return {int(r[0]) for r in rows}

    def observations(self, *, start: float | None = None, end: float | None = None,
                     hand: int | None = None, run: int | None = None
                     ) -> list[ObservationRecord]:
        """Observations of ``run`` with ``start <= t <= end`` (monotonic seconds of that run),
        of ``hand`` if given."""
        which = self._which(run)
        sql = ("SELECT id, run, hand, t, wall, kind, event, zone, source, key, card, face, deck, "
               "foreign_card, joker, online, detail, accepted, error FROM observations "
               "WHERE run = ?")
        params: tuple[Any, ...] = (which,)
        if start is not None:
            sql += " AND t >= ?"
            params += (start,)
        if end is not None:
            sql += " AND t <= ?"
            params += (end,)
        if hand is not None:
            sql += " AND hand = ?"
            params += (hand,)
        with self._read() as db:
            rows = db.execute(sql + " ORDER BY t, id", params).fetchall()
        names = ("event", "zone", "source", "key", "card", "face", "deck", "foreign", "joker",
                 "online", "detail")
        out = []
        for r in rows:
            fields = {n: v for n, v in zip(names, r[6:17], strict=True) if v is not None}
            out.append(ObservationRecord(id=r[0], run=r[1], hand=r[2], t=r[3], wall=r[4],
                                         kind=r[5], fields=fields, accepted=bool(r[17]),
                                         error=r[18]))
        return out


def _has_body_column(db: sqlite3.Connection) -> bool:
    return any(r[1] == "body" for r in db.execute("PRAGMA table_info(published)"))


def _add_console_order(db: sqlite3.Connection) -> None:
    """A journal made before console requests were placed among the observations gets the
    column (its rows: no place, so a hand live in it cannot be replayed)."""
    if not any(r[1] == "after" for r in db.execute("PRAGMA table_info(console)")):
        db.execute("ALTER TABLE console ADD COLUMN after INTEGER")


def _add_body_column(db: sqlite3.Connection) -> None:
    """A journal made before message bodies were kept gets the column (its rows: no body)."""
    if not _has_body_column(db):
        db.execute("ALTER TABLE published ADD COLUMN body TEXT")
    db.execute("CREATE INDEX IF NOT EXISTS published_kept ON published (channel, seq) "
               "WHERE body IS NOT NULL")


_HANDS = """
SELECT n.number AS number, s.t AS start_t, s.wall AS start_wall, s.button AS button,
       s.stacks AS stacks_before, e.t AS end_t, e.wall AS end_wall, e.voided AS voided,
       e.cause AS cause, e.stacks AS stacks_after, e.phh AS phh, e.phh_error AS phh_error,
       n.run AS run
FROM (SELECT run, number FROM hand_starts WHERE run = ?
      UNION SELECT run, number FROM hand_ends WHERE run = ?) AS n
LEFT JOIN hand_starts AS s ON s.run = n.run AND s.number = n.number
LEFT JOIN hand_ends AS e ON e.run = n.run AND e.number = n.number
"""


def _hand(r: tuple[Any, ...]) -> HandRecord:
    return HandRecord(run=int(r[12]), number=int(r[0]), start_t=r[1], start_wall=r[2],
                      button=r[3], stacks_before=_stacks(r[4]) or {}, end_t=r[5], end_wall=r[6],
                      voided=None if r[7] is None else bool(r[7]), cause=r[8],
                      stacks_after=_stacks(r[9]), phh=r[10], phh_error=r[11])
