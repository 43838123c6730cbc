"""A hostile client against a real running daemon (``table-controller run --sim`` as a process,
real zmq sockets): garbage bytes, deep nesting, huge and multipart requests, wrong types and
numbers out of range. Every request is answered (except frames beyond the socket's
``MAXMSGSIZE``, whose connection libzmq closes), the daemon keeps running, the journal keeps a
summary of what it refused, and then a hand is played through the console as usual."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.daemon.console_input import (
    MAX_FRAME_BYTES,
    MAX_JOURNALED,
    MAX_REQUEST_BYTES,
    RefusalLog,
)
from table_controller.daemon.journal import Journal
from tests.test_daemon_run import config_text, start, stop

ANSWER_S = 20.0  # generous: an answer only takes this long on a starved machine
SKIPPED = re.compile(r"\((\d+) refused request\(s\) before this one not journaled\)")


class Client:
    def __init__(self, ctx: zmq.Context[Any], endpoint: str) -> None:
        self.ctx = ctx
        self.endpoint = endpoint
        self.refusals = 0  # answers with "ok": false

    def raw(self, frames: list[bytes], *, timeout: float = ANSWER_S) -> dict[str, Any] | None:
        """Send ``frames`` as one message on a fresh REQ socket; the answer, or None."""
        sock: zmq.Socket[Any] = self.ctx.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(self.endpoint)
        try:
            sock.send_multipart(frames)
            if not sock.poll(int(timeout * 1000)):
                return None
            answer: dict[str, Any] = json.loads(sock.recv())
            if answer.get("ok") is False:
                self.refusals += 1
            return answer
        finally:
            sock.close(0)

    def ask(self, request: Any) -> dict[str, Any]:
        answer = self.raw([json.dumps(request).encode()])
        assert answer is not None, f"no answer to {request!r}"
        return answer

    def wait(self, what: str, ok: Any, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status = self.ask({"cmd": "status"})
            if ok(status):
                return status
            assert time.monotonic() < deadline, f"{what}: {status}"
            time.sleep(0.05)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, Path, Any]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    (tmp / "table.toml").write_text(config_text(tmp, name="F1", listen="none",
                                                extra="[sim]\nmove_interval = 0.05\n"))
    proc, _ready = start(["run", "--sim", "--manual", "--config", str(tmp / "table.toml")], tmp)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        yield Client(ctx, f"ipc://{tmp}/console"), tmp, proc
    finally:
        ctx.destroy(linger=0)
        if proc.poll() is None:
            code, _out, err = stop(proc, signal.SIGTERM)
            assert code == 0, err
            assert "Traceback" not in err, err


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
# commands that cannot change the table between hands (the hand below is played on it)
CMDS = st.sampled_from(["action", "resolve", "acknowledge", "showdown", "void", "status",
                        "sim_deal", "sim_show", "nope", ""]) | st.text(max_size=40) | JSON
FIELDS = st.sampled_from(["seat", "kind", "amount", "code", "cause", "street", "seats",
                          "stack", "chips"]) | st.text(max_size=40)
NUMBERS = (st.integers(min_value=-(10**30), max_value=10**30) | st.booleans()
           | st.floats(allow_nan=True, allow_infinity=True) | st.just(1e29))
REQUESTS = st.fixed_dictionaries({"cmd": CMDS}, optional={"seat": NUMBERS | JSON,
                                                          "amount": NUMBERS,
                                                          "kind": JSON,
                                                          "street": JSON}) \
    | st.dictionaries(FIELDS, NUMBERS | JSON, max_size=6) | JSON


def fuzz(client: Client, proc: Any) -> None:
    """Hypothesis: random frames and random JSON requests, each answered."""

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(frames=st.lists(st.binary(max_size=300), min_size=1, max_size=3) | st.builds(
        lambda r: [json.dumps(r).encode()], REQUESTS))
    def every_request_is_answered(frames: list[bytes]) -> None:
        answer = client.raw(frames)
        assert answer is not None, f"no answer to {frames!r}"
        assert isinstance(answer.get("ok"), bool)
        if not answer["ok"]:
            assert isinstance(answer["error"], str) and answer["error"]
        if len(frames) > 1:
            assert answer == {"ok": False, "error": f"a request is one frame, not {len(frames)}"}
        assert proc.poll() is None

    every_request_is_answered()


def test_hostile_requests_then_a_hand(daemon: tuple[Client, Path, Any]) -> None:
    client, tmp, proc = daemon
    deep = client.raw([b"[" * 1100])
    assert deep is not None and "nested" in deep["error"]
    deep_object = client.raw([b'{"cmd": ' + b'{"a": ' * 2000 + b"1" + b"}" * 2001])
    assert deep_object is not None and "nested" in deep_object["error"]
    big = client.raw([b'{"cmd": "status", "x": "' + b"a" * (MAX_REQUEST_BYTES * 4) + b'"}'])
    assert big is not None and "too large" in big["error"]
    assert client.raw([b"x" * (MAX_FRAME_BYTES * 50)], timeout=2.0) is None  # 50 MiB: dropped
    assert client.raw([b"\xff\xfe"]) == {"ok": False, "error": "not UTF-8 text (invalid start "
                                                               "byte at byte 0)"}
    assert "one frame" in (client.raw([b'{"cmd": "status"}', b'{"cmd": "void"}']) or {})[
        "error"]
    for request, word in (({"cmd": "add_chips", "seat": 1, "chips": 10**29}, "'chips'"),
                          ({"cmd": "add_chips", "seat": 1, "chips": 1e29}, "whole number"),
                          ({"cmd": "add_chips", "seat": 1, "chips": True}, "whole number"),
                          ({"cmd": "sit", "seat": 11, "stack": 100}, "'seat' must be 1..6"),
                          ({"cmd": "sit", "seat": 4.0, "stack": 100}, "whole number"),
                          ({"cmd": "sit", "seat": 4, "stack": 10**12}, "'stack'"),
                          ({"cmd": "void", "cause": "x" * 10_000}, "'cause'"),
                          ({"cmd": "status", "x" * 100: 1}, "field name"),
                          ({"cmd": "status", **{f"f{i}": i for i in range(40)}}, "fields"),
                          ([{"cmd": "status"}], "JSON object")):
        answer = client.ask(request)
        assert answer["ok"] is False and word in answer["error"], (request, answer)
    journal = Journal.open(tmp / "journal.sqlite", readonly=True)
    try:  # the request refused for its size is journaled as a summary
        big_row = [r for r in journal.console_requests() if "too large" in (r["error"] or "")]
        assert len(big_row) == 1, big_row
        assert big_row[0]["request"].startswith(
            f"<refused request: {MAX_REQUEST_BYTES * 4 + 26} bytes: b'{{\"cmd\"")
        assert len(big_row[0]["request"]) < 200
    finally:
        journal.close()
    fuzz(client, proc)
    assert client.ask({"cmd": "status"})["stacks"] == {"1": 100, "2": 100, "3": 100}

    # a hand, played through the console (docs/running.md, "The simulated table")
    assert client.ask({"cmd": "sim_press"})["ok"]
    client.wait("the button never started a hand", lambda s: s["hand"] == 1)
    assert client.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
    status = client.wait("the deal never ended", lambda s: s["sim_busy"] is False)
    assert status["to_act"] == 1  # button 1, blinds 2 and 3
    bet = client.ask({"cmd": "action", "seat": 1, "kind": "bet", "amount": 6})
    assert bet["ok"] is False and "faces a bet of 2" in bet["error"]
    assert "raise (to 4 at least), call or fold" in bet["error"]
    assert "rules.md §3" in bet["error"]
    huge_raise = client.ask({"cmd": "action", "seat": 1, "kind": "raise", "amount": 10**29})
    assert huge_raise["ok"] is False and "'amount'" in huge_raise["error"]
    assert client.ask({"cmd": "action", "seat": 1, "kind": "raise", "amount": 6})["ok"]
    assert client.ask({"cmd": "action", "seat": 2, "kind": "fold"})["ok"]
    last = client.ask({"cmd": "action", "seat": 3, "kind": "fold"})
    assert last["ok"] and last["hand"] is None
    assert last["stacks"] == {"1": 103, "2": 99, "3": 98}
    assert client.ask({"cmd": "sim_collect"})["ok"]
    client.wait("the collection never ended", lambda s: s["sim_busy"] is False)
    # one more refusal once the journal's rate has a token again (the daemon's clock follows
    # real time): it names every refusal left out before it
    time.sleep(1.0 / RefusalLog().rate)
    assert client.ask({"cmd": "nope"})["ok"] is False
    assert proc.poll() is None

    journal = Journal.open(tmp / "journal.sqlite", readonly=True)
    try:
        hands = journal.hands()
        assert [(h.number, h.voided, h.stacks_after) for h in hands] == [
            (1, False, {1: 103, 2: 99, 3: 98})]
        requests = journal.console_requests()
        assert max(len(r["request"]) for r in requests) <= MAX_JOURNALED + 40
        refused = sorted((r for r in requests if not r["ok"]), key=lambda r: r["t"])
        # a burst of 20, then 5 a second, on the daemon's own times (how many of the 170
        # refusals that leaves out depends on how fast this machine sent them)
        rate = RefusalLog()
        for i, row in enumerate(refused):
            assert i + 1 <= rate.burst + rate.rate * (row["t"] - refused[0]["t"]) + 1e-6, row
        # each refusal is journaled or counted on the next one journaled
        named = sum(int(m.group(1)) for r in refused
                    if (m := SKIPPED.search(r["error"] or "")) is not None)
        assert len(refused) + named == client.refusals
        accepted = [json.loads(r["request"]) for r in requests if r["ok"]]
        assert {"cmd": "action", "seat": 1, "kind": "raise", "amount": 6} in accepted
    finally:
        journal.close()
