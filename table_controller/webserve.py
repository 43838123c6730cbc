"""Serve an ASGI app with uvicorn on a thread of its own, for the processes that have other work
on their main thread (the floor's followers, the table's controller loop).

``listen`` is ``HOST:PORT``; port 0 takes a free one (tests), :attr:`WebServer.port` says which.
Loopback unless the configuration says otherwise; TLS when a certificate and key are given.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio
import uvicorn


class WebServerError(RuntimeError):
    """The server could not start; the text names the address."""


def parse_listen(listen: str, *, where: str) -> tuple[str, int]:
    """``"127.0.0.1:8080"`` -> ("127.0.0.1", 8080); ``[::1]:8080`` for IPv6."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535 or not host:
        raise WebServerError(f"{where}: {listen!r} is not HOST:PORT (e.g. 127.0.0.1:8080)")
    return host.strip("[]"), int(port)


def is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def load_anyio() -> None:
    """Import every part of anyio now. anyio, under Starlette, imports each of its parts the
    first time it is used: serving the first file of a page would import its file functions
    on the server's thread, in the middle of a request (on a Pi, a slower first page), and
    beside the process's other threads importing too (CPython 3.11.7's gh-106905 then breaks
    the parse of a module that is compiled at import, as a test run's are). Done once per
    process, on the thread that creates the server."""
    for name in dir(anyio):
        getattr(anyio, name)


class WebServer:
    def __init__(self, app: Any, host: str, port: int, *, certfile: str | None = None,
                 keyfile: str | None = None) -> None:
        config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                                access_log=False, lifespan="off", ssl_certfile=certfile,
                                ssl_keyfile=keyfile, timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        load_anyio()
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._error: BaseException | None = None
        self.host = host
        self.port = port

    def _run(self) -> None:
        try:
            asyncio.run(self._server.serve())
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self, timeout: float = 10.0) -> WebServer:
        self._thread.start()
        deadline = threading.Event()
        for _ in range(int(timeout / 0.01)):
            if self._server.started or not self._thread.is_alive():
                break
            deadline.wait(0.01)
        if not self._server.started:
            self.stop()
            raise WebServerError(f"cannot serve on {self.host}:{self.port}: "
                                 f"{self._error or 'the server did not start'}")
        sockets = [s for server in self._server.servers for s in server.sockets]
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        return self

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)
