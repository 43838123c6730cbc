"""GPIO backends, chosen by name: ``"rpi"`` (RPi.GPIO, or rpi-lgpio on a Pi 5) or ``"sim"`` (the
hardware simulator's pins, :mod:`hw_sim.devices.gpio`).

A backend's module is imported only when that backend is opened, so this package imports on any
machine and choosing ``"sim"`` never imports RPi.GPIO. The simulator is never a default: the
configuration names the backend (``gpio = "rpi"`` on a table).
"""

from __future__ import annotations

import importlib
from typing import Any

from firmware_bridge.gpio.base import (
    BackendUnavailable,
    Edge,
    EdgeCallback,
    GpioBackend,
    GpioError,
    Pull,
)

__all__ = ["BACKENDS", "BackendUnavailable", "Edge", "EdgeCallback", "GpioBackend", "GpioError",
           "Pull", "open_backend"]

# name -> "module:class"; the module is imported by open_backend only.
BACKENDS: dict[str, str] = {
    "rpi": "firmware_bridge.gpio.rpi:RpiGpio",
    "sim": "hw_sim.devices.gpio:SimGpio",
}


def open_backend(name: str, **options: Any) -> GpioBackend:
    """Open the backend ``name`` (``options`` go to its constructor).

    Raises :class:`GpioError` for an unknown name (listing the known ones) and
    :class:`BackendUnavailable` when the backend cannot run on this machine.
    """
    target = BACKENDS.get(name.strip().lower())
    if target is None:
        raise GpioError(f"unknown GPIO backend {name!r}; choose one of: {', '.join(BACKENDS)}")
    module_name, class_name = target.split(":")
    module = importlib.import_module(module_name)
    backend = getattr(module, class_name)(**options)
    if not isinstance(backend, GpioBackend):
        raise GpioError(f"{target} is not a GpioBackend")
    return backend
