"""The event bus (pyzmq PUB) and the dealer console's request channel (pyzmq REP).

Events are two-frame messages ``[topic, json]`` (UTF-8) on two PUB sockets:

- **public** (``bus.public``): what anyone at the table may know. Alerts have hole cards
  removed from ``cards`` and from their text (alerts.md: hole cards appear only on channels
  allowed to carry them); no card observations.
- **floor** (``bus.floor``): the dealer display, the floor and the surveillance room: every
  alert with every card. Bind it to ``ipc://`` or a private interface only.

Topics: ``alert`` (the alerts.md object), ``hand_start``, ``hand_end``, ``action`` (each console
request the controller accepted), ``sensor`` (a sensor went offline or came back). A SUB socket
subscribes by prefix (``alert`` or ``""`` for all).

Publishing never blocks and never raises: a message the socket refuses is kept (up to
:data:`OUTBOX_LIMIT`) and sent again on the next :meth:`EventBus.publish` or
:meth:`EventBus.retry`; failures are logged once per outage.

The console channel is a REP socket (``bus.console``): the console sends one JSON object, the
controller answers one JSON object (``{"ok": true, ...}`` or ``{"ok": false, "error": ...}``).
See docs/running.md for the requests.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import zmq

log = logging.getLogger(__name__)

TOPICS = ("alert", "alert_resolved", "hand_start", "hand_end", "action", "sensor")
OUTBOX_LIMIT = 10_000
MAX_REQUEST_BYTES = 64 * 1024


class BusError(RuntimeError):
    """An endpoint cannot be bound; the text names it."""


def _bind(ctx: zmq.Context[Any], kind: int, endpoint: str) -> zmq.Socket[Any]:
    if endpoint.startswith("ipc://"):  # the socket file's folder, e.g. /run/table-controller
        with contextlib.suppress(OSError):
            Path(endpoint[len("ipc://"):]).parent.mkdir(parents=True, exist_ok=True)
    sock: zmq.Socket[Any] = ctx.socket(kind)
    sock.setsockopt(zmq.LINGER, 500)
    try:
        sock.bind(endpoint)
    except zmq.ZMQError as exc:
        sock.close(0)
        raise BusError(f"cannot bind {endpoint}: {exc}") from None
    return sock


class EventBus:
    """The two PUB sockets. ``floor=None``: no private channel (nothing carries hole cards)."""

    def __init__(self, *, public: str, floor: str | None,
                 context: zmq.Context[Any] | None = None) -> None:
        self._ctx = context or zmq.Context.instance()
        self._public = _bind(self._ctx, zmq.PUB, public)
        try:
            self._floor = None if floor is None else _bind(self._ctx, zmq.PUB, floor)
        except BusError:
            self._public.close(0)
            raise
        self.public_endpoint = self._endpoint(self._public)
        self.floor_endpoint = None if self._floor is None else self._endpoint(self._floor)
        self._outbox: deque[tuple[zmq.Socket[Any], bytes, bytes]] = deque()
        self._failing = False
        self.dropped = 0
        self.sent = 0

    @staticmethod
    def _endpoint(sock: zmq.Socket[Any]) -> str:
        value = sock.getsockopt(zmq.LAST_ENDPOINT)
        return value.decode() if isinstance(value, bytes) else str(value)

    def publish(self, topic: str, *, public: Mapping[str, Any] | None,
                floor: Mapping[str, Any] | None) -> None:
        """Send ``public`` on the public channel and ``floor`` on the floor channel (either may
        be None: not sent there)."""
        if public is not None:
            self._queue(self._public, topic, public)
        if floor is not None and self._floor is not None:
            self._queue(self._floor, topic, floor)
        self.retry()

    def _queue(self, sock: zmq.Socket[Any], topic: str, payload: Mapping[str, Any]) -> None:
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._outbox.popleft()
            self.dropped += 1
        self._outbox.append((sock, topic.encode(), json.dumps(payload).encode()))

    def retry(self) -> int:
        """Send what is queued; returns how many messages are still waiting."""
        while self._outbox:
            sock, topic, body = self._outbox[0]
            try:
                sock.send_multipart([topic, body], flags=zmq.NOBLOCK)
            except zmq.ZMQError as exc:
                if not self._failing:
                    log.error("event bus: publish failed (%s); %d message(s) queued", exc,
                              len(self._outbox))
                self._failing = True
                return len(self._outbox)
            self._outbox.popleft()
            self.sent += 1
            if self._failing:
                log.warning("event bus: publishing again")
                self._failing = False
        return 0

    def close(self) -> None:
        self.retry()
        self._public.close()
        if self._floor is not None:
            self._floor.close()


Handler = Callable[[Any], dict[str, Any]]


class ConsoleServer:
    """The REP socket the dealer console talks to. :meth:`serve` answers the requests waiting
    (each through ``handler``) and returns how many it answered; every request gets exactly one
    answer, also when it is not JSON or the handler fails."""

    def __init__(self, endpoint: str, *, context: zmq.Context[Any] | None = None) -> None:
        self._ctx = context or zmq.Context.instance()
        self._sock = _bind(self._ctx, zmq.REP, endpoint)
        self._sock.setsockopt(zmq.MAXMSGSIZE, MAX_REQUEST_BYTES)
        self.endpoint = EventBus._endpoint(self._sock)
        self._poller = zmq.Poller()
        self._poller.register(self._sock, zmq.POLLIN)

    def serve(self, handler: Handler, *, timeout: float = 0.0, limit: int = 32) -> int:
        """Wait up to ``timeout`` seconds for a request; answer those waiting (at most
        ``limit``)."""
        answered = 0
        wait_ms = max(0, int(timeout * 1000))
        while answered < limit and self._poller.poll(wait_ms if answered == 0 else 0):
            try:
                raw = self._sock.recv(flags=zmq.NOBLOCK)
            except zmq.Again:
                break
            reply = self._answer(handler, raw)
            try:
                self._sock.send(json.dumps(reply).encode(), flags=zmq.NOBLOCK)
            except zmq.ZMQError as exc:  # the console went away; REP resets for the next one
                log.warning("console: reply not sent: %s", exc)
            answered += 1
        return answered

    @staticmethod
    def _answer(handler: Handler, raw: bytes) -> dict[str, Any]:
        try:
            request = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return {"ok": False, "error": f"not a JSON request: {exc}"}
        try:
            return handler(request)
        except Exception as exc:  # the table goes on; the console is told
            log.exception("console: request %r failed", request)
            return {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}

    def close(self) -> None:
        self._sock.close(0)


def console_request(endpoint: str, request: Mapping[str, Any], *, timeout: float = 5.0,
                    context: zmq.Context[Any] | None = None) -> dict[str, Any]:
    """Send one request to a controller's console endpoint and return its answer (a small
    client for tools and tests). Raises :class:`TimeoutError` when no answer comes."""
    ctx = context or zmq.Context.instance()
    sock = ctx.socket(zmq.REQ)
    sock.setsockopt(zmq.LINGER, 0)
    try:
        sock.connect(endpoint)
        sock.send(json.dumps(request).encode())
        if not sock.poll(int(timeout * 1000), zmq.POLLIN):
            raise TimeoutError(f"no answer from {endpoint} within {timeout} s")
        answer = json.loads(sock.recv().decode("utf-8"))
        if not isinstance(answer, dict):
            raise ValueError(f"answer from {endpoint} is not an object: {answer!r}")
        return answer
    finally:
        sock.close(0)
