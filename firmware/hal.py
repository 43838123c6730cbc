"""The hardware interfaces the firmware's core and its PN5180 driver are written against.

For type checkers only: the firmware modules import this module under ``if TYPE_CHECKING:``,
so it never runs on the device (MicroPython has no ``typing``). On the Pico, ``machine.Pin``,
``machine.SPI`` and the ``time`` module satisfy these protocols; in the simulator,
``hw_sim.devices.pn5180_sim`` provides simulated ones.
"""

from typing import Any, Protocol


class Pin(Protocol):
    """A GPIO line: ``value()`` reads it, ``value(v)`` drives it."""

    def value(self, __v: int = ...) -> int: ...


class Spi(Protocol):
    """An SPI master (mode 0); chip select is a separate :class:`Pin`."""

    def write(self, __buf: bytes) -> int | None: ...

    def readinto(self, __buf: bytearray, __write: int = ...) -> int | None: ...


class Timer(Protocol):
    """Microsecond time for the reader drivers (MicroPython's ``time`` module has these). Ticks
    are opaque (they wrap on the Pico): only :meth:`ticks_diff` compares them."""

    def ticks_us(self) -> Any: ...

    def ticks_diff(self, __a: Any, __b: Any) -> int: ...

    def sleep_us(self, __us: int) -> None: ...


class Clock(Protocol):
    """Millisecond and microsecond ticks for the session (heartbeats, durations)."""

    def ticks_ms(self) -> Any: ...

    def ticks_us(self) -> Any: ...

    def ticks_diff(self, __a: Any, __b: Any) -> int: ...


class Port(Protocol):
    """The link to the Pi. ``write`` returns False when the bytes could not be sent (USB
    gone, or the host not reading); ``kind`` is the message type of the frame (0 for fill)."""

    def write(self, __data: bytes, __kind: int) -> bool: ...


class Reader(Protocol):
    """One antenna's reader, as the scan schedule uses it (:class:`firmware.antenna.Antenna`)."""

    def scan(self) -> dict[bytes, int]: ...

    def fresh(self, uid: bytes) -> bool: ...

    def forget(self, uid: bytes) -> None: ...

    def expect(self, uid: bytes) -> None: ...

    def measure(self, uid: bytes) -> int | None: ...

    def recover(self) -> None: ...

    @property
    def rolling(self) -> bool: ...
