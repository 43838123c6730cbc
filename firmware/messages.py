"""Message types and payloads of the link protocol (docs/protocol.md §3-§4), device side.

Outgoing messages are built by the ``*_payload`` functions (type, payload bytes); the session
(:mod:`firmware.controller`) numbers and frames them. Incoming host frames are read by
:func:`decode_host`, which returns a tuple or raises :class:`MessageError` naming the field.
All integers big-endian; receivers ignore bytes after the fields they know (minor versions).
"""

import struct

# host -> device
HOST_HELLO = 0x01
HOST_HEARTBEAT = 0x02
INVENTORY_REQUEST = 0x03
SET_OUTPUTS = 0x04
# device -> host
DEVICE_HELLO = 0x81
DEVICE_HEARTBEAT = 0x82
TAG_SEEN = 0x83
TAG_GONE = 0x84
INVENTORY_BEGIN = 0x85
INVENTORY_ENTRY = 0x86
INVENTORY_END = 0x87
DEVICE_ERROR = 0x88

# reader types
READER_ISO15693 = 2
READER_SIMULATED = 0x7F

# error codes
ANTENNA_FAULT = 1
RX_OVERFLOW = 2
TX_OVERFLOW = 3
BAD_FRAME = 4
UNKNOWN_MESSAGE = 5
INTERNAL = 6

NO_ANTENNA = 0xFF
RSSI_UNKNOWN = -128
MAX_TEXT = 64
LAMP_PATTERNS = 4      # OFF, ON, BLINK_SLOW, BLINK_FAST
BUZZER_PATTERNS = 4    # OFF, BEEP, DOUBLE_BEEP, CONTINUOUS


class MessageError(ValueError):
    """A host payload that does not match its type; the text names the type and the field."""


def _text(text: str) -> bytes:
    raw = text.encode()[:MAX_TEXT]
    return bytes((len(raw),)) + raw


def _uid(uid: bytes) -> bytes:
    return bytes((len(uid),)) + uid


def _rssi(rssi: int) -> int:
    return -128 if rssi < -128 else (127 if rssi > 127 else rssi)


def hello_payload(protocol: tuple[int, int], firmware: tuple[int, int, int], antennas: int,
                  reader_type: int, scan_period_ms: int, model: str) -> bytes:
    return struct.pack(">BBBBBBBH", protocol[0], protocol[1], firmware[0], firmware[1],
                       firmware[2], antennas, reader_type, scan_period_ms) + _text(model)


def heartbeat_payload(uptime_ms: int, tags_present: int, cycle_ms: int) -> bytes:
    """``cycle_ms``, the last scan cycle's duration, is the field protocol 1.1 appends."""
    return struct.pack(">IHH", uptime_ms & 0xFFFFFFFF, min(tags_present, 0xFFFF),
                       min(cycle_ms, 0xFFFF))


def seen_payload(antenna: int, time_ms: int, rssi: int, uid: bytes) -> bytes:
    return struct.pack(">BIb", antenna, time_ms & 0xFFFFFFFF, _rssi(rssi)) + _uid(uid)


def gone_payload(antenna: int, time_ms: int, uid: bytes) -> bytes:
    return struct.pack(">BI", antenna, time_ms & 0xFFFFFFFF) + _uid(uid)


def inventory_begin_payload(request_id: int, time_ms: int) -> bytes:
    return struct.pack(">HI", request_id, time_ms & 0xFFFFFFFF)


def inventory_entry_payload(request_id: int, antenna: int, rssi: int, uid: bytes) -> bytes:
    return struct.pack(">HBb", request_id, antenna, _rssi(rssi)) + _uid(uid)


def inventory_end_payload(request_id: int, count: int) -> bytes:
    return struct.pack(">HH", request_id, count)


def error_payload(code: int, antenna: int, detail: str) -> bytes:
    return struct.pack(">BB", code, antenna) + _text(detail)


_HOST_SIZES = {HOST_HELLO: 4, HOST_HEARTBEAT: 0, INVENTORY_REQUEST: 2, SET_OUTPUTS: 4}
_HOST_NAMES = {HOST_HELLO: "HOST_HELLO", HOST_HEARTBEAT: "HOST_HEARTBEAT",
               INVENTORY_REQUEST: "INVENTORY_REQUEST", SET_OUTPUTS: "SET_OUTPUTS"}


def is_host_type(kind: int) -> bool:
    return kind in _HOST_SIZES


def decode_host(kind: int, payload: bytes) -> tuple[int, ...]:
    """The fields of a host message of a known type:

    - HOST_HELLO: (protocol_major, protocol_minor, heartbeat_ms)
    - HOST_HEARTBEAT: ()
    - INVENTORY_REQUEST: (request_id,)
    - SET_OUTPUTS: (lamp, buzzer, duration_ms); an unknown pattern is an error (§4)
    """
    size = _HOST_SIZES[kind]
    if len(payload) < size:
        raise MessageError(f"{_HOST_NAMES[kind]}: payload of {len(payload)} bytes, "
                           f"{size} needed")
    if kind == HOST_HELLO:
        return struct.unpack_from(">BBH", payload, 0)
    if kind == HOST_HEARTBEAT:
        return ()
    if kind == INVENTORY_REQUEST:
        return struct.unpack_from(">H", payload, 0)
    lamp, buzzer, duration = struct.unpack_from(">BBH", payload, 0)
    if lamp >= LAMP_PATTERNS:
        raise MessageError(f"SET_OUTPUTS: unknown lamp pattern {lamp}")
    if buzzer >= BUZZER_PATTERNS:
        raise MessageError(f"SET_OUTPUTS: unknown buzzer pattern {buzzer}")
    return lamp, buzzer, duration
