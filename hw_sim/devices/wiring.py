"""The sensor chains of a simulated table: from the table model to observations, through the
real reader and debouncer code.

- RFID: the table model's tags -> the virtual RFID controller -> the REAL
  :class:`firmware_bridge.reader.RfidReader` (presence debouncing, tag resolution against the
  REAL deck registry the model enrolled, zone map) on the simulator's clock. With
  ``stub_antenna`` an antenna also lies under the shuffler's output tray (antenna 13, zone
  ``shuffler``) and reads every tag of the stub. The bytes go over a real pyserial connection
  to the virtual controller on a pty (:func:`build_pty_rfid`); :func:`build_rfid` plays the
  controller end in-process.
- Button: a press with contact bounce on a simulated GPIO pin -> the REAL shuffler-button
  debouncer.

:mod:`hw_sim.devices.sim_table` puts them together for one table.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.button import ShufflerButton
from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    DeviceHello,
    HostMessage,
    InventoryBegin,
    InventoryEnd,
    InventoryEntry,
    InventoryRequest,
    ReaderType,
    TagGone,
    TagSeen,
)
from firmware_bridge.reader import RfidReader
from firmware_bridge.rfid_config import DEFAULT_ANTENNA_ZONES, LinkConfig, ReaderConfig
from hw_sim.devices.clock import SimClock
from hw_sim.devices.gpio import Bounce, SimGpio, bounce_burst
from hw_sim.devices.rfid_controller import FlickerModel, VirtualRfidController
from hw_sim.devices.table_model import TableModel
from table_controller.vocabulary.observations import Observation

log = logging.getLogger(__name__)
HOLD_TIME = ReaderConfig().hold_time  # the reader's default, as on a table
SCAN_PERIOD = 0.1  # the virtual controller's scan cycle, seconds
DROPOUT_CYCLES = 3  # the scan cycles a ``tag_dropout`` fault makes a tag miss
ZONE_ANTENNAS = {zone: antenna for antenna, zone in DEFAULT_ANTENNA_ZONES.items()}


# --- RFID ---------------------------------------------------------------------------------


@dataclass(slots=True)
class ModelAntennas:
    """What each antenna reads on the simulated table: the tags lying in its zone, minus those
    a ``tag_dropout`` fault hides for a while and those a player holds up off the felt
    (lifted, peeking: out of the antenna's field). With ``stub`` the shuffler tray's antenna reads
    the stub too."""

    model: TableModel
    hidden: dict[bytes, float] = field(default_factory=dict)  # uid -> hidden until (sim s)
    stub: bool = False

    def reads(self, now: float) -> dict[bytes, int]:
        """UID -> antenna for every tag read now."""
        out: dict[bytes, int] = {}
        cards = self.model.felt + self.model.stub if self.stub else self.model.felt
        for pc in cards:
            if pc.lifted or self.hidden.get(pc.uid, 0.0) > now:
                continue
            antenna = ZONE_ANTENNAS.get(pc.zone)
            if antenna is not None:
                out[pc.uid] = antenna
        return out


@dataclass(slots=True)
class InProcessRfid:
    """The controller end of the RFID link, played in-process: it speaks protocol messages
    (HELLO, TAG_SEEN, TAG_GONE, inventories) straight to the real reader. Used until the serial
    link and the pty controller are available; it carries ``tag_dropout`` (and models
    ``serial_unplug`` as a link down/up) but cannot carry byte-level ``serial_garbage``."""

    antennas: ModelAntennas
    reader: RfidReader
    clock: SimClock
    name: str = "rfid"
    known: dict[bytes, int] = field(default_factory=dict)
    outbox: list[Observation] = field(default_factory=list)
    down_until: float | None = None
    started: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.clock()
        self.reader.bind(self._from_host)
        self.reader.link_up(self._hello())

    def _hello(self) -> DeviceHello:
        return DeviceHello(protocol_major=PROTOCOL_MAJOR, protocol_minor=PROTOCOL_MINOR,
                           firmware=(1, 0, 0), antenna_count=len(DEFAULT_ANTENNA_ZONES),
                           reader_type=int(ReaderType.SIMULATED), scan_period_ms=100,
                           model="hw_sim in-process")

    def _ms(self) -> int:
        return int((self.clock() - self.started) * 1000)

    def _from_host(self, msg: HostMessage) -> bool:
        if self.down_until is not None:
            return False
        if isinstance(msg, InventoryRequest):
            reads = self.antennas.reads(self.clock())
            self.reader.received(InventoryBegin(request_id=msg.request_id, time_ms=self._ms()))
            for uid, antenna in reads.items():
                self.reader.received(InventoryEntry(request_id=msg.request_id, antenna=antenna,
                                                    uid=uid))
            self.reader.received(InventoryEnd(request_id=msg.request_id, entry_count=len(reads)))
            self.known = dict(reads)
        return True

    def rfid_picture(self) -> dict[str, set[str]] | None:
        """Zone -> the tags the reader holds present; None until its first full inventory
        (what a resumed hand is compared with, table_controller/daemon/reconcile.py)."""
        return self.reader.present() if self.reader.online else None

    def poll(self, now: float) -> list[Observation]:
        if self.down_until is not None:
            if now < self.down_until:
                return self._drain()
            self.down_until = None
            self.reader.link_up(self._hello())
        reads = self.antennas.reads(now)
        for uid, antenna in list(self.known.items()):
            if reads.get(uid) != antenna:
                self.reader.received(TagGone(antenna=antenna, uid=uid, time_ms=self._ms()))
        for uid, antenna in reads.items():
            if self.known.get(uid) != antenna:
                self.reader.received(TagSeen(antenna=antenna, uid=uid, time_ms=self._ms()))
        self.known = reads
        self.reader.poll(now)
        return self._drain()

    def next_due(self, now: float) -> float | None:
        return None

    def _drain(self) -> list[Observation]:
        out = list(self.outbox)
        self.outbox.clear()  # the reader's sink keeps appending to this same list
        return out

    def fault(self, kind: str, now: float) -> bool:
        if kind == "tag_dropout":
            felt = self.antennas.model.felt
            if felt:  # the most recently placed card misses reads for a moment
                self.antennas.hidden[felt[-1].uid] = now + 0.3
            return True
        if kind == "serial_unplug":
            self.reader.link_down("cable unplugged (simulated)")
            self.down_until = now + 0.5
            return True
        return False

    def close(self) -> None:
        self.reader.link_down("simulation ended")


@dataclass(slots=True)
class PtyRfid:
    """The RFID chain over a real serial connection: the table model's tags are laid on the
    antennas of a :class:`hw_sim.devices.rfid_controller.VirtualRfidController` serving a pty;
    the REAL
    :class:`firmware_bridge.link.SerialLink` (pyserial) reads it and feeds the REAL reader.

    Each poll runs one scan cycle and waits (in real time, bounded) until the reader has
    handled every tag event the controller sent, so it has seen the cycle before the clock
    moves. A real controller scans on its own time, every ``scan_period``, however late the
    Pi's loop comes to look: when the table's clock jumps further (``run --sim`` on a loaded
    machine, whose loop stalls for a second or more), the table stops it at each scan owed
    (:meth:`owed`, :meth:`catch_up`), which scans the tags as the last look laid them, so a
    flicker of a few cycles lasts a few tenths of a second, as it would on a table, and the
    reader's hold sees it at its own times.
    Faults go through the virtual controller: random bytes on the line, the cable pulled and
    put back, a tag missing its reads for three scan cycles."""

    antennas: ModelAntennas
    controller: VirtualRfidController
    link: SerialLink
    reader: RfidReader
    outbox: list[Observation]
    name: str = "rfid"
    plug_at: float | None = None
    wait_s: float = 5.0
    laid: dict[bytes, int] = field(default_factory=dict)  # uid -> antenna, as last told
    last_scan: float | None = None

    def start(self) -> None:
        self.controller.start()
        self.link.start()
        self._wait(lambda: self.reader.online, "the RFID link to come up")

    def rfid_picture(self) -> dict[str, set[str]] | None:
        """Zone -> the tags the reader holds present; None until its first full inventory
        (what a resumed hand is compared with, table_controller/daemon/reconcile.py)."""
        return self.reader.present() if self.reader.online else None

    def poll(self, now: float) -> list[Observation]:
        if self.plug_at is not None and now >= self.plug_at:
            self.plug_at = None
            self.controller.plug()
            self._wait(lambda: self.reader.online, "the RFID link to come back")
        reads = self.antennas.reads(now)
        for uid in set(self.laid) - set(reads):
            self.controller.remove(uid)
            del self.laid[uid]
        for uid, antenna in reads.items():
            if self.laid.get(uid) != antenna:
                self.controller.place(uid, antenna)
                self.laid[uid] = antenna
        self._scan(now)
        out = list(self.outbox)
        self.outbox.clear()
        return out

    def owed(self, target: float) -> float | None:
        """The time of the next scan cycle owed before the clock reaches ``target`` (None when
        the next look comes in time, within 1.5 scan periods of the last, or the cable is
        out)."""
        if self.last_scan is None or self.plug_at is not None:
            return None
        period = self.controller.scan_period
        t = self.last_scan + period
        return t if t < target - period / 2 else None

    @property
    def scans(self) -> int:
        """The scan cycles made so far (at the looks and in between)."""
        return self.controller.cycles

    @property
    def read_within(self) -> int:
        """The scan cycles within which a tag laid on an antenna is reported: a flicker burst
        or a ``tag_dropout`` makes it miss at most this many less one, then it is read."""
        return max(self.controller.flicker.max_burst_cycles, DROPOUT_CYCLES) + 1

    def catch_up(self, t: float) -> None:
        """A scan cycle at ``t`` between two looks, of the tags as last laid; what the reader
        reports comes out of the next :meth:`poll`."""
        self._scan(t)

    def _scan(self, now: float) -> None:
        """One scan cycle; then the reader, once it has taken in its edges, reports the
        removals whose hold ran out by ``now``."""
        self.last_scan = now
        handled0, edges0 = self.reader.stats.tag_events, self.controller.edges_sent
        frames0, sent0, bad0 = self._frames_in(), self.controller.frames_sent, self._bad_in()
        self.controller.scan_once()
        edges = self.controller.edges_sent - edges0
        if edges and not self.reader.wait_tag_events(handled0 + edges, 0.05):
            # Done when the reader handled every tag event, or, once a damaged frame was seen,
            # when every frame sent has been taken in by the link (a frame hit by line garbage
            # never becomes a tag event: the reader resynchronises with an inventory instead).
            self._wait(lambda: (self.reader.stats.tag_events >= handled0 + edges
                                or (self._bad_in() > bad0 and self._frames_in() - frames0
                                    >= self.controller.frames_sent - sent0)),
                       "the RFID frames to arrive")
        self.reader.poll(now)

    def _bad_in(self) -> int:
        f = self.link.stats.frames
        return f.bad_cobs + f.bad_crc + f.too_short + f.oversized

    def _frames_in(self) -> int:
        return self.link.stats.frames.frames_ok + self._bad_in()

    def _wait(self, predicate: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.wait_s
        while not predicate():
            if time.monotonic() > deadline:
                log.warning("simulator: gave up waiting for %s (tag events %d, frames in %d, "
                            "controller sent %d)", what, self.reader.stats.tag_events,
                            self._frames_in(), self.controller.frames_sent)
                return
            time.sleep(0.0005)

    def next_due(self, now: float) -> float | None:
        return self.plug_at

    def fault(self, kind: str, now: float) -> bool:
        if kind == "serial_garbage":
            self.controller.inject_garbage()
            return True
        if kind == "serial_unplug":
            self.controller.unplug()
            # wait until the reader itself has heard of it (link_down comes after the link
            # drops its port), so the wait for the link to come back cannot pass early
            self._wait(lambda: not self.reader.online, "the reader to notice the unplug")
            self.plug_at = now + 0.5
            return True
        if kind == "tag_dropout":
            felt = self.antennas.model.felt
            if felt:  # the most recently placed card misses 3 scan cycles (0.3 s)
                self.controller.drop_out(felt[-1].uid, DROPOUT_CYCLES)
            return True
        return False

    def close(self) -> None:
        self.link.stop()
        self.controller.stop()


def build_pty_rfid(model: TableModel, clock: SimClock, *, seed: int = 0,
                   config: ReaderConfig | None = None, stub_antenna: bool = False) -> PtyRfid:
    """The RFID chain over a pty. Reader, link (heartbeat and silence timeouts) and the
    controller (scan and heartbeat times) all run on the simulator's clock, so both ends of
    the link agree on time however fast the scenario runs. ``stub_antenna``: the shuffler
    tray's antenna reads the stub."""
    outbox: list[Observation] = []
    reader = RfidReader(resolver=model.registry, config=config or ReaderConfig(),
                        sink=outbox.append, clock=clock)
    # the firmware's inventories replayed when the same one comes again: the same bytes,
    # chip states and scan times as simulating each (hw_sim/devices/scan_replay.py), a
    # fraction of the cost
    controller = VirtualRfidController(seed=seed, clock=clock, flicker=FlickerModel(),
                                       scan_period=SCAN_PERIOD, replay=True)
    # The virtual controller sends its heartbeats from its own thread when it gets the CPU,
    # while the simulated clock may jump 0.1 s per look: a 1.5 s silence timeout would fire
    # falsely on a busy machine. Unplugging is still seen at once (the pty goes away).
    link = SerialLink(url=controller.path, listener=reader, clock=clock,
                      config=LinkConfig(rx_timeout=30.0))
    reader.bind(link.send)
    chain = PtyRfid(ModelAntennas(model, stub=stub_antenna), controller, link, reader, outbox)
    chain.start()
    return chain


def build_rfid(model: TableModel, clock: SimClock, *,
               config: ReaderConfig | None = None) -> InProcessRfid:
    """The RFID chain for ``model`` on ``clock`` (the reader's observations go to the chain)."""
    outbox: list[Observation] = []
    reader = RfidReader(resolver=model.registry, config=config or ReaderConfig(),
                        sink=outbox.append, clock=clock)
    return InProcessRfid(ModelAntennas(model), reader, clock, outbox=outbox)


# --- the shuffler's green button ------------------------------------------------------------


GREEN_BUTTON_PIN = 17


@dataclass(slots=True)
class SimButton:
    """The shuffler's green button: a press bounces on a simulated GPIO pin
    (:class:`hw_sim.devices.gpio.SimGpio`) and the REAL
    :class:`firmware_bridge.button.ShufflerButton` debounces it. The pin's scheduled edges are
    announced through :meth:`next_due`, so the runner stops the clock at each edge and the
    debouncer sees the exact bounce times."""

    gpio: SimGpio
    button: ShufflerButton
    rng: random.Random
    name: str = "button"
    due: list[float] = field(default_factory=list)
    held: list[Observation] = field(default_factory=list)  # presses sampled between polls

    def press(self, now: float) -> None:
        changes = bounce_burst(start=now, to=False, away=None, bounce=Bounce(), rng=self.rng)
        changes += bounce_burst(start=now + 0.12, to=None, away=False, bounce=Bounce(),
                                rng=self.rng)
        self.gpio.schedule(GREEN_BUTTON_PIN, changes)
        self.due = sorted(self.due + [t for t, _ in changes])

    def next_due(self, now: float) -> float | None:
        self.due = [t for t in self.due if t > now]
        return self.due[0] if self.due else None

    def sample(self, t: float) -> None:
        """Let the debouncer see the pin at ``t`` (a bounce edge the clock stopped at); what it
        reports comes out of the next :meth:`poll`."""
        self.gpio.run_until(t)
        self.held.extend(self.button.update(t))

    def poll(self, now: float) -> list[Observation]:
        self.gpio.run_until(now)
        out, self.held = [*self.held, *self.button.update(now)], []
        return out

    def fault(self, kind: str, now: float) -> bool:
        return False

    def close(self) -> None:
        self.button.close()


def build_button(clock: SimClock, rng: random.Random) -> SimButton:
    gpio = SimGpio(clock=clock)
    return SimButton(gpio, ShufflerButton(gpio, pin=GREEN_BUTTON_PIN, clock=clock), rng)
