"""A sensor whose observations come out late (the camera's analysis stalled by a loaded
machine) is not judged against the other one before it has had its say: the controller's
monitor runs on the time up to which every sensor has reported (``reported_through``), so two
sensors' disagreement is judged on their own times (docs/monitor.md, "Fusion and settle
time"). A camera that is up to date and really misses a card is still a SENSOR_CONFLICT."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from table_controller.daemon.controller import SENSOR_WAIT, Controller
from table_controller.engine import GameConfig, Table
from table_controller.monitor import DealingMonitor, MonitorConfig
from table_controller.monitor.output import MonitorOutput
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Face,
    Observation,
    Source,
)

FRAME = 0.1
ANALYSIS = 0.05  # a frame's observations come out this long after it was taken


@dataclass
class Clock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Reader:
    """The RFID reader: each observation is delivered at its own time."""

    script: list[Observation]
    name: str = "rfid"

    def poll(self, now: float) -> list[Observation]:
        out = [o for o in self.script if o.t <= now]
        self.script = [o for o in self.script if o.t > now]
        return out

    def close(self) -> None:
        pass


@dataclass
class Camera:
    """A camera taking a frame every :data:`FRAME` seconds, analysed on its own thread: a
    frame's observations come out :data:`ANALYSIS` later, or, for frames taken during
    ``stall`` (start, end), all at its end (the analysis got no CPU meanwhile)."""

    clock: Clock
    script: list[CardObservation]
    stall: tuple[float, float] | None = None
    name: str = "camera"
    sent: set[int] = field(default_factory=set)

    def _out_at(self, t: float) -> float:
        if self.stall is not None and self.stall[0] <= t < self.stall[1]:
            return self.stall[1]
        return t + ANALYSIS

    def reported_through(self) -> float | None:
        frames = [k * FRAME for k in range(round(self.clock.now / FRAME) + 1)]
        done = [t for t in frames if self._out_at(t) <= self.clock.now]
        return max(done) if done else None

    def poll(self, now: float) -> list[Observation]:
        out: list[Observation] = []
        for i, obs in enumerate(self.script):
            if i not in self.sent and self._out_at(obs.t) <= now:
                self.sent.add(i)
                out.append(obs)
        return out

    def close(self) -> None:
        pass


def rfid(event: CardEvent, t: float) -> CardObservation:
    return CardObservation(event=event, zone="seat2", t=t, source=Source.RFID, key="04a1",
                           card=parse_card("As"))


def camera(event: CardEvent, t: float) -> CardObservation:
    return CardObservation(event=event, zone="seat2", t=t, source=Source.CAMERA, key="cam1",
                           face=Face.DOWN)


def run(reader: Reader, cam: Camera, clock: Clock, until: float) -> list[Alert]:
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=3)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.set_button(1)
    monitor = DealingMonitor(table, config=MonitorConfig(
        sensors=frozenset({"rfid", "camera"}), sensor_lag=0.6))
    alerts: list[Alert] = []

    def heard(out: MonitorOutput) -> None:
        alerts.extend(out.alerts)

    controller = Controller(monitor=monitor, sensors=[reader, cam], clock=clock,
                            on_output=heard)
    while clock.now < until:
        clock.now = round(clock.now + 0.02, 6)
        controller.step()
    controller.close()
    return alerts


# The seat-2 card (the first dealt, button 1) is put down at 1.0: the reader reports it at
# once, the camera confirms it three frames later; it is picked up again at 5.0.
def script(clock: Clock, stall: tuple[float, float] | None) -> tuple[Reader, Camera]:
    reader = Reader([ButtonPressed(t=0.5), rfid(CardEvent.PLACED, 1.0),
                     rfid(CardEvent.REMOVED, 5.6)])
    cam = Camera(clock, [camera(CardEvent.PLACED, 1.2), camera(CardEvent.REMOVED, 5.4)],
                 stall=stall)
    return reader, cam


@pytest.mark.parametrize("stall", [None, (1.0, 3.5), (0.9, 3.0), (5.0, 7.5)],
                         ids=["no-stall", "stall-2.5s-at-deal", "stall-2.1s",
                              "stall-2.5s-at-pickup"])
def test_a_camera_behind_on_its_frames_makes_no_conflict(
        stall: tuple[float, float] | None) -> None:
    clock = Clock()
    reader, cam = script(clock, stall)
    assert run(reader, cam, clock, until=9.0) == []


def test_a_camera_up_to_date_that_misses_the_card_is_a_conflict() -> None:
    clock = Clock()
    reader, cam = script(clock, None)
    cam.script = []  # its frames are analysed, the card is never in them
    alerts = run(reader, cam, clock, until=4.0)
    assert [a.code for a in alerts] == ["SENSOR_CONFLICT"]
    assert "the reader sees" in alerts[0].message
    assert alerts[0].t == pytest.approx(1.0 + 0.3 + 0.6, abs=0.1)  # judged on time


def test_a_camera_stalled_and_missing_the_card_is_a_conflict_once_it_has_reported() -> None:
    clock = Clock()
    reader, cam = script(clock, (1.0, 3.5))
    cam.script = []
    alerts = run(reader, cam, clock, until=5.0)
    assert [a.code for a in alerts] == ["SENSOR_CONFLICT"]


def test_a_sensor_far_behind_holds_the_monitor_back_no_longer_than_the_wait() -> None:
    clock = Clock()
    reader, cam = script(clock, (1.0, 1.0 + SENSOR_WAIT + 3.0))
    cam.script = []
    alerts = run(reader, cam, clock, until=1.0 + SENSOR_WAIT + 1.5)
    assert [a.code for a in alerts] == ["SENSOR_CONFLICT"]


@dataclass
class Lagging:
    """A sensor that says, at each step, the next of ``answers`` (then None: up to date)."""

    answers: list[float | None]
    name: str = "camera"

    def reported_through(self) -> float | None:
        return self.answers.pop(0) if self.answers else None

    def poll(self, now: float) -> list[Observation]:
        return []

    def close(self) -> None:
        pass


def ticked(sensors: list[Any], clock: Clock, *, shift: float = 0.0,
           steps: tuple[float, ...]) -> list[float]:
    """The times the monitor is ticked at by a controller on ``sensors`` stepped at ``steps``
    (after ``shift_clock(shift)``: a resumed hand)."""
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=3)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    monitor = DealingMonitor(table, config=MonitorConfig(sensors=frozenset({"camera"})))
    ticks: list[float] = []
    tick = monitor.tick

    def counted(t: float) -> MonitorOutput:
        ticks.append(t)
        return tick(t)

    monitor.tick = counted  # type: ignore[method-assign,assignment]
    controller = Controller(monitor=monitor, sensors=sensors, clock=clock)
    controller.shift_clock(shift)
    for now in steps:
        clock.now = now
        controller.step()
    controller.close()
    return ticks


def test_the_monitors_time_never_goes_back_when_a_sensor_says_an_older_one() -> None:
    """A camera that comes back from offline (up to date: None) with frames analysed from
    before: the monitor was ticked at the loop's time meanwhile and is not ticked earlier."""
    ticks = ticked([Lagging([None, 7.0, 8.0])], Clock(10.0), steps=(10.0, 10.1, 10.2, 10.3))
    assert ticks == sorted(ticks) and ticks[0] == 10.0 and ticks[-1] == 10.3


def test_a_resumed_controller_waits_for_a_lagging_sensor_on_the_shifted_time() -> None:
    """After ``shift_clock`` (a resumed hand runs ahead of the devices' clock) a sensor's
    reported time is shifted as its observations are; one that says nothing is up to date."""
    ticks = ticked([Lagging([9.5, 9.8]), Reader([])], Clock(10.0), shift=100.0,
                   steps=(10.0, 10.1, 10.2))
    assert ticks == pytest.approx([109.5, 109.8, 110.2])
