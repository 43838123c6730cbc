"""What the floor needs from a table, against a real daemon (``run --sim`` as a process, real
sockets): the floor channel carries every card observation, which of an alert's cards are hole
cards, the pot and the PHH at the end of a hand, the pot and stacks after each action; the
console gives back the journaled messages after a seq (also after a SIGKILL); a floor
acknowledges one alert over the alert channel and the table takes it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from table_controller.daemon.journal import Journal
from tests.test_daemon_delivery import Daemon, floor_client, hello, message


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    d = Daemon(tmp_path)
    d.start()
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    context: zmq.Context[Any] = zmq.Context()
    try:
        yield context
    finally:
        context.destroy(linger=0)


def subscribed(ctx: zmq.Context[Any], daemon: Daemon) -> dict[str, zmq.Socket[Any]]:
    """SUB sockets on the public and floor channels, live (each has received an event)."""
    subs = {}
    for channel in ("public", "floor"):
        sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt_string(zmq.SUBSCRIBE, "")
        sub.connect(f"ipc://{daemon.tmp}/{channel}")
        subs[channel] = sub
    for sub in subs.values():
        for _ in range(100):  # the console's acknowledge publishes an action event
            assert daemon.ask({"cmd": "acknowledge"})["ok"]
            if sub.poll(50):
                break
        else:
            raise AssertionError("the subscription never came alive")
    return subs


def drain(sub: zmq.Socket[Any], quiet_ms: int = 300) -> list[dict[str, Any]]:
    out = []
    while sub.poll(quiet_ms):
        out.append(json.loads(sub.recv_multipart()[-1]))
    return out


def play_hand(daemon: Daemon) -> dict[str, Any]:
    """Hand 1 to a showdown, with seat 2 acting out of turn first (ACTION_OUT_OF_TURN);
    returns that alert."""
    assert daemon.ask({"cmd": "sim_press"})["ok"]
    daemon.wait(lambda s: s["hand"] == 1, "no hand")
    assert daemon.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
    daemon.wait(lambda s: s["sim_busy"] is False, "the deal never ended")
    answer = daemon.ask({"cmd": "action", "seat": 2, "kind": "call"})  # seat 1 is to act
    assert answer["ok"]
    alert: dict[str, Any] = answer["alerts"][0]
    for seat, kind in ((1, "call"), (3, "check")):
        assert daemon.ask({"cmd": "action", "seat": seat, "kind": kind})["ok"]
    for street in ("flop", "turn", "river"):
        assert daemon.ask({"cmd": "sim_deal", "street": street})["ok"]
        daemon.wait(lambda s: s["sim_busy"] is False, f"the {street} never landed")
        for seat in (2, 3, 1):
            assert daemon.ask({"cmd": "action", "seat": seat, "kind": "check"})["ok"]
    assert daemon.ask({"cmd": "sim_show", "seats": [1, 2, 3]})["ok"]
    daemon.wait(lambda s: s["sim_busy"] is False, "the cards were never shown")
    time.sleep(0.5)  # the reader's hold time: the faces are settled
    assert daemon.ask({"cmd": "showdown"})["ok"]
    daemon.wait(lambda s: s["hand"] is None, "the hand never ended")
    return alert


def test_the_floor_channel_has_the_cards_the_pot_and_the_hand_history(
        daemon: Daemon, ctx: zmq.Context[Any]) -> None:
    subs = subscribed(ctx, daemon)
    drain(subs["public"]), drain(subs["floor"])
    alert = play_hand(daemon)
    floor, public = drain(subs["floor"]), drain(subs["public"])

    cards = [m for m in floor if m["type"] == "card"]
    placed = [m for m in cards if m["event"] == "placed"]
    assert [m["zone"] for m in placed[:6]] == ["seat2", "seat3", "seat1"] * 2
    assert [m["zone"] for m in placed[6:]] == ["burn", "board", "board", "board", "burn",
                                               "board", "burn", "board"]
    assert all(m["source"] == "rfid" and m["hand"] == 1 and m["card"] for m in placed)
    assert {"type", "hand", "zone", "card", "face", "event", "source", "time", "seq"} <= set(
        placed[0])
    assert not [m for m in public if m["type"] == "card"]  # card observations: floor only

    floor_alert = next(m for m in floor if m["type"] == "alert")
    assert floor_alert["id"] == alert["id"] and floor_alert["hidden"] == []
    public_alert = next(m for m in public if m["type"] == "alert")
    assert "hidden" not in public_alert and public_alert["id"] == alert["id"]

    journal = Journal.open(daemon.tmp / "journal.sqlite", readonly=True)
    try:
        (hand,) = journal.hands()
    finally:
        journal.close()
    end = next(m for m in floor if m["type"] == "hand_end")
    assert end["pot"] == 6 and end["phh"] == hand.phh and hand.phh
    assert {str(k): v for k, v in (hand.stacks_after or {}).items()} == end["stacks"]
    public_end = next(m for m in public if m["type"] == "hand_end")
    assert public_end["pot"] == 6 and "phh" not in public_end  # it names every hole card

    actions = [m for m in floor if m["type"] == "action" and m["cmd"] == "action"]
    assert actions[1]["seat"] == 1 and actions[1]["pot"] == 6  # the blinds, then two calls
    assert actions[1]["stacks"] == {"1": 98, "2": 98, "3": 98}
    seqs = [m["seq"] for m in floor]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # nothing dropped here


def test_the_console_gives_back_the_messages_after_a_seq(daemon: Daemon,
                                                         ctx: zmq.Context[Any]) -> None:
    subs = subscribed(ctx, daemon)
    play_hand(daemon)
    seen = drain(subs["floor"])
    last = seen[-1]["seq"]

    got: list[dict[str, Any]] = []
    after = 0
    while True:
        answer = daemon.ask({"cmd": "messages", "channel": "floor", "after": after,
                             "limit": 7})
        assert answer["ok"], answer
        assert answer["first"] == 1 and answer["last"] == last
        assert 0 < len(answer["messages"]) <= 7
        got += answer["messages"]
        after = got[-1]["seq"]
        if not answer["more"]:
            break
    assert [m["seq"] for m in got] == list(range(1, last + 1))
    by_seq = {m["seq"]: m for m in got}
    assert all(by_seq[m["seq"]] == m for m in seen)  # as published, hole cards included
    assert daemon.ask({"cmd": "messages", "channel": "floor", "after": last})["messages"] == []
    alerts = daemon.ask({"cmd": "messages", "channel": "alerts", "after": 0})
    assert [m["type"] for m in alerts["messages"]] == ["alert"]

    for bad, error in (({"channel": "secret", "after": 0}, "'channel' must be one of"),
                       ({"channel": "floor"}, "'after' is required"),
                       ({"channel": "floor", "after": -1}, "'after' must be 0.."),
                       ({"channel": "floor", "after": 0, "limit": 0}, "'limit' must be 1.."),
                       ({"channel": "floor", "after": True}, "whole number")):
        answer = daemon.ask({"cmd": "messages", **bad})
        assert not answer["ok"] and error in answer["error"], (bad, answer)

    # a catch-up is no event: asking publishes nothing
    assert drain(subs["floor"], quiet_ms=200) == []

    # killed and started again: the journal still has every message, numbering goes on
    daemon.kill()
    daemon.start()
    answer = daemon.ask({"cmd": "messages", "channel": "floor", "after": last - 3})
    again = answer["messages"]
    assert again[:3] == got[-3:]
    assert [m["seq"] for m in again] == list(range(last - 2, last - 2 + len(again)))


def test_a_floor_acknowledges_one_alert_over_the_alert_channel(daemon: Daemon,
                                                               ctx: zmq.Context[Any]) -> None:
    floor1, floor2 = floor_client(ctx, daemon), floor_client(ctx, daemon)
    welcome = hello(floor1)
    assert welcome["channels"].get("alerts", 0) == 0 and "public" in welcome["channels"]
    floor2.send(json.dumps({"type": "acknowledge", "id": 1, "by": "anna"}).encode())
    assert "say hello first" in message(floor2)["error"]
    hello(floor2)

    assert daemon.ask({"cmd": "sim_press"})["ok"]
    daemon.wait(lambda s: s["hand"] == 1, "no hand")
    assert daemon.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
    daemon.wait(lambda s: s["sim_busy"] is False, "the deal never ended")
    [alert] = daemon.ask({"cmd": "action", "seat": 2, "kind": "call"})["alerts"]
    assert daemon.ask({"cmd": "status"})["unacknowledged"] == [alert["id"]]

    floor1.send(json.dumps({"type": "acknowledge", "id": alert["id"], "by": "anna"}).encode())
    for sock in (floor1, floor2):  # every floor client hears of it
        while True:
            m = message(sock)
            if m["type"] == "acknowledged":
                break
            assert m["type"] == "alert"  # the alert itself, resent until acked
        assert (m["id"], m["by"], m["client"]) == (alert["id"], "anna", "floor1")
        assert isinstance(m["seq"], int) and m["time"]
    assert daemon.ask({"cmd": "status"})["unacknowledged"] == []

    floor1.send(json.dumps({"type": "acknowledge", "id": 999, "by": "anna"}).encode())
    while (m := message(floor1))["type"] == "alert":
        pass
    assert m == {"type": "error", "error": "acknowledge: no alert 999 at this table"}
    floor1.send(json.dumps({"type": "acknowledge", "id": alert["id"], "by": "x" * 40}).encode())
    while (m := message(floor1))["type"] == "alert":
        pass
    assert "'by'" in m["error"]

    # the console takes the same request (the dealer station on the floor's behalf)
    out_of_turn = daemon.ask({"cmd": "action", "seat": 3, "kind": "fold"})
    assert out_of_turn.get("alerts"), out_of_turn
    second = daemon.ask({"cmd": "status"})["unacknowledged"]
    assert len(second) == 1
    answer = daemon.ask({"cmd": "acknowledge", "id": second[0], "by": "bob"})
    assert answer["ok"] and answer["unacknowledged"] == []
    assert not daemon.ask({"cmd": "acknowledge", "id": 0})["ok"]

    journal = Journal.open(daemon.tmp / "journal.sqlite", readonly=True)
    try:
        requests = [json.loads(r["request"]) for r in journal.console_requests()
                    if r["ok"] and "acknowledge" in r["request"] and "id" in r["request"]]
    finally:
        journal.close()
    assert requests == [{"cmd": "acknowledge", "id": alert["id"], "by": "anna"},
                        {"cmd": "acknowledge", "id": second[0], "by": "bob"}]
