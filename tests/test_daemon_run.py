"""``table-controller run`` as a process: ``--sim`` plays through the console socket and stops
cleanly on SIGTERM; ``--config`` opens the configured devices (RFID on a pyserial loop:// URL
here) and stops on SIGINT; a device that cannot be opened is exit 1 with its name."""

from __future__ import annotations

import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge.decks import DeckRegistry
from table_controller.cli import main
from table_controller.daemon.bus import console_request
from table_controller.daemon.journal import Journal

ROOT = Path(__file__).resolve().parent.parent


def config_text(tmp_path: Path, port: int = 0, *, name: str | None = "T9",
                listen: str | None = None, extra: str = "") -> str:
    """A `run --sim` table on ipc endpoints in ``tmp_path``: the station on ``listen``
    (default 127.0.0.1:``port``), ``extra`` sections appended; no name line if ``name`` is
    None."""
    name_line = f'name = "{name}"\n' if name is not None else ""
    return f"""
[table]
{name_line}seats = 6
sensors = ["rfid"]
[players]
1 = 100
2 = 100
3 = 100
[rfid]
port = "loop://"
[decks]
db = "decks.sqlite"
[journal]
path = "journal.sqlite"
[bus]
public = "ipc://{tmp_path}/public"
floor = "ipc://{tmp_path}/floor"
console = "ipc://{tmp_path}/console"
alerts = "ipc://{tmp_path}/alerts"
[station]
listen = "{listen if listen is not None else f'127.0.0.1:{port}'}"
{extra}"""


def start(args: list[str], cwd: Path, *, env_extra: dict[str, str] | None = None
          ) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if sel.select(timeout=1.0):
            line = proc.stdout.readline()
            if line.startswith("ready"):
                return proc, line
            if not line and proc.poll() is not None:
                break
    proc.kill()
    _out, err = proc.communicate()
    raise AssertionError(f"never ready: {err}")


def stop(proc: subprocess.Popen[str], signum: int) -> tuple[int, str, str]:
    proc.send_signal(signum)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, out, err


def test_run_sim_plays_through_the_console_and_stops_on_sigterm(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(config_text(tmp_path))
    proc, ready = start(["run", "--sim", "--manual", "--config", str(cfg)], tmp_path)
    try:
        assert f"console ipc://{tmp_path}/console" in ready
        assert re.search(r" station http://127\.0\.0\.1:\d+ journal ", ready), ready
        endpoint = f"ipc://{tmp_path}/console"
        assert console_request(endpoint, {"cmd": "sim_press"})["ok"]
        deadline = time.monotonic() + 20
        while console_request(endpoint, {"cmd": "status"})["hand"] != 1:
            # the press bounces in real time in --sim; each status round trip is the wait
            assert time.monotonic() < deadline, "the green button never started a hand"
        assert not console_request(endpoint, {"cmd": "sim_deal", "street": "turn!"})["ok"]
    finally:
        code, out, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
    assert "stopped" in out and "Traceback" not in err
    journal = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    assert journal.hands()[0].number == 1
    requests = journal.console_requests()
    assert requests[0]["request"] == '{"cmd": "sim_press"}'
    assert any(not r["ok"] and "turn!" in (r["error"] or "") for r in requests)
    assert [o.kind for o in journal.observations()].count("button") == 1
    journal.close()


def test_run_config_opens_the_devices_and_stops_on_sigint(tmp_path: Path) -> None:
    DeckRegistry.open(tmp_path / "decks.sqlite").close()
    cfg = tmp_path / "table.toml"
    cfg.write_text(config_text(tmp_path))
    proc, _ready = start(["run", "--config", str(cfg)], tmp_path)
    try:
        answer = console_request(f"ipc://{tmp_path}/console", {"cmd": "status"})
        assert answer["ok"] and answer["stacks"] == {"1": 100, "2": 100, "3": 100}
    finally:
        code, out, err = stop(proc, signal.SIGINT)
    assert code == 0, err
    assert "stopped" in out


def test_run_when_the_station_address_is_taken(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        cfg = tmp_path / "table.toml"
        cfg.write_text(config_text(tmp_path, port))
        assert main(["run", "--sim", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert f"cannot start: station: cannot serve on 127.0.0.1:{port}" in err
    journal = Journal.open(tmp_path / "journal.sqlite", readonly=True)  # closed, not broken
    assert journal.hands() == []
    journal.close()


def test_run_without_the_deck_registry_names_it(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(config_text(tmp_path))
    assert main(["run", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "decks.db" in err and "decks.sqlite" in err
