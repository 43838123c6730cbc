"""VirtualRfidController: the table's RFID controller, running the real firmware, on a pty.

The controller *is* the firmware (``firmware/``): its core (:class:`firmware.controller.
AntennaController`: session, scan schedule, presence per antenna, protocol encoding) and its PN5180
driver and ISO 15693 inventory (:mod:`firmware.pn5180`, :mod:`firmware.iso15693`,
:mod:`firmware.antenna`), unchanged, with one simulated PN5180 per antenna
(:mod:`hw_sim.devices.pn5180_sim`) in place of the chips and a
:class:`~hw_sim.devices.pty_port.PtyPort` in place of the USB serial port. The Pi side runs its
real code: pyserial opens :attr:`VirtualRfidController.path`.

Model: antenna -> the tags lying on it (:meth:`place`, :meth:`remove`), plus tags a
neighbouring antenna also hears weakly (:meth:`overhear`). Before each scan cycle
(:meth:`scan_once`, or every ``scan_period`` seconds with ``auto_scan=True``) the flicker model
decides which tags fail to answer this cycle, and each simulated chip gets the tags in its field
with their coupling; the firmware then scans, anticollision and all, and sends its edges.

Flicker (seeded): in each cycle a present tag starts a dropout burst with probability
``burst_probability``; the burst lasts 1 to ``max_burst_cycles`` cycles, uniformly. With the
defaults (0.01, 3 cycles of 0.1 s) no flicker outlasts 0.3 s, which is why the reader's default
hold time is 0.6 s (docs/protocol.md §6).

Faults for tests and scenarios: :meth:`inject_garbage`, :meth:`unplug` / :meth:`plug`,
:meth:`set_silent` (frames lost on the line; the Pi sees a heartbeat timeout or a gap),
:meth:`drop_out` (one tag misses N cycles), :meth:`set_slow_link` (frames trickle out in small
chunks), :meth:`reboot`, :meth:`report_error`, and on a reader chip (:meth:`chip`): ``fail()``,
``garble()``, ``revive()``.

What it does not emulate: baud-rate timing (a pty is as fast as memory unless slowed), the RF
physics behind the coupling levels, the lamp and buzzer pins (their state is recorded).
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from firmware import messages
from firmware.antenna import Antenna
from firmware.controller import AntennaController
from firmware.hal import Reader
from firmware_bridge.protocol import (
    PROTOCOL_MAJOR,
    BuzzerPattern,
    DeviceErrorCode,
    DeviceMessage,
    FramesLost,
    LampPattern,
    SetOutputs,
    TagGone,
    TagSeen,
    encode_payload,
)
from hw_sim.devices.pn5180_sim import DEFAULT_LEVEL, SimBus, SimPn5180
from hw_sim.devices.pty_port import PortUnplugged, PtyPort
from hw_sim.devices.scan_replay import ReplayCache, ReplayInventory, ReplayPn5180

MODEL = "hw_sim virtual"


@dataclass(frozen=True, slots=True, kw_only=True)
class FlickerModel:
    burst_probability: float = 0.01
    max_burst_cycles: int = 3

    def __post_init__(self) -> None:
        if not 0.0 <= self.burst_probability <= 1.0:
            raise ValueError(f"burst_probability {self.burst_probability} outside 0..1")
        if self.max_burst_cycles < 1:
            raise ValueError(f"max_burst_cycles {self.max_burst_cycles} must be >= 1")


NO_FLICKER = FlickerModel(burst_probability=0.0)


def check_uid(uid: bytes) -> None:
    """ISO 15693 UIDs are 8 bytes, the most significant 0xE0 (ISO/IEC 15693-3 §4.1)."""
    if len(uid) != 8 or uid[0] != 0xE0:
        raise ValueError(f"UID {uid.hex()} is not an ISO 15693 UID (8 bytes starting E0)")


class _SessionClock:
    """The firmware's session clock (milliseconds, microseconds) from the simulator's clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._t0 = clock()

    def ticks_ms(self) -> int:
        return int((self._clock() - self._t0) * 1000)

    def ticks_us(self) -> int:
        return int((self._clock() - self._t0) * 1_000_000)

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b


class _Line:
    """The firmware's port to the Pi: the pty."""

    def __init__(self, owner: VirtualRfidController) -> None:
        self._owner = owner

    def write(self, data: bytes, kind: int) -> bool:
        return self._owner._write(data, kind)


class VirtualRfidController:
    def __init__(
        self,
        *,
        antenna_count: int = 14,
        seed: int = 0,
        flicker: FlickerModel | None = None,
        scan_period: float = 0.1,
        heartbeat_interval: float = 0.5,
        firmware: tuple[int, int, int] = (1, 0, 0),
        auto_scan: bool = False,
        clock: Callable[[], float] = time.monotonic,
        protocol_major: int = PROTOCOL_MAJOR,
        replay: bool = False,
    ) -> None:
        if not 1 <= antenna_count <= 254:
            raise ValueError(f"antenna_count {antenna_count} outside 1..254")
        self.antenna_count = antenna_count
        self.flicker = flicker or FlickerModel()
        self.scan_period = scan_period
        self.heartbeat_interval = heartbeat_interval
        self.firmware = firmware
        self.auto_scan = auto_scan
        self.protocol_major = protocol_major
        self._clock = clock
        self._rng = random.Random(seed)
        self._garbage_rng = random.Random(seed ^ 0x5A5A)
        self._port = PtyPort(name="rfid-controller")
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._present: dict[int, set[bytes]] = {}
        self._level: dict[bytes, int] = {}
        self._overheard: dict[bytes, dict[int, int]] = {}
        self._burst: dict[bytes, int] = {}
        self._silent = False
        self._slow_bps: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.bus = SimBus(antenna_count)
        """The simulated SPI bus and its chips (``bus.clock.now_us``: simulated time)."""
        self.replay = ReplayCache() if replay else None
        """With ``replay``: the inventories' outcomes, replayed when the same situation comes
        again (:mod:`hw_sim.devices.scan_replay`); None: every one simulated."""
        # observable by tests
        self.cycles = 0
        self.frames_sent = 0
        self.edges_sent = 0
        """TAG_SEEN / TAG_GONE frames written to the port (those lost to an unplug or silence
        not counted); compare its growth with the reader's ``stats.tag_events``."""
        self.frames_dropped = 0
        self.outputs = SetOutputs()
        self.outputs_history: list[SetOutputs] = []
        """Every change of lamp and buzzer, commanded or timed out, in order."""
        self.host_losses: list[FramesLost] = []
        self._before_reboot = (0, 0, 0)
        self.core = self._new_core()

    def _new_core(self) -> AntennaController:
        readers: list[Reader] = []
        for i, sim in enumerate(self.bus.chips):
            if self.replay is None:
                readers.append(Antenna(self.bus.driver(i)))
                continue
            driver = ReplayPn5180(sim, self.replay, name=f"antenna {i}")
            antenna = Antenna(driver)
            antenna.inventory = ReplayInventory(driver)
            readers.append(antenna)
        core = AntennaController(readers,
                          _Line(self), _SessionClock(self._clock), self.bus.clock,
                          scan_period_ms=int(self.scan_period * 1000),
                          heartbeat_ms=int(self.heartbeat_interval * 1000),
                          firmware=self.firmware, protocol_major=self.protocol_major,
                          model=MODEL, reader_type=messages.READER_SIMULATED)
        core.on_outputs = self._outputs_changed
        core.on_host_loss = lambda count, reason: self.host_losses.append(
            FramesLost(count, reason))
        return core

    # ------------------------------------------------------------------ lifecycle
    @property
    def path(self) -> str:
        """The serial device path for the Pi side (stable across unplug/plug)."""
        return self._port.path

    @property
    def hellos(self) -> int:
        """HOST_HELLOs answered since the controller was made (over reboots)."""
        return self._before_reboot[0] + self.core.hellos

    @property
    def inventories(self) -> int:
        return self._before_reboot[1] + self.core.inventories

    @property
    def host_heartbeats(self) -> int:
        return self._before_reboot[2] + self.core.host_heartbeats

    @property
    def last_cycle_us(self) -> int:
        """Simulated duration of the last scan cycle, microseconds (the firmware's own
        measurement, on the simulated bus clock)."""
        return self.core.cycle_us

    @property
    def decoder_stats(self) -> dict[str, int]:
        rx = self.core.frame_stats
        return {"frames_ok": rx.frames_ok, "bad_cobs": rx.bad_cobs, "bad_crc": rx.bad_crc,
                "too_short": rx.too_short, "oversized": rx.oversized,
                "bad_payload": self.core.bad_payload, "unknown_type": self.core.unknown_type,
                "wrong_direction": self.core.wrong_direction,
                "frames_lost": self.core.host_frames_lost}

    def chip(self, antenna: int) -> SimPn5180:
        """The simulated PN5180 of ``antenna`` (for its faults)."""
        return self.bus.chips[antenna]

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("controller already started")
        with self._lock:
            self.core.power_up()
        self._thread = threading.Thread(target=self._serve, name="virtual-rfid", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        self._port.close()

    def __enter__(self) -> VirtualRfidController:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds (checked after every host message and scan cycle)."""
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    # ------------------------------------------------------------------ model
    def place(self, uid: bytes, antenna: int, *, level: int = DEFAULT_LEVEL) -> None:
        """The tag now lies on ``antenna`` (and on no other), coupled at ``level`` (0-15)."""
        if not 0 <= antenna < self.antenna_count:
            raise ValueError(f"antenna {antenna} outside 0..{self.antenna_count - 1}")
        check_uid(uid)
        with self._lock:
            for tags in self._present.values():
                tags.discard(uid)
            self._overheard.pop(uid, None)
            self._present.setdefault(antenna, set()).add(uid)
            self._level[uid] = level

    def overhear(self, uid: bytes, antenna: int, level: int) -> None:
        """``antenna`` also hears the tag (lying elsewhere), weakly: coupling ``level``.
        Cleared when the tag is placed again or removed."""
        if not 0 <= antenna < self.antenna_count:
            raise ValueError(f"antenna {antenna} outside 0..{self.antenna_count - 1}")
        check_uid(uid)
        with self._lock:
            self._overheard.setdefault(uid, {})[antenna] = level

    def remove(self, uid: bytes) -> None:
        """The tag left every antenna (picked up, or gathered into the shuffler)."""
        with self._lock:
            for tags in self._present.values():
                tags.discard(uid)
            self._overheard.pop(uid, None)

    def clear(self) -> None:
        with self._lock:
            self._present.clear()
            self._overheard.clear()

    def present(self) -> dict[int, set[bytes]]:
        with self._lock:
            return {a: set(t) for a, t in self._present.items() if t}

    # ------------------------------------------------------------------ scanning
    def scan_once(self) -> list[TagSeen | TagGone]:
        """One scan cycle of the firmware over every antenna; the edges it sent are returned
        (also when the port is unplugged or silent and they are lost)."""
        with self._changed:
            self._load_fields()
            raw = self.core.scan_cycle()
            self.cycles += 1
            self._changed.notify_all()
        return [TagSeen(antenna, uid, t & 0xFFFFFFFF, rssi) if kind == messages.TAG_SEEN
                else TagGone(antenna, uid, t & 0xFFFFFFFF)
                for kind, antenna, uid, t, rssi in raw]

    def scan(self, cycles: int) -> list[TagSeen | TagGone]:
        return [edge for _ in range(cycles) for edge in self.scan_once()]

    def _load_fields(self) -> None:
        """What each chip's field holds this cycle: the tags on its antenna and those it
        overhears, minus the tags that miss this cycle (flicker, drop-outs)."""
        fields: list[dict[bytes, int]] = [{} for _ in range(self.antenna_count)]
        missed: set[bytes] = set()
        for antenna in range(self.antenna_count):
            for uid in sorted(self._present.get(antenna, ())):
                if self._missed(uid):
                    missed.add(uid)
                else:
                    fields[antenna][uid] = self._level.get(uid, DEFAULT_LEVEL)
        for uid, heard in self._overheard.items():
            if uid not in missed:
                for antenna, level in heard.items():
                    fields[antenna][uid] = level
        for chip, tags in zip(self.bus.chips, fields, strict=True):
            chip.field = tags

    def _missed(self, uid: bytes) -> bool:
        """Whether ``uid`` misses its read this cycle. A burst (flicker or :meth:`drop_out`) is
        always followed by one good read, so flicker never outlasts ``max_burst_cycles``."""
        left = self._burst.get(uid)
        if left is not None:
            if left > 0:
                self._burst[uid] = left - 1
                return True
            del self._burst[uid]
            return False
        if self._rng.random() < self.flicker.burst_probability:
            self._burst[uid] = self._rng.randint(1, self.flicker.max_burst_cycles) - 1
            return True
        return False

    # ------------------------------------------------------------------ faults
    def inject_garbage(self, data: bytes | None = None, *, size: int = 64) -> bytes:
        """Write ``data`` (default: ``size`` seeded random bytes) onto the line; returns it."""
        junk = data if data is not None else self._garbage_rng.randbytes(size)
        with self._lock, contextlib.suppress(PortUnplugged, TimeoutError):
            self._port.write(junk)
        return junk

    def unplug(self) -> None:
        """The USB cable is pulled: the pty disappears, the Pi side gets I/O errors. Scanning
        goes on (the model can change), frames are lost."""
        with self._lock:
            self._port.unplug()

    def plug(self) -> None:
        """The cable is back: a fresh pty at the same :attr:`path`."""
        with self._lock:
            self._port.plug()

    def set_silent(self, silent: bool) -> None:
        """Stop (or resume) delivering anything; frames meanwhile are lost on the line (their
        sequence numbers are used up, so the Pi sees a gap)."""
        with self._lock:
            self._silent = silent

    def drop_out(self, uid: bytes, cycles: int) -> None:
        """``uid`` misses its reads for the next ``cycles`` scan cycles."""
        if cycles < 1:
            raise ValueError(f"drop_out of {cycles} cycles: at least 1")
        with self._lock:
            self._burst[uid] = cycles

    def set_slow_link(self, bytes_per_second: float | None) -> None:
        """Send at this rate, in 8-byte chunks (None: full speed)."""
        with self._lock:
            self._slow_bps = bytes_per_second

    def reboot(self) -> None:
        """The controller restarts without the cable moving: a fresh firmware core that knows
        nothing of the tags, says DEVICE_HELLO unasked (sequence 0), and reports every tag as
        new at its next scan."""
        with self._changed:
            self._burst.clear()
            self._before_reboot = (self.hellos, self.inventories, self.host_heartbeats)
            self.core = self._new_core()
            self.outputs = SetOutputs()
            self.outputs_history.append(self.outputs)
            self.core.power_up()
            self._changed.notify_all()

    def report_error(self, code: DeviceErrorCode, *, antenna: int = 0xFF, detail: str = "") -> None:
        with self._lock:
            self.core.send_error(int(code), antenna, detail)

    def send_raw(self, messages_: Iterable[DeviceMessage]) -> None:
        """Send these messages as they are, numbered by the firmware (protocol tests)."""
        with self._lock:
            for msg in messages_:
                kind, payload = encode_payload(msg)
                self.core.send_raw(int(kind), payload)

    # ------------------------------------------------------------------ I/O
    def _write(self, data: bytes, kind: int) -> bool:
        """The firmware's writes. Silence loses frames on the line (the firmware cannot
        know); an unplugged port fails the write (the firmware knows, as with USB)."""
        if kind and self._silent:
            self.frames_dropped += 1
            return True
        try:
            if self._slow_bps is None:
                self._port.write(data)
            else:
                for i in range(0, len(data), 8):
                    self._port.write(data[i : i + 8])
                    time.sleep(8 / self._slow_bps)
        except (PortUnplugged, TimeoutError):
            if kind:
                self.frames_dropped += 1
            return False
        if kind:
            self.frames_sent += 1
            if kind in (messages.TAG_SEEN, messages.TAG_GONE):
                self.edges_sent += 1
        return True

    def _outputs_changed(self, lamp: int, buzzer: int, duration: int) -> None:
        self.outputs = SetOutputs(LampPattern(lamp), BuzzerPattern(buzzer), duration)
        self.outputs_history.append(self.outputs)
        self._changed.notify_all()

    def _serve(self) -> None:
        next_scan = self._clock()
        while not self._stop.is_set():
            if not self._port.plugged:
                self._stop.wait(0.01)
                continue
            data = self._port.read(0.01)
            with self._changed:
                if data:
                    self.core.receive(data)
                self.core.service()
                if data:
                    self._changed.notify_all()
            if self.auto_scan and self._clock() >= next_scan:
                self.scan_once()
                next_scan = self._clock() + self.scan_period
