"""Alerts to the floor with acknowledgement: a ROUTER socket (``bus.alerts``) that floor clients
connect DEALER sockets to (docs/running.md, "Alert delivery").

- Every alert gets an ``id`` (:meth:`AlertDelivery.stamp`): one more than the largest in the
  journal, so ids increase across restarts (alerts.md, "One error, one alert").
- Each alert raised is journaled as a delivery and sent to every floor client heard from in the
  last :data:`CLIENT_TIMEOUT` seconds, then sent again every :data:`RESEND_INTERVAL` seconds
  until a floor client acknowledges it: ``{"type": "ack", "id": 17}``. The acknowledgement is
  journaled and announced to every client (``{"type": "acked", ...}``); resending stops.
- Deliveries without an acknowledgement are read back from the journal when the controller
  starts, so a restart resends them.
- A client says ``{"type": "hello"}`` when it connects (and at least every
  :data:`CLIENT_TIMEOUT` seconds, or any other message): it is answered ``welcome`` and gets
  every unacknowledged alert at once.

Nothing a client sends stops the table: each message is one bounded JSON object
(:func:`table_controller.daemon.console_input.decode`); anything else is answered with
``{"type": "error", "error": ...}``. Sending never blocks: a client whose queue is full or that
went away misses that sending (the next resend reaches it again).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import zmq

from table_controller.daemon.access import FileAccess
from table_controller.daemon.bus import bind_socket
from table_controller.daemon.console_input import RequestError, decode
from table_controller.daemon.curve import CurveServer
from table_controller.daemon.journal import Journal
from table_controller.daemon.sequence import Sequences

log = logging.getLogger(__name__)

RESEND_INTERVAL = 1.0
CLIENT_TIMEOUT = 30.0
MAX_MESSAGE_BYTES = 64 * 1024
MAX_CLIENTS = 64
READ_LIMIT = 64  # messages read per poll, so a flood cannot hold the loop


@dataclass(slots=True)
class _Client:
    name: str
    heard: float


class AlertDelivery:
    """Alert ids and their acknowledged delivery. ``endpoint`` None: ids only (no socket;
    nothing is delivered or kept pending)."""

    def __init__(self, endpoint: str | None, *, journal: Journal | None,
                 sequences: Sequences, context: zmq.Context[Any] | None = None,
                 curve: CurveServer | None = None, access: FileAccess | None = None,
                 resend_interval: float = RESEND_INTERVAL) -> None:
        self._journal = journal
        self._sequences = sequences
        self._wall = ""  # the wall time of the poll being handled
        self.resend_interval = resend_interval
        self._last_id = journal.last_alert_id() if journal is not None else 0
        self.pending: dict[int, dict[str, Any]] = {}  # id -> message as sent (with seq)
        if journal is not None and endpoint is not None:
            for alert_id, seq, payload in journal.unacknowledged():
                self.pending[alert_id] = {**payload, "seq": seq}
        self._clients: dict[bytes, _Client] = {}
        self._resend_at: float | None = None
        self.sent = 0
        self.acked = 0
        self._sock: zmq.Socket[Any] | None = None
        self.endpoint: str | None = None
        if endpoint is not None:
            ctx = context or zmq.Context.instance()
            self._sock = bind_socket(ctx, zmq.ROUTER, endpoint,
                               options={zmq.MAXMSGSIZE: MAX_MESSAGE_BYTES,
                                        zmq.ROUTER_MANDATORY: 1, zmq.SNDHWM: 1000,
                                        zmq.RCVHWM: 1000},
                               curve=curve, access=access)
            value = self._sock.getsockopt(zmq.LAST_ENDPOINT)
            self.endpoint = value.decode() if isinstance(value, bytes) else str(value)
            if self.pending:
                log.info("alert delivery: %d alert(s) not acknowledged before the restart",
                         len(self.pending))

    # ------------------------------------------------------------------ alerts
    def stamp(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """``payload`` with the next alert ``id``, placed after ``type`` (alerts.md)."""
        self._last_id += 1
        out: dict[str, Any] = {"type": payload.get("type", "alert"), "id": self._last_id}
        out.update((k, v) for k, v in payload.items() if k not in out)
        return out

    def deliver(self, payload: Mapping[str, Any], t: float) -> None:
        """An alert (stamped, journaled) to be delivered until acknowledged."""
        if self._sock is None:
            return
        alert_id = int(payload["id"])
        message = {**payload, "seq": self._sequences.next("alerts", "alert")}
        if self._journal is not None:
            self._journal.record_delivery(alert_id, seq=message["seq"], t=t,
                                          wall=str(payload.get("time", "")))
        self.pending[alert_id] = message
        for rid in list(self._clients):
            self._send(rid, message)
        if self._resend_at is None:
            self._resend_at = t + self.resend_interval

    # ------------------------------------------------------------------ the loop
    def poll(self, now: float, wall: str) -> None:
        """Read what the floor sent (hellos, acknowledgements); resend what is due. ``wall``:
        the wall time of ``now`` (for the acknowledgements)."""
        if self._sock is None:
            return
        self._wall = wall
        for _ in range(READ_LIMIT):
            try:
                frames = self._sock.recv_multipart(flags=zmq.NOBLOCK)
            except zmq.Again:
                break
            except zmq.ZMQError as exc:
                log.warning("alert delivery: receive failed: %s", exc)
                break
            if len(frames) < 2:
                continue
            self._from_client(frames[0], frames[1:], now)
        for rid, client in list(self._clients.items()):
            if now - client.heard > CLIENT_TIMEOUT:
                del self._clients[rid]
        if self.pending and self._resend_at is not None and now >= self._resend_at:
            for message in list(self.pending.values()):
                for rid in list(self._clients):
                    self._send(rid, message)
            self._resend_at = now + self.resend_interval
        if not self.pending:
            self._resend_at = None

    def _from_client(self, rid: bytes, frames: list[bytes], now: float) -> None:
        try:
            message = decode(frames)
            kind = message.get("type")
            if kind == "hello":
                self._hello(rid, message, now)
            elif kind == "ack":
                self._ack(rid, message, now)
            else:
                raise RequestError(f"unknown type {str(kind)[:32]!r} (hello, ack)")
        except RequestError as exc:
            self._send(rid, {"type": "error", "error": str(exc)})
            return
        client = self._clients.get(rid)
        if client is not None:
            client.heard = now

    def _hello(self, rid: bytes, message: Mapping[str, Any], now: float) -> None:
        name = message.get("client", rid.hex())
        if not isinstance(name, str) or not 0 < len(name) <= 32:
            raise RequestError("'client' must be a name of at most 32 characters")
        if rid not in self._clients and len(self._clients) >= MAX_CLIENTS:
            raise RequestError(f"{MAX_CLIENTS} floor clients are connected already")
        self._clients[rid] = _Client(name=name, heard=now)
        self._send(rid, {"type": "welcome", "client": name, "pending": sorted(self.pending),
                         "seq": self._sequences.last("alerts")})
        for pending in list(self.pending.values()):
            self._send(rid, pending)
        if self.pending and self._resend_at is None:
            self._resend_at = now + self.resend_interval

    def _ack(self, rid: bytes, message: Mapping[str, Any], now: float) -> None:
        client = self._clients.get(rid)
        if client is None:
            raise RequestError("say hello first: {\"type\": \"hello\", \"client\": NAME}")
        alert_id = message.get("id")
        if isinstance(alert_id, bool) or not isinstance(alert_id, int):
            raise RequestError("an ack names the alert: {\"type\": \"ack\", \"id\": N}")
        if alert_id not in self.pending:
            if 0 < alert_id <= self._last_id:
                return  # acknowledged already (by another client, or resent): nothing to do
            raise RequestError(f"no alert {alert_id} was delivered")
        del self.pending[alert_id]
        self.acked += 1
        if self._journal is not None:
            self._journal.record_ack(alert_id, t=now, wall=self._wall, client=client.name)
        notice = {"type": "acked", "id": alert_id, "client": client.name,
                  "time": self._wall, "seq": self._sequences.next("alerts", "acked")}
        for other in list(self._clients):
            self._send(other, notice)

    def _send(self, rid: bytes, message: Mapping[str, Any]) -> None:
        assert self._sock is not None
        try:
            self._sock.send_multipart([rid, json.dumps(message).encode()], flags=zmq.NOBLOCK)
            self.sent += 1
        except zmq.Again:  # its queue is full: the next resend tries again
            pass
        except zmq.ZMQError as exc:  # EHOSTUNREACH: it went away
            log.info("alert delivery: client %s gone (%s)", rid.hex(), exc)
            self._clients.pop(rid, None)

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the last message on the alerts channel."""
        return self._sequences.last("alerts")

    @property
    def clients(self) -> list[str]:
        return [c.name for c in self._clients.values()]

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close(0)


