"""RfidService: the RFID chain of a table in one object, built from its configuration.

    service = RfidService(config=RfidConfig.from_dict(toml["rfid"]), resolver=registry)
    service.start()
    obs = service.reader.observations.get()      # or pass sink=... to receive them
    service.stop()

It wires a :class:`~firmware_bridge.link.SerialLink` (port, handshake, reconnection) to a
:class:`~firmware_bridge.reader.RfidReader` (debouncing, zones, identities); see
docs/protocol.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from firmware_bridge.link import SerialLink
from firmware_bridge.reader import RfidReader
from firmware_bridge.rfid_config import RfidConfig
from firmware_bridge.tags import TagResolver
from table_controller.vocabulary.observations import Observation


class RfidService:
    def __init__(
        self,
        *,
        config: RfidConfig,
        resolver: TagResolver,
        sink: Callable[[Observation], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.reader = RfidReader(resolver=resolver, config=config.reader, sink=sink, clock=clock)
        self.link = SerialLink(url=config.port, listener=self.reader, config=config.link)
        self.reader.bind(self.link.send)

    def start(self) -> None:
        self.link.start()

    def stop(self) -> None:
        self.link.stop()

    def __enter__(self) -> RfidService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
