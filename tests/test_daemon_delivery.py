"""The bus's delivery guarantees against a real daemon (``run --sim`` as a process, real
sockets): every message carries ``seq``, a late subscriber takes a snapshot and continues at
seq + 1, the numbering goes on across a restart; an alert nobody acknowledged is resent, is
still resent after the daemon was killed and started again, and stops after the floor's ack."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from table_controller.daemon.bus import console_request
from table_controller.daemon.journal import Journal
from tests.test_daemon_run import config_text, start, stop

WAIT_MS = 5000


class Daemon:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.config = tmp / "table.toml"
        self.config.write_text(config_text(tmp, name=None, listen="none",
                                           extra="[sim]\nmove_interval = 0.05\n"))
        self.console = f"ipc://{tmp}/console"
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc, _ready = start(["run", "--sim", "--manual", "--config", str(self.config)],
                                  self.tmp)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: nothing is closed, the journal is as it was written
        self.proc.communicate(timeout=30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            code, _out, err = stop(self.proc, signal.SIGTERM)
            self.proc = None
            assert code == 0 and "Traceback" not in err, err

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return console_request(self.console, request)

    def wait(self, ok: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        deadline = time.monotonic() + 30
        while True:
            status = self.ask({"cmd": "status"})
            if ok(status):
                return status
            assert time.monotonic() < deadline, f"{what}: {status}"
            time.sleep(0.05)


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    d = Daemon(tmp_path)
    d.start()
    try:
        yield d
    finally:
        d.stop()


def message(sock: zmq.Socket[Any], timeout_ms: int = WAIT_MS) -> dict[str, Any]:
    assert sock.poll(timeout_ms), "nothing came"
    frames = sock.recv_multipart()
    payload: dict[str, Any] = json.loads(frames[-1])
    return payload


def test_a_late_subscriber_takes_a_snapshot_and_continues(daemon: Daemon) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        assert daemon.ask({"cmd": "sim_press"})["ok"]
        daemon.wait(lambda s: s["hand"] == 1, "no hand")
        assert daemon.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
        daemon.wait(lambda s: s["sim_busy"] is False, "the deal never ended")

        # a display joins now: subscribe, wait until the subscription is live
        subs = {}
        for channel in ("public", "floor"):
            sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
            sub.setsockopt(zmq.LINGER, 0)
            sub.setsockopt_string(zmq.SUBSCRIBE, "")
            sub.connect(f"ipc://{daemon.tmp}/{channel}")
            subs[channel] = sub
        for sub in subs.values():
            for _ in range(100):  # acknowledge publishes an action event and changes nothing
                assert daemon.ask({"cmd": "acknowledge"})["ok"]
                if sub.poll(50):
                    break
        for sub in subs.values():
            while sub.poll(200):
                sub.recv_multipart()

        snap = daemon.ask({"cmd": "snapshot"})["snapshot"]
        assert snap["type"] == "snapshot" and snap["hand"] == 1 and snap["button"] == 1
        assert snap["street"] == "preflop" and snap["to_act"] == 1
        assert snap["stacks"] == {"1": 100, "2": 99, "3": 98}
        assert snap["bets"] == {"2": 1, "3": 2}
        assert snap["pot"] == 3  # the blinds; pots: the engine's, as if the betting ended now
        assert snap["pots"] == [{"amount": 2, "eligible": [2, 3]},
                                {"amount": 1, "eligible": [3]}]
        assert snap["dealt_in"] == [1, 2, 3] and snap["folded"] == []
        assert snap["deal_order"] == [2, 3, 1]
        assert snap["legal"]["kinds"] == ["allin", "call", "fold", "raise"]
        assert snap["legal"]["call"] == 2 and snap["legal"]["min_raise_to"] == 4
        assert snap["open_alerts"] == [] and snap["halted"] is None
        seq = snap["seq"]
        assert set(seq) == {"public", "floor", "alerts"}

        assert daemon.ask({"cmd": "action", "seat": 1, "kind": "raise", "amount": 6})["ok"]
        for channel, sub in subs.items():
            event = message(sub)
            assert event["seq"] == seq[channel] + 1, (channel, event)
            assert event["type"] == "action" and event["kind"] == "raise"
        after = daemon.ask({"cmd": "snapshot"})["snapshot"]
        assert after["to_act"] == 2 and after["bets"] == {"1": 6, "2": 1, "3": 2}
        assert after["seq"]["public"] == seq["public"] + 1

        # numbering goes on across a restart (the journal keeps the numbers)
        daemon.kill()
        daemon.start()
        restarted = daemon.ask({"cmd": "snapshot"})["snapshot"]
        assert restarted["seq"]["public"] >= after["seq"]["public"]  # not from 1 again
        assert restarted["seq"]["floor"] >= after["seq"]["floor"]
        sub = subs["public"]
        for _ in range(100):  # the subscriber reconnects to the new socket by itself
            assert daemon.ask({"cmd": "acknowledge"})["ok"]
            if sub.poll(50):
                break
        seen = [message(sub) for _ in range(1)]
        while sub.poll(200):
            seen.append(message(sub))
        assert all(m["seq"] > after["seq"]["public"] for m in seen)
        assert [m["seq"] for m in seen] == sorted({m["seq"] for m in seen})
        acks = [m for m in seen if m.get("cmd") == "acknowledge"]
        assert acks and acks[0]["seq"] > restarted["seq"]["public"]
    finally:
        ctx.destroy(linger=0)


def floor_client(ctx: zmq.Context[Any], daemon: Daemon) -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"ipc://{daemon.tmp}/alerts")
    return sock


def hello(sock: zmq.Socket[Any]) -> dict[str, Any]:
    """Say hello until welcomed (the socket may still be connecting after a restart)."""
    for _ in range(100):
        sock.send(json.dumps({"type": "hello", "client": "floor1"}).encode())
        if sock.poll(100):
            welcome = message(sock)
            if welcome["type"] == "welcome":
                return welcome
    raise AssertionError("never welcomed")


def test_an_alert_is_resent_until_acknowledged_also_after_a_restart(daemon: Daemon) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        floor = floor_client(ctx, daemon)
        assert hello(floor)["pending"] == []
        assert daemon.ask({"cmd": "sim_press"})["ok"]
        daemon.wait(lambda s: s["hand"] == 1, "no hand")
        assert daemon.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
        daemon.wait(lambda s: s["sim_busy"] is False, "the deal never ended")
        answer = daemon.ask({"cmd": "action", "seat": 2, "kind": "call"})  # seat 1 is to act
        assert answer["ok"]
        [raised] = answer["alerts"]
        assert raised["code"] == "ACTION_OUT_OF_TURN" and isinstance(raised["id"], int)

        first = message(floor)
        assert first["type"] == "alert" and first["id"] == raised["id"]
        assert first["code"] == "ACTION_OUT_OF_TURN" and isinstance(first["seq"], int)
        again = message(floor)  # not acknowledged: sent again (every second)
        assert again == first

        daemon.kill()
        daemon.start()
        welcome = hello(floor)
        assert welcome["pending"] == [raised["id"]]
        resent = message(floor)
        while resent["type"] == "welcome":  # the answer to a hello repeated while connecting
            resent = message(floor)
        assert resent == first  # the journal kept it: resent after the restart
        snap = daemon.ask({"cmd": "snapshot"})["snapshot"]
        assert snap["seq"]["alerts"] == first["seq"]

        bad = [{"type": "ack"}, {"type": "ack", "id": 10**6}, {"type": "shout"}, [1]]
        for request in bad:
            floor.send(json.dumps(request).encode())
        floor.send_multipart([b"{}", b"{}"])
        errors: list[str] = []
        while len(errors) < len(bad) + 1:
            m = message(floor)
            if m["type"] == "error":
                errors.append(m["error"])
        assert any("names the alert" in e for e in errors) and any("one frame" in e
                                                                    for e in errors)

        floor.send(json.dumps({"type": "ack", "id": raised["id"]}).encode())
        while True:
            m = message(floor)
            if m["type"] == "acked":
                break
            assert m["id"] == raised["id"]  # a resend that crossed the ack
        assert m["id"] == raised["id"] and m["client"] == "floor1"
        assert m["seq"] == first["seq"] + 1
        assert not floor.poll(2500)  # two resend intervals: nothing more comes

        daemon.kill()
        daemon.start()
        assert hello(floor)["pending"] == []
    finally:
        ctx.destroy(linger=0)
    journal = Journal.open(daemon.tmp / "journal.sqlite", readonly=True)
    try:
        assert journal.unacknowledged() == []
        [ack] = journal.acks(run=2)
        assert ack["id"] == raised["id"] and ack["client"] == "floor1"
        assert journal.alerts(run=1)[0]["id"] == raised["id"]
    finally:
        journal.close()
