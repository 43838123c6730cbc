"""The daemon's resident memory over a long game with both sensors, and the fault alerts of a
game with no injected fault (goals: at most 150 MB after an hour; 0 faults).
``python -m benchmarks daemon_memory`` runs for ``$BENCH_DAEMON_SECONDS`` (default 3600;
``--quick``: 60).

``table-controller run --sim`` with ``sensors = ["rfid", "camera"]`` in its own process: the
virtual RFID controller on a pty read by the real serial link and reader, the rendered camera
frames through the real vision code. A client here plays hands through the console as a
dealer console would (sim_press, sim_deal, actions, sim_show, showdown, sim_collect; every
player calls or checks to the showdown; a short stack is topped up between hands). The
daemon's VmRSS is read from /proc every 10 s; at the end the journal is counted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from table_controller.daemon.bus import console_request
from table_controller.daemon.journal import Journal

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_S = 10.0
SHUFFLE_S = 2.0


def _rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of ``pid`` in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


class Refused(RuntimeError):
    """The controller refused a request (the message says why)."""


class Dealer:
    """The console's side of the game."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = console_request(self.endpoint, request, timeout=30.0)
        if not answer["ok"]:
            raise Refused(f"{request}: {answer['error']}")
        return answer

    def void(self) -> None:
        """The floor voids a hand the controller halted (a stop alert), the dealer collects."""
        if self.ask({"cmd": "status"})["hand"] is not None:
            self.ask({"cmd": "void", "cause": "benchmark: hand halted"})
        self.idle()
        self.ask({"cmd": "sim_collect"})
        self.idle()
        time.sleep(SHUFFLE_S)

    def idle(self) -> dict[str, Any]:
        """Wait until the simulated dealer has finished moving cards."""
        for _ in range(1200):
            status = self.ask({"cmd": "status"})
            if not status["sim_busy"]:
                return status
            time.sleep(0.05)
        raise RuntimeError("the simulated dealer never finished")

    def hand(self) -> None:
        status = self.ask({"cmd": "status"})
        for seat, chips in status["stacks"].items():
            if chips < 20:
                self.ask({"cmd": "add_chips", "seat": int(seat), "chips": 200 - chips})
        last = status["last_hand"]
        self.ask({"cmd": "sim_press"})
        for _ in range(600):
            if self.ask({"cmd": "status"})["hand"] == last + 1:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("the green button started no hand")
        self.ask({"cmd": "sim_deal", "street": "hole"})
        self.idle()
        while True:  # preflop: call or check around
            status = self.ask({"cmd": "status"})
            seat = status["to_act"]
            if seat is None:
                break
            snap = self.ask({"cmd": "snapshot"})["snapshot"]
            kind = "call" if "call" in snap["legal"]["kinds"] else "check"
            self.ask({"cmd": "action", "seat": seat, "kind": kind})
        order = self.ask({"cmd": "snapshot"})["snapshot"]["deal_order"]
        for street in ("flop", "turn", "river"):
            self.ask({"cmd": "sim_deal", "street": street})
            self.idle()
            for seat in order:  # everyone checks: the first to act is left of the button
                self.ask({"cmd": "action", "seat": seat, "kind": "check"})
        self.ask({"cmd": "sim_show", "seats": order})
        self.idle()
        self.ask({"cmd": "showdown"})
        self.ask({"cmd": "sim_collect"})
        self.idle()
        # the shuffle: a real shuffler takes longer than the sensors need to see the felt
        # clear (the reader's hold time, the settle time); pressing before that re-deals cards
        # the reader still holds on the seats
        time.sleep(SHUFFLE_S)


def _free_port() -> int:
    """A loopback port nothing listens on now, for the station (two runs side by side)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(seconds: float) -> dict[str, Any]:
    keep = os.environ.get("BENCH_DAEMON_KEEP")  # a folder: the journal stays there
    with (contextlib.nullcontext(keep) if keep
          else tempfile.TemporaryDirectory(prefix="bench_memory_")) as tmp:
        folder = Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "table.toml"
        config.write_text(f"""
[table]
name = "soak"
seats = 6
sensors = ["rfid", "camera"]
[players]
1 = 200
2 = 200
3 = 200
4 = 200
5 = 200
6 = 200
[rfid]
port = "loop://"
[camera]
source = "sim"
[decks]
db = "decks.sqlite"
[journal]
path = "journal.sqlite"
[bus]
public = "ipc://{folder}/public"
floor = "ipc://{folder}/floor"
console = "ipc://{folder}/console"
alerts = "ipc://{folder}/alerts"
[station]
listen = "127.0.0.1:{_free_port()}"
""")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--sim",
                                 "--manual", "--config", str(config), "--log-level", "WARNING"],
                                cwd=folder, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        if not proc.stdout.readline().startswith("ready"):
            proc.kill()
            raise RuntimeError(f"the daemon did not start: {proc.communicate()[1]}")
        dealer = Dealer(f"ipc://{folder}/console")
        samples: list[tuple[float, float]] = []
        start = time.monotonic()
        next_sample = start
        hands = 0
        halted: list[str] = []
        loads: list[float] = []
        first_hand_rss: float | None = None
        try:
            while time.monotonic() - start < seconds:
                try:
                    dealer.hand()
                except Refused as exc:  # a stop alert halted the hand: void it, go on
                    halted.append(str(exc))
                    dealer.void()
                hands += 1
                if first_hand_rss is None:
                    first_hand_rss = _rss_mb(proc.pid)[0]
                now = time.monotonic()
                if now >= next_sample:
                    samples.append((now - start, _rss_mb(proc.pid)[0]))
                    loads.append(os.getloadavg()[0])
                    next_sample = now + SAMPLE_S
            rss, hwm = _rss_mb(proc.pid)
            elapsed = time.monotonic() - start
        finally:
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=60)
        journal = Journal.open(folder / "journal.sqlite", readonly=True)
        try:
            alerts = journal.alerts()
            ended = journal.hands()
        finally:
            journal.close()
        first = [a for a in alerts if a.get("type") == "alert" and not a.get("update")]
        by_severity = Counter(a["severity"] for a in first)
        faults = [{k: a.get(k) for k in ("hand", "code", "seat", "time", "message")}
                  for a in first if a["severity"] == "fault"]
        return {"seconds": round(elapsed, 1), "hands": hands,
                "hands_journaled": sum(1 for h in ended if h.finished),
                "rss_after_first_hand_mb": round(first_hand_rss or 0.0, 1),
                "rss_end_mb": round(rss, 1), "rss_peak_mb": round(hwm, 1),
                "rss_samples": [(round(t), round(m, 1))
                                for t, m in samples[:: max(1, len(samples) // 12)]],
                "alerts": dict(by_severity), "fault_alerts": by_severity.get("fault", 0),
                "alert_codes": dict(Counter(a["code"] for a in first)),
                "faults_first": faults[:10],
                "hands_halted": len(halted), "halted_first": halted[:3],
                "loadavg_1min": {"min": min(loads, default=0.0), "max": max(loads, default=0.0),
                                 "mean": round(sum(loads) / max(1, len(loads)), 2),
                                 "cpus": os.cpu_count() or 0},
                "daemon_exit": proc.returncode, "daemon_errors": err.count(" ERROR ")}


def main(quick: bool) -> dict[str, Any]:
    seconds = 60.0 if quick else float(os.environ.get("BENCH_DAEMON_SECONDS", "3600"))
    figures = run(seconds)
    print(f"{'measure':<44}{'value':>12}")
    print(f"{'ran (s)':<44}{figures['seconds']:>12.0f}")
    print(f"{'hands played':<44}{figures['hands']:>12}")
    print(f"{'RSS after the first hand (MB)':<44}{figures['rss_after_first_hand_mb']:>12.1f}")
    print(f"{'RSS at the end (MB, goal <= 150)':<44}{figures['rss_end_mb']:>12.1f}")
    print(f"{'RSS peak (VmHWM, MB)':<44}{figures['rss_peak_mb']:>12.1f}")
    print(f"{'fault alerts (goal 0)':<44}{figures['fault_alerts']:>12}")
    print(f"{'hands halted by a stop alert (voided)':<44}{figures['hands_halted']:>12}")
    print(f"alerts by code: {figures['alert_codes']}; load average (1 min) over the run: "
          f"{figures['loadavg_1min']}")
    print(f"RSS samples (s, MB): {figures['rss_samples']}")
    return figures
