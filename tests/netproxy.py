"""A TCP proxy on loopback between a browser and a server, for tests that lose the connection:
:meth:`Proxy.cut` drops every connection and refuses new ones until :meth:`Proxy.restore`;
:meth:`Proxy.retarget` points it at another port (a restarted server)."""

from __future__ import annotations

import contextlib
import socket
import threading


class Proxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.host = host
        self.target_port = target_port
        self._listener = socket.create_server((host, 0))
        self.port = int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._refusing = False
        self._closed = False
        threading.Thread(target=self._accept, name="proxy", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                refusing, port = self._refusing, self.target_port
            if refusing:
                client.close()
                continue
            try:
                server = socket.create_connection((self.host, port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._open.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                self._drop(s)

    def _drop(self, s: socket.socket) -> None:
        with self._lock:
            self._open.discard(s)
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()

    def cut(self) -> None:
        """Drop every connection; refuse new ones until :meth:`restore`."""
        with self._lock:
            self._refusing = True
            sockets = list(self._open)
        for s in sockets:
            self._drop(s)

    def restore(self) -> None:
        with self._lock:
            self._refusing = False

    def retarget(self, port: int) -> None:
        with self._lock:
            self.target_port = port

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()
