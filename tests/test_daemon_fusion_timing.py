"""Both sensors on the simulated table (the RFID reader over its pty, the camera's rendered
frames through the real vision code): hands dealt and collected raise no fault, because the
monitor lets the reader's hold time and the camera's frame counts pass before it calls the two
sensors' disagreement a SENSOR_CONFLICT (docs/monitor.md, "Fusion and settle time"); a tag that
really stays silent still is one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hw_sim.devices.clock import SimClock
from hw_sim.devices.sim_table import SimTable, sensor_lag
from hw_sim.harness.console_dealer import ConsoleDealer
from table_controller.config import parse_config
from table_controller.daemon.controller import Controller
from table_controller.engine import GameConfig, Table
from table_controller.monitor import DealingMonitor, MonitorConfig
from table_controller.monitor.output import MonitorOutput
from table_controller.vocabulary.alerts import Alert, Severity
from table_controller.vocabulary.observations import Face

BOTH = frozenset({"rfid", "camera"})


class Table2:
    """The controller on the simulated table, stepped by hand at ``look`` simulated seconds;
    with ``stall``, every ``stall[0]``-th look comes ``stall[1]`` seconds late instead (the
    loop of ``run --sim`` on a loaded machine)."""

    def __init__(self, look: float, stall: tuple[int, float] | None = None) -> None:
        self.look = look
        self.stall = stall
        self.looks = 0
        self.clock = SimClock()
        table = Table(GameConfig(small_blind=1, big_blind=2), seats=6)
        for seat in (1, 2, 3):
            table.sit(seat, 100)
        table.set_button(1)
        monitor = DealingMonitor(table, config=MonitorConfig(sensors=BOTH,
                                                             sensor_lag=sensor_lag(BOTH)))
        self.sim = SimTable(clock=self.clock, seed=3, sensors=BOTH)
        self.dealer = ConsoleDealer(self.sim, move_interval=0.3, deal_order=monitor.deal_order)
        self.alerts: list[Alert] = []  # every alert the controller published
        self.controller = Controller(monitor=monitor, sensors=[self.dealer, *self.sim.sensors],
                                     clock=self.clock, commands=self.dealer.commands(),
                                     extra_status=self.dealer.status,
                                     also_close=[self.sim.model.close],
                                     on_output=self._heard)

    def _heard(self, out: MonitorOutput) -> None:
        self.alerts.extend(out.alerts)

    def ask(self, request: dict[str, object]) -> dict[str, object]:
        answer = self.controller.handle(request)
        assert answer["ok"], (request, answer)
        return answer

    def settle(self, seconds: float = 1.5) -> None:
        """Until the dealer is done, then ``seconds`` of a still table."""
        for _ in range(2000):
            if not self.dealer.busy:
                break
            self.tick()
        assert not self.dealer.busy, "the simulated dealer never finished"
        for _ in range(round(seconds / self.look)):
            self.tick()

    def tick(self) -> None:
        self.looks += 1
        late = self.stall is not None and self.looks % self.stall[0] == 0
        self.sim.advance_to(self.clock() + (self.stall[1] if late and self.stall else self.look))
        self.controller.step()

    def close(self) -> None:
        self.controller.close()


@pytest.fixture(params=[(0.02, None), (0.1, None), (0.02, (7, 1.7)), (0.05, (3, 2.5))],
                ids=["run-sim-pace", "slow-camera", "stalled-loop", "often-stalled-loop"])
def table2(request: pytest.FixtureRequest) -> Iterator[Table2]:
    look, stall = request.param
    t = Table2(look, stall)
    try:
        yield t
    finally:
        t.close()


def play_hand(t: Table2, *, to_river: bool) -> None:
    t.ask({"cmd": "sim_press"})
    t.settle()
    t.ask({"cmd": "sim_deal", "street": "hole"})
    t.settle()
    if to_river:
        # button 1, blinds 2 and 3 (the first hand); a street goes to the engine at the next
        # betting action, so the seats are named here, not read from to_act
        for seat, kind in ((1, "call"), (2, "call"), (3, "check")):
            t.ask({"cmd": "action", "seat": seat, "kind": kind})
        for street in ("flop", "turn", "river"):
            t.ask({"cmd": "sim_deal", "street": street})
            t.settle()
            for seat in (2, 3, 1):
                t.ask({"cmd": "action", "seat": seat, "kind": "check"})
        t.ask({"cmd": "sim_show", "seats": [1, 2, 3]})
        t.settle()
        t.ask({"cmd": "showdown"})
    else:
        while t.ask({"cmd": "status"})["hand"] is not None:
            t.ask({"cmd": "action", "seat": t.ask({"cmd": "status"})["to_act"],
                   "kind": "fold"})
    t.ask({"cmd": "sim_collect"})
    t.settle()


def test_dealing_and_collecting_with_both_sensors_raise_no_fault(table2: Table2) -> None:
    play_hand(table2, to_river=True)
    for _ in range(2):
        play_hand(table2, to_river=False)
    monitor = table2.controller.monitor
    assert monitor.hand_number == 3
    assert all(not e.voided for e in monitor.events)
    assert table2.alerts == []  # not one SENSOR_CONFLICT, no game alert either


def test_a_tag_that_stays_silent_is_still_a_sensor_conflict() -> None:
    t = Table2(0.1)
    try:
        t.ask({"cmd": "sim_press"})
        t.settle()
        pc = t.sim.model.draw_top()
        assert t.sim.rfid is not None
        t.sim.rfid.antennas.hidden[pc.uid] = t.clock() + 60.0  # its tag is never read
        t.sim.dealer.put(pc, "seat2", Face.DOWN)  # seat 2 is the first to be dealt
        t.settle(sensor_lag(BOTH) + 0.3 + 0.5)
        codes = [(a.code, a.severity.value) for a in t.alerts]
        assert codes == [("SENSOR_CONFLICT", Severity.FAULT.value)], codes
        assert "the camera sees" in t.alerts[0].message
    finally:
        t.close()


def test_the_configuration_derives_the_lag_from_hold_time_and_frames(tmp_path: Path) -> None:
    data = {"table": {"sensors": ["rfid", "camera"]},
            "players": {"1": 100, "2": 100},
            "rfid": {"port": "loop://", "hold_time": 0.8},
            "decks": {"db": "decks.sqlite"},
            "camera": {"source": "sim", "confirm_frames": 4, "frame_rate": 5}}
    config = parse_config(data, base=tmp_path)
    assert config.table.monitor.sensor_lag == pytest.approx(1.0)  # 5 frames at 5 a second
    data["camera"] = {"source": "sim"}
    assert parse_config(data, base=tmp_path).table.monitor.sensor_lag == pytest.approx(0.8)
    data["table"] = {"sensors": ["rfid"]}
    assert parse_config(data, base=tmp_path).table.monitor.sensor_lag == 0.0
