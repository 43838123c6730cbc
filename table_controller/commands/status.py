"""``table-controller status [--config FILE | --console ENDPOINT] [--json]``: how a running
controller is doing (docs/running.md, "Status"): uptime, sensors, counters, the current hand,
the last alert. It asks the controller's console (``{"cmd": "health"}``).

The console endpoint comes from ``--console``, else from the configuration (``--config``,
default ``/etc/table-controller/table.toml``). A CurveZMQ console (``[bus] keys``, tcp) needs a
client's key pair: ``--key clients/NAME.key_secret`` (the controller's ``server.key`` is read
from the key folder, or given with ``--server-key``).

Exit status: 0 the controller answered; 1 no answer (not running, or not reachable); 2 bad
arguments or configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

DEFAULT_CONFIG = "/etc/table-controller/table.toml"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help=f"the table's configuration (default {DEFAULT_CONFIG})")
    parser.add_argument("--console", help="the console endpoint (instead of the configuration)")
    parser.add_argument("--key", help="CurveZMQ: this client's NAME.key_secret")
    parser.add_argument("--server-key", help="CurveZMQ: the controller's server.key "
                                             "(default: in the configuration's key folder)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait (3)")
    parser.add_argument("--json", action="store_true", help="the health object as JSON")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from table_controller.config import TableConfigError, load_config
    from table_controller.daemon.bus import console_request
    from table_controller.daemon.curve import SERVER, KeysError, load_client_keys

    endpoint = args.console
    keys_folder: Path | None = None
    if endpoint is None:
        try:
            config = load_config(args.config or DEFAULT_CONFIG)
        except TableConfigError as exc:
            print(f"status: invalid configuration: {exc}", file=sys.stderr)
            return 2
        endpoint = config.bus.console
        keys_folder = config.bus.keys
    keys = None
    if args.key:
        server_key = args.server_key or (keys_folder / f"{SERVER}.key" if keys_folder else None)
        if server_key is None:
            print("status: --key needs --server-key (the controller's server.key)",
                  file=sys.stderr)
            return 2
        try:
            keys = load_client_keys(args.key, server_key)
        except KeysError as exc:
            print(f"status: {exc}", file=sys.stderr)
            return 2
    elif keys_folder is not None and endpoint.startswith("tcp://"):
        print(f"status: the console {endpoint} is CurveZMQ (bus.keys): give --key "
              "CLIENT.key_secret", file=sys.stderr)
        return 2
    try:
        answer = console_request(endpoint, {"cmd": "health"}, timeout=args.timeout, keys=keys)
    except (TimeoutError, ValueError) as exc:
        print(f"status: no answer from the controller at {endpoint}: {exc}", file=sys.stderr)
        return 1
    if not answer.get("ok") or not isinstance(answer.get("health"), dict):
        print(f"status: the controller at {endpoint} refused: {answer.get('error')}",
              file=sys.stderr)
        return 1
    health: dict[str, Any] = answer["health"]
    if args.json:
        print(json.dumps(health))
    else:
        print(text(health))
    return 0


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d {hours}h {minutes:02d}m"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s"


def text(h: dict[str, Any]) -> str:
    """The health object for a person."""
    hand = "between hands" if h["hand"] is None else (
        f"hand {h['hand']}" + (f", seat {h['to_act']} to act" if h["to_act"] else "")
        + (f", HALTED by {h['halted']}" if h["halted"] else ""))
    lines = [f"table {h['table'] or '-'}: up {_duration(h['uptime_s'])} (since {h['started']},"
             f" run {h['run']}), {hand}; {h['last_hand']} hand(s) this run"]
    for s in h["sensors"]:
        state = ("online" if s.get("online", True) else "OFFLINE") if s["polling"] \
            else "FAILING (its poll raises)"
        seen = "never seen" if s["last_seen_s"] is None else \
            f"last seen {s['last_seen_s']:.1f} s ago"
        lines.append(f"  sensor {s['name']:<10} {state}, {s['observations']} observation(s)"
                     f" ({s['refused']} refused), {seen}")
    c = h["counters"]
    lines.append(f"  console   {c['requests']} request(s) done, {c['requests_refused']} refused")
    lines.append(f"  journal   {c['journal_pending']} record(s) waiting, "
                 f"{c['journal_failures']} failed write(s)")
    lines.append(f"  bus       {c['published']} message(s) sent, {c['publish_dropped']} dropped;"
                 f" {c['alerts_unacked']} alert(s) not acknowledged; floor clients: "
                 f"{', '.join(h['floor_clients']) or 'none'}")
    last = h["last_alert"]
    if last is None:
        lines.append(f"  alerts    {c['alerts']} this run")
    else:
        lines.append(f"  alerts    {c['alerts']} this run; last #{last.get('id')} "
                     f"{last['code']} ({last['severity']}) hand {last['hand']} at "
                     f"{last['time']}: {last['message']}")
    if h["open_alerts"]:
        lines.append(f"  open      {', '.join(h['open_alerts'])}")
    return "\n".join(lines)
