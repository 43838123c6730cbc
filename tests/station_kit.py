"""The dealer station on an in-process controller: the simulated table's devices (RFID over a
pty, the bouncing button), the real console socket, the station attached to the controller's
loop. The simulated clock is moved by the test (deterministic)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from hw_sim.devices.clock import SimClock
from hw_sim.devices.sim_table import SimTable
from hw_sim.harness.console_dealer import ConsoleDealer
from table_controller.config import StationSettings
from table_controller.daemon.bus import ConsoleServer, EventBus
from table_controller.daemon.controller import Controller
from table_controller.daemon.journal import Journal
from table_controller.engine import GameConfig, Table
from table_controller.monitor import DealingMonitor, MonitorConfig
from table_controller.phh import Context
from table_controller.station import Station
from table_controller.vocabulary.cards import parse_card

WAIT_S = 10.0


@dataclass
class StationRig:
    clock: SimClock
    table: Table
    sim: SimTable
    dealer: ConsoleDealer
    controller: Controller
    station: Station
    journal_path: Path
    req: zmq.Socket[Any]

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """A request on the console socket; the loop runs until it is answered."""
        self.req.send(json.dumps(request).encode())
        deadline = time.monotonic() + WAIT_S
        while not self.req.poll(0):
            self.controller.step(wait=0.01)
            assert time.monotonic() < deadline, f"no answer to {request}"
        answer: dict[str, Any] = json.loads(self.req.recv())
        return answer

    def ok(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = self.ask(request)
        assert answer["ok"], (request, answer)
        return answer

    def tick(self, seconds: float = 0.1) -> None:
        self.sim.advance_to(self.clock() + seconds)
        self.controller.step()

    def settle(self, seconds: float = 1.2) -> None:
        """Until the simulated dealer is done and the table has been still for ``seconds``."""
        steps = 0
        while self.dealer.busy:
            self.tick()
            steps += 1
            assert steps < 500, "the simulated dealer never finished"
        for _ in range(round(seconds / 0.1)):
            self.tick()

    def view(self) -> dict[str, Any]:
        latest = self.station.hub.latest()
        assert latest is not None
        view: dict[str, Any] = json.loads(latest[1])
        return view

    def act(self, *actions: tuple[int, str] | tuple[int, str, int]) -> None:
        for a in actions:
            request: dict[str, Any] = {"cmd": "action", "seat": a[0], "kind": a[1]}
            if len(a) == 3:
                request["amount"] = a[2]
            self.ok(request)

    def new_hand(self) -> None:
        """Green button, then the hole cards dealt."""
        self.ok({"cmd": "sim_press"})
        self.settle()
        self.ok({"cmd": "sim_deal", "street": "hole"})
        self.settle()


def make_station_rig(tmp_path: Path, *, serve: bool = False, token: str | None = None,
                     clock_time: float = 60.0, clock_count: float = 10.0,
                     ) -> Iterator[StationRig]:
    ctx: zmq.Context[Any] = zmq.Context()
    clock = SimClock()
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=6)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.set_button(1)
    monitor = DealingMonitor(table, config=MonitorConfig(sensors=frozenset({"rfid"})))
    sim = SimTable(clock=clock, seed=7, sensors=monitor.config.sensors,
                   first_order=tuple(parse_card(c) for c in ("As", "Kd", "Qh", "Jc", "Ts",
                                                             "9d")))
    dealer = ConsoleDealer(sim, deal_order=monitor.deal_order,
                           open_alerts=lambda: monitor.open_alerts, rules=monitor.config.rules)
    journal = Journal.open(tmp_path / "journal.sqlite", busy_timeout=0.02)
    bus = EventBus(public=f"ipc://{tmp_path}/public", floor=f"ipc://{tmp_path}/floor",
                   context=ctx)
    console = ConsoleServer(f"ipc://{tmp_path}/console", context=ctx)
    station = Station(StationSettings(listen="127.0.0.1:0" if serve else None, token=token,
                                      clock_time=clock_time, clock_count=clock_count),
                      sim=True)
    controller = Controller(monitor=monitor, sensors=[dealer, *sim.sensors], journal=journal,
                            bus=bus, console=console, outputs=sim.outputs(), clock=clock,
                            commands={**dealer.commands(), **station.commands()},
                            extra_status=dealer.status, also_close=[sim.model.close],
                            phh_context=Context(seat_count=6, table="test"))
    journal.start_run(t=clock(), wall="2026-11-30T12:00:00.000+00:00", table_name="test",
                      config="{}")
    station.attach(controller, serve=serve)
    req: zmq.Socket[Any] = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(console.endpoint)
    rig = StationRig(clock, table, sim, dealer, controller, station,
                     tmp_path / "journal.sqlite", req)
    try:
        yield rig
    finally:
        req.close(0)
        station.close()
        controller.close()
        ctx.destroy(linger=0)


class Loop:
    """The controller's loop on a thread of its own (as ``run`` has it), the simulated clock
    following real time; the test then talks to it only through sockets."""

    def __init__(self, rig: StationRig) -> None:
        self.rig = rig
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loop", daemon=True)

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            self.rig.sim.advance_to(self.rig.clock() + (now - last))
            last = now
            self.rig.controller.step(wait=0.005)

    def __enter__(self) -> Loop:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5.0)
