"""A table's sensors as the controller polls them (the :class:`Sensor` protocol).

- :class:`RfidSensor`: the RFID service (serial link + reader, firmware_bridge.rfid); the reader
  delivers observations on the link's thread into a queue, ``poll`` drains it and lets the
  reader report the removals whose hold time ran out.
- :class:`ButtonSensor`: the shuffler's green button (debounced presses).
- :class:`CameraSensor`: frames from a :class:`vision.sources.FrameSource`, analysed and tracked
  on the sensor's own thread (a frame takes tens of milliseconds); when no frame arrives for
  :data:`CAMERA_SILENCE` seconds it reports the camera offline, and online again at the next
  frame. A frame that cannot be analysed is skipped and counted (``frames_skipped``). Its
  ``reported_through`` (the last frame analysed) tells the controller how far behind the
  frames' analysis is, so the monitor does not judge the camera against the reader before it
  has had its say.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.button import ShufflerButton
from firmware_bridge.rfid import RfidService
from firmware_bridge.rfid_config import RfidConfig
from firmware_bridge.tags import TagResolver
from table_controller.vocabulary.observations import Observation, SensorStatus, Source

log = logging.getLogger(__name__)

CAMERA_SILENCE = 2.0


def _drain(q: queue.Queue[Observation]) -> list[Observation]:
    out: list[Observation] = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


class RfidSensor:
    name = "rfid"

    def __init__(self, service: RfidService) -> None:
        self.service = service
        self._out = service.reader.observations

    @classmethod
    def open(cls, *, config: RfidConfig, resolver: TagResolver,
             wake: Callable[[], None]) -> RfidSensor:
        """The RFID service of ``config``; ``wake`` is called (on the link's thread) after
        each observation it delivers, so the controller's loop picks it up at once."""
        out: queue.Queue[Observation] = queue.Queue()

        def sink(obs: Observation) -> None:
            out.put(obs)
            wake()

        sensor = cls(RfidService(config=config, resolver=resolver, sink=sink))
        sensor._out = out
        return sensor

    def start(self) -> None:
        self.service.start()

    def reported_through(self) -> float | None:
        """Just before the scan cycle whose edges are still arriving (the controller holds them
        until the cycle's report is whole, a few milliseconds, and takes them as one look);
        None (up to date) otherwise."""
        start = self.service.reader.burst_open()
        return None if start is None else math.nextafter(start, -math.inf)

    def poll(self, now: float) -> list[Observation]:
        self.service.reader.poll(now)
        return _drain(self._out)

    def rfid_picture(self) -> dict[str, set[str]] | None:
        """Zone -> the tags the reader holds present; None until its first full inventory
        (the picture a resumed hand is compared with, :mod:`.reconcile`)."""
        reader = self.service.reader
        return reader.present() if reader.online else None

    def close(self) -> None:
        self.service.stop()


class ButtonSensor:
    name = "button"

    def __init__(self, button: ShufflerButton) -> None:
        self.button = button

    def poll(self, now: float) -> list[Observation]:
        return list(self.button.update(now))

    def close(self) -> None:
        self.button.close()


class CameraSensor:
    """``source``: a FrameSource; ``analyse``: frame image -> seen cards; ``tracker``: a
    :class:`vision.tracker.CardTracker` (anything with ``update(seen, t)``)."""

    name = "camera"

    def __init__(self, *, source: Any, analyse: Callable[[Any], Any], tracker: Any,
                 clock: Callable[[], float] = time.monotonic,
                 wake: Callable[[], None] | None = None) -> None:
        self._wake = wake  # called after observations were queued (the loop picks them up)
        self._source = source
        self._analyse = analyse
        self._tracker = tracker
        self._clock = clock
        self._out: queue.Queue[Observation] = queue.Queue()
        self._stop = threading.Event()
        self._online = True
        self._last_frame = clock()
        self._through: float | None = None  # the last frame analysed, None before the first
        self._thread = threading.Thread(target=self._loop, name="camera", daemon=True)
        self.frames_skipped = 0
        """Frames that could not be analysed (each skipped, the camera going on)."""

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self._source.read()
                if frame is None:
                    self._silent()
                    self._stop.wait(0.05)
                    continue
                seen = self._analyse(frame.image)
                for obs in self._tracker.update(seen, frame.t):
                    self._put(obs)
                self._through = frame.t  # after its observations are queued
            except Exception as exc:  # a bad frame is skipped; the camera keeps going
                self.frames_skipped += 1
                log.warning("camera: frame skipped (%d so far): %s", self.frames_skipped, exc)
                self._silent()
                self._stop.wait(0.05)
                continue
            self._last_frame = self._clock()
            if not self._online:
                self._online = True
                self._put(SensorStatus(Source.CAMERA, True, self._last_frame, "frames again"))

    def _put(self, obs: Observation) -> None:
        self._out.put(obs)
        if self._wake is not None:
            self._wake()

    def _silent(self) -> None:
        now = self._clock()
        if self._online and now - self._last_frame > CAMERA_SILENCE:
            self._online = False
            self._put(SensorStatus(Source.CAMERA, False, now,
                                   f"no frame for {CAMERA_SILENCE:g} s"))

    def reported_through(self) -> float | None:
        """The time of the last frame analysed: everything the camera saw up to then is
        queued (frames wait for the analysis on a loaded machine; the controller's monitor
        waits for them, :data:`table_controller.daemon.controller.SENSOR_WAIT` at most).
        None while it is offline: the monitor leaves it out, and waits for nothing."""
        return self._through if self._online else None

    def poll(self, now: float) -> list[Observation]:
        return _drain(self._out)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)
        self._source.close()
