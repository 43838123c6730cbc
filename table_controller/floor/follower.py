"""One table followed by the floor: its floor channel, its alert channel and its console
(docs/floor.md, "Following a table"; the table's side: docs/running.md).

Per table, on a thread of its own (a table that hangs or drops off the network never holds up
the others):

- a SUB socket on the table's floor channel (every message, ``seq`` per channel);
- a DEALER socket on its alert channel: ``hello`` every :data:`HEARTBEAT` seconds (the
  ``welcome`` is the table's heartbeat and says the last ``seq`` of each channel), every alert
  stored then acknowledged with ``ack``, the ``acked`` and ``acknowledged`` notices stored; a
  person's acknowledgement on the dashboard goes to the table as ``acknowledge``, again at each
  heartbeat until the table's ``acknowledged`` notice comes back;
- a REQ socket on its console for ``snapshot`` and ``messages`` (what was missed), made anew
  after a request that got no answer (a REQ socket cannot send twice).

**No gap.** Messages are stored in ``seq`` order per channel: a message whose ``seq`` is more
than one past the last stored is not stored before the ones in between were fetched from the
table's journal (``messages``), so each channel's record has no hole. On a gap, on a reconnection
(a welcome after :data:`RECONNECT_AFTER` seconds without one) and when the welcome says the
table has sent more than the floor stored, the follower catches up, then takes a snapshot for
the live state. A failed catch-up is tried again after a backoff (doubling up to
:data:`BACKOFF_MAX`); the SUB and DEALER sockets reconnect by themselves (libzmq, every 0.5 s
growing to :data:`RECONNECT_MAX`). The hub marks a table silent for 5 s offline.

CurveZMQ: a table off loopback is reached with the floor's own key pair and the table's server
key (:class:`~table_controller.daemon.curve.ClientKeys`) on all three sockets.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import zmq

from table_controller.daemon.curve import ClientKeys
from table_controller.floor.hub import FloorHub
from table_controller.floor.store import StoreError

log = logging.getLogger(__name__)

HEARTBEAT = 0.5
"""Seconds between two hellos on the alert channel (the table answers each with a welcome)."""
RECONNECT_AFTER = 3.0
"""A welcome after this long without one is a reconnection: catch up and take a snapshot."""
REQUEST_TIMEOUT = 3.0
BACKOFF_MIN = 0.5
BACKOFF_MAX = 10.0
"""A catch-up that failed is tried again after BACKOFF_MIN, doubling up to BACKOFF_MAX."""
RECONNECT_MAX = 2.0
"""libzmq's reconnection interval grows from BACKOFF_MIN to this: a table that comes back is
reached within 2 s (an attempt to a table that is down costs next to nothing)."""
READ_BATCH = 200
"""Messages read from one socket before the others get a turn."""
STOP_SLICE = 0.2
"""A console request waits for its answer in slices this long, looking for a stop between."""
ACK_TRIES = 30
"""Heartbeats an acknowledgement is sent again without the table's notice, then given up."""
CHANNELS = ("floor", "alerts")


@dataclass(frozen=True, slots=True)
class TableLink:
    """Where a table is: its id and name on the floor, its three endpoints, and the CurveZMQ
    keys when it is off loopback."""

    id: str
    name: str
    floor: str
    alerts: str
    console: str
    keys: ClientKeys | None = None


class FollowError(RuntimeError):
    """The table answered a request with an error, or not at all."""


@dataclass(slots=True)
class FollowerStats:
    """What a follower did, for the status page and the benchmark."""

    received: int = 0
    stored: int = 0
    caught_up: int = 0
    gaps: int = 0
    syncs: int = 0
    reconnections: int = 0
    failed_syncs: int = 0
    lost: int = 0  # messages the table's journal no longer had when asked
    acks_sent: int = 0
    last_error: str | None = None


class Follower:
    """Follows one table for ``hub`` (start, stop). ``client``: the floor's name in the
    table's journal (at most 32 characters)."""

    def __init__(self, link: TableLink, hub: FloorHub, *, client: str = "floor",
                 context: zmq.Context[Any] | None = None, heartbeat: float = HEARTBEAT,
                 request_timeout: float = REQUEST_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.link = link
        self.hub = hub
        self.client = client
        self.heartbeat = heartbeat
        self.request_timeout = request_timeout
        self.clock = clock
        self.stats = FollowerStats()
        self._ctx = context or zmq.Context.instance()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"follow-{link.id}", daemon=True)
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._wake_lock = threading.Lock()  # no write to the pipe once stop() closed it
        self._requested: queue.SimpleQueue[tuple[int, str]] = queue.SimpleQueue()
        self._to_acknowledge: dict[int, tuple[str, int]] = {}  # id -> (by, tries left)
        self._last = {c: hub.store.last_seq(link.id, c) or 0 for c in CHANNELS}
        self._synced = False
        self._sync_at = 0.0
        self._backoff = BACKOFF_MIN
        self._last_welcome: float | None = None
        self._req: zmq.Socket[Any] | None = None
        self._dealer: zmq.Socket[Any] | None = None
        hub.on_acknowledge(link.id, self.acknowledge)

    # ------------------------------------------------------------------ control
    def start(self) -> Follower:
        self._thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the thread (it closes its sockets); a request under way is abandoned within
        :data:`STOP_SLICE` seconds. Stopping again does nothing: the wake-up pipe is closed
        once, as its descriptors' numbers are soon another's (a new follower's pipe, a libzmq
        socket's; closing those made libzmq abort in poll)."""
        self._stop.set()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread.is_alive():  # never seen; its sockets are its own, leave them
            log.error("the follower of table %s did not stop", self.link.id)
            return
        with self._wake_lock:
            fds = (self._wake_read, self._wake_write)
            self._wake_read = self._wake_write = -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)

    def acknowledge(self, alert_id: int, by: str) -> bool:
        """A person acknowledged ``alert_id`` on the dashboard: sent to the table from the
        follower's thread (zmq sockets belong to one thread), again until the table says so."""
        self._requested.put((alert_id, by[:32]))
        self._wake()
        return True

    def last_seq(self, channel: str) -> int:
        """The last ``seq`` of ``channel`` stored (every one before it is stored too)."""
        return self._last[channel]

    def _wake(self) -> None:
        with self._wake_lock:
            if self._wake_write < 0:  # stopped: nobody to wake
                return
            with contextlib.suppress(BlockingIOError):  # full: a wake-up is pending anyway
                os.write(self._wake_write, b"x")

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        backoff = BACKOFF_MIN
        while not self._stop.is_set():
            try:
                self._follow()
            except Exception as exc:  # a bug or a broken socket: start again, later
                log.exception("following table %s failed; starting again", self.link.id)
                self.stats.last_error = f"{type(exc).__name__}: {exc}"
                self.hub.unreachable(self.link.id, f"follower error: {exc}")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)

    def _socket(self, kind: int, endpoint: str, **options: int) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = self._ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RECONNECT_IVL, int(BACKOFF_MIN * 1000))
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, int(RECONNECT_MAX * 1000))
        for name, value in options.items():
            sock.setsockopt(getattr(zmq, name), value)
        if self.link.keys is not None:
            self.link.keys.apply(sock)
        sock.connect(endpoint)
        return sock

    def _follow(self) -> None:
        sub = self._socket(zmq.SUB, self.link.floor, RCVHWM=100_000)
        sub.setsockopt_string(zmq.SUBSCRIBE, "")
        dealer = self._socket(zmq.DEALER, self.link.alerts, IMMEDIATE=1, SNDHWM=100)
        self._dealer = dealer
        poller = zmq.Poller()
        poller.register(sub, zmq.POLLIN)
        poller.register(dealer, zmq.POLLIN)
        poller.register(self._wake_read, zmq.POLLIN)
        next_hello = 0.0
        try:
            while not self._stop.is_set():
                now = self.clock()
                if now >= next_hello:
                    self._hello()
                    next_hello = now + self.heartbeat
                if not self._synced and self._last_welcome is not None \
                        and now >= self._sync_at:
                    self._sync()
                wait = next_hello - self.clock()
                if not self._synced and self._last_welcome is not None:
                    wait = min(wait, self._sync_at - self.clock())
                events = dict(poller.poll(max(0, int(wait * 1000)) + 1))
                if self._wake_read in events:
                    with contextlib.suppress(OSError):
                        os.read(self._wake_read, 4096)
                    self._take_requests()
                if dealer in events:
                    self._read(dealer, self._from_alert_channel)
                if sub in events:
                    self._read(sub, self._from_floor_channel)
        finally:
            self._dealer = None
            for sock in (sub, dealer):
                sock.close(0)
            if self._req is not None:
                self._req.close(0)
                self._req = None

    def _read(self, sock: zmq.Socket[Any], handle: Callable[[dict[str, Any]], None]) -> None:
        for _ in range(READ_BATCH):
            try:
                frames = sock.recv_multipart(flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                message = json.loads(frames[-1])
            except (ValueError, UnicodeDecodeError) as exc:
                log.warning("table %s: a message that is not JSON: %s", self.link.id, exc)
                continue
            if not isinstance(message, dict):
                log.warning("table %s: a message that is not an object", self.link.id)
                continue
            self.stats.received += 1
            handle(message)

    def _send(self, message: Mapping[str, Any]) -> bool:
        if self._dealer is None:
            return False
        try:
            self._dealer.send(json.dumps(message).encode(), flags=zmq.NOBLOCK)
        except zmq.ZMQError:  # not connected (IMMEDIATE) or full: the next heartbeat again
            return False
        return True

    def _hello(self) -> None:
        self._send({"type": "hello", "client": self.client})
        for alert_id, (by, tries) in list(self._to_acknowledge.items()):
            if tries <= 0:
                log.warning("table %s never confirmed the acknowledgement of alert %d",
                            self.link.id, alert_id)
                del self._to_acknowledge[alert_id]
                continue
            self._to_acknowledge[alert_id] = (by, tries - 1)
            self._send({"type": "acknowledge", "id": alert_id, "by": by})

    def _take_requests(self) -> None:
        while True:
            try:
                alert_id, by = self._requested.get_nowait()
            except queue.Empty:
                return
            self._to_acknowledge[alert_id] = (by, ACK_TRIES)
            self._send({"type": "acknowledge", "id": alert_id, "by": by})

    # ------------------------------------------------------------------ messages in
    def _from_floor_channel(self, message: dict[str, Any]) -> None:
        self.hub.heard(self.link.id)
        self._take("floor", message)

    def _from_alert_channel(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            self._welcome(message)
        elif kind == "error":
            log.warning("table %s: %s", self.link.id, str(message.get("error"))[:200])
        elif kind in ("alert", "acked", "acknowledged"):
            self.hub.heard(self.link.id)
            if self._take("alerts", message) and kind == "alert":
                self._ack(message)
            if kind == "acknowledged" and isinstance(message.get("id"), int):
                self._to_acknowledge.pop(message["id"], None)

    def _welcome(self, message: Mapping[str, Any]) -> None:
        now = self.clock()
        self.hub.heard(self.link.id)
        if self._last_welcome is not None and now - self._last_welcome > RECONNECT_AFTER:
            self.stats.reconnections += 1
            self._synced = False  # it may have restarted: its state, and what it sent
        self._last_welcome = now
        channels = message.get("channels")
        if isinstance(channels, dict):
            for channel in CHANNELS:
                last = channels.get(channel, 0)
                if isinstance(last, int) and last > self._last[channel]:
                    self._synced = False

    def _take(self, channel: str, message: Mapping[str, Any]) -> bool:
        """Store ``message`` if it is the next of ``channel``; after a gap, catch up first.
        True when it is stored (now or before)."""
        seq = message.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int):
            log.warning("table %s: a %s message without seq", self.link.id, channel)
            return False
        if seq <= self._last[channel]:
            return True  # a resend, or what a catch-up already brought
        if seq > self._last[channel] + 1:
            self.stats.gaps += 1
            self._synced = False
            if self.clock() < self._sync_at:  # the last catch-up failed: wait the backoff
                return False
            self._sync()
            if seq <= self._last[channel]:
                return True
            if seq > self._last[channel] + 1:
                return False  # not caught up yet: the next try fetches it from the journal
        return self._store(channel, message)

    def _store(self, channel: str, message: Mapping[str, Any]) -> bool:
        try:
            self.hub.receive(self.link.id, channel, message)
        except StoreError as exc:
            log.error("table %s: not stored: %s", self.link.id, exc)
            self.stats.last_error = str(exc)
            return False
        self._last[channel] = int(message["seq"])
        self.stats.stored += 1
        return True

    def _ack(self, alert: Mapping[str, Any]) -> None:
        alert_id = alert.get("id")
        if isinstance(alert_id, int) and self._send({"type": "ack", "id": alert_id}):
            self.stats.acks_sent += 1

    # ------------------------------------------------------------------ catching up
    def _sync(self) -> None:
        """What the table sent since the last message stored, from its journal, then its
        state. On failure: tried again after the backoff."""
        self.stats.syncs += 1
        try:
            for channel in CHANNELS:
                self._catch_up(channel)
            answer = self._request({"cmd": "snapshot"})
            snapshot = answer.get("snapshot")
            if isinstance(snapshot, dict):
                self.hub.apply_snapshot(self.link.id, snapshot)
            for channel in CHANNELS:  # what came while the snapshot was taken
                self._catch_up(channel)
        except (FollowError, StoreError) as exc:
            if self._stop.is_set():
                return
            self.stats.failed_syncs += 1
            self.stats.last_error = str(exc)
            log.warning("table %s: catching up failed (%s); again in %.1f s", self.link.id,
                        exc, self._backoff)
            self.hub.unreachable(self.link.id, str(exc))
            self._sync_at = self.clock() + self._backoff
            self._backoff = min(self._backoff * 2, BACKOFF_MAX)
            return
        self._synced = True
        self._backoff = BACKOFF_MIN

    def _catch_up(self, channel: str) -> None:
        while True:
            answer = self._request({"cmd": "messages", "channel": channel,
                                    "after": self._last[channel]})
            messages = answer.get("messages")
            if not isinstance(messages, list):
                raise FollowError(f"table {self.link.id}: messages: no list in the answer")
            for m in messages:
                if not isinstance(m, dict) or not isinstance(m.get("seq"), int):
                    raise FollowError(f"table {self.link.id}: messages: not a message: "
                                      f"{str(m)[:80]}")
                seq = m["seq"]
                if seq <= self._last[channel]:
                    continue
                if seq > self._last[channel] + 1:  # cleared from the table's journal
                    lost = seq - self._last[channel] - 1
                    self.stats.lost += lost
                    log.warning("table %s: %d %s message(s) before seq %d are no longer in "
                                "its journal", self.link.id, lost, channel, seq)
                if not self._store(channel, m):
                    raise FollowError(f"table {self.link.id}: message {seq} not stored")
                self.stats.caught_up += 1
                if channel == "alerts" and m.get("type") == "alert":
                    self._ack(m)
                elif m.get("type") == "acknowledged" and isinstance(m.get("id"), int):
                    self._to_acknowledge.pop(m["id"], None)
            if not answer.get("more") or not messages:
                return

    def _request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """One console request (lazy pirate: a REQ socket with no answer is closed and made
        anew for the next request)."""
        if self._stop.is_set():
            raise FollowError("stopping")
        if self._req is None:
            self._req = self._socket(zmq.REQ, self.link.console)
        sock = self._req
        ready = 0
        try:
            sock.send(json.dumps(request).encode())
            deadline = self.clock() + self.request_timeout
            while not ready and not self._stop.is_set():
                left = deadline - self.clock()
                if left <= 0:
                    break
                ready = sock.poll(int(min(left, STOP_SLICE) * 1000) + 1)
        except zmq.ZMQError as exc:
            log.info("table %s: console: %s", self.link.id, exc)
        if self._stop.is_set() and not ready:
            sock.close(0)
            self._req = None
            raise FollowError("stopping")
        if not ready:
            sock.close(0)
            self._req = None
            raise FollowError(f"no answer from the console {self.link.console} within "
                              f"{self.request_timeout:g} s")
        try:
            answer = json.loads(sock.recv())
        except ValueError as exc:
            raise FollowError(f"console answer not JSON: {exc}") from None
        if not isinstance(answer, dict):
            raise FollowError("console answer is not an object")
        if not answer.get("ok"):
            raise FollowError(f"console: {str(answer.get('error'))[:200]}")
        return answer
