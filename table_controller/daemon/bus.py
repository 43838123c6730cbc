"""The event bus (pyzmq PUB) and the dealer console's request channel (pyzmq REP).

Events are two-frame messages ``[topic, json]`` (UTF-8) on two PUB sockets:

- **public** (``bus.public``): what anyone at the table may know. Alerts have hole cards
  removed from ``cards`` and from their text (alerts.md: hole cards appear only on channels
  allowed to carry them); no card observations.
- **floor** (``bus.floor``): the dealer display, the floor and the surveillance room: every
  alert with every card. Bind it to ``ipc://``, or off loopback with CurveZMQ (:mod:`.curve`).

Topics: ``alert`` (the alerts.md object), ``hand_start``, ``hand_end``, ``action`` (each console
request the controller accepted), ``sensor`` (a sensor went offline or came back), ``card`` (floor
channel only: every card observation, :mod:`.floor_feed`). A SUB socket subscribes by prefix
(``alert`` or ``""`` for all). Each message's body is journaled with its ``seq``
(:meth:`.Sequences.stamp`), so a client can get what it missed (:mod:`.catch_up`).

Publishing never blocks and never raises: a message the socket refuses is kept (up to
:data:`OUTBOX_LIMIT`) and sent again on the next :meth:`EventBus.publish` or
:meth:`EventBus.retry`; failures are logged once per outage.

The console channel is a REP socket (``bus.console``): the console sends one JSON object in one
frame (bounded, :mod:`.console_input`), the controller answers one JSON object (``{"ok": true,
...}`` or ``{"ok": false, "error": ...}``). See docs/running.md for the requests.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import zmq

from table_controller.daemon.access import FileAccess
from table_controller.daemon.console_input import (
    MAX_FRAME_BYTES,
    RequestError,
    decode,
    summary,
)
from table_controller.daemon.sequence import Sequences
from table_controller.daemon.wakeup import Wakeup

if TYPE_CHECKING:
    from table_controller.daemon.curve import ClientKeys, CurveServer

log = logging.getLogger(__name__)

TOPICS = ("alert", "alert_resolved", "hand_start", "hand_end", "action", "sensor", "card")
OUTBOX_LIMIT = 10_000


class BusError(RuntimeError):
    """An endpoint cannot be bound; the text names it."""


def bind_socket(ctx: zmq.Context[Any], kind: int, endpoint: str, *,
          options: Mapping[int, int | bytes] | None = None,
          curve: CurveServer | None = None, access: FileAccess | None = None
          ) -> zmq.Socket[Any]:
    """A socket of ``kind`` bound to ``endpoint``; ``options`` (and with ``curve`` the
    CurveZMQ server's, for a tcp endpoint) are set before the bind: libzmq applies them only to
    connections made after they are set. ``access``: the ipc socket file's owner and mode."""
    options = {**(options or {}), **(curve.options(endpoint) if curve is not None else {})}
    if endpoint.startswith("ipc://"):  # the socket file's folder, e.g. /run/table-controller
        with contextlib.suppress(OSError):
            Path(endpoint[len("ipc://"):]).parent.mkdir(parents=True, exist_ok=True)
    sock: zmq.Socket[Any] = ctx.socket(kind)
    sock.setsockopt(zmq.LINGER, 500)
    for option, value in options.items():
        sock.setsockopt(option, value)
    try:
        sock.bind(endpoint)
        if access is not None:
            access.ipc(endpoint)
    except (zmq.ZMQError, OSError) as exc:
        sock.close(0)
        raise BusError(f"cannot bind {endpoint}: {exc}") from None
    return sock


class EventBus:
    """The two PUB sockets. ``floor=None``: no private channel (nothing carries hole cards)."""

    def __init__(self, *, public: str, floor: str | None,
                 context: zmq.Context[Any] | None = None, curve: CurveServer | None = None,
                 access: FileAccess | None = None, sequences: Sequences | None = None) -> None:
        self._ctx = context or zmq.Context.instance()
        self.sequences = sequences or Sequences()
        self._public = bind_socket(self._ctx, zmq.PUB, public, curve=curve, access=access)
        try:
            self._floor = None if floor is None else bind_socket(self._ctx, zmq.PUB, floor,
                                                           curve=curve, access=access)
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
            self._queue(self._public, "public", topic, public)
        if floor is not None and self._floor is not None:
            self._queue(self._floor, "floor", topic, floor)
        self.retry()

    def seqs(self) -> dict[str, int]:
        """Channel -> the ``seq`` of the last message published on it."""
        out = {"public": self.sequences.last("public")}
        if self._floor is not None:
            out["floor"] = self.sequences.last("floor")
        return out

    def _queue(self, sock: zmq.Socket[Any], channel: str, topic: str,
               payload: Mapping[str, Any]) -> None:
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._outbox.popleft()
            self.dropped += 1
        _message, body = self.sequences.stamp(channel, topic, payload)
        self._outbox.append((sock, topic.encode(), body.encode()))

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
Refused = Callable[[str, str], None]
"""Told of a request refused before it was parsed: ``(summary, reason)`` (for the journal)."""


class ConsoleServer:
    """The REP socket the dealer console talks to. :meth:`serve` answers the requests waiting
    (each through ``handler``) and returns how many it answered; every request gets exactly one
    answer, also when it is too large, in several frames, not JSON, nested too deep, not an
    object (:func:`console_input.decode`), or the handler fails. Frames over
    :data:`console_input.MAX_FRAME_BYTES` are refused by libzmq itself (``MAXMSGSIZE``, set
    before the bind): it closes that sender's connection."""

    def __init__(self, endpoint: str, *, context: zmq.Context[Any] | None = None,
                 curve: CurveServer | None = None, access: FileAccess | None = None) -> None:
        self._ctx = context or zmq.Context.instance()
        self._sock = bind_socket(self._ctx, zmq.REP, endpoint,
                           options={zmq.MAXMSGSIZE: MAX_FRAME_BYTES, zmq.RCVHWM: 64},
                           curve=curve, access=access)
        self.endpoint = EventBus._endpoint(self._sock)
        self._poller = zmq.Poller()
        self._poller.register(self._sock, zmq.POLLIN)
        self._wakeup: Wakeup | None = None
        self.refused = 0

    def watch(self, wakeup: Wakeup) -> None:
        """End :meth:`serve`'s wait as soon as ``wakeup`` is set (a sensor has data)."""
        self._wakeup = wakeup
        self._poller.register(wakeup.fileno(), zmq.POLLIN)

    def serve(self, handler: Handler, *, timeout: float = 0.0, limit: int = 32,
              refused: Refused | None = None) -> int:
        """Wait up to ``timeout`` seconds for a request (or the watched wakeup); answer those
        waiting (at most ``limit``). ``refused`` is told of each request refused before the
        handler."""
        answered = 0
        wait_ms = max(0, int(timeout * 1000))
        while answered < limit:
            events = dict(self._poller.poll(wait_ms if answered == 0 else 0))
            if self._wakeup is not None and self._wakeup.fileno() in events:
                self._wakeup.clear()
            if self._sock not in events:
                break
            try:
                frames = self._sock.recv_multipart(flags=zmq.NOBLOCK)
            except zmq.Again:
                break
            reply = self._answer(handler, frames, refused)
            try:
                body = json.dumps(reply).encode()
            except (TypeError, ValueError) as exc:
                body = json.dumps({"ok": False, "error": f"internal error: answer not JSON: "
                                   f"{exc}"}).encode()
            try:
                self._sock.send(body, flags=zmq.NOBLOCK)
            except zmq.ZMQError as exc:  # the console went away; REP resets for the next one
                log.warning("console: reply not sent: %s", exc)
            answered += 1
        return answered

    def _answer(self, handler: Handler, frames: list[bytes],
                refused: Refused | None) -> dict[str, Any]:
        try:
            request = decode(frames)
        except RequestError as exc:
            self.refused += 1
            if refused is not None:
                try:
                    refused(summary(frames), str(exc))
                except Exception:  # recording a refusal must not cost the answer
                    log.exception("console: a refused request could not be recorded")
            return {"ok": False, "error": str(exc)}
        try:
            return handler(request)
        except Exception as exc:  # the table goes on; the console is told
            log.exception("console: request %.200r failed", request)
            return {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}

    def close(self) -> None:
        self._sock.close(0)


def console_request(endpoint: str, request: Mapping[str, Any], *, timeout: float = 5.0,
                    context: zmq.Context[Any] | None = None,
                    keys: ClientKeys | None = None) -> dict[str, Any]:
    """Send one request to a controller's console endpoint and return its answer (a small
    client for tools and tests; ``keys`` for a CurveZMQ channel). Raises
    :class:`TimeoutError` when no answer comes."""
    ctx = context or zmq.Context.instance()
    sock = ctx.socket(zmq.REQ)
    sock.setsockopt(zmq.LINGER, 0)
    if keys is not None:
        keys.apply(sock)
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
