"""``table-controller run --sim`` plays by itself: the simulated station deals and plays
through the console socket, hand after hand, until SIGTERM; ``--config`` in ``--sim`` needs no
device section, and no ``--config`` at all starts with the built-in table."""

from __future__ import annotations

import argparse
import json
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import zmq

from table_controller.commands import run as run_command
from table_controller.config import parse_config
from table_controller.daemon.journal import Journal, JournalError
from tests.test_daemon_run import start, stop


def sim_config(tmp_path: Path) -> str:
    return f"""
[table]
seats = 6
sensors = ["rfid"]
[players]
1 = 200
2 = 200
3 = 200
[journal]
path = "journal.sqlite"
[sim]
seed = 3
move_interval = 0.05
[station]
listen = "none"
[bus]
public = "ipc://{tmp_path}/public"
floor = "ipc://{tmp_path}/floor"
console = "ipc://{tmp_path}/console"
alerts = "ipc://{tmp_path}/alerts"
"""


def test_run_sim_plays_hands_by_itself_and_stops_on_sigterm(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(sim_config(tmp_path))  # no [rfid], no [decks]: the simulator needs none
    sub: zmq.Socket[Any] = zmq.Context.instance().socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"hand_end")
    sub.connect(f"ipc://{tmp_path}/public")
    proc, _ready = start(["run", "--sim", "--config", str(cfg), "--error-rate", "0.3"],
                         tmp_path)
    ends: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 150
        while len(ends) < 3:
            assert time.monotonic() < deadline, f"only {len(ends)} hand(s) ended: {ends}"
            if sub.poll(1000):
                _topic, body = sub.recv_multipart()
                ends.append(json.loads(body))
    finally:
        code, out, err = stop(proc, signal.SIGTERM)
        sub.close(0)
    assert code == 0, err
    assert "stopped" in out and "Traceback" not in err
    assert [e["hand"] for e in ends[:3]] == [ends[0]["hand"], ends[0]["hand"] + 1,
                                             ends[0]["hand"] + 2]
    journal = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        hands = journal.hands()
        assert len([h for h in hands if h.finished]) >= 3
        requests = [json.loads(r["request"]) for r in journal.console_requests()]
        kinds = {r["cmd"] for r in requests}
        # the station's requests went through the console and the journal like a station's
        assert {"sim_press", "sim_deal", "action", "sim_collect"} <= kinds
        # chips only move between the players
        for h in hands:
            if h.finished and h.stacks_after is not None:
                assert sum(h.stacks_after.values()) == 600
    finally:
        journal.close()


def test_sim_config_needs_no_device_section() -> None:
    config = parse_config({"table": {"sensors": ["rfid", "camera"]}}, sim=True)
    assert config.rfid is None and config.camera is None and config.decks_db is None
    assert parse_config(run_command.SIM_DEFAULTS, sim=True).table.seats == 6


def test_run_sim_without_config_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the defaults but the fixed ports, which another run on this machine may hold
    bus = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "floor", "console", "alerts")}
    monkeypatch.setattr(run_command, "SIM_DEFAULTS", {**run_command.SIM_DEFAULTS, "bus": bus,
                                                      "station": {"listen": "127.0.0.1:0"}})
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser()
    run_command.configure(parser)
    args = parser.parse_args(["--sim", "--log-level", "ERROR"])
    journal = tmp_path / "sim-journal.sqlite"

    def stop_once_a_hand_started() -> None:
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                if journal.exists():
                    try:
                        j = Journal.open(journal, readonly=True)
                        try:
                            if j.hands():
                                break
                        finally:
                            j.close()
                    except (sqlite3.Error, JournalError):
                        pass        # the file is there before the daemon made its tables
                time.sleep(0.2)
        finally:
            signal.raise_signal(signal.SIGTERM)     # whatever happened, the run must stop

    watcher = threading.Thread(target=stop_once_a_hand_started)
    watcher.start()
    try:
        assert run_command.run(args) == 0
    finally:
        watcher.join()
    j = Journal.open(journal, readonly=True)
    try:
        assert j.hands()[0].number == 1
    finally:
        j.close()
