"""A card on the RFID line to the alert at a bus subscriber, end to end through the daemon
(goal: p99 under 10 ms). ``python -m benchmarks daemon_latency`` (``--quick``: 1,000 events
instead of 10,000).

The daemon is ``table-controller run --config`` in its own process, on the real devices' code:
its RFID port is the pty of a :class:`hw_sim.devices.rfid_controller.VirtualRfidController`
run here. Each event writes one TAG_SEEN frame for a tag the deck registry does not know onto
the pty, between hands; the daemon's serial link and reader make it a card observation, the
dealing monitor raises FOREIGN_CARD, the controller journals it (SQLite, WAL) and publishes it;
the time runs from just before the frame is written to the moment a SUB socket here has
received the alert on the floor channel. One event in flight at a time; every tag is taken
away again (TAG_GONE) after its alert, so the table holds a few dozen cards at most, as a real
one does. The daemon's loop waits for its console up to 20 ms when idle; a card wakes it only
at that poll, so the loop period bounds the latency from below (see docs/running.md).
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import zmq

from firmware_bridge.decks import DeckRegistry
from firmware_bridge.protocol import TagGone, TagSeen
from hw_sim.devices.rfid_controller import NO_FLICKER, VirtualRfidController

ROOT = Path(__file__).resolve().parent.parent
PACE_S = 0.02  # between two events: a dealer places a card every few hundred ms
RT_PRIORITY = 10


def _percentile(sorted_values: list[float], p: float) -> float:
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def _config(folder: Path, port: str) -> Path:
    path = folder / "table.toml"
    path.write_text(f"""
[table]
name = "bench"
seats = 6
sensors = ["rfid"]
[players]
1 = 100
2 = 100
[rfid]
port = "{port}"
[decks]
db = "decks.sqlite"
[journal]
path = "journal.sqlite"
[bus]
public = "ipc://{folder}/public"
floor = "ipc://{folder}/floor"
console = "ipc://{folder}/console"
alerts = "none"
[station]
listen = "none"
""")
    return path


def _realtime() -> None:
    """This thread (and the threads and processes it starts) under SCHED_FIFO: ahead of every
    ordinary process of the machine, so what is left of the tail is the code's (and the
    kernel's)."""
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process ``pid`` has used so far, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _schedstat(pid: int) -> tuple[int, int]:
    """(ns on a CPU, ns runnable but waiting for one) of all the threads of ``pid`` so far
    (/proc/PID/task/TID/schedstat)."""
    run = wait = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
        except OSError:  # the thread ended meanwhile
            continue
        run += int(fields[0])
        wait += int(fields[1])
    return run, wait


def _start(config: Path, folder: Path, *, realtime: bool) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--config",
                             str(config), "--log-level", "WARNING"], cwd=folder, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_realtime if realtime else None)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("ready"):
        proc.kill()
        raise RuntimeError(f"the daemon did not start: {line} {proc.communicate()[1]}")
    return proc


def run(events: int, *, realtime: bool = False) -> dict[str, Any]:
    """``realtime``: the daemon and this process (its virtual controller, its subscriber) run
    under SCHED_FIFO (needs root or CAP_SYS_NICE)."""
    with tempfile.TemporaryDirectory(prefix="bench_daemon_") as tmp:
        folder = Path(tmp)
        DeckRegistry.open(folder / "decks.sqlite").close()  # no deck: every tag is foreign
        before = os.sched_getscheduler(0), os.sched_getparam(0)
        if realtime:
            _realtime()
        ctrl = VirtualRfidController(flicker=NO_FLICKER, heartbeat_interval=0.5)
        ctrl.start()
        proc = _start(_config(folder, ctrl.path), folder, realtime=realtime)
        ctx: zmq.Context[Any] = zmq.Context()
        sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt_string(zmq.SUBSCRIBE, "alert")
        sub.connect(f"ipc://{folder}/floor")
        latencies: list[float] = []
        cpu_ms: list[float] = []  # the daemon's CPU time during each event
        wait_ms: list[float] = []  # ... and the time its threads waited for a CPU
        loads: list[float] = []
        lost = 0
        try:
            time.sleep(1.0)  # the link's handshake and first inventory; the subscription
            warm = 50
            cpu0, wall0 = _cpu_s(proc.pid), time.monotonic()
            for i in range(events + warm):
                uid = (0x04B0_0000_0000 + i).to_bytes(7, "big")
                antenna = i % 6  # seat1..seat6
                run0, wait0 = _schedstat(proc.pid)
                t0 = time.perf_counter()
                ctrl.send_raw([TagSeen(antenna, uid, i, -50)])
                got = None
                while sub.poll(2000):
                    _topic, body = sub.recv_multipart()
                    alert = json.loads(body)
                    if alert["code"] == "FOREIGN_CARD":
                        got = time.perf_counter()
                        break
                if i % 250 == 0:
                    loads.append(os.getloadavg()[0])
                if got is None:
                    lost += 1
                elif i >= warm:
                    latencies.append(got - t0)
                    run1, wait1 = _schedstat(proc.pid)
                    cpu_ms.append((run1 - run0) / 1e6)
                    wait_ms.append((wait1 - wait0) / 1e6)
                ctrl.send_raw([TagGone(antenna, uid, i)])
                time.sleep(PACE_S)
            cpu = _cpu_s(proc.pid) - cpu0
            wall = time.monotonic() - wall0
            wal = folder / "journal.sqlite-wal"
            wal_mb = wal.stat().st_size / 1e6 if wal.exists() else 0.0
        finally:
            if realtime:
                os.sched_setscheduler(0, *before)
            sub.close()
            ctx.destroy(linger=0)
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=60)
            ctrl.stop()
        ms = sorted(v * 1000 for v in latencies)
        # what the latency would be had the daemon's threads never waited for a CPU (other
        # processes' share of the machine; the kernel's tty work and this process remain)
        own = sorted(v * 1000 - w for v, w in zip(latencies, wait_ms, strict=True))
        cpu_sorted, wait_sorted = sorted(cpu_ms), sorted(wait_ms)
        tail = sorted(v * 1000 for v in latencies[-1000:])
        return {"events": len(ms), "lost": lost, "p50_ms": _percentile(ms, 50),
                "p90_ms": _percentile(ms, 90), "p99_ms": _percentile(ms, 99),
                "max_ms": ms[-1], "mean_ms": statistics.fmean(ms),
                "last_1000_p50_ms": _percentile(tail, 50),
                "last_1000_p99_ms": _percentile(tail, 99),
                "daemon_cpu_ms_per_event": 1000 * cpu / (events + warm),
                "event_cpu_p50_ms": _percentile(cpu_sorted, 50),
                "event_cpu_p99_ms": _percentile(cpu_sorted, 99),
                "event_cpu_wait_p99_ms": _percentile(wait_sorted, 99),
                "without_cpu_wait_p50_ms": _percentile(own, 50),
                "without_cpu_wait_p99_ms": _percentile(own, 99),
                "daemon_cpu_share": cpu / wall, "journal_wal_mb": round(wal_mb, 1),
                "realtime": realtime,
                "loadavg_1min": {"min": min(loads), "max": max(loads),
                                 "mean": round(statistics.fmean(loads), 2),
                                 "cpus": os.cpu_count() or 0},
                "daemon_exit": proc.returncode, "daemon_errors": err.count("ERROR")}


def _realtime_allowed() -> bool:
    try:
        before = os.sched_getscheduler(0), os.sched_getparam(0)
        _realtime()
        os.sched_setscheduler(0, *before)
    except (PermissionError, AttributeError, OSError):
        return False
    return True


def main(quick: bool) -> dict[str, Any]:
    """Two runs: at the ordinary priority, among whatever else the machine runs; then, where
    allowed, the daemon and the benchmark under SCHED_FIFO, which takes the other processes'
    share of the CPUs out of the tail."""
    n = 1_000 if quick else 10_000
    runs = {"ordinary": run(n)}
    if _realtime_allowed():
        runs["realtime"] = run(n, realtime=True)
    print(f"{'measure':<46}" + "".join(f"{name:>12}" for name in runs))
    for key, label in (("p50_ms", "pty -> alert at a subscriber: p50 ms"),
                       ("p90_ms", "p90 ms"), ("p99_ms", "p99 ms (goal < 10)"),
                       ("max_ms", "max ms"), ("last_1000_p99_ms", "p99 of the last 1,000 ms"),
                       ("event_cpu_p50_ms", "daemon CPU ms in an event: p50"),
                       ("event_cpu_p99_ms", "daemon CPU ms in an event: p99"),
                       ("event_cpu_wait_p99_ms", "daemon waiting for a CPU, ms: p99"),
                       ("without_cpu_wait_p50_ms", "latency less that wait: p50 ms"),
                       ("without_cpu_wait_p99_ms", "latency less that wait: p99 ms"),
                       ("daemon_cpu_ms_per_event", "daemon CPU ms per event, all (mean)"),
                       ("journal_wal_mb", "journal WAL at the end, MB")):
        print(f"{label:<46}" + "".join(f"{r[key]:>12.3f}" for r in runs.values()))
    for name, r in runs.items():
        load = r["loadavg_1min"]
        print(f"{name}: {r['events']} events, {r['lost']} lost; load average (1 min) "
              f"{load['min']:.1f} to {load['max']:.1f}, mean {load['mean']:.1f}, on "
              f"{load['cpus']} CPUs")
    return runs
