"""Protocol v1 messages, sequence numbers and the message decoder (firmware_bridge/protocol.py)."""

from __future__ import annotations

import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.framing import encode_frame
from firmware_bridge.protocol import (
    DEVICE_TYPES,
    HOST_TYPES,
    BuzzerPattern,
    DeviceError,
    DeviceHeartbeat,
    DeviceHello,
    FramesLost,
    HostHeartbeat,
    HostHello,
    InventoryBegin,
    InventoryEnd,
    InventoryEntry,
    InventoryRequest,
    LampPattern,
    Message,
    MessageDecoder,
    MessageEncoder,
    MessageType,
    ProtocolError,
    SetOutputs,
    TagGone,
    TagSeen,
    decode_payload,
    encode_payload,
)

UID = bytes.fromhex("04a1b2c3d4e5f6")
HELLO = DeviceHello(1, 0, (2, 3, 4), 14, 1, 100, "PN5180 x14")
DEVICE_MESSAGES: list[Message] = [
    HELLO,
    DeviceHeartbeat(123456, 7),
    DeviceHeartbeat(123456, 7, cycle_ms=171),
    TagSeen(3, UID, 99, -55),
    TagSeen(13, b"\x01\x02\x03\x04", 0xFFFFFFFF),
    TagGone(0, UID, 100),
    InventoryBegin(7, 1000),
    InventoryEntry(7, 12, UID, -61),
    InventoryEnd(7, 1),
    DeviceError(1, 4, "antenna 4 open circuit"),
]
HOST_MESSAGES: list[Message] = [
    HostHello(1, 0, 500),
    HostHello(1, 1, 500),
    HostHeartbeat(),
    InventoryRequest(65535),
    SetOutputs(LampPattern.BLINK_FAST, BuzzerPattern.DOUBLE_BEEP, 1500),
]


@pytest.mark.parametrize("msg", DEVICE_MESSAGES + HOST_MESSAGES, ids=repr)
def test_every_message_round_trips(msg: Message) -> None:
    kind, payload = encode_payload(msg)
    assert decode_payload(kind, payload) == msg


def test_wire_layout_of_tag_seen_matches_the_document() -> None:
    """docs/protocol.md §4: type, seq, antenna, time_ms, rssi, uid_len, uid; CRC big-endian."""
    enc = MessageEncoder()
    enc.encode(HELLO)  # seq 0
    wire = enc.encode(TagSeen(3, b"\xde\xad\xbe\xef", 0x01020304, -55))
    from firmware_bridge.framing import cobs_decode, crc16
    body = cobs_decode(wire[:-1])
    content, crc = body[:-2], body[-2:]
    assert content == bytes([0x83, 0x00, 0x01, 3, 1, 2, 3, 4, 0xC9, 4, 0xDE, 0xAD, 0xBE, 0xEF])
    assert crc == struct.pack(">H", crc16(content))


def test_minor_version_fields_appended_are_ignored() -> None:
    kind, payload = encode_payload(TagGone(2, UID, 5))
    assert decode_payload(kind, payload + b"\x99\x98") == TagGone(2, UID, 5)


@pytest.mark.parametrize(
    ("kind", "payload", "names"),
    [
        (MessageType.TAG_SEEN, b"\x01\x00\x00", "ends before fields"),
        (MessageType.TAG_SEEN, b"\x01\x00\x00\x00\x01\x00\x00", "uid of 0 bytes"),
        (MessageType.TAG_GONE, b"\x01\x00\x00\x00\x01\x07\x01\x02", "uid truncated"),
        (MessageType.TAG_GONE, b"\x01\x00\x00\x00\x01\x11" + b"\x01" * 17, "uid of 17 bytes"),
        (MessageType.DEVICE_HELLO, b"\x01\x00", "ends before fields"),
        (MessageType.SET_OUTPUTS, b"\x09\x00\x00\x00", "SET_OUTPUTS"),
        (MessageType.INVENTORY_END, b"\x00", "ends before fields"),
    ],
)
def test_malformed_payloads_raise_naming_the_field(
        kind: MessageType, payload: bytes, names: str) -> None:
    with pytest.raises(ProtocolError, match=names):
        decode_payload(kind, payload)


def test_encoding_rejects_out_of_range_fields() -> None:
    with pytest.raises(ProtocolError, match="antenna 300"):
        encode_payload(TagGone(300, UID, 0))
    with pytest.raises(ProtocolError, match="UID of 0 bytes"):
        encode_payload(TagSeen(1, b"", 0))
    with pytest.raises(ProtocolError, match="RSSI"):
        encode_payload(TagSeen(1, UID, 0, rssi=200))


def test_direction_sets_split_at_0x80() -> None:
    assert all(t < 0x80 for t in HOST_TYPES) and all(t >= 0x80 for t in DEVICE_TYPES)
    assert frozenset(MessageType) == HOST_TYPES | DEVICE_TYPES


def test_sequence_gap_is_reported_with_its_size() -> None:
    enc = MessageEncoder()
    msgs: list[Message] = [HELLO, *[DeviceHeartbeat(i, 0) for i in range(6)]]
    frames = [enc.encode(m) for m in msgs]
    dec = MessageDecoder(accept=DEVICE_TYPES)
    out = dec.feed(b"".join(frames[:2] + frames[5:]))  # frames 2, 3, 4 lost
    assert out[:2] == [HELLO, DeviceHeartbeat(0, 0)]
    assert out[2] == FramesLost(3, "sequence gap: expected 2, got 5")
    assert out[3:] == [DeviceHeartbeat(4, 0), DeviceHeartbeat(5, 0)]
    assert (dec.stats.seq_gaps, dec.stats.frames_lost) == (1, 3)


def test_hello_restarts_the_sequence_without_a_gap() -> None:
    enc = MessageEncoder()
    session: list[Message] = [HELLO, DeviceHeartbeat(1, 0), DeviceHeartbeat(2, 0)]
    first = b"".join(enc.encode(m) for m in session)
    again = enc.encode(HELLO) + enc.encode(DeviceHeartbeat(3, 0))  # the controller rebooted
    dec = MessageDecoder(accept=DEVICE_TYPES)
    out = dec.feed(first + again)
    assert not any(isinstance(m, FramesLost) for m in out)
    assert dec.stats.seq_resets == 0


def test_sequence_wraps_at_65536() -> None:
    enc = MessageEncoder()
    enc.encode(HELLO)
    dec = MessageDecoder(accept=DEVICE_TYPES)
    out = []
    for i in range(70000):
        data = enc.encode(DeviceHeartbeat(i, 0))
        if i >= 65530:
            out += dec.feed(data)
    assert not any(isinstance(m, FramesLost) for m in out)
    assert len(out) == 70000 - 65530


def test_unknown_type_wrong_direction_and_bad_payload_are_counted_and_skipped() -> None:
    enc = MessageEncoder()
    stream = enc.encode(HELLO)
    stream += encode_frame(b"\x9e\x00\x01future message")   # unknown type, seq 1
    stream += encode_frame(b"\x02\x00\x02")                  # a HOST message from the device
    stream += encode_frame(b"\x83\x00\x03\x01")              # TAG_SEEN cut short
    stream += encode_frame(b"\x83")                          # no header at all
    enc2 = MessageEncoder()
    enc2.encode(HELLO)
    for _ in range(3):
        enc2.encode(DeviceHeartbeat(0, 0))
    stream += enc2.encode(TagGone(1, UID, 2))                # seq 4: in step again
    dec = MessageDecoder(accept=DEVICE_TYPES)
    out = dec.feed(stream)
    assert out[0] == HELLO and out[-1] == TagGone(1, UID, 2)
    lost = [m for m in out if isinstance(m, FramesLost)]
    assert len(lost) == 2 and "TAG_SEEN" in lost[0].reason
    s = dec.stats
    assert (s.unknown_type, s.wrong_direction, s.bad_payload, s.messages) == (1, 1, 2, 2)


message_strategy = st.sampled_from(DEVICE_MESSAGES[1:])  # no HELLO: it restarts the count


@settings(max_examples=100, derandomize=True)
@given(msgs=st.lists(message_strategy, min_size=1, max_size=30), seed=st.integers(0, 2**32 - 1))
def test_mutated_message_stream_never_raises_and_loss_is_noticed(
        msgs: list[Message], seed: int) -> None:
    """Random damage to a stream of messages: the decoder never raises, every message it returns
    was sent, and if any message went missing a FramesLost is reported."""
    rng = random.Random(seed)
    enc = MessageEncoder()
    enc.encode(HELLO)
    dec = MessageDecoder(accept=DEVICE_TYPES)
    dec.feed(b"\x00" + MessageEncoder().encode(HELLO))  # baseline: seq 0 seen
    wire = bytearray(b"".join(enc.encode(m) for m in msgs))
    sent = list(msgs)
    for _ in range(rng.randint(0, 5)):
        op = rng.randrange(3)
        pos = rng.randrange(len(wire))
        if op == 0:
            wire[pos] ^= 1 << rng.randrange(8)
        elif op == 1:
            wire[pos:pos] = rng.randbytes(rng.randint(1, 20))
        else:
            del wire[pos : pos + rng.randint(1, 10)]
    wire += b"\x00" + enc.encode(DeviceHeartbeat(0xABCDEF, 0))  # intact, so a gap shows
    out = dec.feed(bytes(wire))
    assert out[-1] == DeviceHeartbeat(0xABCDEF, 0)
    got = [m for m in out[:-1] if not isinstance(m, FramesLost)]
    assert all(m in sent for m in got)
    if len(got) < len(sent):
        assert any(isinstance(m, FramesLost) for m in out)


def test_the_examples_in_docs_protocol_md() -> None:
    """docs/protocol.md §4 gives wire bytes for firmware authors: they must stay true."""
    enc = MessageEncoder()
    enc.encode(HELLO)
    wire = enc.encode(TagSeen(3, bytes.fromhex("04a1b2c3d4e5f6"), 0x00012345, -55))
    assert wire == bytes.fromhex("02 83 03 01 03 0F 01 23 45 C9 07 04 A1 B2 C3 D4 E5 F6 5F EC 00")
    hello_10 = MessageEncoder().encode(HostHello(1, 0, 500))
    assert hello_10 == bytes.fromhex("02 01 01 02 01 05 01 F4 A3 B1 00")
    # protocol 1.1, the host's own version since the firmware reports signal figures (§5.3)
    assert MessageEncoder().encode(HostHello()) == bytes.fromhex("02 01 01 07 01 01 01 F4 94 81 00")
