"""The floor as one process: the store, the hub, a follower per table, the dashboard, and the
clock that marks silent tables offline (``table-controller floor --config floor.toml``,
docs/floor.md)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import zmq

from table_controller.floor.auth import Auth
from table_controller.floor.config import FloorConfig
from table_controller.floor.follower import Follower
from table_controller.floor.hub import FloorHub
from table_controller.floor.store import FloorStore, StoreError
from table_controller.floor.web import create_app
from table_controller.webserve import WebServer, WebServerError

log = logging.getLogger(__name__)

SILENCE_CHECK = 0.25
"""Seconds between two looks for silent tables (a table is offline within 5 s + this)."""


class FloorStartError(RuntimeError):
    """The store or the web server could not be opened; the text names it."""


class FloorService:
    def __init__(self, config: FloorConfig, *, context: zmq.Context[Any] | None = None
                 ) -> None:
        self.config = config
        try:
            self.store = FloorStore.open(config.store)
        except StoreError as exc:
            raise FloorStartError(str(exc)) from None
        self.hub = FloorHub(self.store, {t.id: t.name for t in config.tables}, time.monotonic)
        self.auth = Auth(self.store, time.time)
        self._ctx = context or zmq.Context.instance()
        self.followers = [Follower(link, self.hub, client=config.name, context=self._ctx)
                          for link in config.tables]
        self.web = WebServer(create_app(self.hub, self.auth, secure_cookie=config.tls),
                             config.host, config.port,
                             certfile=None if config.tls_cert is None else str(config.tls_cert),
                             keyfile=None if config.tls_key is None else str(config.tls_key))

    @property
    def url(self) -> str:
        scheme = "https" if self.config.tls else "http"
        return self.web.url.replace("http", scheme, 1)

    def start(self) -> FloorService:
        try:
            self.web.start()
        except WebServerError as exc:
            self.store.close()
            raise FloorStartError(str(exc)) from None
        for follower in self.followers:
            follower.start()
        return self

    def run(self, stop: threading.Event) -> None:
        """Mark silent tables offline until ``stop`` is set."""
        while not stop.wait(SILENCE_CHECK):
            try:
                self.hub.check_silence()
            except Exception:  # the store failing a read must not stop the floor
                log.exception("checking for silent tables failed")

    def close(self) -> None:
        for follower in self.followers:
            follower.stop()
        self.web.stop()
        self.store.close()
