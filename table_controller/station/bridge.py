"""Between the controller's loop thread and the web server's thread.

- :class:`ViewHub`: the loop publishes the station view after each step; a view that differs
  from the last one gets the next ``seq`` (one more per change) and is kept, serialised once,
  in a ring of the latest :data:`RING` views, so a page that lost its connection catches up
  with every view it missed, in order (or, when it missed more than the ring holds, with the
  latest one, marked as a resync). The web side only ever reads immutable text.
- :class:`RequestBridge`: the web side queues the page's requests; the loop serves them at its
  next step through ``Controller.handle``, exactly like the console's, and completes each
  request's future with the answer.

Nothing here blocks the loop: publishing is a dict comparison, one ``json.dumps`` per change and
a thread-safe wake-up of each live stream.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

RING = 256
"""Views kept for catching up (at a few kB each)."""
QUEUE_LIMIT = 100
"""Requests waiting for the loop at most; more are refused (a runaway page)."""


class ViewHub:
    def __init__(self, boot: str, *, ring: int = RING) -> None:
        self.boot = boot
        self._lock = threading.Lock()
        self._views: deque[tuple[int, str]] = deque(maxlen=ring)
        self._last: dict[str, Any] | None = None
        self._seq = 0
        self._listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ the loop's side
    def publish(self, view: dict[str, Any]) -> int:
        """Keep ``view`` if it differs from the last one; returns the current seq."""
        if view == self._last:
            return self._seq
        self._last = view
        with self._lock:
            self._seq += 1
            text = json.dumps({"boot": self.boot, "seq": self._seq, **view},
                              separators=(",", ":"))
            self._views.append((self._seq, text))
            listeners = list(self._listeners)
        for wake in listeners:
            wake()
        return self._seq

    # ------------------------------------------------------------------ the web side
    @property
    def seq(self) -> int:
        with self._lock:
            return self._seq

    def latest(self) -> tuple[int, str] | None:
        with self._lock:
            return self._views[-1] if self._views else None

    def after(self, seq: int) -> tuple[list[tuple[int, str]], bool]:
        """The views after ``seq`` in order, and False; or, when some of them are no longer
        kept, only the latest view and True (a resync)."""
        with self._lock:
            if not self._views or seq >= self._seq:
                return [], False
            first = self._views[0][0]
            if seq + 1 < first or seq < 0:
                return [self._views[-1]], True
            return [v for v in self._views if v[0] > seq], False

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """``wake`` is called (on the loop thread) after each new view; returns the function
        that stops it."""
        with self._lock:
            self._listeners.append(wake)

        def stop() -> None:
            with self._lock:
                if wake in self._listeners:
                    self._listeners.remove(wake)
        return stop


class BridgeClosed(RuntimeError):
    """The controller is stopping: no more requests."""


class RequestBridge:
    def __init__(self, *, limit: int = QUEUE_LIMIT) -> None:
        self._queue: queue.Queue[tuple[dict[str, Any], Future[dict[str, Any]]]] = \
            queue.Queue(maxsize=limit)
        self._closed = False

    def submit(self, request: dict[str, Any]) -> Future[dict[str, Any]]:
        """Queue ``request`` for the loop (web side); the future gets the answer."""
        if self._closed:
            raise BridgeClosed("the controller is stopping")
        future: Future[dict[str, Any]] = Future()
        try:
            self._queue.put_nowait((request, future))
        except queue.Full:
            raise BridgeClosed(f"{self._queue.maxsize} requests are already waiting for "
                               "the controller") from None
        return future

    def take(self, limit: int = 32) -> list[tuple[dict[str, Any], Future[dict[str, Any]]]]:
        """The requests waiting (loop side), oldest first."""
        out: list[tuple[dict[str, Any], Future[dict[str, Any]]]] = []
        while len(out) < limit:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return out

    def close(self) -> None:
        self._closed = True
        for _request, future in self.take(limit=10**6):
            if future.set_running_or_notify_cancel():
                future.set_exception(BridgeClosed("the controller stopped"))
