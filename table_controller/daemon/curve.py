"""CurveZMQ for the bus when it leaves the machine: the controller's key pair, the allow-list of
client keys, and the socket options of both ends (pyzmq's ``zmq.auth``).

A key folder (``[bus] keys``, made with ``table-controller keys``) holds::

    server.key            the controller's public key (give it to every client)
    server.key_secret     the controller's secret key (owner, and the configured group, only)
    allowed/NAME.key      the public key of each client allowed to connect
    clients/NAME.key      a client's key pair made here (``keys client``): move the
    clients/NAME.key_secret   secret one to that client and delete it here

With a key folder configured every ``tcp://`` channel of the controller is a CurveZMQ server:
traffic is encrypted and a client whose public key is not in ``allowed/`` is refused by the
ZAP handler (``zmq.auth.thread.ThreadAuthenticator``) before it receives anything. ``ipc://``
channels stay plain: the socket file's permissions decide who connects (docs/running.md,
"Security"). The allow-list is read when the controller starts.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator

log = logging.getLogger(__name__)

SERVER = "server"
ALLOWED = "allowed"
CLIENTS = "clients"


class KeysError(ValueError):
    """A key folder or key file that cannot be used; the text names it."""


@dataclass(frozen=True, slots=True)
class ServerKeys:
    public: bytes
    secret: bytes
    allowed: dict[str, bytes]  # client name -> public key (Z85)
    folder: Path


@dataclass(frozen=True, slots=True)
class ClientKeys:
    """What a client needs to reach a CurveZMQ channel: its own pair and the server's public
    key."""

    public: bytes
    secret: bytes
    server: bytes

    def apply(self, sock: zmq.Socket[Any]) -> None:
        """Set on a socket before it connects."""
        sock.curve_publickey = self.public
        sock.curve_secretkey = self.secret
        sock.curve_serverkey = self.server


def _load(path: Path, *, secret: bool) -> tuple[bytes, bytes | None]:
    try:
        public, secret_key = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as exc:
        raise KeysError(f"{path}: not a key file: {exc}") from None
    if secret and secret_key is None:
        raise KeysError(f"{path}: holds no secret key")
    return public, secret_key


def load_server_keys(folder: str | Path) -> ServerKeys:
    """The controller's pair and the allowed client keys of ``folder``; :class:`KeysError`
    when the pair is missing or no client is allowed (nobody could connect)."""
    base = Path(folder)
    secret_file = base / f"{SERVER}.key_secret"
    if not secret_file.is_file():
        raise KeysError(f"{base}: no {secret_file.name} (make it with: table-controller keys "
                        f"new {base})")
    public, secret = _load(secret_file, secret=True)
    assert secret is not None
    allowed = allowed_keys(base)
    if not allowed:
        raise KeysError(f"{base / ALLOWED}: no client key is allowed, nobody could connect "
                        f"(add one with: table-controller keys client {base} NAME)")
    return ServerKeys(public=public, secret=secret, allowed=allowed, folder=base)


def allowed_keys(folder: str | Path) -> dict[str, bytes]:
    """Client name -> public key of every ``allowed/NAME.key``."""
    out: dict[str, bytes] = {}
    allowed = Path(folder) / ALLOWED
    if not allowed.is_dir():
        return out
    for path in sorted(allowed.glob("*.key")):
        out[path.stem] = _load(path, secret=False)[0]
    return out


def load_client_keys(secret_file: str | Path, server_public: str | Path) -> ClientKeys:
    """A client's pair from its ``NAME.key_secret`` and the controller's ``server.key``."""
    public, secret = _load(Path(secret_file), secret=True)
    server, _ = _load(Path(server_public), secret=False)
    assert secret is not None
    return ClientKeys(public=public, secret=secret, server=server)


def _private(path: Path, mode: int, gid: int | None) -> None:
    if gid is not None:
        os.chown(path, -1, gid)
    path.chmod(mode)


def make_server_keys(folder: str | Path, *, gid: int | None = None) -> Path:
    """Make the controller's pair in ``folder`` (refused if one is there: clients hold its
    public key). Returns the public key file."""
    base = Path(folder)
    if (base / f"{SERVER}.key_secret").exists():
        raise KeysError(f"{base}: already has a server key (clients know its public key; "
                        "remove it by hand to make a new one)")
    return _make(base, SERVER, gid=gid)


def make_client_keys(folder: str | Path, name: str, *, gid: int | None = None) -> Path:
    """Make a client's pair in ``folder/clients`` and allow its public key
    (``folder/allowed``). Returns the secret key file, to be moved to the client."""
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise KeysError(f"{name!r}: a client name is letters, digits, '-' and '_'")
    base = Path(folder)
    if (base / ALLOWED / f"{name}.key").exists():
        raise KeysError(f"{base / ALLOWED / (name + '.key')}: a client {name!r} is already "
                        "allowed")
    public_file = _make(base / CLIENTS, name, gid=gid)
    allowed = base / ALLOWED
    allowed.mkdir(mode=0o750 if gid is not None else 0o700, parents=True, exist_ok=True)
    _private(allowed, 0o750 if gid is not None else 0o700, gid)
    target = allowed / public_file.name
    target.write_bytes(public_file.read_bytes())
    _private(target, 0o640 if gid is not None else 0o600, gid)
    return public_file.with_name(f"{name}.key_secret")


def _make(folder: Path, name: str, *, gid: int | None) -> Path:
    folder_mode = 0o750 if gid is not None else 0o700
    file_mode = 0o640 if gid is not None else 0o600
    previous = os.umask(0o077)  # the secret key is never readable by others, not for a moment
    try:
        folder.mkdir(mode=folder_mode, parents=True, exist_ok=True)
        public, secret = zmq.auth.create_certificates(folder, name)
    finally:
        os.umask(previous)
    _private(folder, folder_mode, gid)
    for path in (Path(public), Path(secret)):
        _private(path, file_mode, gid)
    return Path(public)


class CurveServer:
    """The ZAP handler (one per process, on the bus's zmq context) and the options that make a
    socket a CurveZMQ server. :meth:`options` is empty for a channel that stays plain."""

    def __init__(self, keys: ServerKeys, *, context: zmq.Context[Any] | None = None) -> None:
        self.keys = keys
        self.context = context or zmq.Context.instance()
        self._auth = ThreadAuthenticator(self.context, log=logging.getLogger(f"{__name__}.zap"))
        self._auth.start()
        self._auth.configure_curve(domain="*", location=str(keys.folder / ALLOWED))
        log.info("CurveZMQ: %d client key(s) allowed from %s", len(keys.allowed),
                 keys.folder / ALLOWED)

    @staticmethod
    def applies(endpoint: str) -> bool:
        return endpoint.startswith("tcp://")

    def options(self, endpoint: str) -> dict[int, int | bytes]:
        if not self.applies(endpoint):
            return {}
        return {zmq.CURVE_SERVER: 1, zmq.CURVE_SECRETKEY: self.keys.secret,
                zmq.CURVE_PUBLICKEY: self.keys.public}

    def close(self) -> None:
        self._auth.stop()
