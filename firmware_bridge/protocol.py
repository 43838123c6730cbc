"""Messages of the RFID link protocol, version 1 (docs/protocol.md is the normative text).

Frame content: ``type u8 | seq u16 | payload``, big-endian. Types 0x01-0x7F go from the Pi (host)
to the controller (device), 0x80-0xFF from the device to the host. Each side numbers its frames
0, 1, 2 ... (mod 65536); a HELLO restarts the count, so the receiver notices lost frames as gaps.
Receivers ignore bytes after the last field they know, so a minor version may append fields.

:class:`MessageEncoder` numbers and frames outgoing messages; :class:`MessageDecoder` turns
received bytes into messages and never raises: damaged frames, unknown types and malformed
payloads are counted (:class:`DecoderStats`) and skipped, and anything that may have carried a
tag event shows up as a :class:`FramesLost` item so the reader can ask for a full inventory.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

from firmware_bridge.framing import MAX_CONTENT, FrameDecoder, FrameStats, encode_frame

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 1
MAX_UID = 16
"""Longest tag UID in bytes (ISO 14443 uses 4, 7 or 10; ISO 15693 8; UHF EPC 12)."""
MAX_TEXT = 64
RSSI_UNKNOWN = -128
NO_ANTENNA = 0xFF
SEQ_MOD = 1 << 16


class ProtocolError(ValueError):
    """A payload that does not match its message type; the text names the type and the field."""


class MessageType(IntEnum):
    HOST_HELLO = 0x01
    HOST_HEARTBEAT = 0x02
    INVENTORY_REQUEST = 0x03
    SET_OUTPUTS = 0x04
    DEVICE_HELLO = 0x81
    DEVICE_HEARTBEAT = 0x82
    TAG_SEEN = 0x83
    TAG_GONE = 0x84
    INVENTORY_BEGIN = 0x85
    INVENTORY_ENTRY = 0x86
    INVENTORY_END = 0x87
    DEVICE_ERROR = 0x88


class ReaderType(IntEnum):
    UNKNOWN = 0
    ISO14443A = 1
    ISO15693 = 2
    UHF_EPC = 3
    SIMULATED = 0x7F


class LampPattern(IntEnum):
    OFF = 0
    ON = 1
    BLINK_SLOW = 2
    BLINK_FAST = 3


class BuzzerPattern(IntEnum):
    OFF = 0
    BEEP = 1
    DOUBLE_BEEP = 2
    CONTINUOUS = 3


class DeviceErrorCode(IntEnum):
    ANTENNA_FAULT = 1
    RX_OVERFLOW = 2
    TX_OVERFLOW = 3
    BAD_FRAME = 4
    UNKNOWN_MESSAGE = 5
    INTERNAL = 6


# ---------------------------------------------------------------- host -> device


@dataclass(frozen=True, slots=True)
class HostHello:
    protocol_major: int = PROTOCOL_MAJOR
    protocol_minor: int = PROTOCOL_MINOR
    heartbeat_ms: int = 500


@dataclass(frozen=True, slots=True)
class HostHeartbeat:
    pass


@dataclass(frozen=True, slots=True)
class InventoryRequest:
    request_id: int


@dataclass(frozen=True, slots=True)
class SetOutputs:
    """``duration_ms`` 0: until the next SET_OUTPUTS; otherwise both return to OFF after it."""

    lamp: LampPattern = LampPattern.OFF
    buzzer: BuzzerPattern = BuzzerPattern.OFF
    duration_ms: int = 0


# ---------------------------------------------------------------- device -> host


@dataclass(frozen=True, slots=True)
class DeviceHello:
    protocol_major: int
    protocol_minor: int
    firmware: tuple[int, int, int]
    antenna_count: int
    reader_type: int
    scan_period_ms: int
    model: str = ""

    @property
    def firmware_text(self) -> str:
        return ".".join(str(v) for v in self.firmware)


@dataclass(frozen=True, slots=True)
class DeviceHeartbeat:
    """``cycle_ms``: the duration of the device's last scan cycle (protocol 1.1; None from a 1.0
    device)."""

    uptime_ms: int
    tags_present: int
    cycle_ms: int | None = None


@dataclass(frozen=True, slots=True)
class TagSeen:
    """The tag was read on ``antenna`` in a scan cycle after a cycle where it was not."""

    antenna: int
    uid: bytes
    time_ms: int
    rssi: int = RSSI_UNKNOWN


@dataclass(frozen=True, slots=True)
class TagGone:
    """The tag, read on ``antenna`` in the previous cycle, was not read in this one (raw: no
    debouncing on the device)."""

    antenna: int
    uid: bytes
    time_ms: int


@dataclass(frozen=True, slots=True)
class InventoryBegin:
    request_id: int
    time_ms: int


@dataclass(frozen=True, slots=True)
class InventoryEntry:
    request_id: int
    antenna: int
    uid: bytes
    rssi: int = RSSI_UNKNOWN


@dataclass(frozen=True, slots=True)
class InventoryEnd:
    request_id: int
    entry_count: int


@dataclass(frozen=True, slots=True)
class DeviceError:
    code: int
    antenna: int = NO_ANTENNA
    detail: str = ""


HostMessage = HostHello | HostHeartbeat | InventoryRequest | SetOutputs
DeviceMessage = (DeviceHello | DeviceHeartbeat | TagSeen | TagGone | InventoryBegin
                 | InventoryEntry | InventoryEnd | DeviceError)
Message = HostMessage | DeviceMessage
HOST_CLASSES = (HostHello, HostHeartbeat, InventoryRequest, SetOutputs)
DEVICE_CLASSES = (DeviceHello, DeviceHeartbeat, TagSeen, TagGone, InventoryBegin, InventoryEntry,
                  InventoryEnd, DeviceError)


@dataclass(frozen=True, slots=True)
class FramesLost:
    """Frames from the peer that did not arrive intact: a sequence gap of ``count`` frames, or
    one frame with a valid CRC whose payload could not be read. ``reason`` says which."""

    count: int
    reason: str


# ---------------------------------------------------------------- payload codec


def _check_u8(name: str, v: int) -> int:
    if not 0 <= v <= 0xFF:
        raise ProtocolError(f"{name} {v} out of range 0..255")
    return v


def _check_u16(name: str, v: int) -> int:
    if not 0 <= v <= 0xFFFF:
        raise ProtocolError(f"{name} {v} out of range 0..65535")
    return v


def _uid_field(uid: bytes) -> bytes:
    if not 1 <= len(uid) <= MAX_UID:
        raise ProtocolError(f"UID of {len(uid)} bytes: allowed 1..{MAX_UID}")
    return bytes((len(uid),)) + uid


def _text_field(name: str, text: str) -> bytes:
    raw = text.encode("ascii", "replace")[:MAX_TEXT]
    return bytes((len(raw),)) + raw


def _rssi(v: int) -> int:
    if not -128 <= v <= 127:
        raise ProtocolError(f"RSSI {v} out of range -128..127")
    return v


def encode_payload(msg: Message) -> tuple[MessageType, bytes]:
    """The type and payload bytes of ``msg``; raises :class:`ProtocolError` on a field out of
    range (the text names it)."""
    match msg:
        case HostHello():
            return MessageType.HOST_HELLO, struct.pack(
                ">BBH", _check_u8("protocol_major", msg.protocol_major),
                _check_u8("protocol_minor", msg.protocol_minor),
                _check_u16("heartbeat_ms", msg.heartbeat_ms))
        case HostHeartbeat():
            return MessageType.HOST_HEARTBEAT, b""
        case InventoryRequest():
            return MessageType.INVENTORY_REQUEST, struct.pack(
                ">H", _check_u16("request_id", msg.request_id))
        case SetOutputs():
            return MessageType.SET_OUTPUTS, struct.pack(
                ">BBH", int(msg.lamp), int(msg.buzzer), _check_u16("duration_ms", msg.duration_ms))
        case DeviceHello():
            if len(msg.firmware) != 3:
                raise ProtocolError(f"firmware version {msg.firmware!r}: expected 3 numbers")
            major, minor, patch = (_check_u8("firmware", v) for v in msg.firmware)
            return MessageType.DEVICE_HELLO, struct.pack(
                ">BBBBBBBH", _check_u8("protocol_major", msg.protocol_major),
                _check_u8("protocol_minor", msg.protocol_minor), major, minor, patch,
                _check_u8("antenna_count", msg.antenna_count),
                _check_u8("reader_type", msg.reader_type),
                _check_u16("scan_period_ms", msg.scan_period_ms),
            ) + _text_field("model", msg.model)
        case DeviceHeartbeat():
            payload = struct.pack(">IH", msg.uptime_ms & 0xFFFFFFFF,
                                  _check_u16("tags_present", msg.tags_present))
            if msg.cycle_ms is not None:
                payload += struct.pack(">H", _check_u16("cycle_ms", msg.cycle_ms))
            return MessageType.DEVICE_HEARTBEAT, payload
        case TagSeen():
            return MessageType.TAG_SEEN, struct.pack(
                ">BIb", _check_u8("antenna", msg.antenna), msg.time_ms & 0xFFFFFFFF,
                _rssi(msg.rssi)) + _uid_field(msg.uid)
        case TagGone():
            return MessageType.TAG_GONE, struct.pack(
                ">BI", _check_u8("antenna", msg.antenna), msg.time_ms & 0xFFFFFFFF,
            ) + _uid_field(msg.uid)
        case InventoryBegin():
            return MessageType.INVENTORY_BEGIN, struct.pack(
                ">HI", _check_u16("request_id", msg.request_id), msg.time_ms & 0xFFFFFFFF)
        case InventoryEntry():
            return MessageType.INVENTORY_ENTRY, struct.pack(
                ">HBb", _check_u16("request_id", msg.request_id),
                _check_u8("antenna", msg.antenna), _rssi(msg.rssi)) + _uid_field(msg.uid)
        case InventoryEnd():
            return MessageType.INVENTORY_END, struct.pack(
                ">HH", _check_u16("request_id", msg.request_id),
                _check_u16("entry_count", msg.entry_count))
        case DeviceError():
            return MessageType.DEVICE_ERROR, struct.pack(
                ">BB", _check_u8("code", msg.code), _check_u8("antenna", msg.antenna),
            ) + _text_field("detail", msg.detail)
    raise ProtocolError(f"not a protocol message: {msg!r}")


class _Payload:
    """A cursor over one payload; every read checks the length and names the field."""

    def __init__(self, kind: MessageType, data: bytes) -> None:
        self.kind = kind
        self.data = data
        self.pos = 0

    def take(self, fmt: str, name: str) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ProtocolError(
                f"{self.kind.name}: payload of {len(self.data)} bytes ends before {name}")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return tuple(int(v) for v in values)

    def blob(self, name: str, *, min_len: int, max_len: int) -> bytes:
        (n,) = self.take(">B", f"{name} length")
        if not min_len <= n <= max_len:
            raise ProtocolError(
                f"{self.kind.name}: {name} of {n} bytes, allowed {min_len}..{max_len}")
        if self.pos + n > len(self.data):
            raise ProtocolError(f"{self.kind.name}: {name} truncated")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def text(self, name: str) -> str:
        return self.blob(name, min_len=0, max_len=MAX_TEXT).decode("ascii", "replace")


def decode_payload(kind: MessageType, payload: bytes) -> Message:
    """The message of type ``kind``; raises :class:`ProtocolError` naming the field that is
    missing or out of range. Bytes after the known fields are ignored (minor versions)."""
    p = _Payload(kind, payload)
    match kind:
        case MessageType.HOST_HELLO:
            major, minor, hb = p.take(">BBH", "fields")
            return HostHello(major, minor, hb)
        case MessageType.HOST_HEARTBEAT:
            return HostHeartbeat()
        case MessageType.INVENTORY_REQUEST:
            (rid,) = p.take(">H", "request_id")
            return InventoryRequest(rid)
        case MessageType.SET_OUTPUTS:
            lamp, buzzer, duration = p.take(">BBH", "fields")
            try:
                return SetOutputs(LampPattern(lamp), BuzzerPattern(buzzer), duration)
            except ValueError as exc:
                raise ProtocolError(f"SET_OUTPUTS: {exc}") from None
        case MessageType.DEVICE_HELLO:
            pmaj, pmin, fa, fb, fc, ants, rtype, scan = p.take(">BBBBBBBH", "fields")
            return DeviceHello(pmaj, pmin, (fa, fb, fc), ants, rtype, scan, p.text("model"))
        case MessageType.DEVICE_HEARTBEAT:
            uptime, present = p.take(">IH", "fields")
            cycle = p.take(">H", "cycle_ms")[0] if len(payload) >= 8 else None
            return DeviceHeartbeat(uptime, present, cycle)
        case MessageType.TAG_SEEN:
            ant, tms, rssi = p.take(">BIb", "fields")
            return TagSeen(ant, p.blob("uid", min_len=1, max_len=MAX_UID), tms, rssi)
        case MessageType.TAG_GONE:
            ant, tms = p.take(">BI", "fields")
            return TagGone(ant, p.blob("uid", min_len=1, max_len=MAX_UID), tms)
        case MessageType.INVENTORY_BEGIN:
            rid, tms = p.take(">HI", "fields")
            return InventoryBegin(rid, tms)
        case MessageType.INVENTORY_ENTRY:
            rid, ant, rssi = p.take(">HBb", "fields")
            return InventoryEntry(rid, ant, p.blob("uid", min_len=1, max_len=MAX_UID), rssi)
        case MessageType.INVENTORY_END:
            rid, count = p.take(">HH", "fields")
            return InventoryEnd(rid, count)
        case MessageType.DEVICE_ERROR:
            code, ant = p.take(">BB", "fields")
            return DeviceError(code, ant, p.text("detail"))
    raise ProtocolError(f"no decoder for {kind!r}")  # pragma: no cover - enum is exhaustive


HOST_TYPES = frozenset(t for t in MessageType if t < 0x80)
DEVICE_TYPES = frozenset(t for t in MessageType if t >= 0x80)
_HELLO_TYPES = frozenset((MessageType.HOST_HELLO, MessageType.DEVICE_HELLO))


class MessageEncoder:
    """Numbers and frames one side's outgoing messages. Not thread-safe: one writer owns it."""

    def __init__(self) -> None:
        self._seq = 0

    def encode(self, msg: Message) -> bytes:
        """Wire bytes of ``msg``. A HELLO restarts the sequence at 0."""
        kind, payload = encode_payload(msg)
        if kind in _HELLO_TYPES:
            self._seq = 0
        content = struct.pack(">BH", int(kind), self._seq) + payload
        if len(content) > MAX_CONTENT:
            raise ProtocolError(f"{kind.name}: {len(content)} bytes, maximum {MAX_CONTENT}")
        self._seq = (self._seq + 1) % SEQ_MOD
        return encode_frame(content)


@dataclass(slots=True)
class DecoderStats:
    """Frame counters plus what the message layer skipped or noticed missing."""

    frames: FrameStats = field(default_factory=FrameStats)
    messages: int = 0
    unknown_type: int = 0
    wrong_direction: int = 0
    bad_payload: int = 0
    seq_gaps: int = 0
    frames_lost: int = 0
    seq_resets: int = 0

    def as_dict(self) -> dict[str, int]:
        f = self.frames
        return {
            "bytes_in": f.bytes_in, "frames_ok": f.frames_ok, "bad_cobs": f.bad_cobs,
            "bad_crc": f.bad_crc, "too_short": f.too_short, "oversized": f.oversized,
            "messages": self.messages, "unknown_type": self.unknown_type,
            "wrong_direction": self.wrong_direction, "bad_payload": self.bad_payload,
            "seq_gaps": self.seq_gaps, "frames_lost": self.frames_lost,
            "seq_resets": self.seq_resets,
        }


class MessageDecoder:
    """Received bytes -> messages from one peer. ``accept`` is the set of types that peer may
    send (:data:`DEVICE_TYPES` on the Pi). :meth:`feed` never raises."""

    def __init__(self, *, accept: frozenset[MessageType]) -> None:
        self.stats = DecoderStats()
        self._frames = FrameDecoder()
        self.stats.frames = self._frames.stats
        self._accept = accept
        self._expected: int | None = None

    def reset(self) -> None:
        """A new connection: forget the partial frame and the sequence baseline."""
        self._frames.reset()
        self._expected = None

    def feed(self, data: bytes) -> list[Message | FramesLost]:
        out: list[Message | FramesLost] = []
        for content in self._frames.feed(data):
            self._one(content, out)
        return out

    def _one(self, content: bytes, out: list[Message | FramesLost]) -> None:
        if len(content) < 3:
            self.stats.bad_payload += 1
            out.append(FramesLost(1, f"frame of {len(content)} bytes has no header"))
            return
        raw_kind, seq = struct.unpack_from(">BH", content)
        try:
            kind = MessageType(raw_kind)
        except ValueError:
            kind = None
        if kind is not None and kind in _HELLO_TYPES:
            self._expected = None
        self._track(seq, out)
        if kind is None:
            self.stats.unknown_type += 1  # a newer peer's optional message: skipped
            return
        if kind not in self._accept:
            self.stats.wrong_direction += 1
            return
        try:
            msg = decode_payload(kind, content[3:])
        except ProtocolError as exc:
            self.stats.bad_payload += 1
            out.append(FramesLost(1, str(exc)))
            return
        self.stats.messages += 1
        out.append(msg)

    def _track(self, seq: int, out: list[Message | FramesLost]) -> None:
        expected = self._expected
        self._expected = (seq + 1) % SEQ_MOD
        if expected is None or seq == expected:
            return
        gap = (seq - expected) % SEQ_MOD
        if gap < SEQ_MOD // 2:
            self.stats.seq_gaps += 1
            self.stats.frames_lost += gap
            out.append(FramesLost(gap, f"sequence gap: expected {expected}, got {seq}"))
        else:
            self.stats.seq_resets += 1
            out.append(FramesLost(0, f"sequence went back: expected {expected}, got {seq}"))
