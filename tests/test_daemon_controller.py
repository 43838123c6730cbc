"""The controller on the simulated table's devices, through the same code paths as a table:
the green button bounces on simulated GPIO and the real debouncer reads it; cards go through the
virtual RFID controller on a pty, the real serial link and reader; the dealer console talks to
the REP socket; events come out of the PUB sockets; everything lands in the journal.

The simulated clock is moved by the test (deterministic); socket waits are polls with timeouts.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq

from hw_sim.devices.clock import SimClock
from hw_sim.devices.sim_table import SimTable
from hw_sim.harness.console_dealer import ConsoleDealer
from table_controller.daemon.bus import ConsoleServer, EventBus
from table_controller.daemon.controller import Controller
from table_controller.daemon.journal import Journal
from table_controller.engine import GameConfig, Table
from table_controller.monitor import DealingMonitor, MonitorConfig
from table_controller.phh import loads, replay
from table_controller.vocabulary.alerts import Severity
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import (
    CardEvent,
    CardObservation,
    Face,
    Observation,
    Source,
)

WAIT_S = 10.0


@dataclass
class SimRig:
    clock: SimClock
    table: Table
    sim: SimTable
    dealer: ConsoleDealer
    controller: Controller
    journal_path: Path
    req: zmq.Socket[Any]
    public: zmq.Socket[Any]
    floor: zmq.Socket[Any]
    seen_public: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    seen_floor: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a console request; run the controller's loop until the answer is there."""
        self.req.send(json.dumps(request).encode())
        deadline = time.monotonic() + WAIT_S
        while not self.req.poll(0):
            self.controller.step(wait=0.01)
            assert time.monotonic() < deadline, f"no answer to {request}"
        answer: dict[str, Any] = json.loads(self.req.recv())
        return answer

    def settle(self, seconds: float = 1.2) -> None:
        """Let simulated time pass (0.1 s per look) until the dealer is done and the table has
        been still for ``seconds`` (longer than the reader's hold and the settle time)."""
        steps = 0
        while self.dealer.busy:
            self.tick()
            steps += 1
            assert steps < 500, "the simulated dealer never finished"
        for _ in range(round(seconds / 0.1)):
            self.tick()

    def tick(self) -> None:
        self.sim.advance_to(self.clock() + 0.1)
        self.controller.step()

    def events(self) -> None:
        for sock, seen in ((self.public, self.seen_public), (self.floor, self.seen_floor)):
            while sock.poll(200):
                topic, body = sock.recv_multipart()
                seen.append((topic.decode(), json.loads(body)))


def subscriber(ctx: zmq.Context[Any], endpoint: str) -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt_string(zmq.SUBSCRIBE, "")
    sock.connect(endpoint)
    return sock


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[SimRig]:
    yield from make_rig(tmp_path, frozenset({"rfid"}))


@pytest.fixture
def camera_rig(tmp_path: Path) -> Iterator[SimRig]:
    yield from make_rig(tmp_path, frozenset({"rfid", "camera"}))


def make_rig(tmp_path: Path, sensors: frozenset[str]) -> Iterator[SimRig]:
    ctx: zmq.Context[Any] = zmq.Context()
    clock = SimClock()
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=6)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.set_button(1)
    monitor = DealingMonitor(table, config=MonitorConfig(sensors=sensors))
    sim = SimTable(clock=clock, seed=7, sensors=sensors,
                   first_order=(parse_card("As"), parse_card("Kd")))
    dealer = ConsoleDealer(sim, deal_order=monitor.deal_order)
    journal = Journal.open(tmp_path / "journal.sqlite", busy_timeout=0.02)
    bus = EventBus(public=f"ipc://{tmp_path}/public", floor=f"ipc://{tmp_path}/floor",
                   context=ctx)
    console = ConsoleServer(f"ipc://{tmp_path}/console", context=ctx)
    controller = Controller(monitor=monitor, sensors=[dealer, *sim.sensors], journal=journal,
                            bus=bus, console=console, outputs=sim.outputs(), clock=clock,
                            commands=dealer.commands(), extra_status=dealer.status,
                            also_close=[sim.model.close])
    journal.start_run(t=clock(), wall="2026-11-30T12:00:00.000+00:00", table_name="test",
                      config="{}")
    public = subscriber(ctx, bus.public_endpoint)
    floor = subscriber(ctx, bus.floor_endpoint or "")
    for sock in (public, floor):  # PUB drops until a subscriber has joined: probe until it has
        for _ in range(100):
            bus.publish("probe", public={}, floor={})
            if sock.poll(50):
                break
    for sock in (public, floor):
        while sock.poll(100):
            sock.recv_multipart()
    req: zmq.Socket[Any] = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(console.endpoint)
    r = SimRig(clock, table, sim, dealer, controller, tmp_path / "journal.sqlite", req, public,
            floor)
    try:
        yield r
    finally:
        for sock in (req, public, floor):
            sock.close(0)
        controller.close()
        ctx.destroy(linger=0)


def test_a_misdeal_then_a_hand_played_out(rig: SimRig) -> None:
    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    status = rig.ask({"cmd": "status"})
    assert status["hand"] == 1 and status["open_alerts"] == []
    assert status["sim_busy"] is False

    # the dealer's first card goes to seat 3, the small blind is seat 2: misdeal
    card = rig.sim.model.draw_top()
    assert str(card.card) == "As"  # the first deck's top card, as configured
    rig.sim.dealer.put(card, "seat3", Face.DOWN)
    rig.settle()
    assert rig.controller.outputs is not None
    assert rig.controller.outputs.showing is Severity.STOP  # red lamp, buzzer
    frozen = rig.ask({"cmd": "action", "seat": 1, "kind": "fold"})  # the hand is halted
    assert not frozen["ok"] and "halted by MISDEAL_WRONG_FIRST_SEAT" in frozen["error"]
    not_open = rig.ask({"cmd": "resolve", "code": "JOKER"})
    assert not not_open["ok"] and "JOKER" in not_open["error"]
    answer = rig.ask({"cmd": "resolve", "code": "MISDEAL_WRONG_FIRST_SEAT"})
    assert answer["ok"] and answer["hand"] is None and answer["last_hand"] == 1
    assert rig.controller.outputs.showing is None
    assert rig.ask({"cmd": "sim_collect"})["ok"]
    rig.settle()

    # hand 2: dealt correctly; the console's mistakes change nothing
    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    assert rig.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
    rig.settle()
    before = rig.ask({"cmd": "status"})
    assert before["hand"] == 2 and before["to_act"] == 1
    illegal = rig.ask({"cmd": "action", "seat": 1, "kind": "raise", "amount": 3})
    assert not illegal["ok"] and "raise" in illegal["error"]
    assert "[" in illegal["error"]  # the engine's rule and its source
    malformed = rig.ask({"cmd": "action", "seat": "one", "kind": "fold"})
    assert not malformed["ok"] and "'seat'" in malformed["error"]
    unknown = rig.ask({"cmd": "deal", "street": "flop"})
    assert not unknown["ok"] and "unknown cmd 'deal'" in unknown["error"]
    extra = rig.ask({"cmd": "showdown", "now": True})
    assert not extra["ok"] and "'now'" in extra["error"]
    assert rig.ask({"cmd": "status"}) == {**before}
    for seat, kind, amount in ((1, "raise", 6), (2, "fold", None), (3, "fold", None)):
        request: dict[str, Any] = {"cmd": "action", "seat": seat, "kind": kind}
        if amount is not None:
            request["amount"] = amount
        assert rig.ask(request)["ok"], request
    final = rig.ask({"cmd": "status"})
    assert final["hand"] is None and final["stacks"] == {"1": 103, "2": 99, "3": 98}

    # what was published
    rig.events()
    topics = [t for t, _ in rig.seen_public]
    assert topics.count("hand_start") == 2 and topics.count("hand_end") == 2
    public_alerts = [e for t, e in rig.seen_public if t == "alert"]
    floor_alerts = [e for t, e in rig.seen_floor if t == "alert"]
    misdeal = [e for e in floor_alerts if e["code"] == "MISDEAL_WRONG_FIRST_SEAT"]
    assert len(misdeal) == 1 and misdeal[0]["cards"] == [str(card.card)]
    assert misdeal[0]["seat"] == 3 and misdeal[0]["severity"] == "stop"
    hidden = [e for e in public_alerts if e["code"] == "MISDEAL_WRONG_FIRST_SEAT"]
    assert hidden[0]["cards"] == ["??"]  # a hole card: not on the public channel
    assert str(card.card) not in json.dumps(public_alerts)
    for key in ("type", "id", "code", "severity", "hand", "seat", "cards", "rule", "message",
                "remedy", "time"):
        assert key in misdeal[0]  # alerts.md's object
    ends = [e for t, e in rig.seen_floor if t == "hand_end"]
    assert [(e["hand"], e["voided"]) for e in ends] == [(1, True), (2, False)]
    actions = [e for t, e in rig.seen_public if t == "action" and e["cmd"] == "action"]
    assert [(a["seat"], a["kind"]) for a in actions] == [(1, "raise"), (2, "fold"), (3, "fold")]

    # what was journaled (read as the floor would, from another connection)
    journal = Journal.open(rig.journal_path, readonly=True)
    hands = journal.hands()
    assert [(h.number, h.voided) for h in hands] == [(1, True), (2, False)]
    assert hands[0].cause == "MISDEAL_WRONG_FIRST_SEAT" and hands[0].phh is None
    assert hands[1].stacks_after == {1: 103, 2: 99, 3: 98}
    life = journal.alerts(hand=1)  # alerts.md "Lifecycle": the alert, then its end
    assert [(a["type"], a["code"]) for a in life] == [("alert", "MISDEAL_WRONG_FIRST_SEAT"),
                                                     ("alert_resolved",
                                                      "MISDEAL_WRONG_FIRST_SEAT")]
    assert life[0]["cards"] == [str(card.card)]
    assert life[1]["id"] == life[0]["id"] == misdeal[0]["id"] and life[1]["by"] == "floor"
    resolved = [e for t, e in rig.seen_public if t == "alert_resolved"]
    assert [(e["id"], e["by"]) for e in resolved] == [(misdeal[0]["id"], "floor")]
    history = loads(hands[1].phh or "")
    assert replay(history).finishing_stacks == history.finishing_stacks
    assert history.seats is not None and history.finishing_stacks is not None
    assert dict(zip(history.seats, history.finishing_stacks, strict=True)) == {1: 103, 2: 99,
                                                                             3: 98}
    observations = journal.observations()
    assert sum(o.kind == "button" for o in observations) == 2
    placed = [o for o in observations if o.kind == "card" and o.fields["event"] == "placed"]
    assert len(placed) == 1 + 6 and all(o.accepted for o in placed)
    assert placed[0].fields["zone"] == "seat3" and placed[0].fields["source"] == "rfid"
    requests = journal.console_requests(hand=2)
    refused = [r for r in requests if not r["ok"]]
    assert len(refused) == 4 and any("'seat'" in (r["error"] or "") for r in refused)
    journal.close()


class Broken:
    name = "broken"

    def __init__(self) -> None:
        self.calls = 0

    def poll(self, now: float) -> list[Observation]:
        self.calls += 1
        raise OSError("device unplugged")

    def close(self) -> None:
        raise OSError("still unplugged")


class Strange:
    name = "strange"

    def __init__(self) -> None:
        self.sent = False

    def poll(self, now: float) -> list[Observation]:
        if self.sent:
            return []
        self.sent = True
        return [CardObservation(CardEvent.PLACED, "pool", now, Source.RFID, "ff", None)]

    def close(self) -> None:
        pass


class FailingBus:
    public_endpoint = floor_endpoint = "-"

    def publish(self, topic: str, **_kw: Any) -> None:
        raise RuntimeError("network down")

    def retry(self) -> int:
        return 0

    def close(self) -> None:
        pass


def test_faults_do_not_stop_the_table(rig: SimRig, caplog: pytest.LogCaptureFixture) -> None:
    broken, strange = Broken(), Strange()
    rig.controller.sensors[:0] = [broken, strange]
    faults: list[str] = []
    rig.controller.on_fault = faults.append  # a table has none; the scenario runner stops
    rig.controller.bus = FailingBus()  # type: ignore[assignment]
    own = rig.controller.journal
    assert own is not None
    own.retry_interval = 0.0  # retry at every loop (the default waits a second)
    blocker = sqlite3.connect(rig.journal_path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # another process holds the journal's write lock
    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    assert broken.calls > 5
    assert rig.ask({"cmd": "status"})["hand"] == 1  # the button still started the hand
    assert own.pending > 0  # nothing written, nothing lost
    assert "sensor broken failed" in caplog.text and "not published" in caplog.text
    assert "sensor broken failed: OSError: device unplugged" in faults
    assert any("pool" in f for f in faults)  # the refused observation, with the reason
    assert "write failed" in caplog.text
    blocker.execute("ROLLBACK")
    blocker.close()
    rig.tick()  # the loop retries what is queued
    assert own.pending == 0
    journal = Journal.open(rig.journal_path, readonly=True)
    odd = [o for o in journal.observations() if o.fields.get("zone") == "pool"]
    assert len(odd) == 1 and not odd[0].accepted and "pool" in (odd[0].error or "")
    assert [o.kind for o in journal.observations()].count("button") == 1
    assert journal.hands()[0].number == 1
    assert journal.console_requests()[0]["request"] == '{"cmd": "sim_press"}'
    journal.close()


def act(rig: SimRig, *actions: tuple[int, str]) -> None:
    for seat, kind in actions:
        answer = rig.ask({"cmd": "action", "seat": seat, "kind": kind})
        assert answer["ok"], answer


def test_showdown_and_a_floor_void(rig: SimRig) -> None:
    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    assert rig.ask({"cmd": "sim_deal", "street": "hole"})["ok"]
    rig.settle()
    assert rig.ask({"cmd": "showdown"})["ok"] is False  # the betting is not over
    act(rig, (1, "call"), (2, "call"), (3, "check"))  # button 1, blinds 2 and 3
    for street in ("flop", "turn", "river"):
        assert rig.ask({"cmd": "sim_deal", "street": street})["ok"]
        rig.settle()
        act(rig, (2, "check"), (3, "check"), (1, "check"))
    assert rig.ask({"cmd": "sim_show", "seats": [1, 2, 3]})["ok"]
    rig.settle()
    done = rig.ask({"cmd": "showdown"})
    assert done["ok"] and done["hand"] is None, done
    assert sum(int(v) for v in done["stacks"].values()) == 300
    assert rig.ask({"cmd": "sim_collect"})["ok"]
    rig.settle()

    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    before = rig.ask({"cmd": "status"})["stacks"]
    void = rig.ask({"cmd": "void", "cause": "floor: wrong deck in play"})
    assert void["ok"] and void["hand"] is None and void["stacks"] == before
    assert not rig.ask({"cmd": "void"})["ok"]  # no hand to void

    journal = Journal.open(rig.journal_path, readonly=True)
    first, second = journal.hands()
    assert first.phh is not None and not first.voided
    assert replay(loads(first.phh)).finishing_stacks == loads(first.phh).finishing_stacks
    assert first.phh.count(" sm ") == 3  # the hands shown at the showdown
    assert second.voided and second.cause == "floor: wrong deck in play"
    journal.close()
    rig.events()
    assert not [e for t, e in rig.seen_public if t == "alert"]  # a clean hand: no alerts


def test_an_exposed_card_is_public_a_hole_card_is_not(camera_rig: SimRig) -> None:
    """With the camera: the third card of the deal lands face up (EXPOSED_CARD_REPLACE). Every
    player saw it, so the public channel shows it; the face-down cards stay hidden."""
    rig = camera_rig
    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    order = rig.controller.monitor.deal_order()
    assert order == (2, 3, 1)
    placed = []
    for seat, face in zip(order, (Face.DOWN, Face.DOWN, Face.UP), strict=True):
        pc = rig.sim.model.draw_top()
        rig.sim.dealer.put(pc, f"seat{seat}", face)
        placed.append(str(pc.card))
        rig.settle(0.6)
    rig.events()
    floor = [e for t, e in rig.seen_floor if t == "alert"]
    public = [e for t, e in rig.seen_public if t == "alert"]
    assert [e["code"] for e in floor] == ["EXPOSED_CARD_REPLACE"], floor
    assert floor[0]["cards"] == [placed[2]] and floor[0]["seat"] == 1
    assert floor[0]["hidden"] == []  # the floor channel says which cards are hole cards
    # the exposed card is public; no hole card is named
    # (each channel numbers its own messages: the floor's carries the card observations too)
    assert [{k: v for k, v in e.items() if k != "seq"} for e in public] == [
        {k: v for k, v in e.items() if k not in ("hidden", "seq")} for e in floor]
    assert placed[0] not in json.dumps(public) and placed[1] not in json.dumps(public)
    assert rig.controller.outputs is not None
    assert rig.controller.outputs.showing is Severity.FIX  # amber


def test_extension_hooks_hear_steps_and_requests(rig: SimRig,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """``on_step`` runs at the end of every step, ``on_request`` after each request carried
    out (not a refused one); a hook that raises is logged and the table goes on."""
    steps: list[float] = []
    heard: list[str] = []
    rig.controller.on_step = lambda: steps.append(rig.clock())
    rig.controller.on_request = lambda r, _t: heard.append(str(r.get("cmd")))
    assert rig.ask({"cmd": "status"})["ok"]
    assert not rig.ask({"cmd": "action", "seat": 1, "kind": "fold"})["ok"]  # no hand
    assert rig.ask({"cmd": "acknowledge"})["ok"]
    assert heard == ["status", "acknowledge"]
    before = len(steps)
    rig.tick()
    assert len(steps) == before + 1

    def broken(*_args: object) -> None:
        raise RuntimeError("extension bug")
    rig.controller.on_step = broken
    rig.controller.on_request = broken
    assert rig.ask({"cmd": "sim_press"})["ok"]  # answered all the same
    rig.settle()
    assert rig.ask({"cmd": "status"})["hand"] == 1
    assert "on_request hook failed" in caplog.text and "extension bug" in caplog.text
    assert "on_step hook failed" in caplog.text


def test_sim_put_and_sim_remedy_refuse_bad_requests(rig: SimRig) -> None:
    """The simulated dealer's error-making requests name what was wrong; nothing moves."""
    for request, problem in (
            ({"cmd": "sim_put"}, "'zone' is required"),
            ({"cmd": "sim_put", "zone": "pool"}, "pool"),
            ({"cmd": "sim_put", "zone": "shuffler"}, "not in the shuffler"),
            ({"cmd": "sim_put", "zone": "board", "face": "sideways"}, "up or down"),
            ({"cmd": "sim_remedy"}, "'code' is required"),
            ({"cmd": "sim_remedy", "code": "EXTRA_BOARD_CARD"}, "no open 'EXTRA_BOARD_CARD'")):
        answer = rig.ask(request)
        assert not answer["ok"] and problem in answer["error"], (request, answer)
    assert not rig.sim.model.felt and not rig.dealer.busy


def test_two_cards_in_one_scan_are_taken_in_the_deal_order(rig: SimRig) -> None:
    """A quick dealer: seat 3's and seat 1's cards land within one scan cycle. The reader
    reports them in antenna order (seat 1 first) at one time; the controller waits for the
    cycle's whole report and takes them as the deal goes (2, 3, 1), so no misdeal."""
    assert rig.ask({"cmd": "sim_press"})["ok"]
    rig.settle()
    rig.sim.dealer.put(rig.sim.model.draw_top(), "seat2", Face.DOWN)
    rig.settle()
    scans = rig.sim.scans()
    rig.sim.dealer.put(rig.sim.model.draw_top(), "seat3", Face.DOWN)
    rig.sim.dealer.put(rig.sim.model.draw_top(), "seat1", Face.DOWN)
    rig.settle()
    assert rig.sim.scans() > scans
    rig.events()
    assert [e["code"] for t, e in rig.seen_floor if t == "alert"] == []
    run = rig.controller.monitor.ctx.run
    assert run is not None and [seat for seat, _ in run.deal.dealt] == [2, 3, 1]
