"""Operating the daemon: systemd's notify protocol on a real unix datagram socket (READY,
WATCHDOG, STOPPING), ``--log-format json``, ``table-controller status`` against a running
daemon, and a missing serial port named by its configuration key."""

from __future__ import annotations

import configparser
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.decks import DeckRegistry
from table_controller.cli import build_parser, main
from table_controller.daemon.notify import Notifier
from tests.test_daemon_run import config_text, start, stop


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify")
    sock.bind(path)
    sock.settimeout(10.0)
    try:
        yield sock, path
    finally:
        sock.close()


def datagram(sock: socket.socket) -> dict[str, str]:
    fields = sock.recv(4096).decode().split("\n")
    return dict(f.split("=", 1) for f in fields)


def test_notifier_speaks_sd_notify(notify_socket: tuple[socket.socket, str]) -> None:
    sock, path = notify_socket
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    assert n.enabled and n.watchdog_interval == pytest.approx(0.1)
    assert n.ready("table T1: running")
    ready = datagram(sock)
    assert ready["READY"] == "1" and ready["MAINPID"] == str(os.getpid())
    assert ready["STATUS"] == "table T1: running"
    assert n.tick(10.0) and datagram(sock) == {"WATCHDOG": "1"}
    assert not n.tick(10.05)  # not due yet
    assert n.tick(10.1) and datagram(sock) == {"WATCHDOG": "1"}
    assert n.stopping() and datagram(sock) == {"STOPPING": "1"}
    n.close()


def test_notifier_without_systemd_does_nothing(tmp_path: Path) -> None:
    n = Notifier({})
    assert not n.enabled and not n.ready() and not n.tick(0.0)
    other = Notifier({"NOTIFY_SOCKET": str(tmp_path / "x"), "WATCHDOG_USEC": "1000",
                      "WATCHDOG_PID": "1"})
    assert other.watchdog_interval is None  # the watchdog is another process's
    assert not other.ready()  # nobody listens there: False, no exception


def test_abstract_namespace_socket() -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"table-controller-test-{os.getpid()}"
    sock.bind("\0" + name)
    sock.settimeout(5.0)
    try:
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert datagram(sock)["READY"] == "1"
    finally:
        sock.close()


def test_the_daemon_notifies_logs_json_and_answers_status(
        tmp_path: Path, notify_socket: tuple[socket.socket, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    sock, path = notify_socket
    cfg = tmp_path / "table.toml"
    cfg.write_text(config_text(tmp_path))
    proc, _ready = start(["run", "--sim", "--manual", "--config", str(cfg), "--log-format",
                          "json"], tmp_path, env_extra={"NOTIFY_SOCKET": path,
                                              "WATCHDOG_USEC": "400000"})
    try:
        ready = datagram(sock)
        assert ready["READY"] == "1" and ready["MAINPID"] == str(proc.pid)
        assert [datagram(sock), datagram(sock)] == [{"WATCHDOG": "1"}] * 2  # from its loop

        assert main(["status", "--config", str(cfg), "--json"]) == 0
        health = json.loads(capsys.readouterr().out)
        assert health["type"] == "health" and health["table"] == "T9"
        assert health["uptime_s"] > 0 and health["hand"] is None and health["run"] == 1
        # main's simulated table polls its button chain as a sensor too (hw_sim SimTable)
        assert [s["name"] for s in health["sensors"]] == ["sim-dealer", "rfid", "button"]
        assert all(s["polling"] for s in health["sensors"])
        assert health["sensors"][1]["online"] is True
        assert health["counters"]["alerts"] == 0 and health["last_alert"] is None
        assert main(["status", "--config", str(cfg)]) == 0
        text = capsys.readouterr().out
        assert text.startswith("table T9: up ") and "sensor rfid" in text
        assert "between hands" in text
    finally:
        code, _out, err = stop(proc, signal.SIGTERM)
    assert code == 0
    assert datagram_until(sock, "STOPPING") == {"STOPPING": "1"}
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]
    assert lines and {"time", "level", "logger", "message"} <= set(lines[0])
    assert any(e["message"].startswith("signal 15") for e in lines)
    assert main(["status", "--config", str(cfg), "--timeout", "0.3"]) == 1  # it is gone
    assert "no answer" in capsys.readouterr().err


def datagram_until(sock: socket.socket, key: str) -> dict[str, str]:
    while True:
        fields = datagram(sock)
        if key in fields:
            return fields


def test_a_missing_serial_port_names_its_key(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    DeckRegistry.open(tmp_path / "decks.sqlite").close()
    cfg = tmp_path / "table.toml"
    cfg.write_text(config_text(tmp_path).replace('port = "loop://"',
                                                 f'port = "{tmp_path}/ttyACM9"'))
    assert main(["run", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "rfid.port" in err and f"{tmp_path}/ttyACM9 does not exist" in err


DATA = Path(__file__).resolve().parent.parent / "table_controller" / "data"


def test_the_systemd_unit_runs_the_controller_as_a_notify_service(tmp_path: Path) -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(DATA / "table-controller.service")
    service = unit["Service"]
    assert service["Type"] == "notify" and service["Restart"] == "on-failure"
    assert service["RuntimeDirectory"] == "table-controller"
    assert int(service["WatchdogSec"]) > 0 and service["RestartPreventExitStatus"] == "2"
    command = shlex.split(service["ExecStart"])
    assert command[0].endswith("/bin/table-controller")
    args = build_parser().parse_args(command[1:])  # the options are the run command's
    assert args.command == "run" and args.log_format == "json" and args.config
    analyze = shutil.which("systemd-analyze")
    if analyze is not None:  # the unit as systemd reads it, with this machine's executable
        text = (DATA / "table-controller.service").read_text().replace(
            command[0], str(Path(sys.executable).with_name("table-controller")))
        (tmp_path / "table-controller.service").write_text(text)
        done = subprocess.run([analyze, "verify", str(tmp_path / "table-controller.service")],
                              capture_output=True, text=True, timeout=60)
        problems = [line for line in (done.stdout + done.stderr).splitlines()
                    if "table-controller.service" in line]
        assert problems == [], problems


def test_the_udev_rule_names_the_reader() -> None:
    rules = [line for line in (DATA / "99-table-rfid.rules").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert len(rules) == 1
    assert 'SUBSYSTEM=="tty"' in rules[0] and 'SYMLINK+="table-rfid"' in rules[0]
    assert 'GROUP="dialout"' in rules[0]
