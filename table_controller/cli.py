"""``table-controller``: the command line.

Each command group lives in its own module under ``table_controller.commands`` with
``configure(parser)`` and ``run(args) -> int``. Those modules import only light things at module
level; heavy or Pi-only dependencies (OpenCV, RPi.GPIO, picamera2) are imported inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# (command, module, one-line help). Each module defines ``configure(parser)`` and ``run(args)``.
COMMANDS: list[tuple[str, str, str]] = [
    ("phh", "table_controller.commands.phh", "hand histories in the PHH format"),
    ("sim", "table_controller.commands.sim", "run a scenario on the simulated table"),
    ("demo", "table_controller.commands.demo", "play hands on the simulated table, live view"),
    ("vision", "table_controller.commands.vision", "overhead camera: enrol, detect, calibrate"),
    ("deck", "table_controller.commands.deck", "enrol the table's decks, choose the one in play"),
    ("run", "table_controller.commands.run", "run the controller on the table (or --sim)"),
    ("status", "table_controller.commands.status", "how a running controller is doing"),
    ("journal", "table_controller.commands.journal", "read a table's journal: hands, alerts, PHH"),
    ("keys", "table_controller.commands.keys", "CurveZMQ keys of the bus: make, allow, list"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="table-controller",
        description="Controller for an instrumented Texas Hold'em table.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name, help_text in COMMANDS:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        importlib.import_module(module_name).configure(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    module = importlib.import_module(args._module)
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
