"""Real tables and a real floor for the floor's tests and benchmark: ``table-controller run
--sim`` processes (each with its own ipc sockets and journal) driven through their consoles,
and ``table-controller floor`` as a process. Not a test module."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from table_controller.daemon.bus import console_request
from table_controller.daemon.journal import Journal

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch(args: Sequence[str], cwd: Path, log: Path, *, timeout: float = 60.0
           ) -> tuple[subprocess.Popen[str], str, TextIO]:
    """Start ``table-controller ARGS`` in ``cwd`` (stderr to ``log``); returns the process,
    its ``ready`` line and the log file (close it after the process ended)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    err = log.open("a")
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sel.select(timeout=1.0):
            line = proc.stdout.readline()
            if line.startswith("ready"):
                sel.close()
                return proc, line.strip(), err
            if not line and proc.poll() is not None:
                break
    proc.kill()
    proc.communicate()
    err.close()
    raise AssertionError(f"never ready: {log.read_text()[-3000:]}")


def end(proc: subprocess.Popen[str], *, kill: bool = False) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
    return int(proc.returncode)


class SimTable:
    """One ``run --sim`` table in ``folder`` (its config, journal, ipc sockets). ``bus``:
    extra ``[bus]`` lines (e.g. tcp endpoints and keys)."""

    def __init__(self, folder: Path, table_id: str, *, bus: dict[str, str] | None = None,
                 seed: int = 1) -> None:
        self.folder = folder
        self.id = table_id
        folder.mkdir(parents=True, exist_ok=True)
        self.endpoints = bus or {name: f"ipc://{folder}/{name}"
                                 for name in ("public", "floor", "console", "alerts")}
        lines = "\n".join(f'{k} = "{v}"' for k, v in self.endpoints.items())
        (folder / "table.toml").write_text(f"""
[table]
name = "{table_id}"
seats = 6
sensors = ["rfid"]
[players]
1 = 200
2 = 200
3 = 200
[rfid]
port = "loop://"
[decks]
db = "decks.sqlite"
[journal]
path = "journal.sqlite"
[station]
listen = "none"
[bus]
{lines}
[sim]
move_interval = 0.05
seed = {seed}
""")
        self.journal_path = folder / "journal.sqlite"
        self.proc: subprocess.Popen[str] | None = None
        self._log: TextIO | None = None
        self.keys: Any = None  # ClientKeys for a CurveZMQ console

    @property
    def console(self) -> str:
        return self.endpoints["console"]

    def start(self) -> SimTable:
        self.proc, _ready, self._log = launch(
            ["run", "--sim", "--manual", "--config", str(self.folder / "table.toml")],
            self.folder,
            self.folder / "stderr.log")
        return self

    def stop(self, *, kill: bool = False) -> int:
        code = 0
        if self.proc is not None:
            code = end(self.proc, kill=kill)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None
        return code

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return console_request(self.console, request, keys=self.keys)

    def wait(self, ok: Callable[[dict[str, Any]], bool], what: str,
             timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status = self.ask({"cmd": "status"})
            if ok(status):
                return status
            assert time.monotonic() < deadline, f"table {self.id}: {what}: {status}"
            time.sleep(0.03)

    def sim(self, request: dict[str, Any]) -> None:
        """A request to the simulated dealer, once it is free; waits until it is done."""
        self.wait(lambda s: s["sim_busy"] is False, "the dealer stays busy")
        answer = self.ask(request)
        assert answer["ok"], (request, answer)
        self.wait(lambda s: s["sim_busy"] is False, f"{request} never ended")

    def act(self, seat: int, kind: str, amount: int | None = None) -> dict[str, Any]:
        request: dict[str, Any] = {"cmd": "action", "seat": seat, "kind": kind}
        if amount is not None:
            request["amount"] = amount
        answer = self.ask(request)
        assert answer["ok"], (request, answer)
        return answer

    # ------------------------------------------------------------------ hands
    def start_hand(self) -> dict[str, Any]:
        """Green button, hole cards dealt; returns the snapshot."""
        before = self.ask({"cmd": "status"})["last_hand"]
        self.sim({"cmd": "sim_press"})
        self.wait(lambda s: s["hand"] == before + 1, "no hand started")
        self.sim({"cmd": "sim_deal", "street": "hole"})
        snapshot: dict[str, Any] = self.ask({"cmd": "snapshot"})["snapshot"]
        return snapshot

    def out_of_turn(self) -> dict[str, Any]:
        """The small blind calls while another seat is to act (ACTION_OUT_OF_TURN, a warn):
        returns the alert as the console answered it."""
        snap = self.ask({"cmd": "snapshot"})["snapshot"]
        seats = snap["dealt_in"]
        button = snap["button"]
        small_blind = next((s for s in seats if s > button), seats[0])
        assert snap["to_act"] != small_blind and len(seats) == 3
        alerts = self.act(small_blind, "call")["alerts"]
        assert [a["code"] for a in alerts] == ["ACTION_OUT_OF_TURN"], alerts
        alert: dict[str, Any] = alerts[0]
        return alert

    def play_to_end(self) -> dict[str, Any]:
        """Check or call every round, deal every street, show and award, collect the cards:
        the hand's end as the console answered the showdown."""
        for street in ("preflop", "flop", "turn", "river"):
            if street != "preflop":
                self.sim({"cmd": "sim_deal", "street": street})
                snap = self.ask({"cmd": "snapshot"})["snapshot"]
                live = [s for s in snap["dealt_in"] if s not in snap["folded"]]
                first = next((s for s in live if s > snap["button"]), live[0])
                self.act(first, "check")
            while True:
                snap = self.ask({"cmd": "snapshot"})["snapshot"]
                if snap["to_act"] is None:
                    break
                legal = snap["legal"]["kinds"]
                self.act(snap["to_act"], "check" if "check" in legal else "call")
        snap = self.ask({"cmd": "snapshot"})["snapshot"]
        self.sim({"cmd": "sim_show", "seats": snap["dealt_in"]})
        time.sleep(0.5)  # the reader's hold time: every face settled
        deadline = time.monotonic() + 10  # on a loaded machine the faces may settle later
        while True:
            answer = self.ask({"cmd": "showdown"})
            if answer["ok"] or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert answer["ok"] and answer["hand"] is None, answer
        self.sim({"cmd": "sim_collect"})  # the cards back to the shuffler, as a dealer does
        return answer

    def journal(self) -> Journal:
        return Journal.open(self.journal_path, readonly=True)

    def journal_alert_ids(self) -> list[int]:
        journal = self.journal()
        try:
            # one id per alert raised: its updates and its end (alert_events) are not alerts
            return sorted({a["id"] for run in journal.runs()
                           for a in journal.alerts(run=run["run"])})
        finally:
            journal.close()

    def journal_pending(self) -> list[int]:
        """Alerts no floor has acknowledged receiving (the table resends them)."""
        journal = self.journal()
        try:
            return [alert_id for alert_id, _seq, _alert in journal.unacknowledged()]
        finally:
            journal.close()

    def journal_last_seqs(self) -> dict[str, int]:
        journal = self.journal()
        try:
            return journal.last_seqs()
        finally:
            journal.close()


class FloorProcess:
    """``table-controller floor`` on ``tables``, its store in ``folder`` (or ``store``)."""

    def __init__(self, folder: Path, tables: Sequence[SimTable], *, store: str | None = None,
                 extra: str = "", table_extra: dict[str, str] | None = None) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.store = store or str(folder / "floor.sqlite3")
        text = f'[floor]\nlisten = "127.0.0.1:0"\nstore = "{self.store}"\nname = "floor1"\n'
        text += extra
        for t in tables:
            text += (f'\n[[table]]\nid = "{t.id}"\nname = "Table {t.id}"\n'
                     f'floor = "{t.endpoints["floor"]}"\nalerts = "{t.endpoints["alerts"]}"\n'
                     f'console = "{t.endpoints["console"]}"\n'
                     + (table_extra or {}).get(t.id, ""))
        self.config = folder / "floor.toml"
        self.config.write_text(text)
        self.proc: subprocess.Popen[str] | None = None
        self._log: TextIO | None = None
        self.url = ""

    def start(self) -> FloorProcess:
        self.proc, ready, self._log = launch(["floor", "--config", str(self.config)],
                                             self.folder, self.folder / "stderr.log")
        self.url = ready.split()[2]
        return self

    def stop(self) -> int:
        code = 0
        if self.proc is not None:
            code = end(self.proc)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None
        return code

    def adduser(self, name: str, password: str, role: str = "floor") -> None:
        done = subprocess.run([sys.executable, "-m", "table_controller.cli", "floor", "adduser",
                               name, "--role", role, "--config", str(self.config)],
                              input=password + "\n", capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60,
                              check=False)
        assert done.returncode == 0, done.stderr

    def log(self) -> str:
        path = self.folder / "stderr.log"
        return path.read_text() if path.exists() else ""


def wait_for(check: Callable[[], Any], what: str, timeout: float = 20.0,
             step: float = 0.05) -> Any:
    """Poll ``check`` until it returns something true; its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} (last: {json.dumps(value, default=str)[:500]})")
        time.sleep(step)
