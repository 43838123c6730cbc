"""COBS, CRC and the resynchronising frame decoder (firmware_bridge/framing.py)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.framing import (
    MAX_CONTENT,
    MAX_ENCODED,
    CobsError,
    FrameDecoder,
    FramingError,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
)


def reference_cobs(data: bytes) -> bytes:
    """COBS straight from its definition: each zero-free run of up to 254 bytes gets a code byte
    of run length + 1; a code of 0xFF means 'no zero follows'."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(0xFF)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def test_crc16_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_cobs_known_vectors() -> None:
    assert cobs_encode(b"") == b"\x01"
    assert cobs_encode(b"\x00") == b"\x01\x01"
    assert cobs_encode(b"\x00\x00") == b"\x01\x01\x01"
    assert cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert cobs_encode(b"\x11\x00\x00\x00") == b"\x02\x11\x01\x01\x01"
    run = bytes(range(1, 255))  # 254 non-zero bytes
    assert cobs_encode(run) == b"\xff" + run + b"\x01"
    assert cobs_decode(b"\x03\x11\x22\x02\x33") == b"\x11\x22\x00\x33"


@settings(max_examples=200, derandomize=True)
@given(st.binary(max_size=600))
def test_cobs_round_trip_and_no_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert encoded == reference_cobs(data)
    assert cobs_decode(encoded) == data


def test_cobs_decode_rejects_bad_codes() -> None:
    for bad in (b"\x05\x11\x22", b"\x02\x11\x00", b"\x00"):
        try:
            cobs_decode(bad)
        except CobsError as exc:
            assert "COBS" in str(exc)
        else:
            raise AssertionError(f"{bad!r} accepted")


def test_encode_frame_limits() -> None:
    assert encode_frame(b"x" * MAX_CONTENT)[-1] == 0
    assert len(encode_frame(b"\xff" * MAX_CONTENT)) - 1 <= MAX_ENCODED
    for size in (0, MAX_CONTENT + 1):
        try:
            encode_frame(b"x" * size)
        except FramingError as exc:
            assert str(size) in str(exc)
        else:
            raise AssertionError(f"content of {size} bytes accepted")


def test_decoder_counts_each_kind_of_damage_and_resumes() -> None:
    good = [bytes([0x83, 0, i, 1, 2, 3]) for i in range(3)]
    frame = encode_frame(good[0])
    bad_crc = bytearray(frame)
    bad_crc[2] ^= 0x40
    stream = (
        b"\x00\x00"                      # idle delimiters: not errors
        + frame
        + bytes(bad_crc)                 # damaged byte
        + b"\x05\x11\x22\x00"            # COBS code past the end
        + b"\x02\x11\x00"                # too short to hold a CRC
        + b"\x7f" * (MAX_ENCODED + 10) + b"\x00"  # oversized
        + encode_frame(good[1])
        + frame[:4]                      # truncated: the next frame's bytes join it -> bad
        + encode_frame(good[2])[1:]      # (its start is lost, so it fails too)
        + encode_frame(good[2])
    )
    dec = FrameDecoder()
    out = dec.feed(stream)
    assert out == [good[0], good[1], good[2]]
    s = dec.stats
    assert (s.bad_crc + s.bad_cobs, s.too_short, s.oversized) == (s.frames_bad - 2, 1, 1)
    assert s.frames_bad == 5
    assert s.empty == 2
    assert s.frames_ok == 3


def test_decoder_byte_by_byte_equals_all_at_once() -> None:
    frames = [bytes([0x81, 0, i]) + bytes(range(i)) for i in range(1, 40)]
    stream = b"".join(encode_frame(f) for f in frames)
    dec = FrameDecoder()
    out: list[bytes] = []
    for i in range(len(stream)):
        out += dec.feed(stream[i : i + 1])
    assert out == frames


def test_oversized_frame_split_over_many_reads_is_skipped() -> None:
    dec = FrameDecoder()
    out: list[bytes] = []
    for _ in range(20):
        out += dec.feed(b"\x55" * 100)
    out += dec.feed(b"\x00" + encode_frame(b"\x82\x00\x01abc"))
    assert out == [b"\x82\x00\x01abc"]
    assert dec.stats.oversized == 1


payloads = st.binary(min_size=1, max_size=60)


@settings(max_examples=150, derandomize=True)
@given(garbage=st.binary(max_size=400), frames=st.lists(payloads, min_size=1, max_size=8))
def test_random_garbage_then_valid_frames(garbage: bytes, frames: list[bytes]) -> None:
    """Never raises on garbage; every frame that follows a delimiter after it is decoded."""
    dec = FrameDecoder()
    out = dec.feed(garbage)
    out = dec.feed(b"\x00" + b"".join(encode_frame(f) for f in frames))
    assert out == frames


@settings(max_examples=150, derandomize=True)
@given(frames=st.lists(payloads, min_size=2, max_size=12), seed=st.integers(0, 2**32 - 1),
       chunk=st.integers(1, 64))
def test_mutated_stream_never_raises_and_undamaged_frames_survive(
        frames: list[bytes], seed: int, chunk: int) -> None:
    rng = random.Random(seed)
    wire = [encode_frame(f) for f in frames]
    damaged: set[int] = set()
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(wire))
        w = bytearray(wire[i])
        kind = rng.randrange(4)
        if kind == 0:
            w[rng.randrange(len(w) - 1)] ^= 1 << rng.randrange(8)  # bit flip
        elif kind == 1:
            del w[rng.randrange(len(w) - 1)]                       # lost byte
        elif kind == 2:
            w.insert(rng.randrange(len(w)), rng.randrange(1, 256))  # extra byte
        else:
            w = w[: rng.randrange(1, len(w))]                      # truncated
        wire[i] = bytes(w)
        damaged.add(i)
        if kind == 3:
            damaged.add(i + 1)  # a truncated frame swallows the start of the next one
    stream = b"".join(wire)
    dec = FrameDecoder()
    out: list[bytes] = []
    for i in range(0, len(stream), chunk):
        out += dec.feed(stream[i : i + chunk])
    intact = [f for i, f in enumerate(frames) if i not in damaged]
    assert all(f in out for f in intact)
    assert set(out) <= set(frames)  # a CRC-16 lets nothing damaged through in these examples
    assert dec.stats.frames_ok == len(out)
