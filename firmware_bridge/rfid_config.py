"""Configuration of the RFID link and reader, e.g. the ``[rfid]`` table of the table's TOML file.

```toml
[rfid]
port = "/dev/serial/by-id/usb-Table_RFID_controller-if00"   # a device path or a pyserial URL
baudrate = 115200
hold_time = 0.6            # seconds a tag may miss reads and still count as present
[rfid.antennas]            # antenna number (as the controller numbers them) = zone
0 = "seat1"
10 = "board"
```
Every key is optional except ``port``. A wrong key or value raises :class:`RfidConfigError`
naming it; nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from table_controller.vocabulary.zones import (
    BOARD,
    BURN,
    MUCK,
    SEAT_ZONES,
    SHUFFLER,
    ZoneError,
    check_zone,
)


class RfidConfigError(ValueError):
    """A configuration key or value that is wrong; the text names it."""


def _default_antennas() -> Mapping[int, str]:
    zones = (*SEAT_ZONES, BOARD, BURN, MUCK, SHUFFLER)
    return MappingProxyType(dict(enumerate(zones)))


DEFAULT_ANTENNA_ZONES: Mapping[int, str] = _default_antennas()
"""Antenna 0..9 -> seat1..seat10, 10 board, 11 burn, 12 muck, 13 shuffler (docs/protocol.md)."""

DEFAULT_HOLD_TIME = 0.6
"""Seconds; twice the longest read dropout of the simulator's flicker model (3 scan cycles of
0.1 s), see docs/protocol.md §6."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderConfig:
    antenna_zones: Mapping[int, str] = field(default_factory=_default_antennas)
    hold_time: float = DEFAULT_HOLD_TIME
    inventory_timeout: float = 1.0

    def __post_init__(self) -> None:
        for antenna, zone in self.antenna_zones.items():
            if isinstance(antenna, bool) or not isinstance(antenna, int) or not 0 <= antenna <= 254:
                raise RfidConfigError(f"rfid.antennas: antenna {antenna!r} is not a number 0..254")
            try:
                check_zone(zone)
            except ZoneError as exc:
                raise RfidConfigError(f"rfid.antennas.{antenna}: {exc}") from None
        if not self.hold_time > 0:
            raise RfidConfigError(f"rfid.hold_time: {self.hold_time!r} must be > 0 seconds")
        if not self.inventory_timeout > 0:
            raise RfidConfigError(
                f"rfid.inventory_timeout: {self.inventory_timeout!r} must be > 0 seconds")


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkConfig:
    baudrate: int = 115200
    heartbeat_interval: float = 0.5
    rx_timeout: float = 1.5
    handshake_timeout: float = 1.0
    backoff_initial: float = 0.1
    backoff_max: float = 2.0
    read_timeout: float = 0.02

    def __post_init__(self) -> None:
        baud = self.baudrate
        if not isinstance(baud, int) or isinstance(baud, bool) or baud <= 0:
            raise RfidConfigError(f"rfid.baudrate: {self.baudrate!r} is not a positive integer")
        for name in ("heartbeat_interval", "rx_timeout", "handshake_timeout", "backoff_initial",
                     "backoff_max", "read_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise RfidConfigError(f"rfid.{name}: {value!r} must be a number > 0 (seconds)")
        if self.rx_timeout <= self.heartbeat_interval:
            raise RfidConfigError("rfid.rx_timeout must be longer than rfid.heartbeat_interval")
        if self.backoff_max < self.backoff_initial:
            raise RfidConfigError("rfid.backoff_max must be >= rfid.backoff_initial")


@dataclass(frozen=True, slots=True, kw_only=True)
class RfidConfig:
    port: str
    link: LinkConfig = field(default_factory=LinkConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> RfidConfig:
        """Build from the ``[rfid]`` TOML table; raises :class:`RfidConfigError` naming the key."""
        known_link = {"baudrate", "heartbeat_interval", "rx_timeout", "handshake_timeout",
                      "backoff_initial", "backoff_max", "read_timeout"}
        known_reader = {"hold_time", "inventory_timeout"}
        unknown = set(table) - known_link - known_reader - {"port", "antennas"}
        if unknown:
            raise RfidConfigError(f"rfid: unknown key(s) {sorted(unknown)}")
        port = table.get("port")
        if not isinstance(port, str) or not port:
            raise RfidConfigError("rfid.port: required, a device path or a pyserial URL")
        antennas: Mapping[int, str] = DEFAULT_ANTENNA_ZONES
        raw = table.get("antennas")
        if raw is not None:
            if not isinstance(raw, Mapping):
                raise RfidConfigError("rfid.antennas: expected a table of antenna = zone")
            parsed: dict[int, str] = {}
            for key, zone in raw.items():
                try:
                    number = int(key)
                except (TypeError, ValueError):
                    raise RfidConfigError(f"rfid.antennas: key {key!r} is not a number") from None
                if not isinstance(zone, str):
                    raise RfidConfigError(f"rfid.antennas.{key}: {zone!r} is not a zone name")
                parsed[number] = zone
            antennas = MappingProxyType(parsed)
        try:
            link = LinkConfig(**{k: table[k] for k in known_link if k in table})
            reader = ReaderConfig(antenna_zones=antennas,
                                  **{k: table[k] for k in known_reader if k in table})
        except TypeError as exc:
            raise RfidConfigError(f"rfid: {exc}") from None
        return cls(port=port, link=link, reader=reader)
