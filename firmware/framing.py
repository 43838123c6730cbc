"""Frames on the link to the Pi: COBS(content + CRC-16) then 0x00 (docs/protocol.md §2).

The Pi side's ``firmware_bridge.framing`` implements the same rules; this is the device's own
copy, written for MicroPython (no ``binascii.crc_hqx``, no dataclasses) and checked against the
Pi's in ``tests/test_firmware_core.py``.
"""

MAX_CONTENT = 253
"""Largest frame content (type, sequence, payload); with the CRC 255 bytes are COBS-encoded."""
MAX_ENCODED = 257
"""Largest encoded frame, the 0x00 delimiter excluded."""


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR
    (``crc16(b"123456789") == 0x29B1``)."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ b]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray()
    start = 0
    n = len(data)
    while True:
        end = data.find(b"\x00", start)
        if end < 0:
            end = n
        while end - start >= 254:
            out.append(0xFF)
            out += data[start:start + 254]
            start += 254
        out.append(end - start + 1)
        out += data[start:end]
        if end >= n:
            return bytes(out)
        start = end + 1


def cobs_decode(data: bytes) -> bytes | None:
    """The inverse of :func:`cobs_encode`; None for an invalid encoding (a zero code, or a
    code pointing past the end)."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        out += data[i + 1:end]
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(content: bytes) -> bytes:
    """Wire bytes of one frame: COBS(content + CRC, big-endian) and the 0x00 delimiter."""
    crc = crc16(content)
    return cobs_encode(content + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


class FrameReceiver:
    """Bytes from the host -> verified frame contents, by the receiver rules of §2: it never
    raises; damaged frames are counted (``bad_cobs``, ``bad_crc``, ``too_short``,
    ``oversized``) and decoding resumes after the next 0x00."""

    def __init__(self) -> None:
        self._partial = bytearray()
        self._discarding = False
        self.frames_ok = 0
        self.empty = 0
        self.bad_cobs = 0
        self.bad_crc = 0
        self.too_short = 0
        self.oversized = 0

    @property
    def frames_bad(self) -> int:
        return self.bad_cobs + self.bad_crc + self.too_short + self.oversized

    def reset(self) -> None:
        self._partial = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes]:
        """The frame contents (CRC removed) completed by ``data``, in order."""
        frames = []
        start = 0
        n = len(data)
        while start <= n:
            end = data.find(b"\x00", start)
            if end < 0:
                self._append(data[start:])
                break
            self._append(data[start:end])
            if self._discarding:
                self._discarding = False
            else:
                content = self._check(bytes(self._partial))
                if content is not None:
                    frames.append(content)
            self._partial = bytearray()
            start = end + 1
        return frames

    def _append(self, chunk: bytes) -> None:
        if self._discarding or not chunk:
            return
        if len(self._partial) + len(chunk) > MAX_ENCODED:
            self.oversized += 1
            self._discarding = True
            self._partial = bytearray()
            return
        self._partial += chunk

    def _check(self, encoded: bytes) -> bytes | None:
        if not encoded:
            self.empty += 1
            return None
        decoded = cobs_decode(encoded)
        if decoded is None:
            self.bad_cobs += 1
            return None
        if len(decoded) < 3:
            self.too_short += 1
            return None
        if len(decoded) > MAX_CONTENT + 2:
            self.oversized += 1
            return None
        content = decoded[:-2]
        if crc16(content) != (decoded[-2] << 8) | decoded[-1]:
            self.bad_crc += 1
            return None
        self.frames_ok += 1
        return content
