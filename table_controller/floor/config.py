"""The floor's configuration file (TOML): ``table-controller floor --config floor.toml``
(docs/floor.md; ``table_controller/data/floor.example.toml`` is a commented example).

- ``[floor]``: ``listen`` (``HOST:PORT``, loopback by default; anything else needs
  ``tls_cert`` and ``tls_key``, or put a reverse proxy on loopback in front), ``store`` (a
  SQLite file, default ``floor.sqlite3``, or a ``postgresql://`` URL), ``name`` (the floor's
  name in the tables' journals, and the name of its CurveZMQ key pair), ``keys`` (the folder
  holding ``NAME.key_secret``, needed for a table off loopback);
- ``[[table]]``, one per table: ``id`` (letters, digits, ``-``, ``_``), ``name``, the table's
  ``floor``, ``alerts`` and ``console`` endpoints (its ``[bus]`` section), ``server_key`` (the
  table's ``server.key``; required when an endpoint is not loopback or ``ipc://``).

Every problem is one :class:`~table_controller.config.TableConfigError` naming the file, the key
and what is wrong, as for the table's configuration. Relative paths are relative to the file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.config import TableConfigError, _Reader, _resolve, is_local
from table_controller.daemon.curve import KeysError, load_client_keys
from table_controller.floor.follower import TableLink
from table_controller.webserve import WebServerError, is_loopback, parse_listen

DEFAULT_LISTEN = "127.0.0.1:8080"
DEFAULT_STORE = "floor.sqlite3"
MAX_TABLES = 200
_FLOOR_KEYS = frozenset({"listen", "store", "name", "keys", "tls_cert", "tls_key"})
_TABLE_KEYS = frozenset({"id", "name", "floor", "alerts", "console", "server_key"})


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorConfig:
    path: str
    host: str
    port: int
    store: str  # a SQLite path or a postgresql:// URL
    name: str
    tls_cert: Path | None
    tls_key: Path | None
    tables: tuple[TableLink, ...]

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None


def load_floor_config(path: str | Path) -> FloorConfig:
    """Read and check ``path``; :class:`TableConfigError` on any problem."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TableConfigError(f"{name}: cannot read the configuration: {exc.strerror or exc}"
                          ) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TableConfigError(
            f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TableConfigError(f"{name}: not valid TOML: {exc}") from None
    return parse_floor_config(data, path=name, base=Path(name).resolve().parent)


def parse_floor_config(data: Any, *, path: str = "<floor config>",
                       base: Path | None = None) -> FloorConfig:
    base = base or Path.cwd()
    _Reader(path, "(top level)", data)
    unknown = sorted(set(data) - {"floor", "table"})
    if unknown:
        raise TableConfigError(f"{path}: {unknown[0]}: unknown section (known: floor, table)")
    floor = _Reader(path, "floor", data.get("floor", {}))
    floor.only(_FLOOR_KEYS)
    listen = floor.text("listen", DEFAULT_LISTEN)
    try:
        host, port = parse_listen(listen, where=f"{path}: floor.listen")
    except WebServerError as exc:
        raise TableConfigError(str(exc)) from None
    cert = floor.path_of("tls_cert", base) if "tls_cert" in floor.data else None
    key = floor.path_of("tls_key", base) if "tls_key" in floor.data else None
    if (cert is None) != (key is None):
        raise floor.error("tls_key" if key is None else "tls_cert",
                          "tls_cert and tls_key go together (the certificate and its key)")
    for option, file in (("tls_cert", cert), ("tls_key", key)):
        if file is not None and not file.is_file():
            raise floor.error(option, f"{file}: no such file")
    if not is_loopback(host) and cert is None:
        raise floor.error("listen", f"{listen} is not a loopback address: serve it over TLS "
                          "(set tls_cert and tls_key) or keep it on 127.0.0.1 behind a "
                          "reverse proxy that does (docs/floor.md)")
    store = floor.text("store", DEFAULT_STORE)
    if not store.startswith(("postgresql://", "postgres://")) and store != ":memory:":
        store = str(_resolve(base, store.removeprefix("sqlite:///")))
    client = floor.text("name", "floor")
    if len(client) > 32 or not all(c.isalnum() or c in "-_" for c in client):
        raise floor.error("name", f"{client!r}: at most 32 letters, digits, '-' and '_'")
    keys = floor.path_of("keys", base) if "keys" in floor.data else None

    raw_tables = data.get("table", [])
    if not isinstance(raw_tables, list) or not raw_tables:
        raise TableConfigError(
            f"{path}: table: at least one [[table]] (id and endpoints) is needed")
    if len(raw_tables) > MAX_TABLES:
        raise TableConfigError(f"{path}: table: {len(raw_tables)} tables (at most {MAX_TABLES})")
    tables: list[TableLink] = []
    for i, raw in enumerate(raw_tables):
        tables.append(_table(_Reader(path, f"table[{i}]", raw), base, client=client,
                             keys=keys, floor=floor))
    seen: set[str] = set()
    for i, table in enumerate(tables):
        if table.id in seen:
            raise TableConfigError(f"{path}: table[{i}].id: {table.id!r} is already a table's id")
        seen.add(table.id)
    return FloorConfig(path=path, host=host, port=port, store=store, name=client,
                       tls_cert=cert, tls_key=key, tables=tuple(tables))


def _table(r: _Reader, base: Path, *, client: str, keys: Path | None,
           floor: _Reader) -> TableLink:
    r.only(_TABLE_KEYS)
    table_id = r.text("id")
    if len(table_id) > 32 or not all(c.isalnum() or c in "-_" for c in table_id):
        raise r.error("id", f"{table_id!r}: at most 32 letters, digits, '-' and '_'")
    endpoints = {}
    for key in ("floor", "alerts", "console"):
        value = r.text(key)
        if not value.startswith(("tcp://", "ipc://")):
            raise r.error(key, f"{value!r} is not a zmq endpoint (tcp://HOST:PORT or "
                               "ipc://PATH)")
        endpoints[key] = value
    server_key = r.path_of("server_key", base) if "server_key" in r.data else None
    remote = [k for k, v in endpoints.items() if not is_local(v)]
    if remote and server_key is None:
        raise r.error("server_key", f"{endpoints[remote[0]]} ({remote[0]}) is not on this "
                      "machine: give the table's server.key (its channels are CurveZMQ "
                      "there) and set floor.keys")
    client_keys = None
    if server_key is not None:
        if keys is None:
            raise floor.error("keys", f"required for {r.section}.server_key: the folder with "
                              f"this floor's key pair ({client}.key_secret)")
        try:
            client_keys = load_client_keys(keys / f"{client}.key_secret", server_key)
        except KeysError as exc:
            raise r.error("server_key", str(exc)) from None
    return TableLink(id=table_id, name=r.text("name", table_id), keys=client_keys,
                     **endpoints)
