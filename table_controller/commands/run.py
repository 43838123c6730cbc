"""``table-controller run --config table.toml``: the controller on the table's devices;
``table-controller run --sim [--config table.toml] [--manual] [--error-rate R]``: the same
controller on the simulated table, playing by itself (or, with ``--manual``, driven from the
console) (docs/running.md). Both serve the dealer station's page (``[station]``,
docs/station.md).

Prints one ``ready`` line with the bus endpoints and the station's address once everything is
open (and tells systemd ``READY=1``, then ``WATCHDOG=1`` from the loop: daemon/notify.py), runs
until SIGINT or SIGTERM, then closes the station, the devices, the bus and the journal
(everything written is kept). ``--log-format json`` logs one JSON object per line.
Exit status: 0 after a clean stop; 2 the configuration is invalid (the message names the file,
the key and the problem); 1 a device, the journal, the bus or the station's address could not
be opened.
"""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import sys
import threading
from typing import Any

SIM_DEFAULTS: dict[str, Any] = {
    "table": {"name": "sim", "seats": 6, "game": "nlhe", "small_blind": 1, "big_blind": 2,
              "button": 1, "sensors": ["rfid"]},
    "players": {str(s): 200 for s in range(1, 7)},
    "journal": {"path": "sim-journal.sqlite"},
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="the table's configuration file (TOML)")
    parser.add_argument("--sim", action="store_true",
                        help="run on the simulated table's devices (RFID over a pty, GPIO)")
    parser.add_argument("--seed", type=int,
                        help="--sim: seed of the decks (overrides [sim] seed)")
    parser.add_argument("--manual", action="store_true",
                        help="--sim: the console's clients deal and play (sim_press, sim_deal, "
                             "action, ...); default: the simulated station plays by itself")
    parser.add_argument("--error-rate", type=float, default=0.05,
                        help="--sim: fraction of hands with a dealer error (default 0.05)")
    parser.add_argument("--behaviours", default="",
                        help="--sim: rates of what the players and the dealer do with the "
                             "cards, NAME=RATE,... (peek, square, protect, reach, muck) or "
                             "'off'; default: realistic rates (docs/simulator.md)")
    parser.add_argument("--felt", default="green",
                        help="--sim: the camera's cloth: green, blue, grey, black or printed")
    parser.add_argument("--light", default="neutral",
                        help="--sim: the room's light: neutral, cool, warm or low")
    parser.add_argument("--journal", help="journal file (overrides [journal] path)")
    parser.add_argument("--log-level", default="INFO",
                        choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--log-format", default="text", choices=("text", "json"),
                        help="json: one JSON object per line (for journald and log shippers)")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from table_controller.config import TableConfigError, load_config, parse_config
    from table_controller.daemon import logformat
    from table_controller.daemon.access import FileAccess
    from table_controller.daemon.build import StartError, build_controller
    from table_controller.daemon.heap import settle_heap
    from table_controller.daemon.notify import Notifier

    settle_heap()   # before any thread: frames freed by the camera's thread (daemon/heap.py)
    logformat.configure(args.log_level, args.log_format)
    if not args.config and not args.sim:
        print("run: give --config FILE (a table) or --sim (the simulated table)",
              file=sys.stderr)
        return 2
    if not 0.0 <= args.error_rate <= 1.0:
        print(f"run: --error-rate {args.error_rate}: a fraction between 0 and 1",
              file=sys.stderr)
        return 2
    try:
        if args.config:
            config = load_config(args.config, sim=args.sim)
        else:
            config = parse_config(SIM_DEFAULTS, path="<--sim defaults>", sim=True)
    except TableConfigError as exc:
        print(f"invalid configuration: {exc}", file=sys.stderr)
        return 2
    if args.journal:
        config = replace(config, journal=Path(args.journal))
    FileAccess(config.access.gid).umask()  # nothing it creates is readable by others
    from table_controller.station import Station, StationError

    # The station's commands are the console's too; its page only with an address.
    station = Station(config.station, sim=args.sim)
    served = config.station.listen is not None
    try:
        if args.sim:
            from hw_sim.harness.behaviours import Behaviours
            from hw_sim.harness.run_sim import build_sim_controller

            try:
                behaviours = Behaviours(felt=args.felt, light=args.light).with_rates(
                    args.behaviours)
            except ValueError as exc:
                print(f"run: {exc}", file=sys.stderr)
                return 2
            controller = build_sim_controller(config, seed=args.seed, manual=args.manual,
                                              error_rate=args.error_rate,
                                              commands=station.commands(),
                                              attach=station.desk.attach,
                                              behaviours=behaviours)
        else:
            controller = build_controller(config, commands=station.commands(),
                                          attach=station.desk.attach)
    except StartError as exc:
        print(f"run: cannot start: {exc}", file=sys.stderr)
        return 1
    except TableConfigError as exc:
        print(f"invalid configuration: {exc}", file=sys.stderr)
        return 2
    try:
        station.attach(controller, serve=served, views=served)
    except StationError as exc:
        station.close()
        controller.close()
        print(f"run: cannot start: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        logging.getLogger(__name__).info("signal %d: stopping", signum)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    notifier = Notifier()
    try:
        bus = controller.bus
        console = controller.console
        delivery = controller.delivery
        # What the start built (modules, configuration, templates) lives as long as the
        # process: kept out of the collector's full passes, which otherwise walk it all in
        # one pause of the loop (docs/running.md, "Faults")
        gc.collect()
        gc.freeze()
        print(f"ready: public {bus.public_endpoint if bus else '-'} floor "
              f"{(bus.floor_endpoint if bus else None) or '-'} console "
              f"{console.endpoint if console else '-'} alerts "
              f"{(delivery.endpoint if delivery else None) or '-'} station {station.url or '-'} "
              f"journal {config.journal}",
              flush=True)
        notifier.ready(f"table {config.table.name}: running")
        controller.run(stop, heartbeat=notifier.tick)
    finally:
        notifier.stopping()
        for s, handler in previous.items():
            signal.signal(s, handler)
        station.close()
        controller.close()
        notifier.close()
    print("stopped", flush=True)
    return 0
