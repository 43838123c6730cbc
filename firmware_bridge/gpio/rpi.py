"""The ``"rpi"`` GPIO backend: the RPi.GPIO API.

On a Raspberry Pi 3 or 4 that is the RPi.GPIO package (the ``pi`` extra). On a Raspberry Pi 5
RPi.GPIO cannot reach the pins (the RP1 chip); the ``rpi-lgpio`` package provides the same
``RPi.GPIO`` module on top of the kernel's gpiochip interface and this backend works through it
unchanged (see docs/wiring.md). The two packages cannot be installed together.

``RPi.GPIO`` is imported when an :class:`RpiGpio` is created, never when this module is imported.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType
from typing import Any

from firmware_bridge.gpio.base import (
    BackendUnavailable,
    Edge,
    EdgeCallback,
    GpioBackend,
    GpioError,
    Pull,
    check_pin,
)

INSTALL_HINT = ("install the 'pi' extra (pip install 'table-controller[pi]') on a Raspberry Pi 3 "
                "or 4; on a Raspberry Pi 5 install rpi-lgpio instead (pip install rpi-lgpio), "
                "which provides RPi.GPIO")


def _import_rpi_gpio() -> ModuleType:
    try:
        return importlib.import_module("RPi.GPIO")
    except ImportError as exc:
        raise BackendUnavailable(
            f"the 'rpi' GPIO backend needs the RPi.GPIO package, which is not installed "
            f"({exc}): {INSTALL_HINT}; off a Pi use the 'sim' backend") from None
    except RuntimeError as exc:  # RPi.GPIO's "This module can only be run on a Raspberry Pi!"
        raise BackendUnavailable(
            f"RPi.GPIO cannot run on this machine ({exc}); the 'rpi' backend needs a Raspberry "
            "Pi, use 'sim' elsewhere") from None


class RpiGpio(GpioBackend):
    """GPIO through RPi.GPIO (or rpi-lgpio), BCM numbering."""

    name = "rpi"

    def __init__(self) -> None:
        self._gpio: Any = _import_rpi_gpio()
        try:
            self._gpio.setwarnings(False)
            self._gpio.setmode(self._gpio.BCM)
        except (RuntimeError, OSError) as exc:
            raise BackendUnavailable(f"RPi.GPIO cannot open the GPIO chip: {exc}") from None
        self._lock = threading.Lock()
        self._inputs: set[int] = set()
        self._outputs: dict[int, bool] = {}
        self._callbacks: dict[int, list[EdgeCallback]] = {}

    def setup_input(self, pin: int, *, pull: Pull) -> None:
        check_pin(pin)
        pud = {Pull.UP: self._gpio.PUD_UP, Pull.DOWN: self._gpio.PUD_DOWN,
               Pull.OFF: self._gpio.PUD_OFF}[Pull(pull)]
        self._call(pin, "set up as input", self._gpio.setup, pin, self._gpio.IN,
                   pull_up_down=pud)
        with self._lock:
            self._outputs.pop(pin, None)
            self._inputs.add(pin)

    def read(self, pin: int) -> bool:
        with self._lock:
            if pin not in self._inputs and pin not in self._outputs:
                raise GpioError(f"GPIO{pin} is not set up")
        return bool(self._call(pin, "read", self._gpio.input, pin))

    def add_edge_callback(self, pin: int, callback: EdgeCallback, *,
                          edge: Edge = Edge.BOTH) -> None:
        with self._lock:
            if pin not in self._inputs:
                raise GpioError(f"GPIO{pin} is not set up as an input")
            first = pin not in self._callbacks
            self._callbacks.setdefault(pin, []).append(
                callback if edge is Edge.BOTH else _only(edge, callback))
        if first:
            # RPi.GPIO allows one edge detector per pin: ours fans out to every callback. No
            # bouncetime: debouncing is done by the device (firmware_bridge.button).
            self._call(pin, "watch edges of", self._gpio.add_event_detect, pin, self._gpio.BOTH,
                       callback=self._dispatch)

    def remove_edge_callbacks(self, pin: int) -> None:
        with self._lock:
            had = self._callbacks.pop(pin, None) is not None
        if had:
            self._call(pin, "stop watching", self._gpio.remove_event_detect, pin)

    def setup_output(self, pin: int, *, initial: bool = False) -> None:
        check_pin(pin)
        level = self._gpio.HIGH if initial else self._gpio.LOW
        self._call(pin, "set up as output", self._gpio.setup, pin, self._gpio.OUT, initial=level)
        with self._lock:
            self._inputs.discard(pin)
            self._outputs[pin] = initial

    def write(self, pin: int, level: bool) -> None:
        with self._lock:
            if pin not in self._outputs:
                raise GpioError(f"GPIO{pin} is not set up as an output")
            self._outputs[pin] = level
        self._call(pin, "write", self._gpio.output, pin,
                   self._gpio.HIGH if level else self._gpio.LOW)

    def cleanup(self) -> None:
        with self._lock:
            pins = sorted(self._inputs | set(self._outputs))
            watched = list(self._callbacks)
            self._inputs.clear()
            self._outputs.clear()
            self._callbacks.clear()
        for pin in watched:
            self._call(pin, "stop watching", self._gpio.remove_event_detect, pin)
        if pins:
            self._gpio.cleanup(pins)

    def _dispatch(self, pin: int) -> None:
        """RPi.GPIO's event thread: read the level after the edge and fan it out."""
        level = bool(self._gpio.input(pin))
        with self._lock:
            callbacks = list(self._callbacks.get(pin, ()))
        for callback in callbacks:
            callback(pin, level)

    def _call(self, pin: int, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (RuntimeError, ValueError, OSError) as exc:
            raise GpioError(f"cannot {what} GPIO{pin}: {exc}") from None


def _only(edge: Edge, callback: EdgeCallback) -> EdgeCallback:
    want = edge is Edge.RISING

    def filtered(pin: int, level: bool) -> None:
        if level == want:
            callback(pin, level)

    return filtered
