"""The event bus (two PUB channels) and the console channel (REP), on ipc:// sockets in a tmp
folder and on loopback TCP with a random port. Waits are polls with timeouts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from table_controller.daemon.bus import BusError, ConsoleServer, EventBus, console_request
from table_controller.daemon.wakeup import Wakeup

TIMEOUT_MS = 5000


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    context: zmq.Context[Any] = zmq.Context()
    yield context
    context.destroy(linger=0)  # a failed test may leave sockets open


def subscribe(ctx: zmq.Context[Any], endpoint: str, topic: str = "") -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt_string(zmq.SUBSCRIBE, topic)
    sock.connect(endpoint)
    return sock


def joined(bus: EventBus, *subs: zmq.Socket[Any], topic: str = "sensor") -> None:
    """PUB drops messages until a subscriber has joined: publish a probe until each one has
    one (poll with a timeout per try), then drain the probes."""
    for sub in subs:
        for _ in range(100):
            bus.publish(topic, public={"probe": 1}, floor={"probe": 1})
            if sub.poll(50):
                break
        else:
            raise AssertionError("subscriber never joined")
    for sub in subs:
        while sub.poll(100):
            sub.recv_multipart()


def receive(sub: zmq.Socket[Any], seqs: list[int] | None = None) -> tuple[str, dict[str, Any]]:
    """The next message, its ``seq`` taken out (into ``seqs`` if given)."""
    assert sub.poll(TIMEOUT_MS), "nothing published"
    topic, body = sub.recv_multipart()
    payload = json.loads(body)
    seq = payload.pop("seq")
    if seqs is not None:
        seqs.append(seq)
    return topic.decode(), payload


def test_public_and_floor_channels(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    bus = EventBus(public=f"ipc://{tmp_path}/pub", floor=f"ipc://{tmp_path}/floor", context=ctx)
    public = subscribe(ctx, bus.public_endpoint)
    floor = subscribe(ctx, bus.floor_endpoint or "")
    alerts_only = subscribe(ctx, bus.public_endpoint, "alert")
    joined(bus, alerts_only, topic="alert")
    joined(bus, public, floor)
    assert not alerts_only.poll(100)  # the "sensor" probes were not for this one
    bus.publish("alert", public={"cards": ["??"]}, floor={"cards": ["As"]})
    bus.publish("hand_end", public={"hand": 1}, floor={"hand": 1})
    on_public: list[int] = []
    on_floor: list[int] = []
    assert receive(public, on_public) == ("alert", {"cards": ["??"]})
    assert receive(floor, on_floor) == ("alert", {"cards": ["As"]})
    assert receive(alerts_only) == ("alert", {"cards": ["??"]})
    assert receive(public, on_public) == ("hand_end", {"hand": 1})
    assert receive(floor, on_floor) == ("hand_end", {"hand": 1})
    assert not alerts_only.poll(100)
    # each channel numbers its messages: one more each time, the last one what seqs() says
    assert on_public[1] == on_public[0] + 1 and on_floor[1] == on_floor[0] + 1
    assert bus.seqs() == {"public": on_public[1], "floor": on_floor[1]}
    for s in (public, floor, alerts_only):
        s.close()
    bus.close()


def test_tcp_random_port_and_a_busy_endpoint(ctx: zmq.Context[Any]) -> None:
    bus = EventBus(public="tcp://127.0.0.1:*", floor=None, context=ctx)
    assert bus.public_endpoint.startswith("tcp://127.0.0.1:")
    sub = subscribe(ctx, bus.public_endpoint)
    joined(bus, sub)
    bus.publish("alert", public={"code": "JOKER"}, floor={"code": "JOKER", "secret": 1})
    assert receive(sub) == ("alert", {"code": "JOKER"})
    with pytest.raises(BusError, match=bus.public_endpoint):
        EventBus(public=bus.public_endpoint, floor=None, context=ctx)
    sub.close()
    bus.close()


def test_console_answers_every_request(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    server = ConsoleServer(f"ipc://{tmp_path}/console", context=ctx)

    def handler(request: Any) -> dict[str, Any]:
        if request.get("cmd") == "boom":
            raise RuntimeError("kaput")
        return {"ok": True, "echo": request}

    answers: list[dict[str, Any]] = []
    requests: list[Any] = [{"cmd": "status"}, {"cmd": "boom"}, {"cmd": "status", "n": 2}]

    def client() -> None:
        for r in requests:
            answers.append(console_request(server.endpoint, r, timeout=5.0, context=ctx))
        raw: zmq.Socket[Any] = ctx.socket(zmq.REQ)
        raw.setsockopt(zmq.LINGER, 0)
        raw.connect(server.endpoint)
        raw.send(b"{not json")
        assert raw.poll(TIMEOUT_MS)
        answers.append(json.loads(raw.recv()))
        raw.close()

    thread = threading.Thread(target=client)
    thread.start()
    while thread.is_alive():
        server.serve(handler, timeout=0.05)
    thread.join()
    assert answers[0] == {"ok": True, "echo": {"cmd": "status"}}
    assert answers[1]["ok"] is False and "kaput" in answers[1]["error"]
    assert answers[2]["echo"]["n"] == 2  # the failure did not wedge the socket
    assert answers[3]["ok"] is False and "not a JSON request" in answers[3]["error"]
    server.close()


def test_console_request_times_out(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    with pytest.raises(TimeoutError, match="no answer"):
        console_request(f"ipc://{tmp_path}/nobody", {"cmd": "status"}, timeout=0.2,
                        context=ctx)


def test_a_sensor_wakeup_ends_the_wait_for_the_console(tmp_path: Path,
                                                       ctx: zmq.Context[Any]) -> None:
    """A sensor thread that delivers sets the wakeup; the loop's wait for the console returns
    then instead of at its timeout (docs/running.md, latency)."""
    server = ConsoleServer(f"ipc://{tmp_path}/console", context=ctx)
    wakeup = Wakeup()
    server.watch(wakeup)
    setter = threading.Timer(0.05, wakeup.set)
    setter.start()
    start = time.monotonic()
    assert server.serve(lambda r: {"ok": True}, timeout=30.0) == 0
    assert time.monotonic() - start < 29.0  # woken, not timed out
    setter.join()
    answers: list[dict[str, Any]] = []
    client = threading.Thread(target=lambda: answers.append(
        console_request(server.endpoint, {"cmd": "status"}, context=ctx)))
    client.start()
    wakeup.set()  # woken and a request waiting: both handled in one serve
    while client.is_alive():
        server.serve(lambda r: {"ok": True, "echo": r}, timeout=0.05)
    client.join()
    assert answers == [{"ok": True, "echo": {"cmd": "status"}}]
    wakeup.close()
    server.close()
