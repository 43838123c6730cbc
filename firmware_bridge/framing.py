"""Frames on the RFID serial link: COBS, a 0x00 delimiter, CRC-16 and a maximum length.

A frame on the wire is ``COBS(content + CRC16) 0x00`` (docs/protocol.md §2). COBS removes every
zero byte from the encoded frame, so 0x00 marks the end of a frame and nothing else: after any
corruption the receiver is back in step at the next 0x00, at most one frame later.

COBS is implemented here (about twenty lines) rather than taken from the ``cobs`` package: the
algorithm is small and fixed, the frames are short, and one pure-Python module keeps the Pi image
free of a compiled dependency; ``tests/test_framing.py`` checks it against a reference definition.

:class:`FrameDecoder` never raises on input bytes: garbage, truncated frames, bad CRCs and
oversized frames are counted in :class:`FrameStats` and skipped.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

DELIMITER = 0x00
CRC_SIZE = 2
MAX_CONTENT = 253
"""Largest frame content (type, sequence, payload) in bytes; with the CRC, 255 bytes are encoded."""
MAX_DECODED = MAX_CONTENT + CRC_SIZE
MAX_ENCODED = MAX_DECODED + (MAX_DECODED // 254) + 1
"""Largest COBS-encoded frame, delimiter excluded: 257 bytes."""


class FramingError(ValueError):
    """A frame that cannot be encoded (content empty or longer than :data:`MAX_CONTENT`)."""


class CobsError(ValueError):
    """Bytes that are not a valid COBS encoding."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection): ``crc16(b"123456789")`` is
    0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): the result has no zero byte."""
    out = bytearray()
    for part in data.split(b"\x00"):
        while len(part) >= 254:
            out.append(0xFF)
            out += part[:254]
            part = part[254:]
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; raises :class:`CobsError` on a zero byte or a code that
    points past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            raise CobsError(f"bad COBS code {code} at offset {i} of {n}")
        block = data[i + 1 : end]
        if 0 in block:
            raise CobsError(f"zero byte inside a COBS block at offset {i}")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(content: bytes) -> bytes:
    """``content`` (1 to :data:`MAX_CONTENT` bytes) as wire bytes, CRC and delimiter included."""
    if not 1 <= len(content) <= MAX_CONTENT:
        raise FramingError(f"frame content of {len(content)} bytes: allowed 1..{MAX_CONTENT}")
    crc = crc16(content)
    return cobs_encode(content + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


@dataclass(slots=True)
class FrameStats:
    """Counters of a :class:`FrameDecoder`. Every skipped frame is counted in exactly one of
    ``bad_cobs``, ``bad_crc``, ``too_short`` or ``oversized``."""

    bytes_in: int = 0
    frames_ok: int = 0
    empty: int = 0
    bad_cobs: int = 0
    bad_crc: int = 0
    too_short: int = 0
    oversized: int = 0

    @property
    def frames_bad(self) -> int:
        return self.bad_cobs + self.bad_crc + self.too_short + self.oversized


class FrameDecoder:
    """Turns a byte stream into verified frame contents (CRC removed).

    Bytes before the first delimiter may be the tail of a frame sent before we listened: they
    fail the CRC and are counted like any other damage. Consecutive delimiters (idle fill, or the
    single 0x00 a sender puts before its first frame) are counted in ``empty``, not as errors.
    """

    def __init__(self) -> None:
        self.stats = FrameStats()
        self._partial = bytearray()
        self._discarding = False

    def reset(self) -> None:
        """Forget a partial frame (after reopening the port); counters are kept."""
        self._partial.clear()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes]:
        """Frames completed by ``data``, in order. Never raises."""
        self.stats.bytes_in += len(data)
        pieces = data.split(b"\x00")
        frames: list[bytes] = []
        for complete in pieces[:-1]:
            self._append(complete)
            if self._discarding:
                self._discarding = False
            else:
                content = self._check(bytes(self._partial))
                if content is not None:
                    frames.append(content)
            self._partial.clear()
        self._append(pieces[-1])
        return frames

    def _append(self, chunk: bytes) -> None:
        if self._discarding:
            return
        if len(self._partial) + len(chunk) > MAX_ENCODED:
            self.stats.oversized += 1
            self._discarding = True
            self._partial.clear()
            return
        self._partial += chunk

    def _check(self, encoded: bytes) -> bytes | None:
        if not encoded:
            self.stats.empty += 1
            return None
        try:
            decoded = cobs_decode(encoded)
        except CobsError:
            self.stats.bad_cobs += 1
            return None
        if len(decoded) < CRC_SIZE + 1:
            self.stats.too_short += 1
            return None
        if len(decoded) > MAX_DECODED:
            self.stats.oversized += 1
            return None
        content = decoded[:-CRC_SIZE]
        if crc16(content) != int.from_bytes(decoded[-CRC_SIZE:], "big"):
            self.stats.bad_crc += 1
            return None
        self.stats.frames_ok += 1
        return content
