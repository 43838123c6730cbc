"""The controller's core: the session with the Pi and the scan schedule over the antennas.

Hardware-independent: it is handed the antennas' readers (:class:`firmware.antenna.Antenna`),
the port to the Pi and its clocks, and runs unchanged on the Pico (:mod:`firmware.board`) and
in the simulator (``hw_sim.devices.rfid_controller``). It implements docs/protocol.md:

- **Session** (§5): every HOST_HELLO is answered with DEVICE_HELLO (sequence 0, firmware
  version, antenna count, scan period); heartbeats every ``heartbeat_ms``; INVENTORY_REQUEST
  answered at once and contiguously from what the edges have told; SET_OUTPUTS with its
  duration, lamp and buzzer OFF after three silent host heartbeat periods; frames from the host
  that cannot be used are counted and reported (BAD_FRAME, UNKNOWN_MESSAGE) at most once a
  second; a frame that could not be sent makes the next one a DEVICE_ERROR TX_OVERFLOW.
- **Scan schedule** (§5.3): the antennas are scanned one after the other, one field at a time;
  at the end of the cycle each antenna's reads are compared with the previous cycle's and the
  edges sent: TAG_SEEN for a tag read now and not before, TAG_GONE for one read before and not
  now (raw, no debouncing). A tag read by two antennas is *contested*: its signal figure is
  measured on each (:meth:`Antenna.measure`), again every :data:`REMEASURE_CYCLES` cycles while
  it lasts, and a carried-over read on a rolling antenna is dropped at once. A tag that left
  an antenna and is read on none is *expected* on every rolling antenna (:meth:`Antenna.
  expect`): a card gathered into the shuffler tray is read there in the next cycle, not when
  the tray's rolling inventory comes to its sixteenth (up to 16 cycles, past the Pi's hold).
- **Reporting**: with a protocol 1.1 host every antenna that reads a tag reports it, with its
  figure, and a figure that changes by :data:`RSSI_STEP` or more is reported again with a
  repeated TAG_SEEN; a 1.0 host is told only the strongest antenna per tag.
- **Faults**: a reader that raises :class:`~firmware.pn5180.ChipError` is reset and asked again
  once; if that fails the antenna is reported (DEVICE_ERROR ANTENNA_FAULT, again after every
  HELLO while it lasts), its tags are kept as last reported (a dead reader is no news about the
  felt), and it is retried every :data:`FAULT_RETRY_MS`. The other antennas keep scanning.
"""

from firmware import messages as m
from firmware.framing import MAX_CONTENT, FrameReceiver, encode_frame
from firmware.outputs import buzzer_level, lamp_level
from firmware.pn5180 import ChipError
from firmware.version import FIRMWARE, MODEL, PROTOCOL_MAJOR, PROTOCOL_MINOR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from firmware.hal import Clock, Port, Reader, Timer

    Edge = tuple[int, int, bytes, int, int]
    """(TAG_SEEN or TAG_GONE, antenna, uid, time_ms, figure)"""

HEARTBEAT_MS = 500
IDLE_GAP_US = 2000
"""After this long without sending, a frame is preceded by a 0x00 (§2)."""
ERROR_REPORT_MS = 1000
FAULT_RETRY_MS = 1000
RSSI_STEP = 6
REMEASURE_CYCLES = 4
"""A tag two antennas keep hearing is measured again every this many cycles (it may slide)."""
HOST_SILENT_PERIODS = 3
SEQ_MOD = 65536

class AntennaController:
    """``readers[i]`` is antenna ``i``. ``port.write(frame, kind)`` sends to the Pi. ``clock``
    gives the session's milliseconds, ``timer`` the microseconds the scan cycle is timed with
    (both the ``time`` module on the Pico)."""

    def __init__(self, readers: "list[Reader]", port: "Port", clock: "Clock", timer: "Timer",
                 *, scan_period_ms: int = 100, heartbeat_ms: int = HEARTBEAT_MS,
                 firmware: tuple[int, int, int] = FIRMWARE,
                 protocol_major: int = PROTOCOL_MAJOR, model: str = MODEL,
                 reader_type: int = m.READER_ISO15693) -> None:
        n = len(readers)
        self.readers = readers
        self.port = port
        self.clock = clock
        self.timer = timer
        self.scan_period_ms = scan_period_ms
        self.heartbeat_ms = heartbeat_ms
        self.firmware = firmware
        self.protocol_major = protocol_major
        self.model = model
        self.reader_type = reader_type
        self.on_outputs: Callable[[int, int, int], None] | None = None
        """Called with (lamp, buzzer, duration_ms) whenever the outputs change."""
        self.on_host_loss: Callable[[int, str], None] | None = None
        """Called with (frames, reason) when frames from the host were lost or unreadable."""
        # what each antenna reads, and what the host has been told
        self._on: list[set[bytes]] = [set() for _ in range(n)]
        self._tags: dict[bytes, dict[int, int]] = {}
        self._told: dict[bytes, dict[int, int]] = {}
        self._faulty = [False] * n
        self._retry_at = [0] * n
        self._fault_detail = [""] * n
        self._next = 0
        self._cycle_reads: list[set[bytes] | None] = [None] * n
        self._cycle_t0 = 0
        self._dual = False   # 1.0 reporting until a HOST_HELLO says 1.1
        # session
        self._rx = FrameReceiver()
        self._seq = 0
        self._expected: int | None = None
        self._t_last = clock.ticks_ms()
        self.uptime_ms = 0
        self._last_write_us = 0
        self._written = False
        self._tx_lost = False
        self._next_heartbeat = 0
        self._host_period_ms = 0
        self._last_host_rx = 0
        self._last_error_report = -ERROR_REPORT_MS
        self._bad_reported = 0
        self._unknown_reported = 0
        self.outputs = (0, 0, 0)
        self._outputs_at = 0
        self._outputs_until: int | None = None
        # counters
        self.cycles = 0
        self.cycle_us = 0
        self.hellos = 0
        self.inventories = 0
        self.host_heartbeats = 0
        self.frames_sent = 0
        self.frames_failed = 0
        self.edges_sent = 0
        self.bad_payload = 0
        self.unknown_type = 0
        self.wrong_direction = 0
        self.host_frames_lost = 0
        self.reader_retries = 0
        self.reader_faults = 0
        self.measurements = 0
        self.measure_errors = 0

    # ------------------------------------------------------------------ time
    def now_ms(self) -> int:
        """Milliseconds since power-up (the protocol's ``time_ms``, before wrapping)."""
        t = self.clock.ticks_ms()
        self.uptime_ms += self.clock.ticks_diff(t, self._t_last)
        self._t_last = t
        return self.uptime_ms

    # ------------------------------------------------------------------ sending
    def _send(self, kind: int, payload: bytes) -> bool:
        if self._tx_lost and kind != m.DEVICE_HELLO:
            self._tx_lost = False
            self._send(m.DEVICE_ERROR, m.error_payload(
                m.TX_OVERFLOW, m.NO_ANTENNA, "frames could not be sent"))
        if kind == m.DEVICE_HELLO:
            self._seq = 0
        content = bytes((kind, self._seq >> 8, self._seq & 0xFF)) + payload
        if len(content) > MAX_CONTENT:
            content = content[:MAX_CONTENT]
        self._seq = (self._seq + 1) % SEQ_MOD
        frame = encode_frame(content)
        now = self.timer.ticks_us()
        if not self._written or self.timer.ticks_diff(now, self._last_write_us) >= IDLE_GAP_US:
            frame = b"\x00" + frame
        if self.port.write(frame, kind):
            self._written = True
            self._last_write_us = self.timer.ticks_us()
            self.frames_sent += 1
            if kind == m.TAG_SEEN or kind == m.TAG_GONE:
                self.edges_sent += 1
            return True
        self.frames_failed += 1
        if kind != m.DEVICE_HEARTBEAT:
            self._tx_lost = True
        return False

    def send_error(self, code: int, antenna: int = m.NO_ANTENNA, detail: str = "") -> bool:
        return self._send(m.DEVICE_ERROR, m.error_payload(code, antenna, detail))

    def send_raw(self, kind: int, payload: bytes) -> bool:
        """Send a message as it is, numbered and framed (protocol tests)."""
        return self._send(kind, payload)

    def _hello(self) -> None:
        self._send(m.DEVICE_HELLO, m.hello_payload(
            (self.protocol_major, PROTOCOL_MINOR), self.firmware, len(self.readers),
            self.reader_type, self.scan_period_ms, self.model))

    def power_up(self) -> None:
        """What the device says when it starts: a 0x00 that closes any noise on the line,
        and an unasked DEVICE_HELLO, so a host on a live link knows it restarted (§5.1)."""
        self.port.write(b"\x00", 0)
        self._hello()
        self._next_heartbeat = self.now_ms()

    # ------------------------------------------------------------------ receiving
    def receive(self, data: bytes) -> None:
        """Bytes from the host. Never raises on bad input: it is counted and reported."""
        for content in self._rx.feed(data):
            self._frame(content)
        self._report_bad_frames()

    def _lost(self, count: int, reason: str) -> None:
        self.host_frames_lost += count
        if self.on_host_loss is not None:
            self.on_host_loss(count, reason)

    def _frame(self, content: bytes) -> None:
        if len(content) < 3:
            self.bad_payload += 1
            self._lost(1, f"frame of {len(content)} bytes has no header")
            return
        kind = content[0]
        seq = (content[1] << 8) | content[2]
        if kind == m.HOST_HELLO:
            self._expected = None
        expected = self._expected
        self._expected = (seq + 1) % SEQ_MOD
        if expected is not None and seq != expected:
            gap = (seq - expected) % SEQ_MOD
            if gap < SEQ_MOD // 2:
                self._lost(gap, f"sequence gap: expected {expected}, got {seq}")
            else:
                self._lost(0, f"sequence went back: expected {expected}, got {seq}")
        if not m.is_host_type(kind):
            if kind >= 0x80:
                self.wrong_direction += 1
            else:
                self.unknown_type += 1
            return
        try:
            fields = m.decode_host(kind, content[3:])
        except m.MessageError as exc:
            self.bad_payload += 1
            self._lost(1, str(exc))
            return
        now = self.now_ms()
        self._last_host_rx = now
        if kind == m.HOST_HELLO:
            self._host_hello(fields[1], fields[2])
        elif kind == m.HOST_HEARTBEAT:
            self.host_heartbeats += 1
        elif kind == m.INVENTORY_REQUEST:
            self._inventory(fields[0])
        else:
            self._set_outputs(fields[0], fields[1], fields[2], now)

    def _host_hello(self, minor: int, heartbeat_ms: int) -> None:
        self.hellos += 1
        self._host_period_ms = heartbeat_ms
        self._tx_lost = False
        dual = minor >= 1
        if dual != self._dual:
            desired = {uid: self._desired(uid, dual) for uid in self._tags}
            self._told = {uid: want for uid, want in desired.items() if want}
            self._dual = dual
        self._hello()
        for antenna in range(len(self.readers)):
            if self._faulty[antenna]:
                self.send_error(m.ANTENNA_FAULT, antenna, self._fault_detail[antenna])

    def _inventory(self, request_id: int) -> None:
        self.inventories += 1
        entries = sorted((antenna, uid, fig) for uid, told in self._told.items()
                         for antenna, fig in told.items())
        self._send(m.INVENTORY_BEGIN, m.inventory_begin_payload(request_id, self.now_ms()))
        for antenna, uid, fig in entries:
            self._send(m.INVENTORY_ENTRY, m.inventory_entry_payload(request_id, antenna, fig, uid))
        self._send(m.INVENTORY_END, m.inventory_end_payload(request_id, len(entries)))

    def _set_outputs(self, lamp: int, buzzer: int, duration: int, now: int) -> None:
        self.outputs = (lamp, buzzer, duration)
        self._outputs_at = now
        self._outputs_until = now + duration if duration else None
        if self.on_outputs is not None:
            self.on_outputs(lamp, buzzer, duration)

    def _report_bad_frames(self) -> None:
        now = self.now_ms()
        if now - self._last_error_report < ERROR_REPORT_MS:
            return
        bad = self._rx.frames_bad + self.bad_payload
        if bad > self._bad_reported:
            self.send_error(m.BAD_FRAME, m.NO_ANTENNA,
                            f"{bad - self._bad_reported} bad frame(s) from the host")
        elif self.unknown_type > self._unknown_reported:
            self.send_error(m.UNKNOWN_MESSAGE, m.NO_ANTENNA,
                            f"{self.unknown_type - self._unknown_reported} unknown message(s)")
        else:
            return
        self._bad_reported = bad
        self._unknown_reported = self.unknown_type
        self._last_error_report = now

    @property
    def frame_stats(self) -> FrameReceiver:
        return self._rx

    # ------------------------------------------------------------------ time-driven
    def service(self) -> None:
        """Heartbeats and the outputs' timers; call it often (every few milliseconds)."""
        now = self.now_ms()
        if now - self._next_heartbeat >= 0:
            self._send(m.DEVICE_HEARTBEAT, m.heartbeat_payload(
                now, self.tags_present, self.cycle_us // 1000))
            self._next_heartbeat = now + self.heartbeat_ms
        if self.outputs == (0, 0, 0):
            return
        until = self._outputs_until
        ended = until is not None and now - until >= 0
        period = self._host_period_ms
        host_gone = period > 0 and now - self._last_host_rx > HOST_SILENT_PERIODS * period
        if ended or host_gone:
            self._set_outputs(0, 0, 0, now)

    @property
    def tags_present(self) -> int:
        return sum(len(told) for told in self._told.values())

    def lamp_level(self) -> int:
        return lamp_level(self.outputs[0], self.now_ms() - self._outputs_at)

    def buzzer_level(self) -> int:
        return buzzer_level(self.outputs[1], self.now_ms() - self._outputs_at)

    def cycle_due(self) -> bool:
        """Whether the next cycle may start: cycles start at most every ``scan_period_ms``."""
        return self._next != 0 or (self.timer.ticks_diff(self.timer.ticks_us(), self._cycle_t0)
                                   >= self.scan_period_ms * 1000)

    # ------------------------------------------------------------------ scanning
    def reported(self) -> dict[int, dict[bytes, int]]:
        """Antenna -> {uid: figure} as the host has been told."""
        out: dict[int, dict[bytes, int]] = {}
        for uid, told in self._told.items():
            for antenna, fig in told.items():
                out.setdefault(antenna, {})[uid] = fig
        return out

    def faulty(self, antenna: int) -> bool:
        return self._faulty[antenna]

    def scan_cycle(self) -> "list[Edge]":
        """Scan every antenna once (finishing a cycle in progress first); the edges sent."""
        edges: list[Edge] = []
        while True:
            edges += self.scan_next()
            if self._next == 0:
                return edges

    def scan_next(self) -> "list[Edge]":
        """Scan the next antenna of the cycle. At the end of the cycle the reads are compared
        with the previous cycle's and the edges sent (returned, else [])."""
        antenna = self._next
        if antenna == 0:
            self._cycle_t0 = self.timer.ticks_us()
        self._cycle_reads[antenna] = self._read(antenna)
        self._next = (antenna + 1) % len(self.readers)
        if self._next:
            return []
        edges = self._commit()
        self.cycles += 1
        self.cycle_us = self.timer.ticks_diff(self.timer.ticks_us(), self._cycle_t0)
        return edges

    def _read(self, antenna: int) -> set[bytes] | None:
        """What the antenna reads now; None if its reader is faulty (nothing is known)."""
        reader = self.readers[antenna]
        if self._faulty[antenna]:
            now = self.now_ms()
            if now - self._retry_at[antenna] < 0:
                return None
            try:
                reader.recover()
                seen = reader.scan()
            except ChipError as exc:
                self._retry_at[antenna] = now + FAULT_RETRY_MS
                self._fault_detail[antenna] = str(exc)
                return None
            self._faulty[antenna] = False
            return set(seen)
        try:
            return set(reader.scan())
        except ChipError:
            self.reader_retries += 1
        try:
            reader.recover()
            return set(reader.scan())
        except ChipError as exc:
            self.reader_faults += 1
            self._faulty[antenna] = True
            self._retry_at[antenna] = self.now_ms() + FAULT_RETRY_MS
            self._fault_detail[antenna] = str(exc)
            self.send_error(m.ANTENNA_FAULT, antenna, str(exc))
            return None

    def _commit(self) -> "list[Edge]":
        """The cycle's reads against the last cycle's: arrivals, departures, tags that moved
        off a rolling antenna, contested tags measured; then the edges."""
        tags = self._tags
        changed: set[bytes] = set()
        arrivals: list[tuple[int, bytes]] = []
        departures: list[tuple[int, bytes]] = []
        for a, seen in enumerate(self._cycle_reads):
            if seen is None:
                continue
            old = self._on[a]
            for uid in old - seen:
                self._drop(a, uid)
                changed.add(uid)
                departures.append((a, uid))
            for uid in seen - old:
                tags.setdefault(uid, {})[a] = m.RSSI_UNKNOWN
                arrivals.append((a, uid))
                changed.add(uid)
            self._on[a] = seen
        self._cycle_reads = [None] * len(self.readers)
        for a, uid in arrivals:          # read elsewhere: a carried-over read has moved
            for b in list(tags.get(uid, ())):
                if b != a and self.readers[b].rolling and not self.readers[b].fresh(uid):
                    self._drop(b, uid)
                    self.readers[b].forget(uid)
        for a, uid in departures:        # read nowhere now: it may lie on a rolling antenna
            if uid not in tags:
                for b, reader in enumerate(self.readers):
                    if b != a and reader.rolling:
                        reader.expect(uid)
        arrived = {uid for _, uid in arrivals}
        remeasure = self.cycles % REMEASURE_CYCLES == 0
        contested = [uid for uid, at in tags.items() if len(at) > 1 and (
            uid in arrived or remeasure or m.RSSI_UNKNOWN in at.values())]
        for uid in sorted(contested):
            self._contest(uid)
            changed.add(uid)
        return self._report(changed)

    def _drop(self, antenna: int, uid: bytes) -> None:
        self._on[antenna].discard(uid)
        at = self._tags.get(uid)
        if at is not None:
            at.pop(antenna, None)
            if not at:
                del self._tags[uid]

    def _contest(self, uid: bytes) -> None:
        """The tag is read by several antennas: measure its figure on each."""
        self.measurements += 1
        for b in sorted(self._tags.get(uid, {})):
            try:
                fig = self.readers[b].measure(uid)
            except ChipError:
                self.measure_errors += 1
                continue
            at = self._tags.get(uid)
            if at is None or b not in at:
                continue
            if fig is None:
                if len(at) > 1:       # it no longer answers there: it has left that antenna
                    self._drop(b, uid)
                    self.readers[b].forget(uid)
                continue
            at[b] = fig

    def _desired(self, uid: bytes, dual: bool) -> dict[int, int]:
        at = self._tags.get(uid)
        if not at:
            return {}
        if dual:
            return dict(at)
        told = self._told.get(uid, {})
        best = -1
        for antenna in sorted(at):
            if best < 0 or at[antenna] > at[best] or (at[antenna] == at[best]
                                                       and antenna in told):
                best = antenna
        return {best: at[best]}

    def _report(self, uids: set[bytes]) -> "list[Edge]":
        if not uids:
            return []
        now = self.now_ms()
        gones: list[Edge] = []
        updates: list[Edge] = []
        seens: list[Edge] = []
        for uid in sorted(uids):
            want = self._desired(uid, self._dual)
            told = self._told.get(uid, {})
            for antenna in sorted(told):
                if antenna not in want:
                    gones.append((m.TAG_GONE, antenna, uid, now, m.RSSI_UNKNOWN))
            for antenna in sorted(want):
                fig = want[antenna]
                if antenna not in told:
                    seens.append((m.TAG_SEEN, antenna, uid, now, fig))
                elif self._dual and _changed(told[antenna], fig):
                    updates.append((m.TAG_SEEN, antenna, uid, now, fig))
            if want:
                self._told[uid] = want
            elif uid in self._told:
                del self._told[uid]
        edges = sorted(gones, key=_order) + sorted(updates, key=_order) + sorted(seens, key=_order)
        for kind, antenna, uid, t, fig in edges:
            if kind == m.TAG_GONE:
                self._send(kind, m.gone_payload(antenna, t, uid))
            else:
                self._send(kind, m.seen_payload(antenna, t, fig, uid))
        return edges


def _order(edge: "Edge") -> tuple[int, bytes]:
    return edge[1], edge[2]


def _changed(before: int, after: int) -> bool:
    if (before == m.RSSI_UNKNOWN) != (after == m.RSSI_UNKNOWN):
        return True
    return after - before >= RSSI_STEP or before - after >= RSSI_STEP
