"""``table-controller keys new|client|list FOLDER``: the CurveZMQ keys of a table's bus
(docs/running.md, "Security"; the folder's layout in ``table_controller/daemon/curve.py``).

- ``keys new FOLDER``: the controller's key pair (``server.key``, ``server.key_secret``);
- ``keys client FOLDER NAME``: a key pair for one client (the dealer station, the floor),
  its public key allowed; move ``clients/NAME.key_secret`` to that client;
- ``keys list FOLDER [--json]``: the controller's public key and every allowed client.

``--group G`` makes the files readable by that group too (0640 instead of 0600). Exit status:
0 done; 1 the folder or a key cannot be made or read (the message says why); 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    new = sub.add_parser("new", help="make the controller's key pair in FOLDER")
    new.add_argument("folder")
    new.add_argument("--group", help="group that may read the key files too")
    client = sub.add_parser("client", help="make a client's key pair and allow it")
    client.add_argument("folder")
    client.add_argument("name", help="the client's name: letters, digits, - and _")
    client.add_argument("--group", help="group that may read the key files too")
    listing = sub.add_parser("list", help="the controller's public key and the allowed clients")
    listing.add_argument("folder")
    listing.add_argument("--json", action="store_true", help="one JSON object")


def run(args: argparse.Namespace) -> int:
    import grp
    from pathlib import Path

    from zmq.auth import load_certificate

    from table_controller.daemon.curve import (
        SERVER,
        KeysError,
        allowed_keys,
        make_client_keys,
        make_server_keys,
    )

    gid = None
    if getattr(args, "group", None):
        try:
            gid = grp.getgrnam(args.group).gr_gid
        except KeyError:
            print(f"keys: --group {args.group!r}: no such group", file=sys.stderr)
            return 2
    folder = Path(args.folder)
    try:
        if args.what == "new":
            public = make_server_keys(folder, gid=gid)
            print(f"server key: {public} (give it to every client); secret: "
                  f"{public.with_name(SERVER + '.key_secret')}")
            print(f"set [bus] keys = \"{folder}\" in the table's configuration")
            return 0
        if args.what == "client":
            secret = make_client_keys(folder, args.name, gid=gid)
            print(f"client {args.name}: allowed; its key pair is {secret} (move it to the "
                  f"client with {folder / (SERVER + '.key')}, then delete it here)")
            print("restart the controller to let it in")
            return 0
        server_file = folder / f"{SERVER}.key"
        server = load_certificate(server_file)[0].decode() if server_file.is_file() else None
        allowed = {name: key.decode() for name, key in allowed_keys(folder).items()}
        if args.json:
            print(json.dumps({"folder": str(folder), "server": server, "allowed": allowed}))
            return 0
        print(f"server  {server or '(none: table-controller keys new ' + str(folder) + ')'}")
        for name, key in allowed.items():
            print(f"client  {name:<16} {key}")
        if not allowed:
            print(f"no client allowed (table-controller keys client {folder} NAME)")
        return 0
    except (KeysError, OSError, ValueError) as exc:
        print(f"keys: {exc}", file=sys.stderr)
        return 1

