"""``table-controller floor --config floor.toml``: the floor, following every table of its
configuration, with its dashboard (docs/floor.md).
``table-controller floor adduser NAME --role floor|viewer --config floor.toml``: add (or reset)
a staff account; the password is read from standard input (one line) or asked for twice.

Prints one ``ready: floor URL store STORE tables ID ...`` line once the dashboard serves and
the followers run; runs until SIGINT or SIGTERM. Exit status: 0 after a clean stop or a user
added; 2 an invalid configuration or argument (the message names the file and key); 1 the
store or the web server could not be opened.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="the floor's configuration file (TOML)")
    parser.add_argument("--log-level", default="INFO",
                        choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    sub = parser.add_subparsers(dest="what", metavar="WHAT")
    add = sub.add_parser("adduser", help="add or reset a floor staff account")
    add.add_argument("username")
    add.add_argument("--role", choices=("floor", "viewer"), default="floor",
                     help="floor: sees hole cards, acknowledges; viewer: the public view")
    add.add_argument("--config", default=argparse.SUPPRESS,
                     help="the floor's configuration file (TOML)")


def _password() -> str | None:
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    import getpass

    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        print("floor adduser: the two passwords differ", file=sys.stderr)
        return None
    return first


def run(args: argparse.Namespace) -> int:
    from table_controller.config import TableConfigError
    from table_controller.floor.config import load_floor_config

    logging.basicConfig(level=args.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.config:
        print("floor: give --config FILE (the floor's configuration)", file=sys.stderr)
        return 2
    try:
        config = load_floor_config(args.config)
    except TableConfigError as exc:
        print(f"invalid configuration: {exc}", file=sys.stderr)
        return 2
    if args.what == "adduser":
        return _adduser(args, config.store)
    return _serve(config)


def _adduser(args: argparse.Namespace, store_url: str) -> int:
    import time

    from table_controller.floor.auth import Auth, AuthError
    from table_controller.floor.store import FloorStore, StoreError

    password = _password()
    if password is None:
        return 2
    try:
        store = FloorStore.open(store_url)
    except StoreError as exc:
        print(f"floor adduser: {exc}", file=sys.stderr)
        return 1
    try:
        Auth(store, time.time).add_user(args.username, password, args.role)
    except AuthError as exc:
        print(f"floor adduser: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(f"user {args.username}: {args.role}")
    return 0


def _serve(config: Any) -> int:
    from table_controller.floor.service import FloorService, FloorStartError

    try:
        service = FloorService(config).start()
    except FloorStartError as exc:
        print(f"floor: cannot start: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        logging.getLogger(__name__).info("signal %d: stopping", signum)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(f"ready: floor {service.url} store {service.store.where} tables "
              f"{' '.join(t.id for t in config.tables)}", flush=True)
        service.run(stop)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        service.close()
    print("stopped", flush=True)
    return 0
