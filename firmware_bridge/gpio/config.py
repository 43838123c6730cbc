"""Configuration of the table's GPIO, e.g. the ``[gpio]`` table of the table's TOML file.

```toml
[gpio]
backend = "rpi"            # "rpi" on a table (RPi.GPIO or rpi-lgpio), "sim" in the simulator
button = 17                # BCM pin of the shuffler's green button (to GND, internal pull-up)
button_active_low = true   # pressed reads low (button to GND); false: button to 3.3 V
debounce = 0.025           # seconds the button must hold still (firmware_bridge.button)
red = 22                   # BCM pins of the lamp and buzzer drivers (docs/wiring.md)
amber = 23
buzzer = 24
outputs_active_low = false # true for driver boards that switch on a low input
```
Every key is optional; the defaults are the wiring of docs/wiring.md. A wrong key or value raises
:class:`GpioConfigError` naming it; nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from firmware_bridge.button import DEBOUNCE_S
from firmware_bridge.gpio import BACKENDS
from firmware_bridge.gpio.base import BCM_PINS

# Pins the defaults avoid: 0/1 (HAT ID EEPROM), 2/3 (I2C, fixed pull-ups), 14/15 (UART).
RESERVED_PINS = frozenset({0, 1, 2, 3, 14, 15})


class GpioConfigError(ValueError):
    """A configuration key or value that is wrong; the text names it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GpioConfig:
    backend: str = "rpi"
    button: int = 17
    button_active_low: bool = True
    debounce: float = DEBOUNCE_S
    red: int = 22
    amber: int = 23
    buzzer: int = 24
    outputs_active_low: bool = False

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise GpioConfigError(f"gpio.backend: {self.backend!r} is not one of "
                                  f"{', '.join(BACKENDS)}")
        pins = {"button": self.button, "red": self.red, "amber": self.amber,
                "buzzer": self.buzzer}
        for name, pin in pins.items():
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in BCM_PINS:
                raise GpioConfigError(f"gpio.{name}: {pin!r} is not a BCM pin number 0..27")
        seen: dict[int, str] = {}
        for name, pin in pins.items():
            if pin in seen:
                raise GpioConfigError(f"gpio.{name}: pin {pin} is also gpio.{seen[pin]}")
            seen[pin] = name
        for name in ("button_active_low", "outputs_active_low"):
            if not isinstance(getattr(self, name), bool):
                raise GpioConfigError(f"gpio.{name}: {getattr(self, name)!r} is not true/false")
        value = self.debounce
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 0.5:
            raise GpioConfigError(f"gpio.debounce: {value!r} must be seconds in (0, 0.5]")

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> GpioConfig:
        """Build from the ``[gpio]`` TOML table; raises :class:`GpioConfigError` naming the key."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise GpioConfigError(f"gpio: unknown key(s) {unknown}; known: {sorted(known)}")
        return cls(**dict(table))
