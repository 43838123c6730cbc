"""Driver for one NXP PN5180 NFC frontend on SPI, with its BUSY, RST and IRQ lines.

Host interface (PN5180 datasheet §11.4): SPI mode 0, up to 7 MHz, half duplex. Every
instruction is one SPI frame; an instruction with an answer (READ_REGISTER, READ_DATA, ...) is
followed by a second frame that clocks the answer out. BUSY is the flow control: before each
frame BUSY must be low; the host pulls NSS low, exchanges the bytes, waits for BUSY high, lets
NSS go high, and waits for BUSY low again (the chip has processed the frame). A BUSY that does
not move within its timeout means the chip is not answering: :class:`ChipError`.

Register values go over SPI least significant byte first. The IRQ output is configured to
follow the RX_SOF_DET, RX_IRQ and TX_RFON status bits, so the inventory can tell an empty slot
from a tag's answer, and :meth:`Pn5180.rf_on` a field that came on, by reading one pin (see
:mod:`firmware.iso15693`); every transmission clears them first.

The driver runs unchanged against real hardware (``machine.SPI``/``machine.Pin`` and the
``time`` module) and against the simulator's chips (``hw_sim.devices.pn5180_sim``).
"""

import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware.hal import Pin, Spi, Timer

# host interface instructions (datasheet §11.4.3.3)
WRITE_REGISTER = 0x00
WRITE_REGISTER_OR_MASK = 0x01
WRITE_REGISTER_AND_MASK = 0x02
WRITE_REGISTER_MULTIPLE = 0x03
READ_REGISTER = 0x04
READ_REGISTER_MULTIPLE = 0x05
READ_EEPROM = 0x07
SEND_DATA = 0x09
READ_DATA = 0x0A
SEND_HEADER = bytes((SEND_DATA, 0x00))   # SEND_DATA, all bits of the last byte valid
LOAD_RF_CONFIG = 0x11
RF_ON = 0x16
RF_OFF = 0x17
RF_ON_FRAME = bytes((RF_ON, 0x00))
RF_OFF_FRAME = bytes((RF_OFF, 0x00))

# WRITE_REGISTER_MULTIPLE operations
OP_WRITE = 1
OP_OR = 2
OP_AND = 3

# registers
SYSTEM_CONFIG = 0x00
IRQ_ENABLE = 0x01
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
RX_STATUS = 0x13
TX_CONFIG = 0x18
SIGPRO_RM_CONFIG = 0x1C
RF_STATUS = 0x1D

# IRQ_STATUS bits
IRQ_RX = 1 << 0
IRQ_TX = 1 << 1
IRQ_IDLE = 1 << 2
IRQ_TX_RFON = 1 << 9
IRQ_RX_SOF_DET = 1 << 14
IRQ_GENERAL_ERROR = 1 << 17
IRQ_ALL = 0x000FFFFF
IRQ_RESERVED = 0xFFF00000

# RX_STATUS fields
RX_BYTES = 0x1FF
RX_DATA_INTEGRITY_ERROR = 1 << 16
RX_PROTOCOL_ERROR = 1 << 17
RX_COLLISION = 1 << 18

# RF_STATUS fields
RF_TX_ON = 1 << 17
RF_STATE_SHIFT = 24

# SYSTEM_CONFIG command field, and START_SEND (starts a transmission in TRANSCEIVE)
COMMAND_MASK = 0x7
START_SEND = 1 << 3
COMMAND_IDLE = 0
COMMAND_TRANSCEIVE = 3

# TX_CONFIG: data and start symbol enabled; clearing them makes SEND_DATA send only an EOF
TX_DATA_AND_SOF = (1 << 10) | (0x3 << 6)

# SIGPRO_RM_CONFIG: the receiver's minimum signal level (reader mode)
MIN_LEVEL_SHIFT = 12
MIN_LEVEL_MASK = 0xF << MIN_LEVEL_SHIFT

# EEPROM
EEPROM_FIRMWARE_VERSION = 0x12

# RF configurations (LOAD_RF_CONFIG): ISO 15693 ASK 100 %, 26 kbit/s
RF_TX_ISO15693 = 0x0D
RF_RX_ISO15693 = 0x8D

# timeouts and waits, microseconds
BUSY_TIMEOUT_US = 10000
"""Longest an instruction may keep BUSY high (LOAD_RF_CONFIG and RF_ON are the slow ones)."""
BUSY_POLL_US = 5
HANDSHAKE_TIMEOUT_US = 1000
"""BUSY rises while NSS is still low, as soon as the frame is in; if it does not, nobody is
listening."""
BOOT_POLL_US = 100
PROCESSING_US = 10
"""How long the chip typically keeps BUSY high after a frame: waited before polling BUSY."""
RESET_LOW_US = 100
BOOT_TIMEOUT_US = 20000
FIELD_SETTLE_US = 1000
"""ISO/IEC 15693-3: a VICC is ready to receive a request within 1 ms of the field coming on."""


class ChipError(Exception):
    """The PN5180 did not answer as it must (BUSY stuck, a reply that cannot be right); the
    text says which."""


class Pn5180:
    """One PN5180. ``name`` (e.g. ``"antenna 3"``) prefixes every :class:`ChipError`."""

    def __init__(self, spi: "Spi", nss: "Pin", busy: "Pin", rst: "Pin", irq: "Pin",
                 timer: "Timer", name: str = "PN5180") -> None:
        self.spi = spi
        self.nss = nss
        self.busy = busy
        self.rst = rst
        self.irq = irq
        self.timer = timer
        self.name = name
        self.firmware = (0, 0)
        self._idle = False
        """BUSY was seen low after the last frame, so the next may start at once."""
        self._send_full = b""
        self._send_eof = b""
        self.tx_config = 0
        self.min_level = 0
        self.field_on = False

    # ------------------------------------------------------------------ SPI frames
    def _wait_busy(self, level: int, timeout_us: int, what: str,
                   poll_us: int = BUSY_POLL_US) -> None:
        busy = self.busy
        if busy.value() == level:
            return
        timer = self.timer
        t0 = timer.ticks_us()
        while busy.value() != level:
            if timer.ticks_diff(timer.ticks_us(), t0) > timeout_us:
                state = "low" if level else "high"
                raise ChipError(f"{self.name}: BUSY stayed {state} {what}")
            timer.sleep_us(poll_us)

    def _frame(self, out: bytes | None, into: bytearray | None) -> None:
        busy = self.busy
        if not self._idle:
            self._wait_busy(0, BUSY_TIMEOUT_US, "before a frame")
        self._idle = False
        nss = self.nss
        nss.value(0)
        try:
            if out is not None:
                self.spi.write(out)
            if into is not None:
                self.spi.readinto(into, 0xFF)
            if not busy.value():
                self._wait_busy(1, HANDSHAKE_TIMEOUT_US, "after a frame (no handshake)")
        finally:
            nss.value(1)
        self.timer.sleep_us(PROCESSING_US)
        if busy.value():
            self._wait_busy(0, BUSY_TIMEOUT_US, "while processing")
        self._idle = True

    def command(self, out: bytes) -> None:
        """A SET instruction: one frame."""
        self._frame(out, None)

    def query(self, out: bytes, n: int) -> bytearray:
        """A GET instruction: the instruction frame, then ``n`` answer bytes."""
        self._frame(out, None)
        answer = bytearray(n)
        self._frame(None, answer)
        return answer

    # ------------------------------------------------------------------ registers
    def write_register(self, reg: int, value: int) -> None:
        self.command(struct.pack("<BBI", WRITE_REGISTER, reg, value & 0xFFFFFFFF))

    def or_register(self, reg: int, mask: int) -> None:
        self.command(struct.pack("<BBI", WRITE_REGISTER_OR_MASK, reg, mask & 0xFFFFFFFF))

    def and_register(self, reg: int, mask: int) -> None:
        self.command(struct.pack("<BBI", WRITE_REGISTER_AND_MASK, reg, mask & 0xFFFFFFFF))

    def write_registers(self, ops: list[tuple[int, int, int]]) -> None:
        """Several (register, OP_WRITE/OP_OR/OP_AND, value) in one WRITE_REGISTER_MULTIPLE."""
        out = bytearray((WRITE_REGISTER_MULTIPLE,))
        for reg, op, value in ops:
            out += struct.pack("<BBI", reg, op, value & 0xFFFFFFFF)
        self.command(bytes(out))

    def read_register(self, reg: int) -> int:
        return int(struct.unpack("<I", self.query(bytes((READ_REGISTER, reg)), 4))[0])

    def read_registers(self, regs: bytes) -> tuple[int, ...]:
        """Several registers in one READ_REGISTER_MULTIPLE."""
        answer = self.query(bytes((READ_REGISTER_MULTIPLE,)) + regs, 4 * len(regs))
        return struct.unpack("<" + "I" * len(regs), answer)

    def read_eeprom(self, addr: int, n: int) -> bytearray:
        return self.query(bytes((READ_EEPROM, addr, n)), n)

    # ------------------------------------------------------------------ life cycle
    def reset(self) -> None:
        """Hardware reset on RST, then the ISO 15693 set-up: RF configuration, IRQ pin on
        RX_SOF_DET and RX_IRQ. Raises :class:`ChipError` if the chip does not come back."""
        self.field_on = False
        self._idle = False
        self.rst.value(0)
        self.timer.sleep_us(RESET_LOW_US)
        self.rst.value(1)
        self._wait_busy(0, BOOT_TIMEOUT_US, "after reset", BOOT_POLL_US)
        version = self.read_eeprom(EEPROM_FIRMWARE_VERSION, 2)
        if version[0] == version[1] and version[0] in (0x00, 0xFF):
            raise ChipError(f"{self.name}: EEPROM reads {version[0]:02x}{version[1]:02x}: "
                            "no chip on the bus")
        self.firmware = (version[1], version[0])
        self.command(bytes((LOAD_RF_CONFIG, RF_TX_ISO15693, RF_RX_ISO15693)))
        self.write_registers([(IRQ_CLEAR, OP_WRITE, IRQ_ALL),
                              (IRQ_ENABLE, OP_WRITE, IRQ_RX_SOF_DET | IRQ_RX | IRQ_TX_RFON)])
        tx, sigpro = self.read_registers(bytes((TX_CONFIG, SIGPRO_RM_CONFIG)))
        if not tx & TX_DATA_AND_SOF:
            raise ChipError(f"{self.name}: TX_CONFIG 0x{tx:08x} after LOAD_RF_CONFIG: the "
                            "ISO 15693 configuration did not load")
        self.tx_config = tx
        self._send_full = self._transceive(tx, 0)
        self._send_eof = self._transceive(tx & ~TX_DATA_AND_SOF, START_SEND)
        self.min_level = (sigpro & MIN_LEVEL_MASK) >> MIN_LEVEL_SHIFT

    def rf_on(self) -> None:
        """Field on, and the ISO 15693 settling time. The IRQ pin then shows TX_RFON: low means
        the field did not come on (the next transmission clears it)."""
        self.command(RF_ON_FRAME)
        self.field_on = True
        self.timer.sleep_us(FIELD_SETTLE_US)
        if not self.irq.value():
            status = self.read_register(RF_STATUS)
            raise ChipError(f"{self.name}: no field after RF_ON (RF_STATUS 0x{status:08x})")

    def rf_off(self) -> None:
        self.field_on = False
        self.command(RF_OFF_FRAME)

    # ------------------------------------------------------------------ transceive
    @staticmethod
    def _transceive(tx_config: int, start: int) -> bytes:
        """The WRITE_REGISTER_MULTIPLE that readies a transmission: IRQs cleared, the
        transceiver to IDLE then TRANSCEIVE, TX framing (``tx_config``); with ``start``
        (START_SEND) it also starts the transmission."""
        ops = [(IRQ_CLEAR, OP_WRITE, IRQ_ALL),
               (SYSTEM_CONFIG, OP_AND, ~(COMMAND_MASK | START_SEND)),
               (SYSTEM_CONFIG, OP_OR, COMMAND_TRANSCEIVE),
               (TX_CONFIG, OP_WRITE, tx_config)]
        if start:
            ops.append((SYSTEM_CONFIG, OP_OR, start))
        out = bytearray((WRITE_REGISTER_MULTIPLE,))
        for reg, op, value in ops:
            out += struct.pack("<BBI", reg, op, value & 0xFFFFFFFF)
        return bytes(out)

    def transmit(self, frame: bytes) -> None:
        """Transmit a whole frame (TRANSCEIVE, then SEND_DATA with the bytes)."""
        self.command(self._send_full)
        self.command(SEND_HEADER + frame)

    def transmit_eof(self) -> None:
        """Transmit only an EOF, which opens the next slot of an inventory. There are no data
        to send, so one frame does it: TX framing without data and SOF, and START_SEND."""
        self.command(self._send_eof)

    def receive_status(self) -> tuple[int, int]:
        """(IRQ_STATUS, RX_STATUS), read together; a reply with reserved bits set is garbled."""
        irq, rx = self.read_registers(bytes((IRQ_STATUS, RX_STATUS)))
        if irq & IRQ_RESERVED:
            raise ChipError(f"{self.name}: IRQ_STATUS 0x{irq:08x} has reserved bits set: "
                            "garbled reply")
        return irq, rx

    def read_data(self, n: int) -> bytearray:
        return self.query(bytes((READ_DATA, 0x00)), n)

    def set_min_level(self, level: int) -> None:
        """The receiver's minimum signal level, 0 to 15 (SIGPRO_RM_CONFIG)."""
        self.write_registers([(SIGPRO_RM_CONFIG, OP_AND, ~MIN_LEVEL_MASK),
                              (SIGPRO_RM_CONFIG, OP_OR, (level & 0xF) << MIN_LEVEL_SHIFT)])
