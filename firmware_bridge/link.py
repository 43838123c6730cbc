"""SerialLink: the Pi's end of the RFID controller's serial link (docs/protocol.md §5).

One thread owns the port: it opens ``url`` (a device path such as ``/dev/ttyACM0``, a stable
``/dev/serial/by-id/...`` name, or any pyserial URL such as ``loop://`` or
``rfc2217://host:port``, via ``serial.serial_for_url``), performs the HELLO handshake, sends
heartbeats, feeds received bytes to the :class:`~firmware_bridge.protocol.MessageDecoder` and
hands messages to a :class:`LinkListener` (the :class:`~firmware_bridge.reader.RfidReader`).

An unplugged device (``SerialException`` / ``OSError`` on read or write), a controller that sends
nothing for ``rx_timeout`` seconds, or a failed handshake closes the port, tells the listener
``link_down(reason)`` and retries after a backoff that doubles from ``backoff_initial`` to
``backoff_max`` (reset by a successful handshake). Listener callbacks run on the link thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

import serial

from firmware_bridge.protocol import (
    DEVICE_CLASSES,
    DEVICE_TYPES,
    PROTOCOL_MAJOR,
    DecoderStats,
    DeviceHello,
    DeviceMessage,
    FramesLost,
    HostHeartbeat,
    HostHello,
    HostMessage,
    MessageDecoder,
    MessageEncoder,
    ProtocolError,
)
from firmware_bridge.rfid_config import LinkConfig

log = logging.getLogger(__name__)


class LinkListener(Protocol):
    def link_up(self, hello: DeviceHello) -> None: ...
    def link_down(self, reason: str) -> None: ...
    def received(self, msg: DeviceMessage) -> None: ...
    def frames_lost(self, lost: FramesLost) -> None: ...
    def tick(self) -> None: ...


class _LinkLost(Exception):
    """Internal: the current connection is over (the text says why)."""


PortOpener = Callable[..., serial.Serial]


class SerialLink:
    """Serial transport with handshake, heartbeats and reconnection. ``send`` is thread-safe."""

    def __init__(
        self,
        *,
        url: str,
        listener: LinkListener,
        config: LinkConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
        open_port: PortOpener = serial.serial_for_url,
    ) -> None:
        self.url = url
        self.config = config or LinkConfig()
        self._listener = listener
        self._clock = clock
        self._open_port = open_port
        self._decoder = MessageDecoder(accept=DEVICE_TYPES)
        self._encoder = MessageEncoder()
        self._write_lock = threading.Lock()
        self._port: serial.Serial | None = None
        self._up = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()
        """Set while the handshake is done and the link is up; cleared when it drops."""
        self.connections = 0
        self.listener_errors = 0
        self.disconnects = 0
        self.last_error = ""
        self.device: DeviceHello | None = None

    @property
    def stats(self) -> DecoderStats:
        return self._decoder.stats

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("SerialLink already started")
        self._thread = threading.Thread(target=self._run, name=f"rfid-link {self.url}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        port = self._port
        if port is not None:
            with contextlib.suppress(AttributeError, OSError, serial.SerialException):
                port.cancel_read()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> SerialLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ sending
    def send(self, msg: HostMessage) -> bool:
        """Frame and write ``msg``; False when the link is not up or the write failed (the
        reader thread then notices the failure and reconnects)."""
        with self._write_lock:
            port = self._port
            if port is None or not self._up:
                return False
            return self._write(port, msg)

    def _write(self, port: serial.Serial, msg: HostMessage) -> bool:
        try:
            data = self._encoder.encode(msg)
        except ProtocolError:
            log.exception("cannot encode %r", msg)
            return False
        try:
            port.write(data)
        except (serial.SerialException, OSError) as exc:
            self.last_error = f"write failed: {exc}"
            return False
        return True

    # ------------------------------------------------------------------ thread
    def _notify(self, callback: Callable[..., None], *args: object) -> None:
        """Call the listener; its bug is logged and counted, never the end of the link."""
        try:
            callback(*args)
        except Exception:
            self.listener_errors += 1
            log.exception("RFID link listener failed in %s", getattr(callback, "__name__", "?"))

    def _run(self) -> None:
        backoff = self.config.backoff_initial
        while not self._stop.is_set():
            try:
                reason, was_up = self._connect_and_serve()
            except Exception as exc:  # an unforeseen failure must not end the thread
                log.exception("RFID link %s: unexpected error", self.url)
                reason, was_up = f"unexpected error: {exc!r}", False
            if self._stop.is_set():
                break
            if was_up:
                backoff = self.config.backoff_initial
            self.last_error = reason
            self._notify(self._listener.link_down, reason)
            log.warning("RFID link %s: %s; retrying in %.2f s", self.url, reason, backoff)
            self._stop.wait(backoff)
            backoff = min(backoff * 2, self.config.backoff_max)

    def _connect_and_serve(self) -> tuple[str, bool]:
        try:
            # exclusive: a second program on the port would steal half the bytes
            port = self._open_port(self.url, baudrate=self.config.baudrate,
                                   timeout=self.config.read_timeout,
                                   write_timeout=self.config.rx_timeout, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            return f"cannot open {self.url}: {exc}", False
        with self._write_lock:
            self._port = port
        try:
            self._decoder.reset()
            with contextlib.suppress(AttributeError, OSError, serial.SerialException):
                port.reset_input_buffer()
            hello = self._handshake(port)
            self.device = hello
            with self._write_lock:
                self._up = True
            self.connections += 1
            self.connected.set()
            self._notify(self._listener.link_up, hello)
            self._serve(port)
            return "stopped", True
        except _LinkLost as exc:
            return str(exc), self._up
        except (serial.SerialException, OSError) as exc:
            return f"port error: {exc}", self._up
        finally:
            if self._up:
                self.disconnects += 1
            self.connected.clear()
            with self._write_lock:
                self._up = False
                self._port = None
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def _read(self, port: serial.Serial) -> bytes:
        waiting = port.in_waiting
        return bytes(port.read(waiting if waiting > 0 else 1))

    def _handshake(self, port: serial.Serial) -> DeviceHello:
        cfg = self.config
        deadline = self._clock() + cfg.handshake_timeout
        resend_at = 0.0
        while True:
            now = self._clock()
            if self._stop.is_set():
                raise _LinkLost("stopped")
            if now >= deadline:
                raise _LinkLost(f"no HELLO from the controller within {cfg.handshake_timeout} s")
            if now >= resend_at:
                with self._write_lock:
                    port.write(b"\x00")  # ends any partial frame the controller holds
                    hello = HostHello(heartbeat_ms=int(cfg.heartbeat_interval * 1000))
                    if not self._write(port, hello):
                        raise _LinkLost(self.last_error)
                resend_at = now + cfg.handshake_timeout / 4
            for item in self._decoder.feed(self._read(port)):
                if isinstance(item, DeviceHello):
                    if item.protocol_major != PROTOCOL_MAJOR:
                        raise _LinkLost(
                            f"controller speaks protocol {item.protocol_major}."
                            f"{item.protocol_minor}, this software {PROTOCOL_MAJOR}.x")
                    return item

    def _serve(self, port: serial.Serial) -> None:
        cfg = self.config
        listener = self._listener
        last_rx = self._clock()
        next_heartbeat = last_rx + cfg.heartbeat_interval
        while not self._stop.is_set():
            data = self._read(port)
            now = self._clock()
            if data:
                for item in self._decoder.feed(data):
                    last_rx = now
                    if isinstance(item, FramesLost):
                        self._notify(listener.frames_lost, item)
                    elif isinstance(item, DeviceHello):
                        # the controller restarted: a new session on the same port
                        self.device = item
                        self._notify(listener.link_up, item)
                    elif isinstance(item, DEVICE_CLASSES):
                        self._notify(listener.received, item)
            if now - last_rx > cfg.rx_timeout:
                raise _LinkLost(f"controller silent for {cfg.rx_timeout} s")
            if now >= next_heartbeat:
                with self._write_lock:
                    if not self._write(port, HostHeartbeat()):
                        raise _LinkLost(self.last_error)
                next_heartbeat = now + cfg.heartbeat_interval
            self._notify(listener.tick)
