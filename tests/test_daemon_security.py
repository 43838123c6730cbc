"""The bus's security: off loopback only with CurveZMQ keys (else exit 2 naming bus.keys); with
keys every tcp channel admits only allowed clients (a real daemon, real sockets on loopback: the
tests bind nothing else); the journal and the ipc sockets are the owner's (and the configured
group's) only; ``table-controller keys`` makes and lists the keys."""

from __future__ import annotations

import grp
import json
import os
import signal
import stat
from pathlib import Path
from typing import Any

import pytest
import zmq

from table_controller.cli import main
from table_controller.config import is_local
from table_controller.daemon.bus import console_request
from table_controller.daemon.curve import load_client_keys
from tests.test_daemon_run import start, stop

GROUP = grp.getgrgid(os.getgid()).gr_name


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def config(tmp_path: Path, bus: str, extra: str = "") -> Path:
    if "alerts =" not in bus:
        bus += f'\nalerts = "ipc://{tmp_path}/alerts"'
    path = tmp_path / "table.toml"
    path.write_text(f"""
[table]
seats = 6
sensors = ["rfid"]
[players]
1 = 100
2 = 100
[rfid]
port = "loop://"
[decks]
db = "decks.sqlite"
[journal]
path = "journal.sqlite"
[station]
listen = "none"
[bus]
{bus}
{extra}
""")
    return path


@pytest.mark.parametrize("endpoint, local", [
    ("tcp://127.0.0.1:5556", True), ("tcp://127.8.0.1:5556", True), ("tcp://[::1]:5556", True),
    ("tcp://localhost:5556", True), ("ipc:///run/t/floor", True), ("inproc://x", True),
    ("tcp://0.0.0.0:5556", False), ("tcp://*:5556", False), ("tcp://eth0:5556", False),
    ("tcp://192.168.1.4:5556", False), ("tcp://[::]:5556", False),
    ("tcp://127.0.0.1:4000;10.0.0.1:5556", False)])
def test_what_counts_as_local(endpoint: str, local: bool) -> None:
    assert is_local(endpoint) is local


@pytest.mark.parametrize("key, bus", [
    ("bus.public", 'public = "tcp://0.0.0.0:5556"'),
    ("bus.floor", 'floor = "tcp://*:5557"'),
    ("bus.console", 'console = "tcp://192.168.1.4:5558"'),
    ("bus.alerts", 'alerts = "tcp://0.0.0.0:5559"')])
def test_off_loopback_without_keys_refuses_to_start(tmp_path: Path, key: str, bus: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--sim", "--manual", "--config", str(config(tmp_path, bus))]) == 2
    err = capsys.readouterr().err
    assert f"{key}:" in err and "set bus.keys" in err and "table-controller keys new" in err
    assert not (tmp_path / "journal.sqlite").exists()  # refused before anything was opened


def test_a_key_folder_without_keys_is_a_configuration_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config(tmp_path, 'public = "tcp://0.0.0.0:5556"\nkeys = "keys"')
    assert main(["run", "--sim", "--manual", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "bus.keys" in err and "no server.key_secret" in err and "keys new" in err
    assert main(["keys", "new", str(tmp_path / "keys")]) == 0
    capsys.readouterr()
    assert main(["run", "--sim", "--manual", "--config", str(cfg)]) == 2  # nobody allowed yet
    err = capsys.readouterr().err
    assert "bus.keys" in err and "no client key is allowed" in err


def test_keys_are_made_private_and_listed(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    keys = tmp_path / "keys"
    assert main(["keys", "new", str(keys)]) == 0
    assert main(["keys", "new", str(keys)]) == 1  # never replaced by accident
    assert main(["keys", "client", str(keys), "station", "--group", GROUP]) == 0
    assert main(["keys", "client", str(keys), "station"]) == 1
    assert main(["keys", "client", str(keys), "../evil"]) == 1
    capsys.readouterr()
    assert main(["keys", "list", str(keys), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert len(listing["server"]) == 40 and list(listing["allowed"]) == ["station"]
    assert mode(keys / "server.key_secret") == 0o600 and mode(keys) == 0o700
    assert mode(keys / "clients" / "station.key_secret") == 0o640  # --group
    assert (keys / "clients").stat().st_gid == os.getgid()
    pair = load_client_keys(keys / "clients" / "station.key_secret", keys / "server.key")
    assert pair.public.decode() == listing["allowed"]["station"]


def endpoints(ready: str) -> dict[str, str]:
    words = ready.split()
    return {words[i]: words[i + 1] for i in range(1, len(words) - 1, 2)}


def test_with_keys_only_allowed_clients_get_through(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    assert main(["keys", "new", str(keys)]) == 0
    assert main(["keys", "client", str(keys), "floor1"]) == 0
    assert main(["keys", "client", str(keys), "gone"]) == 0
    (keys / "allowed" / "gone.key").unlink()  # made, then taken off the allow-list
    cfg = config(tmp_path, 'public = "tcp://127.0.0.1:*"\nfloor = "tcp://127.0.0.1:*"\n'
                           'console = "tcp://127.0.0.1:*"\nkeys = "keys"')
    proc, ready = start(["run", "--sim", "--manual", "--config", str(cfg)], tmp_path)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        ep = endpoints(ready)
        allowed = load_client_keys(keys / "clients" / "floor1.key_secret", keys / "server.key")
        refused = load_client_keys(keys / "clients" / "gone.key_secret", keys / "server.key")
        answer = console_request(ep["console"], {"cmd": "status"}, keys=allowed, context=ctx)
        assert answer["ok"] and answer["stacks"] == {"1": 100, "2": 100}
        with pytest.raises(TimeoutError):
            console_request(ep["console"], {"cmd": "status"}, keys=refused, context=ctx,
                            timeout=1.0)
        with pytest.raises(TimeoutError):  # no Curve at all
            console_request(ep["console"], {"cmd": "status"}, context=ctx, timeout=1.0)

        # the floor channel: the allowed subscriber gets the hand's start, the others nothing
        subs = []
        for pair in (allowed, refused, None):
            sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
            sub.setsockopt(zmq.LINGER, 0)
            if pair is not None:
                pair.apply(sub)
            sub.setsockopt_string(zmq.SUBSCRIBE, "")
            sub.connect(ep["floor"])
            subs.append(sub)
        seen: list[list[bytes]] = [[], [], []]
        assert console_request(ep["console"], {"cmd": "sim_press"}, keys=allowed,
                               context=ctx)["ok"]
        for _ in range(200):  # the press bounces in real time; each poll is the wait
            for i, sub in enumerate(subs):
                while sub.poll(10):
                    seen[i].append(sub.recv_multipart()[0])
            if b"hand_start" in seen[0]:
                break
        assert b"hand_start" in seen[0]
        assert seen[1] == [] and seen[2] == []
    finally:
        ctx.destroy(linger=0)
        code, _out, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize("group", [None, GROUP])
def test_journal_and_sockets_are_private(tmp_path: Path, group: str | None) -> None:
    journal = tmp_path / "journal.sqlite"
    journal.write_bytes(b"")
    journal.chmod(0o644)  # an old journal, readable by all: tightened at the start
    extra = f'[access]\ngroup = "{group}"' if group else ""
    cfg = config(tmp_path, f'public = "ipc://{tmp_path}/public"\n'
                           f'floor = "ipc://{tmp_path}/floor"\n'
                           f'console = "ipc://{tmp_path}/console"', extra)
    proc, _ready = start(["run", "--sim", "--manual", "--config", str(cfg)], tmp_path)
    try:
        assert console_request(f"ipc://{tmp_path}/console", {"cmd": "status"})["ok"]
        file_mode, socket_mode = (0o640, 0o660) if group else (0o600, 0o600)
        assert mode(journal) == file_mode
        for companion in ("journal.sqlite-wal", "journal.sqlite-shm"):
            assert mode(tmp_path / companion) == file_mode
        for name in ("public", "floor", "console", "alerts"):
            assert mode(tmp_path / name) == socket_mode, name
    finally:
        code, _out, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
