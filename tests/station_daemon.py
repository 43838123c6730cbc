"""``table-controller run --sim`` as a process, with its dealer station, for the page tests and
the station's benchmark: started from a configuration file in a folder of its own, it prints
its ``ready`` line (with the station's address), and stops on SIGTERM."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.daemon.bus import console_request

ROOT = Path(__file__).resolve().parent.parent


def config_text(folder: Path, *, players: int = 3, stack: int = 200,
                move_interval: float = 0.05, extra: str = "") -> str:
    seats = "\n".join(f"{n} = {stack}" for n in range(1, players + 1))
    return f"""
[table]
name = "station-test"
seats = 6
sensors = ["rfid"]
[players]
{seats}
[rfid]
port = "loop://"
[decks]
db = "decks.sqlite"
[journal]
path = "journal.sqlite"
[bus]
public = "ipc://{folder}/public"
floor = "ipc://{folder}/floor"
console = "ipc://{folder}/console"
[station]
listen = "127.0.0.1:0"
[sim]
seed = 5
move_interval = {move_interval}
{extra}
"""


@dataclass
class Daemon:
    folder: Path
    proc: subprocess.Popen[str]
    station: str  # http://127.0.0.1:PORT
    console_endpoint: str

    @property
    def port(self) -> int:
        return int(self.station.rsplit(":", 1)[1])

    def ask(self, request: dict[str, Any], *, ok: bool = True) -> dict[str, Any]:
        answer = console_request(self.console_endpoint, request, timeout=10)
        if ok:
            assert answer["ok"], (request, answer)
        return answer

    def idle(self, timeout: float = 20.0) -> dict[str, Any]:
        """Wait until the simulated dealer has finished moving cards."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.ask({"cmd": "status"})
            if not status.get("sim_busy"):
                return status
            assert time.monotonic() < deadline, "the simulated dealer never finished"
            time.sleep(0.02)

    def until(self, what: str, check: Any, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status = self.ask({"cmd": "status"})
            if check(status):
                return status
            assert time.monotonic() < deadline, f"never: {what} ({status})"
            time.sleep(0.02)

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        try:
            _out, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        return self.proc.returncode, err


def start_daemon(folder: Path, config: str | None = None) -> Daemon:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "table.toml"
    path.write_text(config if config is not None else config_text(folder))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--sim",
                             "--manual", "--config", str(path), "--log-level", "WARNING"],
                            cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if sel.select(timeout=1.0):
            line = proc.stdout.readline()
            if line.startswith("ready"):
                station = re.search(r" station (\S+)", line)
                console = re.search(r" console (\S+)", line)
                assert station and console, line
                return Daemon(folder, proc, station.group(1), console.group(1))
            if not line and proc.poll() is not None:
                break
    proc.kill()
    _out, err = proc.communicate()
    raise AssertionError(f"run --sim never got ready: {err}")
