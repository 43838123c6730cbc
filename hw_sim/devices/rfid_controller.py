"""VirtualRfidController: the table's RFID microcontroller, simulated on a pseudo-terminal.

It speaks protocol version 1 (docs/protocol.md) through a :class:`~hw_sim.devices.pty_port.PtyPort`,
so the Pi side runs its real code: pyserial opens :attr:`VirtualRfidController.path`.

Model: antenna -> set of UIDs lying on it, changed with :meth:`place` and :meth:`remove`. A scan
cycle (:meth:`scan_once`, or every ``scan_period`` seconds with ``auto_scan=True``) reads each
antenna in order, applies the flicker model, and reports raw edges: TAG_SEEN when a tag is read
after a cycle without it, TAG_GONE when a tag read in the previous cycle is missed.

Flicker (seeded): in each cycle a present tag starts a dropout burst with probability
``burst_probability``; the burst lasts 1 to ``max_burst_cycles`` cycles, uniformly. With the
defaults (0.01, 3 cycles of 0.1 s) no flicker outlasts 0.3 s, which is why the reader's default
hold time is 0.6 s (docs/protocol.md §6).

Faults for tests and scenarios: :meth:`inject_garbage`, :meth:`unplug` / :meth:`plug`,
:meth:`set_silent` (stop answering; the Pi sees a heartbeat timeout), :meth:`drop_out` (one tag
misses N cycles), :meth:`set_slow_link` (frames trickle out in small chunks), :meth:`report_error`.

What it does not emulate: baud-rate timing (a pty is as fast as memory unless slowed), antenna
crosstalk (a tag is on one antenna at a time), RSSI physics (a seeded value in -70..-40 dBm).
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from firmware_bridge.protocol import (
    HOST_TYPES,
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    DeviceError,
    DeviceErrorCode,
    DeviceHeartbeat,
    DeviceHello,
    DeviceMessage,
    FramesLost,
    HostHeartbeat,
    HostHello,
    InventoryBegin,
    InventoryEnd,
    InventoryEntry,
    InventoryRequest,
    MessageDecoder,
    MessageEncoder,
    ReaderType,
    SetOutputs,
    TagGone,
    TagSeen,
)
from hw_sim.devices.pty_port import PortUnplugged, PtyPort

IDLE_GAP = 0.002
"""After this long without writing, a frame is preceded by a 0x00 (docs/protocol.md §2)."""


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
        self._t0 = clock()
        self._rng = random.Random(seed)
        self._garbage_rng = random.Random(seed ^ 0x5A5A)
        self._port = PtyPort(name="rfid-controller")
        self._encoder = MessageEncoder()
        self._decoder = MessageDecoder(accept=HOST_TYPES)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._present: dict[int, set[bytes]] = {}
        self._reported: dict[int, set[bytes]] = {}
        self._burst: dict[bytes, int] = {}
        self._silent = False
        self._slow_bps: float | None = None
        self._last_write = 0.0
        self._last_error_report = -1e9
        self._host_period: float | None = None   # the host's heartbeat period, from its HELLO
        self._last_host_rx = 0.0
        self._outputs_until: float | None = None
        self._bad_reported = 0
        self._unknown_reported = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # observable by tests
        self.cycles = 0
        self.hellos = 0
        self.inventories = 0
        self.host_heartbeats = 0
        self.frames_sent = 0
        self.edges_sent = 0
        """TAG_SEEN / TAG_GONE frames written to the port (those lost to an unplug or silence
        not counted); compare its growth with the reader's ``stats.tag_events``."""
        self.frames_dropped = 0
        self.outputs = SetOutputs()
        self.outputs_history: list[SetOutputs] = []
        """Every change of lamp and buzzer, commanded or timed out, in order."""
        self.host_losses: list[FramesLost] = []

    # ------------------------------------------------------------------ lifecycle
    @property
    def path(self) -> str:
        """The serial device path for the Pi side (stable across unplug/plug)."""
        return self._port.path

    @property
    def decoder_stats(self) -> dict[str, int]:
        return self._decoder.stats.as_dict()

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("controller already started")
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
    def place(self, uid: bytes, antenna: int) -> None:
        """The tag now lies on ``antenna`` (and on no other)."""
        if not 0 <= antenna < self.antenna_count:
            raise ValueError(f"antenna {antenna} outside 0..{self.antenna_count - 1}")
        with self._lock:
            for tags in self._present.values():
                tags.discard(uid)
            self._present.setdefault(antenna, set()).add(uid)

    def remove(self, uid: bytes) -> None:
        """The tag left every antenna (picked up, or gathered into the shuffler)."""
        with self._lock:
            for tags in self._present.values():
                tags.discard(uid)

    def clear(self) -> None:
        with self._lock:
            self._present.clear()

    def present(self) -> dict[int, set[bytes]]:
        with self._lock:
            return {a: set(t) for a, t in self._present.items() if t}

    # ------------------------------------------------------------------ scanning
    def scan_once(self) -> list[TagSeen | TagGone]:
        """One scan cycle over every antenna; the edges found are sent at once and returned
        (also when the port is unplugged or silent and they are lost)."""
        edges: list[TagSeen | TagGone] = []
        with self._changed:
            now_ms = self._ms()
            for antenna in range(self.antenna_count):
                tags = sorted(self._present.get(antenna, ()))
                read = {uid for uid in tags if not self._missed(uid)}
                last = self._reported.get(antenna, set())
                for uid in sorted(last - read):
                    edges.append(TagGone(antenna, uid, now_ms))
                    self.edges_sent += self._send(edges[-1])
                for uid in sorted(read - last):
                    edges.append(TagSeen(antenna, uid, now_ms, rssi=self._rng.randint(-70, -40)))
                    self.edges_sent += self._send(edges[-1])
                self._reported[antenna] = read
            self.cycles += 1
            self._changed.notify_all()
        return edges

    def scan(self, cycles: int) -> list[TagSeen | TagGone]:
        return [edge for _ in range(cycles) for edge in self.scan_once()]

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
        """Stop (or resume) sending anything; frames meanwhile are lost (their sequence
        numbers are used up, so the Pi sees a gap)."""
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
        """The controller restarts without the cable moving: it forgets what it reported, says
        DEVICE_HELLO unasked (sequence 0), and its next scan reports every tag as new."""
        with self._changed:
            self._reported.clear()
            self._burst.clear()
            self.outputs = SetOutputs()
            self.outputs_history.append(self.outputs)
            self._send(self._hello())
            self._changed.notify_all()

    def report_error(self, code: DeviceErrorCode, *, antenna: int = 0xFF, detail: str = "") -> None:
        with self._lock:
            self._send(DeviceError(int(code), antenna, detail))

    def send_raw(self, messages: Iterable[DeviceMessage]) -> None:
        """Send these messages as they are (protocol tests)."""
        with self._lock:
            for msg in messages:
                self._send(msg)

    # ------------------------------------------------------------------ I/O
    def _ms(self) -> int:
        return int((self._clock() - self._t0) * 1000) & 0xFFFFFFFF

    def _send(self, msg: DeviceMessage) -> bool:
        data = self._encoder.encode(msg)
        if self._silent:
            self.frames_dropped += 1
            return False
        now = self._clock()
        if now - self._last_write >= IDLE_GAP:
            data = b"\x00" + data
        try:
            if self._slow_bps is None:
                self._port.write(data)
            else:
                for i in range(0, len(data), 8):
                    self._port.write(data[i : i + 8])
                    time.sleep(8 / self._slow_bps)
        except (PortUnplugged, TimeoutError):
            self.frames_dropped += 1
            return False
        self._last_write = self._clock()
        self.frames_sent += 1
        return True

    def _serve(self) -> None:
        next_heartbeat = self._clock()
        next_scan = self._clock()
        while not self._stop.is_set():
            if not self._port.plugged:
                self._stop.wait(0.01)
                continue
            data = self._port.read(0.01)
            now = self._clock()
            if data:
                with self._changed:
                    for item in self._decoder.feed(data):
                        self._handle(item)
                    self._report_bad_frames(now)
                    self._changed.notify_all()
            self._expire_outputs(now)
            if now >= next_heartbeat:
                with self._lock:
                    present = sum(len(t) for t in self._reported.values())
                    self._send(DeviceHeartbeat(self._ms(), min(present, 0xFFFF)))
                next_heartbeat = now + self.heartbeat_interval
            if self.auto_scan and now >= next_scan:
                self.scan_once()
                next_scan = now + self.scan_period

    def _expire_outputs(self, now: float) -> None:
        """Lamp and buzzer go OFF when their duration ends, and when the host has been silent
        for three of its heartbeat periods (docs/protocol.md §5.2)."""
        with self._changed:
            if self.outputs == SetOutputs():
                return
            ended = self._outputs_until is not None and now >= self._outputs_until
            period = self._host_period
            host_gone = period is not None and now - self._last_host_rx > 3 * period
            if ended or host_gone:
                self.outputs = SetOutputs()
                self.outputs_history.append(self.outputs)
                self._outputs_until = None
                self._changed.notify_all()

    def _hello(self) -> DeviceHello:
        return DeviceHello(self.protocol_major, PROTOCOL_MINOR, self.firmware, self.antenna_count,
                           int(ReaderType.SIMULATED), int(self.scan_period * 1000),
                           "hw_sim virtual")

    def _report_bad_frames(self, now: float) -> None:
        """DEVICE_ERROR BAD_FRAME / UNKNOWN_MESSAGE for what the host sent that could not be
        used, at most once a second (docs/protocol.md §7)."""
        st = self._decoder.stats
        bad = st.frames.frames_bad + st.bad_payload
        if now - self._last_error_report < 1.0:
            return
        if bad > self._bad_reported:
            self._send(DeviceError(int(DeviceErrorCode.BAD_FRAME), 0xFF,
                                   f"{bad - self._bad_reported} bad frame(s) from the host"))
        elif st.unknown_type > self._unknown_reported:
            count = st.unknown_type - self._unknown_reported
            self._send(DeviceError(int(DeviceErrorCode.UNKNOWN_MESSAGE), 0xFF,
                                   f"{count} unknown message(s)"))
        else:
            return
        self._bad_reported, self._unknown_reported = bad, st.unknown_type
        self._last_error_report = now

    def _handle(self, item: object) -> None:
        if not isinstance(item, FramesLost):
            self._last_host_rx = self._clock()
        match item:
            case HostHello():
                self.hellos += 1
                self._host_period = item.heartbeat_ms / 1000 if item.heartbeat_ms else None
                self._send(self._hello())
            case HostHeartbeat():
                self.host_heartbeats += 1
            case InventoryRequest():
                self.inventories += 1
                entries = sorted((a, uid) for a, tags in self._reported.items() for uid in tags)
                self._send(InventoryBegin(item.request_id, self._ms()))
                for antenna, uid in entries:
                    self._send(InventoryEntry(item.request_id, antenna, uid, -50))
                self._send(InventoryEnd(item.request_id, len(entries)))
            case SetOutputs():
                self.outputs = item
                self.outputs_history.append(item)
                self._outputs_until = (self._last_host_rx + item.duration_ms / 1000
                                       if item.duration_ms else None)
            case FramesLost():
                self.host_losses.append(item)
