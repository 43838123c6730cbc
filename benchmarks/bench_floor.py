"""The floor following N tables, one table killed and restarted every few minutes.

N ``table-controller run --sim`` processes (each with its own ipc sockets and journal) and one
``table-controller floor`` process on this machine, its store in SQLite. A driver thread per
table plays hands through the table's console without a break (hole cards, one action out of
turn: an ACTION_OUT_OF_TURN alert, then checks and calls to a showdown), far faster than a real
table (a hand every few seconds instead of every two minutes): the floor's load is many times
a real room's. Every ``--kill-every`` seconds one table (in turn) is killed with SIGKILL, left
down ``--down`` seconds, and started again on the same journal.

Reported per N: hands played, alerts raised at the tables (from their journals, every run)
against alerts in the floor's store (goal: equal), gaps in any table's ``seq`` in the store
(goal: none), delivery (the alert's time at the table to its arrival in the floor's store,
wall clock of this machine) p50/p99/max, how long a killed table took to be shown offline,
the floor's CPU (user + system over the run) and memory (resident at the end, peak).

    python -m benchmarks floor                  # 5, 10 and 20 tables, 2 minutes each
    python -m benchmarks.bench_floor --tables 20 --minutes 20 --kill-every 180

Run from the project's folder (it uses the tests' table rig, ``tests/floor_rig.py``).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from tests.floor_rig import FloorProcess, SimTable, wait_for


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0  # utime, stime in clock ticks


def _memory_mb(pid: int) -> tuple[float, float]:
    """Resident and peak resident set, MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


class Driver(threading.Thread):
    """Plays hands at one table until stopped; survives the table being killed."""

    def __init__(self, table: SimTable, stop: threading.Event, pause: float) -> None:
        super().__init__(name=f"drive-{table.id}", daemon=True)
        self.table = table
        self.stop_event = stop
        self.pause = pause
        self.hands = 0
        self.failures = 0
        self.errors: Counter[str] = Counter()
        self.paused = threading.Event()  # set while the table is down

    def run(self) -> None:
        while not self.stop_event.is_set():
            if self.paused.is_set():
                self.stop_event.wait(0.2)
                continue
            try:
                self.table.start_hand()
                self.table.out_of_turn()
                self.table.play_to_end()
                self.hands += 1
            except Exception as exc:
                self.failures += 1
                self.errors[f"{type(exc).__name__}: {str(exc)[:100]}"] += 1
                self.stop_event.wait(1.0)
                self._tidy()
            self.stop_event.wait(self.pause)

    def _tidy(self) -> None:
        """After a failure (the table was killed mid-hand): a hand still open is voided."""
        try:
            if self.table.ask({"cmd": "status"})["hand"] is not None:
                self.table.ask({"cmd": "void", "cause": "benchmark: starting over"})
            self.table.sim({"cmd": "sim_collect"})
        except Exception:
            pass


def run(tables: int, seconds: float, kill_every: float, down: float, pause: float,
        folder: Path) -> dict[str, Any]:
    sims = [SimTable(folder / f"t{i:02d}", f"t{i:02d}", seed=i) for i in range(1, tables + 1)]
    floor = FloorProcess(folder / "floor", sims)
    stop = threading.Event()
    drivers = [Driver(t, stop, pause) for t in sims]
    offline_after: list[float] = []
    kills = 0
    try:
        for t in sims:
            t.start()
        floor.start()
        assert floor.proc is not None
        pid = floor.proc.pid

        def views() -> list[dict[str, Any]]:
            result: list[dict[str, Any]] = httpx.get(floor.url + "/api/tables",
                                                     timeout=10).json()
            return result

        wait_for(lambda: all(v["online"] for v in views()), "tables never online", 60)
        cpu0, t0 = _cpu_seconds(pid), time.monotonic()
        for d in drivers:
            d.start()
        next_kill = t0 + kill_every
        victim = 0
        while time.monotonic() - t0 < seconds:
            time.sleep(0.5)
            if time.monotonic() >= next_kill and time.monotonic() - t0 + down < seconds:
                d = drivers[victim % len(drivers)]
                victim += 1
                d.paused.set()
                killed = time.monotonic()
                d.table.stop(kill=True)
                kills += 1
                try:
                    wait_for(functools.partial(_offline, views, d.table.id),
                             "a killed table stayed online", 15, step=0.1)
                    offline_after.append(time.monotonic() - killed)
                except AssertionError:
                    offline_after.append(float("inf"))
                time.sleep(max(0.0, killed + down - time.monotonic()))
                d.table.start()
                d.paused.clear()
                next_kill = time.monotonic() + kill_every
        elapsed = time.monotonic() - t0
        cpu = _cpu_seconds(pid) - cpu0
        stop.set()
        for d in drivers:
            d.join(60)
        last = {t.id: t.journal_last_seqs() for t in sims}

        def caught_up() -> bool:
            current = {v["id"]: v["seq"] for v in views()}
            return all(current[tid].get(c, 0) >= seqs.get(c, 0)
                       for tid, seqs in last.items() for c in ("floor", "alerts"))

        caught = time.monotonic()
        wait_for(caught_up, "the floor never caught up", 120, step=0.2)
        catch_up_s = time.monotonic() - caught
        rss, peak = _memory_mb(pid)
        raised = {t.id: set(t.journal_alert_ids()) for t in sims}
    finally:
        stop.set()
        floor.stop()
        for t in sims:
            t.stop()
    return _figures(floor.store, raised, last, tables=tables, elapsed=elapsed, cpu=cpu,
                    rss=rss, peak=peak, kills=kills, offline_after=offline_after,
                    catch_up_s=catch_up_s, hands=sum(d.hands for d in drivers),
                    failures=sum(d.failures for d in drivers),
                    errors=sum((d.errors for d in drivers), Counter()))


def _offline(views: Callable[[], list[dict[str, Any]]], table_id: str) -> bool:
    return not next(v for v in views() if v["id"] == table_id)["online"]


def _figures(store_path: str, raised: dict[str, set[int]], last: dict[str, dict[str, int]], *,
             tables: int, elapsed: float, cpu: float, rss: float, peak: float, kills: int,
             offline_after: list[float], catch_up_s: float, hands: int,
             failures: int, errors: Counter[str]) -> dict[str, Any]:
    db = sqlite3.connect(store_path)
    try:
        stored: dict[str, set[int]] = {}
        for table_id, alert_id in db.execute("SELECT table_id, alert_id FROM alerts"):
            stored.setdefault(table_id, set()).add(int(alert_id))
        gaps = 0
        for (table_id, channel), seqs in _seqs(db).items():
            gaps += sum(b - a - 1 for a, b in itertools.pairwise(seqs) if b > a + 1)
            gaps += max(0, last[table_id].get(channel, 0) - seqs[-1])  # never came
        first_seen: dict[tuple[str, int], float] = {}
        alert_time: dict[tuple[str, int], float] = {}
        for table_id, body, received in db.execute(
                "SELECT table_id, body, received FROM messages WHERE type = 'alert'"):
            alert = json.loads(body)
            key = (table_id, int(alert["id"]))
            first_seen[key] = min(first_seen.get(key, received), received)
            alert_time[key] = datetime.fromisoformat(alert["time"]).timestamp()
        messages = db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    finally:
        db.close()
    delays = sorted((first_seen[k] - alert_time[k]) * 1000 for k in first_seen)
    missing = sum(len(ids - stored.get(t, set())) for t, ids in raised.items())
    extra = sum(len(stored.get(t, set()) - ids) for t, ids in raised.items())
    return {
        "tables": tables,
        "seconds": round(elapsed, 1),
        "hands": hands,
        "driver_failures": failures,
        "driver_errors": dict(errors.most_common(5)),
        "kills": kills,
        "offline_after_kill_s": [round(s, 2) for s in offline_after],
        "alerts_raised": sum(len(ids) for ids in raised.values()),
        "alerts_stored": sum(len(ids) for ids in stored.values()),
        "alerts_missing": missing,
        "alerts_extra": extra,
        "seq_gaps": gaps,
        "messages_stored": int(messages),
        "messages_per_second": round(messages / elapsed, 1),
        "delivery_ms_p50": round(_quantile(delays, 0.50), 1),
        "delivery_ms_p99": round(_quantile(delays, 0.99), 1),
        "delivery_ms_max": round(delays[-1], 1) if delays else None,
        "delivered_after_1s": sum(d > 1000 for d in delays),
        "catch_up_at_end_s": round(catch_up_s, 2),
        "floor_cpu_percent": round(100 * cpu / elapsed, 1),
        "floor_rss_mb": round(rss, 1),
        "floor_peak_mb": round(peak, 1),
    }


def _seqs(db: sqlite3.Connection) -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for table_id, channel, seq in db.execute(
            "SELECT table_id, channel, seq FROM messages ORDER BY table_id, channel, seq"):
        out.setdefault((table_id, channel), []).append(int(seq))
    return out


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 1000) - 1]


COLUMNS = ("tables", "seconds", "hands", "kills", "alerts_raised", "alerts_stored",
           "alerts_missing", "seq_gaps", "messages_per_second", "delivery_ms_p50",
           "delivery_ms_p99", "delivery_ms_max", "floor_cpu_percent", "floor_rss_mb",
           "floor_peak_mb")


def _print(rows: list[dict[str, Any]]) -> None:
    print(" ".join(f"{c:>12}" for c in ("tables", "s", "hands", "kills", "raised", "stored",
                                         "missing", "gaps", "msg/s", "p50 ms", "p99 ms",
                                         "max ms", "cpu %", "rss MB", "peak MB")))
    for row in rows:
        print(" ".join(f"{row[c]!s:>12}" for c in COLUMNS))
    for row in rows:
        print(f"{row['tables']} tables: offline after a kill: {row['offline_after_kill_s']} s; "
              f"alerts delivered after more than 1 s: {row['delivered_after_1s']}; "
              f"hands the driver gave up (cut by a kill, or a step the table refused) "
              f"{row['driver_failures']}: {row['driver_errors']}; caught up at the end in "
              f"{row['catch_up_at_end_s']} s", flush=True)


def bench(sizes: list[int], minutes: float, kill_every: float, down: float,
          pause: float) -> dict[str, Any]:
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
            print(f"-- {n} tables, {minutes:g} min", flush=True)
            rows.append(run(n, minutes * 60, kill_every, down, pause, Path(tmp)))
            _print(rows[-1:])
    _print(rows)
    return {"runs": rows, "kill_every_s": kill_every, "down_s": down, "hand_pause_s": pause}


def main(quick: bool = False) -> dict[str, Any]:
    if quick:
        return bench([3], 0.75, 20, 7, 1.0)
    return bench([5, 10, 20], 2, 50, 7, 1.0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_floor")
    parser.add_argument("--tables", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--minutes", type=float, default=20.0, help="per number of tables")
    parser.add_argument("--kill-every", type=float, default=180.0,
                        help="seconds between two kills (one table each time, in turn)")
    parser.add_argument("--down", type=float, default=7.0,
                        help="seconds a killed table stays down")
    parser.add_argument("--hand-pause", type=float, default=1.0,
                        help="seconds between two hands at a table")
    parser.add_argument("--out", help="write the figures to this JSON file")
    args = parser.parse_args()
    figures = bench(args.tables, args.minutes, args.kill_every, args.down, args.hand_pause)
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    sys.exit(0)
