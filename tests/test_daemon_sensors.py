"""The sensor adapters the controller polls on a table: the shuffler button (on simulated GPIO
pins here) and the camera (a scripted frame source, analyser and tracker)."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from firmware_bridge.button import ShufflerButton
from hw_sim.devices.gpio import ManualClock, SimGpio
from table_controller.daemon.sensors import CAMERA_SILENCE, ButtonSensor, CameraSensor
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Observation,
    SensorStatus,
    Source,
)
from vision.sources import Frame


def test_button_sensor_reports_one_press_per_push() -> None:
    clock = ManualClock(10.0)
    gpio = SimGpio(clock=clock)
    sensor = ButtonSensor(ShufflerButton(gpio, pin=17, clock=clock))
    gpio.press(17, at=10.1, rng=random.Random(3))
    presses: list[Observation] = []
    t = 10.0
    while t < 10.6:
        t = round(t + 0.001, 3)
        gpio.run_until(t)
        presses += sensor.poll(t)
    assert len(presses) == 1 and isinstance(presses[0], ButtonPressed)
    assert 10.1 <= presses[0].t < 10.13
    sensor.close()


class ScriptedSource:
    """Two frames, then the camera goes dark until ``light`` is set, then frames again."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.index = 0
        self.light = threading.Event()
        self.closed = False

    def read(self) -> Frame | None:
        self.clock.advance(0.1)
        self.index += 1
        if self.index <= 2 or self.light.is_set():
            return Frame(image=self.index, t=self.clock(), index=self.index)  # type: ignore[arg-type]
        return None

    def close(self) -> None:
        self.closed = True


class Tracker:
    def update(self, seen: Any, t: float) -> list[CardObservation]:
        if seen == 2:  # the analyser saw a card in the second frame
            return [CardObservation(CardEvent.PLACED, "board", t, Source.CAMERA, "cam1")]
        if seen == "bad":
            raise ValueError("malformed frame")
        return []


def wait_for(sensor: CameraSensor, what: Any, seen: list[Observation]) -> None:
    deadline = time.monotonic() + 10
    while not any(what(o) for o in seen):
        assert time.monotonic() < deadline, f"not seen; got {seen}"
        seen.extend(sensor.poll(0.0))
        time.sleep(0.001)  # the camera thread runs meanwhile; the condition is what we wait on


def test_camera_sensor_tracks_frames_and_reports_silence() -> None:
    clock = ManualClock(0.0)
    source = ScriptedSource(clock)
    sensor = CameraSensor(source=source, analyse=lambda image: image, tracker=Tracker(),
                          clock=clock)
    sensor.start()
    seen: list[Observation] = []
    wait_for(sensor, lambda o: isinstance(o, CardObservation), seen)
    wait_for(sensor, lambda o: isinstance(o, SensorStatus) and not o.online, seen)
    offline = next(o for o in seen if isinstance(o, SensorStatus))
    assert offline.source is Source.CAMERA and offline.t >= 0.2 + CAMERA_SILENCE
    source.light.set()
    wait_for(sensor, lambda o: isinstance(o, SensorStatus) and o.online, seen)
    sensor.close()
    assert source.closed


def test_camera_sensor_skips_a_frame_that_fails() -> None:
    clock = ManualClock(0.0)
    source = ScriptedSource(clock)
    source.light.set()
    frames = iter(["bad", 2])
    sensor = CameraSensor(source=source, analyse=lambda _image: next(frames, None),
                          tracker=Tracker(), clock=clock)
    sensor.start()
    seen: list[Observation] = []
    wait_for(sensor, lambda o: isinstance(o, CardObservation), seen)
    sensor.close()
    assert sensor.frames_skipped == 1  # the bad frame, counted; the next one was read


class Frames:
    """A frame every 0.1 s of ``clock``, as many as asked for."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.index = 0

    def read(self) -> Frame | None:
        self.clock.advance(0.1)
        self.index += 1
        return Frame(image=self.index, t=self.clock(), index=self.index)  # type: ignore[arg-type]

    def close(self) -> None:
        pass


def test_camera_sensor_reports_how_far_its_analysis_has_come() -> None:
    """Until a frame is analysed, the camera has not reported past the frame before: the
    controller's monitor waits for it (docs/monitor.md, "Fusion and settle time")."""
    clock = ManualClock(0.0)
    stalled, entered = threading.Event(), threading.Event()
    done: list[float] = []

    def analyse(image: Any) -> Any:
        if image == 3:  # the third frame's analysis gets no CPU until released
            entered.set()
            assert stalled.wait(10)
        done.append(image)
        return image

    sensor = CameraSensor(source=Frames(clock), analyse=analyse, tracker=Tracker(),
                          clock=clock)
    assert sensor.reported_through() is None  # no frame yet
    sensor.start()
    assert entered.wait(10)
    seen = sensor.poll(0.0)
    assert sensor.reported_through() == pytest.approx(0.2)  # frames 1 and 2, not 3
    assert [o.t for o in seen if isinstance(o, CardObservation)] == [pytest.approx(0.2)]
    stalled.set()
    deadline = time.monotonic() + 10
    while (sensor.reported_through() or 0.0) < 0.3:
        assert time.monotonic() < deadline
        time.sleep(0.001)  # the camera thread runs meanwhile; the condition is what we wait on
    sensor.close()
