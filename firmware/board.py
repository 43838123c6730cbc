"""The Raspberry Pi Pico / Pico 2 board: pins, SPI, USB serial, watchdog, lamp and buzzer.

MicroPython only (``machine``, ``select``, ``micropython``); everything else is in the core.
The wiring is in docs/firmware.md. Pin budget: 14 PN5180s need 14 chip selects, 14 BUSY, 14
IRQ and 14 reset lines, more than the Pico has, so

- the chip selects come from a 74HC154 4-to-16 decoder: address lines A0-A3 pick the chip,
  NSS_EN (the decoder's enable) pulls that chip's NSS low;
- BUSY and IRQ come back through two 74HC4067 16:1 multiplexers on the same address lines,
  so the pin read is always the selected chip's (the driver talks to one chip at a time);
- the resets come from two chained 74HC595 shift registers (on SPI1), one output per chip, so
  one faulty reader is reset without touching the others.
"""

import select
import sys
import time

import machine
import micropython

from firmware import messages
from firmware.antenna import Antenna
from firmware.controller import AntennaController
from firmware.pn5180 import ChipError, Pn5180

ANTENNAS = 14
SPI_BAUD = 7_000_000           # the PN5180's maximum SPI clock
SCK, MOSI, MISO = 18, 19, 16   # SPI0
ADDRESS = (2, 3, 4, 5)         # A0-A3 of the decoder and both multiplexers
NSS_EN = 6                     # 74HC154 /G1 and /G2
BUSY = 7                       # 74HC4067 #1 common pin
IRQ = 8                        # 74HC4067 #2 common pin
RST_SCK, RST_MOSI, RST_LATCH = 10, 11, 9   # SPI1 to the 74HC595 chain
LAMP = 14
BUZZER = 15                    # passive piezo, driven by PWM
MAINTENANCE = 22               # jumpered to GND at power-up: stay in the REPL (for mpremote)
BUZZER_HZ = 2700
WATCHDOG_MS = 5000
SCAN_PERIOD_MS = 100
READ_MAX = 64                  # host bytes taken per loop


class Address:
    """The four address lines shared by the NSS decoder and the two multiplexers."""

    def __init__(self) -> None:
        self.lines = [machine.Pin(p, machine.Pin.OUT, value=0) for p in ADDRESS]
        self.enable = machine.Pin(NSS_EN, machine.Pin.OUT, value=1)
        self.current = 0

    def select(self, chip: int) -> None:
        if chip == self.current:
            return
        if not self.enable.value():
            raise ChipError(f"antenna {chip}: addressed while antenna {self.current} is selected")
        for i, line in enumerate(self.lines):
            line.value((chip >> i) & 1)
        self.current = chip


class DecodedNss:
    """Chip select ``chip`` through the decoder."""

    def __init__(self, address: Address, chip: int) -> None:
        self.address = address
        self.chip = chip

    def value(self, v: int = -1) -> int:
        if v == 0:
            self.address.select(self.chip)
            self.address.enable.value(0)
        elif v == 1:
            self.address.enable.value(1)
        return int(self.address.enable.value())


class MuxedInput:
    """Chip ``chip``'s BUSY or IRQ line, read through its multiplexer."""

    def __init__(self, address: Address, chip: int, pin: machine.Pin) -> None:
        self.address = address
        self.chip = chip
        self.pin = pin

    def value(self, v: int = -1) -> int:
        self.address.select(self.chip)
        return int(self.pin.value())


class Resets:
    """The 74HC595 chain: one active-low reset output per chip, all high (running) at start."""

    def __init__(self) -> None:
        self.spi = machine.SPI(1, baudrate=1_000_000, sck=machine.Pin(RST_SCK),
                               mosi=machine.Pin(RST_MOSI))
        self.latch = machine.Pin(RST_LATCH, machine.Pin.OUT, value=0)
        self.bits = 0xFFFF
        self._shift()

    def _shift(self) -> None:
        self.spi.write(bytes((self.bits >> 8, self.bits & 0xFF)))
        self.latch.value(1)
        self.latch.value(0)

    def set(self, chip: int, level: int) -> None:
        if level:
            self.bits |= 1 << chip
        else:
            self.bits &= ~(1 << chip)
        self._shift()


class ResetLine:
    def __init__(self, resets: Resets, chip: int) -> None:
        self.resets = resets
        self.chip = chip

    def value(self, v: int = -1) -> int:
        if v >= 0:
            self.resets.set(self.chip, v)
        return (self.resets.bits >> self.chip) & 1


class UsbPort:
    """The USB CDC serial port (MicroPython's stdin/stdout, raw bytes). Writes to a host that
    is not listening are dropped by MicroPython (the port reports them as sent); a write that
    times out returns short and counts as failed."""

    def __init__(self) -> None:
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.rx = sys.stdin.buffer
        self.tx = sys.stdout.buffer

    def write(self, data: bytes, kind: int) -> bool:
        n = self.tx.write(data)
        return n is None or n == len(data)

    def read(self) -> bytes:
        out = bytearray()
        while len(out) < READ_MAX and self.poll.poll(0):
            chunk = self.rx.read(1)
            if not chunk:
                break
            out += chunk
        return bytes(out)


def build(spi: machine.SPI) -> list[Antenna]:
    address = Address()
    busy = machine.Pin(BUSY, machine.Pin.IN)
    irq = machine.Pin(IRQ, machine.Pin.IN)
    resets = Resets()
    return [Antenna(Pn5180(spi, DecodedNss(address, i), MuxedInput(address, i, busy),
                           ResetLine(resets, i), MuxedInput(address, i, irq), time,
                           name=f"antenna {i}"))
            for i in range(ANTENNAS)]


def run() -> None:
    """The firmware's main loop; never returns (the watchdog resets the board if it hangs)."""
    if machine.Pin(MAINTENANCE, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        return                     # maintenance jumper: leave the REPL to mpremote
    watchdog_reset = machine.reset_cause() == machine.WDT_RESET
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    micropython.kbd_intr(-1)       # 0x03 in a frame is data, not Ctrl-C
    spi = machine.SPI(0, baudrate=SPI_BAUD, polarity=0, phase=0, sck=machine.Pin(SCK),
                      mosi=machine.Pin(MOSI), miso=machine.Pin(MISO))
    lamp = machine.Pin(LAMP, machine.Pin.OUT, value=0)
    buzzer = machine.PWM(machine.Pin(BUZZER))
    buzzer.freq(BUZZER_HZ)
    buzzer.duty_u16(0)
    port = UsbPort()
    core = AntennaController(list(build(spi)), port, time, time, scan_period_ms=SCAN_PERIOD_MS)
    core.power_up()
    if watchdog_reset:
        core.send_error(messages.INTERNAL, messages.NO_ANTENNA, "restarted by the watchdog")
    while True:
        wdt.feed()
        data = port.read()
        if data:
            core.receive(data)
        core.service()
        lamp.value(core.lamp_level())
        buzzer.duty_u16(32768 if core.buzzer_level() else 0)
        if core.cycle_due():
            core.scan_next()       # one antenna per turn: the host is answered in between
