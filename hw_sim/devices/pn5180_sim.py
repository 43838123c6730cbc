"""Simulated NXP PN5180 chips on a simulated SPI bus, for the firmware's real PN5180 driver.

The firmware (``firmware/``) talks to its readers through ``spi.write``/``spi.readinto`` and
the NSS, BUSY, RST and IRQ pins. :class:`SimBus` provides those for any number of
:class:`SimPn5180` chips: each chip answers the PN5180 host instructions the driver uses
(WRITE_REGISTER and its masks, WRITE/READ_REGISTER_MULTIPLE, READ_REGISTER, READ_EEPROM,
LOAD_RF_CONFIG, RF_ON, RF_OFF, SEND_DATA, READ_DATA) with the BUSY handshake, and plays the
ISO 15693 air interface for the tags lying in its field: the inventory request with its mask,
the 16 slots opened by EOFs, one answer per slot or a collision when two tags share one, and
the receiver threshold (SIGPRO_RM_CONFIG MinLevel) below which a weakly coupled tag is heard.

Time is simulated (:class:`BusClock`, microseconds): the host's work advances it by the
figures below, the driver's waits by what they wait, and the chip's events (end of a
transmission, a tag's SOF and answer) happen at their ISO 15693 times. A whole scan cycle
therefore takes no real time to speak of, and its simulated duration is what the firmware
would take (``benchmarks/bench_rfid_scan.py``).

Host costs (MicroPython on an RP2040 at 125 MHz; estimates, see docs/firmware.md): an SPI
transfer call :data:`SPI_CALL_US` plus :data:`SPI_BYTE_NS` per byte (SPI at 6.25 MHz), a pin
access :data:`PIN_US`. Chip processing times (BUSY high after a frame) are in
:data:`PROCESSING_US`.

Faults: :meth:`SimPn5180.fail` (the chip stops answering: BUSY stays low, MISO floats high),
:meth:`SimPn5180.garble` (the next answers come back with flipped bits), :meth:`revive`.
"""

from __future__ import annotations

from typing import NamedTuple

from firmware import iso15693, pn5180

SPI_CALL_US = 25
SPI_BYTE_NS = 1280
PIN_US = 2
TICKS_US = 1
PROCESSING_US = {
    pn5180.WRITE_REGISTER: 10, pn5180.WRITE_REGISTER_OR_MASK: 10,
    pn5180.WRITE_REGISTER_AND_MASK: 10, pn5180.WRITE_REGISTER_MULTIPLE: 15,
    pn5180.READ_REGISTER: 10, pn5180.READ_REGISTER_MULTIPLE: 12, pn5180.READ_EEPROM: 20,
    pn5180.SEND_DATA: 15, pn5180.READ_DATA: 10, pn5180.LOAD_RF_CONFIG: 500,
    pn5180.RF_ON: 100, pn5180.RF_OFF: 20,
}
"""BUSY time per instruction, µs (assumed; the datasheet gives none)."""
ANSWER_FRAME_US = 10
BOOT_US = 2500
TX_CONFIG_ISO15693 = 0x000007C0
"""TX_CONFIG after LOAD_RF_CONFIG for ISO 15693: data, start symbol and stop symbol on."""
SIGPRO_ISO15693 = 0x00000000
"""SIGPRO_RM_CONFIG after LOAD_RF_CONFIG: MinLevel 0."""
FIRMWARE_EEPROM = bytes((0x00, 0x04))   # PN5180 firmware 4.0, least significant byte first
DEFAULT_LEVEL = 12
"""Coupling of a tag lying on its own antenna (the highest receiver MinLevel that still
decodes it)."""

_IDLE, _WAIT_TRANSMIT, _WAIT_RECEIVE = 0, 1, 3
_IRQ_CLEAR, _SYSTEM_CONFIG, _START_SEND = pn5180.IRQ_CLEAR, pn5180.SYSTEM_CONFIG, pn5180.START_SEND
_OP_WRITE, _OP_OR = pn5180.OP_WRITE, pn5180.OP_OR
_COMMAND_MASK, _COMMAND_IDLE, _COMMAND_TRANSCEIVE = (
    pn5180.COMMAND_MASK, pn5180.COMMAND_IDLE, pn5180.COMMAND_TRANSCEIVE)
_MULTIPLE: dict[bytes, list[tuple[int, int, int]]] = {}
"""WRITE_REGISTER_MULTIPLE frames already parsed (the driver sends the same few again and
again)."""


class BusClock:
    """Simulated microseconds of the controller's SPI bus; the driver's ``timer``."""

    def __init__(self) -> None:
        self.now_us = 0

    def ticks_us(self) -> int:
        self.now_us += TICKS_US
        return self.now_us

    def ticks_ms(self) -> int:
        return self.now_us // 1000

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def sleep_us(self, us: int) -> None:
        if us > 0:
            self.now_us += int(us)


class SimSpi:
    """The shared SPI bus: bytes go to the chip whose NSS is low."""

    def __init__(self, clock: BusClock) -> None:
        self.clock = clock
        self.selected: SimPn5180 | None = None
        self.transfers = 0

    def write(self, buf: bytes) -> int:
        self.transfers += 1
        clock = self.clock
        clock.now_us += SPI_CALL_US + (len(buf) * SPI_BYTE_NS) // 1000
        chip = self.selected
        if chip is not None and not chip.dead and clock.now_us >= chip.busy_until:
            chip.frame_bytes += len(buf)
            chip.frame_in += buf
        return len(buf)

    def readinto(self, buf: bytearray, write: int = 0) -> int:
        self.transfers += 1
        self.clock.now_us += SPI_CALL_US + (len(buf) * SPI_BYTE_NS) // 1000
        chip = self.selected
        if chip is None:
            buf[:] = b"\xff" * len(buf)
        else:
            chip.spi_out(buf)
        return len(buf)


class _Nss:
    __slots__ = ("chip",)

    def __init__(self, chip: SimPn5180) -> None:
        self.chip = chip

    def value(self, v: int | None = None) -> int:
        self.chip.clock.now_us += PIN_US
        if v is not None:
            self.chip.select(v == 0)
            return v
        return 0 if self.chip.selected else 1


class _Rst(_Nss):
    __slots__ = ()

    def value(self, v: int | None = None) -> int:
        self.chip.clock.now_us += PIN_US
        if v is not None:
            self.chip.reset_line(v)
            return v
        return 0 if self.chip.in_reset else 1


class _Busy(_Nss):
    __slots__ = ()

    def value(self, v: int | None = None) -> int:
        chip = self.chip
        clock = chip.clock
        clock.now_us += PIN_US
        if chip.dead or chip.in_reset:
            return 0
        if chip.selected:
            return 1 if chip.frame_bytes else 0
        return 1 if clock.now_us < chip.busy_until else 0


class _Irq(_Nss):
    __slots__ = ()

    def value(self, v: int | None = None) -> int:
        chip = self.chip
        chip.clock.now_us += PIN_US
        return chip.irq_level()


class ChipState(NamedTuple):
    """A chip's state as :meth:`SimPn5180.state` gives it (times in µs from now)."""

    regs: tuple[tuple[int, int], ...]
    rf_on: bool
    selected: bool
    frame_bytes: int
    frame_in: bytes
    answer: bytes
    busy: int
    rf_state: int
    events: tuple[tuple[int, int], ...]
    rx_status: int
    rx_data: bytes
    inventory: tuple[int, int, bool] | None
    slot: int
    in_reset: bool
    dead: bool
    garble: int


class SimPn5180:
    """One simulated PN5180 with its antenna. ``field`` maps the UID (most significant byte
    first) of each tag that answers now to its coupling level (0-15)."""

    def __init__(self, bus: SimBus, name: str) -> None:
        self.bus = bus
        self.clock = bus.clock
        self.name = name
        self._field: list[tuple[bytes, int, int]] = []   # (uid, uid value, level)
        self.nss = _Nss(self)
        self.busy = _Busy(self)
        self.rst = _Rst(self)
        self.irq = _Irq(self)
        self.dead = False
        self._garble = 0
        self.instructions = 0
        self.answers = 0
        """Answers (one tag's or a collision) the chip has heard: each sets RX_STATUS and the data
        READ_DATA gives."""
        self._handlers = {
            pn5180.WRITE_REGISTER: self._do_write, pn5180.WRITE_REGISTER_OR_MASK: self._do_write,
            pn5180.WRITE_REGISTER_AND_MASK: self._do_write,
            pn5180.WRITE_REGISTER_MULTIPLE: self._do_write_multiple,
            pn5180.READ_REGISTER: self._do_read,
            pn5180.READ_REGISTER_MULTIPLE: self._do_read_multiple,
            pn5180.READ_EEPROM: self._do_eeprom, pn5180.LOAD_RF_CONFIG: self._do_load_rf_config,
            pn5180.RF_ON: self._do_rf_on, pn5180.RF_OFF: self._do_rf_off,
            pn5180.SEND_DATA: self._do_send, pn5180.READ_DATA: self._do_read_data,
        }
        self._power_on()

    @property
    def field(self) -> dict[bytes, int]:
        """The tags in the field now: UID (most significant byte first) -> coupling level."""
        return {uid: level for uid, _, level in self._field}

    @field.setter
    def field(self, tags: dict[bytes, int]) -> None:
        # int.from_bytes: iso15693.uid_value's value, without its loop over the bytes
        self._field = [(uid, int.from_bytes(uid, "big"), level) for uid, level in tags.items()]

    # ------------------------------------------------------------------ faults
    def fail(self) -> None:
        """The chip stops answering (a broken wire, a dead module)."""
        self.dead = True

    def revive(self) -> None:
        self.dead = False
        self._power_on()

    def garble(self, answers: int = 1) -> None:
        """The next ``answers`` answer frames come back with bits flipped (noise on MISO)."""
        self._garble += answers

    # ------------------------------------------------------------------ state
    def _power_on(self) -> None:
        self.regs: dict[int, int] = {}
        self.rf_on = False
        self.selected = False
        self.frame_bytes = 0
        self.frame_in = bytearray()
        self._answer = b""
        self.busy_until = self.clock.now_us + BOOT_US
        self._state = _IDLE
        self._events: dict[int, int] = {pn5180.IRQ_IDLE: self.clock.now_us + BOOT_US}
        self._rx_status = 0
        self._rx_data = b""
        self._inventory: tuple[int, int, bool] | None = None   # mask, mask length, one slot
        self._slot = 0
        self.in_reset = False

    def reset_line(self, level: int) -> None:
        if level == 0:
            self.in_reset = True
        elif self.in_reset:
            self.in_reset = False
            self._power_on()

    def busy_level(self) -> int:
        if self.dead or self.in_reset:
            return 0
        if self.selected:
            return 1 if self.frame_bytes else 0
        return 1 if self.clock.now_us < self.busy_until else 0

    def irq_level(self) -> int:
        if self.dead:
            return 0
        enabled = self.regs.get(pn5180.IRQ_ENABLE, 0)
        return 1 if self._irq_status() & enabled else 0

    def _irq_status(self) -> int:
        now = self.clock.now_us
        status = 0
        for bit, t in self._events.items():
            if t <= now:
                status |= bit
        return status

    # ------------------------------------------------------------------ replay
    def state(self, *, rx: bool = True) -> ChipState:
        """Everything the chip's next answers depend on besides its field and the clock's
        reading, with times relative to now (a time already past as 0: only ``t <= now`` is
        ever asked of it). Two chips in equal states with equal fields answer the same
        instructions alike (:mod:`hw_sim.devices.scan_replay`). Without ``rx``, RX_STATUS and
        the answer's data read 0 and empty (:meth:`rx` gives them)."""
        now = self.clock.now_us
        return ChipState(
            tuple(sorted(self.regs.items())), self.rf_on, self.selected, self.frame_bytes,
            bytes(self.frame_in), self._answer, max(self.busy_until - now, 0), self._state,
            tuple(sorted((bit, max(t - now, 0)) for bit, t in self._events.items())),
            self._rx_status if rx else 0, self._rx_data if rx else b"", self._inventory,
            self._slot, self.in_reset, self.dead, self._garble)

    def rx(self) -> tuple[int, bytes]:
        """RX_STATUS and the data READ_DATA gives, as the last answer left them."""
        return self._rx_status, self._rx_data

    def set_rx(self, rx: tuple[int, bytes]) -> None:
        self._rx_status, self._rx_data = rx

    def set_state(self, state: ChipState) -> None:
        """Put the chip in ``state`` (from :meth:`state`), its times relative to now."""
        now = self.clock.now_us
        self.regs = dict(state.regs)
        self.rf_on, self.selected = state.rf_on, state.selected
        self.frame_bytes, self.frame_in = state.frame_bytes, bytearray(state.frame_in)
        self._answer = state.answer
        self.busy_until = now + state.busy
        self._state = state.rf_state
        self._events = {bit: now + t for bit, t in state.events}
        self._rx_status, self._rx_data = state.rx_status, state.rx_data
        self._inventory, self._slot = state.inventory, state.slot
        self.in_reset, self.dead, self._garble = state.in_reset, state.dead, state.garble

    def heard(self, mask: int, mask_len: int) -> tuple[tuple[int, int], ...]:
        """The tags of the field that an inventory for ``mask`` (its lowest ``mask_len`` UID
        bits) or any sub-round of it can hear: (UID value, coupling level) in field order."""
        low = (1 << mask_len) - 1
        mask &= low
        return tuple((value, level) for _, value, level in self._field if value & low == mask)

    # ------------------------------------------------------------------ SPI
    def select(self, low: bool) -> None:
        if self.dead:
            return
        spi = self.bus.spi
        if low:
            self.selected = True
            self.frame_bytes = 0
            self.frame_in = bytearray()
            spi.selected = self
            return
        if not self.selected:
            return
        self.selected = False
        if spi.selected is self:
            spi.selected = None
        if self.frame_in:
            self._execute(bytes(self.frame_in))
        elif self.frame_bytes:
            self.busy_until = self.clock.now_us + ANSWER_FRAME_US

    def spi_in(self, data: bytes) -> None:
        if self.dead or self.clock.now_us < self.busy_until:
            return
        self.frame_bytes += len(data)
        self.frame_in += data

    def spi_out(self, buf: bytearray) -> None:
        n = len(buf)
        if self.dead:
            buf[:] = b"\xff" * n
            return
        answer = self._answer[:n]
        answer += b"\xff" * (n - len(answer))
        self._answer = b""
        if self._garble:
            self._garble -= 1
            answer = bytes(b ^ 0xA5 for b in answer)
        buf[:] = answer
        self.frame_bytes += n

    # ------------------------------------------------------------------ instructions
    def _execute(self, frame: bytes) -> None:
        self.instructions += 1
        op = frame[0]
        self.busy_until = self.clock.now_us + PROCESSING_US.get(op, 10)
        handler = self._handlers.get(op)
        if handler is None:
            self._events[pn5180.IRQ_GENERAL_ERROR] = self.busy_until
        else:
            handler(frame)

    def _do_write(self, frame: bytes) -> None:
        if len(frame) >= 6:
            mode = {pn5180.WRITE_REGISTER: pn5180.OP_WRITE,
                    pn5180.WRITE_REGISTER_OR_MASK: pn5180.OP_OR}.get(frame[0], pn5180.OP_AND)
            self._write(frame[1], mode, int.from_bytes(frame[2:6], "little"))

    def _do_write_multiple(self, frame: bytes) -> None:
        ops = _MULTIPLE.get(frame)
        if ops is None:
            ops = [(frame[i], frame[i + 1], int.from_bytes(frame[i + 2:i + 6], "little"))
                   for i in range(1, len(frame) - 5, 6)]
            if len(_MULTIPLE) < 256:
                _MULTIPLE[frame] = ops
        for reg, mode, value in ops:
            self._write(reg, mode, value)

    def _do_read(self, frame: bytes) -> None:
        if len(frame) >= 2:
            self._answer = self._read(frame[1]).to_bytes(4, "little")

    def _do_read_multiple(self, frame: bytes) -> None:
        self._answer = b"".join(self._read(r).to_bytes(4, "little") for r in frame[1:])

    def _do_eeprom(self, frame: bytes) -> None:
        if len(frame) >= 3:
            eeprom = bytearray(256)
            eeprom[pn5180.EEPROM_FIRMWARE_VERSION:pn5180.EEPROM_FIRMWARE_VERSION + 2] = (
                FIRMWARE_EEPROM)
            self._answer = bytes(eeprom[frame[1]:frame[1] + frame[2]])

    def _do_load_rf_config(self, frame: bytes) -> None:
        if frame[1:3] == bytes((pn5180.RF_TX_ISO15693, pn5180.RF_RX_ISO15693)):
            self.regs[pn5180.TX_CONFIG] = TX_CONFIG_ISO15693
            self.regs[pn5180.SIGPRO_RM_CONFIG] = SIGPRO_ISO15693

    def _do_rf_on(self, frame: bytes) -> None:
        self.rf_on = True
        self._events[pn5180.IRQ_TX_RFON] = self.busy_until

    def _do_rf_off(self, frame: bytes) -> None:
        self.rf_on = False
        self._inventory = None
        self._state = _IDLE
        for bit in (pn5180.IRQ_RX, pn5180.IRQ_RX_SOF_DET, pn5180.IRQ_TX):
            self._events.pop(bit, None)

    def _do_send(self, frame: bytes) -> None:
        if len(frame) >= 2:
            self._send(frame[2:])

    def _do_read_data(self, frame: bytes) -> None:
        self._answer = self._rx_data

    def _read(self, reg: int) -> int:
        if reg == pn5180.IRQ_STATUS:
            return self._irq_status()
        if reg == pn5180.RX_STATUS:
            return self._rx_status if pn5180.IRQ_RX & self._irq_status() else 0
        if reg == pn5180.RF_STATUS:
            state = self._state
            return ((pn5180.RF_TX_ON if self.rf_on else 0)
                    | (state << pn5180.RF_STATE_SHIFT) | 0x1A0)
        return self.regs.get(reg, 0)

    def _write(self, reg: int, mode: int, value: int) -> None:
        if reg == _IRQ_CLEAR:
            events = self._events
            if events:
                now = self.clock.now_us
                for bit in [b for b, t in events.items() if b & value and t <= now]:
                    del events[bit]
            return
        regs = self.regs
        if mode == _OP_WRITE:
            new = value & 0xFFFFFFFF
        elif mode == _OP_OR:
            new = (regs.get(reg, 0) | value) & 0xFFFFFFFF
        else:
            new = regs.get(reg, 0) & value
        regs[reg] = new
        if reg == _SYSTEM_CONFIG:
            command = new & _COMMAND_MASK
            if command == _COMMAND_IDLE:
                self._state = _IDLE
            elif command == _COMMAND_TRANSCEIVE and self._state == _IDLE:
                self._state = _WAIT_TRANSMIT
            if new & _START_SEND:
                regs[reg] = new & ~_START_SEND   # cleared as the transmission starts
                if command == _COMMAND_TRANSCEIVE:
                    self._send(b"")

    # ------------------------------------------------------------------ air interface
    def _send(self, data: bytes) -> None:
        if not self.rf_on or self._state != _WAIT_TRANSMIT:
            self._events[pn5180.IRQ_GENERAL_ERROR] = self.busy_until
            return
        eof_only = not self.regs.get(pn5180.TX_CONFIG, 0) & pn5180.TX_DATA_AND_SOF
        start = self.busy_until
        if eof_only:
            tx_end = start + int(iso15693.EOF_US)
            if self._inventory is None or self._inventory[2] or self._slot >= 15:
                self._inventory = None
                self._respond(tx_end, [])
                return
            self._slot += 1
        else:
            tx_end = start + iso15693.request_us(data)
            self._inventory = None
            if (len(data) >= 3 and data[0] & 0x04 and data[1] == iso15693.CMD_INVENTORY
                    and len(data) >= 3 + (data[2] + 7) // 8):
                mask_len = data[2]
                mask = int.from_bytes(data[3:3 + (mask_len + 7) // 8], "little")
                mask &= (1 << mask_len) - 1
                self._inventory = (mask, mask_len, bool(data[0] & 0x20))
                self._slot = 0
        self._events[pn5180.IRQ_TX] = tx_end
        self._respond(tx_end, self._responders())

    def _responders(self) -> list[bytes]:
        inv = self._inventory
        if inv is None:
            return []
        mask, mask_len, one_slot = inv
        min_level = (self.regs.get(pn5180.SIGPRO_RM_CONFIG, 0) & pn5180.MIN_LEVEL_MASK) >> (
            pn5180.MIN_LEVEL_SHIFT)
        low = (1 << mask_len) - 1
        out = []
        for uid, value, level in self._field:
            if level < min_level:
                continue
            if value & low != mask:
                continue
            if not one_slot and (value >> mask_len) & 0xF != self._slot:
                continue
            out.append(uid)
        return out

    def _respond(self, tx_end: int, tags: list[bytes]) -> None:
        for bit in (pn5180.IRQ_RX, pn5180.IRQ_RX_SOF_DET):
            self._events.pop(bit, None)
        self._state = _WAIT_RECEIVE
        if not tags:
            return
        sof = tx_end + iso15693.T1_US
        self._events[pn5180.IRQ_RX_SOF_DET] = sof
        self._events[pn5180.IRQ_RX] = sof + iso15693.ANSWER_US
        self.answers += 1
        if len(tags) == 1:
            self._rx_status = iso15693.ANSWER_BYTES
            self._rx_data = bytes((0, 0)) + bytes(reversed(tags[0]))
        else:
            self._rx_status = (pn5180.RX_COLLISION | pn5180.RX_DATA_INTEGRITY_ERROR
                               | iso15693.ANSWER_BYTES)
            self._rx_data = bytes(iso15693.ANSWER_BYTES)
        self._state = _WAIT_TRANSMIT


class SimBus:
    """The Pico's SPI bus with ``count`` PN5180 chips, one per antenna."""

    def __init__(self, count: int) -> None:
        self.clock = BusClock()
        self.spi = SimSpi(self.clock)
        self.chips = [SimPn5180(self, f"antenna {i}") for i in range(count)]

    def driver(self, index: int) -> pn5180.Pn5180:
        """The firmware's driver for chip ``index``, wired to its pins on this bus."""
        chip = self.chips[index]
        return pn5180.Pn5180(self.spi, chip.nss, chip.busy, chip.rst, chip.irq, self.clock,
                             name=f"antenna {index}")
