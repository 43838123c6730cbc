"""The GPIO backend interface: the few pin operations the button and the alert outputs need.

Pins are BCM numbers (``GPIO17``, not header pin 11). Levels are booleans: True is high (3.3 V).
Devices (:mod:`firmware_bridge.button`, :mod:`firmware_bridge.outputs`) never touch hardware
themselves; they are given a backend (gpiozero's pin-factory idea, STYLE.md), chosen by name with
:func:`firmware_bridge.gpio.open_backend`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from enum import StrEnum

BCM_PINS = range(28)  # GPIO0..GPIO27 on the 40-pin header of every Pi since the B+

EdgeCallback = Callable[[int, bool], None]
"""Called with (pin, level read just after the edge). It may run on the backend's own thread."""


class GpioError(Exception):
    """A pin operation that cannot be done (pin not set up, wrong direction, bad pin number)."""


class BackendUnavailable(GpioError):
    """The chosen backend cannot run here (its package is missing, not a Raspberry Pi)."""


class Pull(StrEnum):
    UP = "up"
    DOWN = "down"
    OFF = "off"


class Edge(StrEnum):
    RISING = "rising"
    FALLING = "falling"
    BOTH = "both"


class GpioBackend(ABC):
    """One GPIO chip. Every method raises :class:`GpioError` naming the pin on misuse."""

    name: str = "abstract"

    @abstractmethod
    def setup_input(self, pin: int, *, pull: Pull) -> None:
        """Make ``pin`` an input with the given pull resistor."""

    @abstractmethod
    def read(self, pin: int) -> bool:
        """The level of an input (or the last level written to an output)."""

    @abstractmethod
    def add_edge_callback(self, pin: int, callback: EdgeCallback, *,
                          edge: Edge = Edge.BOTH) -> None:
        """Call ``callback(pin, level)`` on every ``edge`` of input ``pin``.

        Backends do no debouncing: every bounce of a contact is delivered (or lost, on real
        hardware when edges come faster than the kernel reports them); debouncing is the
        device's job, and it also polls with :meth:`read`.
        """

    @abstractmethod
    def remove_edge_callbacks(self, pin: int) -> None:
        """Stop calling the callbacks of ``pin``."""

    @abstractmethod
    def setup_output(self, pin: int, *, initial: bool = False) -> None:
        """Make ``pin`` an output driving ``initial``."""

    @abstractmethod
    def write(self, pin: int, level: bool) -> None:
        """Drive output ``pin``."""

    @abstractmethod
    def cleanup(self) -> None:
        """Release every pin this backend set up (outputs return to inputs)."""

    def __enter__(self) -> GpioBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def check_pin(pin: int) -> None:
    if isinstance(pin, bool) or not isinstance(pin, int) or pin not in BCM_PINS:
        raise GpioError(f"GPIO{pin!r} is not a BCM pin number (0..27)")
