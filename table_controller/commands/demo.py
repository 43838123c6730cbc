"""``table-controller demo``: the simulated table plays hands with a dealer who sometimes errs.

The controller is the daemon's (RFID over a pty, the shuffler button on simulated GPIO, the
vision pipeline on rendered frames, the dealing monitor and the rules engine, the lamps on
simulated GPIO; see docs/simulator.md). On a terminal a live view shows the seats, stacks,
board, pot and the alerts with their remedies; otherwise (a pipe, a log file) one plain line
per event. Ctrl-C stops cleanly after closing the simulated devices.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=0,
                        help="stop after this many hands (default: until Ctrl-C)")
    parser.add_argument("--error-rate", type=float, default=0.15,
                        help="fraction of hands in which the dealer makes an error (default 0.15)")
    parser.add_argument("--seed", type=int, default=1, help="seed for cards, players and errors")
    parser.add_argument("--seats", type=int, default=6, help="players at the table, 2 to 10")
    parser.add_argument("--sensors", default="rfid,camera",
                        help="comma-separated: rfid, camera (default both)")
    parser.add_argument("--plain", action="store_true",
                        help="plain lines even on a terminal")
    parser.add_argument("--behaviours", default="",
                        help="rates of what players and the dealer do with the cards, as "
                             "NAME=RATE,... (peek, square, protect, slide, reach, muck), or "
                             "'off'; default: realistic rates (docs/simulator.md)")
    parser.add_argument("--felt", default="green",
                        help="the camera's cloth: green, blue, grey, black or printed")
    parser.add_argument("--light", default="neutral",
                        help="the room's light: neutral, cool, warm or low")


def run(args: argparse.Namespace) -> int:
    from hw_sim.harness.autoplay import AutoPlayError, AutoTable, HandReport
    from hw_sim.harness.behaviours import Behaviours

    sensors = tuple(s.strip() for s in args.sensors.split(",") if s.strip())
    if not sensors or any(s not in ("rfid", "camera") for s in sensors):
        print(f"demo: --sensors {args.sensors!r}: expected rfid, camera or both", file=sys.stderr)
        return 2
    if not 2 <= args.seats <= 10 or not 0.0 <= args.error_rate <= 1.0 or args.hands < 0:
        print("demo: --seats is 2..10, --error-rate 0..1, --hands 0 or more", file=sys.stderr)
        return 2
    try:
        behaviours = Behaviours(felt=args.felt, light=args.light).with_rates(args.behaviours)
    except ValueError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 2
    live = sys.stdout.isatty() and not args.plain
    view = _LiveView() if live else _PlainView()
    try:
        table = AutoTable(seats=args.seats, seed=args.seed, error_rate=args.error_rate,
                          sensors=sensors, on_alert=view.alert, on_hand_end=view.hand_end,
                          on_update=view.update, on_resolved=view.resolved,
                          behaviours=behaviours)
    except AutoPlayError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1
    reports: list[HandReport] = []
    status = 0
    view.start(table)
    try:
        while not args.hands or len(reports) < args.hands:
            view.hand_start(table, len(reports) + 1)
            report = table.play_hand()
            reports.append(report)
            view.hand_done(table, report)
    except KeyboardInterrupt:
        status = 130
    finally:
        view.stop()
        table.close()
    injected = [r for r in reports if r.injected]
    detected = sum(r.detected for r in injected)
    false = sum(len(r.false_alerts) for r in reports)
    stacks = " ".join(f"{s}:{v}" for s, v in sorted(table.stacks().items()))
    print(f"demo: {len(reports)} hand(s), {len(injected)} dealer error(s), {detected} detected, "
          f"{false} other game alert(s); stacks {stacks}"
          + (" (stopped)" if status else ""))
    return status


class _PlainView:
    """One line per alert and per hand, for pipes and logs."""

    def start(self, table: Any) -> None:
        print(f"demo: {len(table.stacks())} players, seed and error rate as given", flush=True)

    def hand_start(self, table: Any, number: int) -> None:
        return None

    def alert(self, raised: Any) -> None:
        a = raised.alert
        seat = "" if a.seat is None else f" seat {a.seat}"
        print(f"  hand {a.hand}: {a.severity.value.upper()} {a.code}{seat}: "
              f"{a.message or '-'} -> {a.remedy or '-'}", flush=True)

    def update(self, raised: Any) -> None:
        return None  # a log line per error: the first publication says it

    def resolved(self, record: dict[str, Any]) -> None:
        return None

    def hand_end(self, record: dict[str, Any]) -> None:
        return None

    def hand_done(self, table: Any, report: Any) -> None:
        error = ""
        if report.injected:
            error = f"; dealer error {report.error}: " + ("detected" if report.detected
                                                          else "NOT detected")
        how = " (void)" if report.voided else ""
        stacks = " ".join(f"{s}:{v}" for s, v in sorted(table.stacks().items()))
        print(f"hand {report.number}{how}: stacks {stacks}{error}", flush=True)

    def stop(self) -> None:
        return None


_SHOWN = 6
"""The live view shows at most this many alerts (the newest; info and fault alerts never end)."""


class _LiveView(_PlainView):
    """A rich live view: seats and stacks, board and pot, the latest alerts with remedies."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.console = Console()
        self.live = Live(console=self.console, refresh_per_second=8, transient=False)
        # alerts.md "Lifecycle": each alert once by id, updated in place, gone when resolved
        self.alerts: dict[Any, Any] = {}
        self.hands = 0
        self.errors = 0
        self.detected = 0
        self.table: Any = None

    def start(self, table: Any) -> None:
        self.table = table
        self.live.start()
        table.runner.listeners.on_step = lambda _step: self.refresh()

    def hand_start(self, table: Any, number: int) -> None:
        self.refresh()

    def alert(self, raised: Any) -> None:
        self.alerts[raised.id] = raised.alert
        while len(self.alerts) > _SHOWN:
            del self.alerts[next(iter(self.alerts))]
        self.refresh()

    def update(self, raised: Any) -> None:
        if raised.id in self.alerts:
            self.alerts[raised.id] = raised.alert
            self.refresh()

    def resolved(self, record: dict[str, Any]) -> None:
        if self.alerts.pop(record.get("id"), None) is not None:
            self.refresh()

    def hand_done(self, table: Any, report: Any) -> None:
        self.hands += 1
        self.errors += int(report.injected)
        self.detected += int(report.detected)
        self.refresh()

    def stop(self) -> None:
        self.live.stop()

    def refresh(self) -> None:
        if self.table is not None:
            self.live.update(self.render())

    def render(self) -> Any:
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        from table_controller.vocabulary.observations import Face
        from table_controller.vocabulary.zones import BOARD, seat_zone

        t = self.table
        model = t.runner.table.model
        hand = t.monitor.hand
        seats = Table(title=None, expand=True)
        for col in ("seat", "stack", "bet", "cards"):
            seats.add_column(col)
        stacks = t.stacks() if hand is None else {s: hand.stacks[s] for s in hand.stacks}
        bets = {} if hand is None else hand.bets
        button = None if hand is None else hand.button
        to_act = None if hand is None else hand.to_act
        for seat in sorted(t.stacks()):
            cards = " ".join(str(pc.card) if pc.face is Face.UP and pc.card else "▮"
                             for pc in model.in_zone(seat_zone(seat)))
            name = f"{seat}" + (" (D)" if seat == button else "") + (" ◀" if seat == to_act
                                                                      else "")
            seats.add_row(name, str(stacks.get(seat, 0)), str(bets.get(seat, "")), cards)
        board = " ".join(str(pc.card) for pc in model.in_zone(BOARD) if pc.card) or "-"
        pot = 0 if hand is None else hand.pot
        number = t.monitor.hand_number
        head = Text(f"hand {number}   board {board}   pot {pot}   "
                    f"dealer errors {self.errors}, detected {self.detected}", style="bold")
        alerts = Table(expand=True, show_header=True)
        for col in ("hand", "severity", "code", "remedy"):
            alerts.add_column(col)
        colour = {"stop": "red", "fix": "yellow", "warn": "magenta"}
        for a in self.alerts.values():
            sev = a.severity.value
            alerts.add_row(str(a.hand), Text(sev, style=colour.get(sev, "dim")), a.code,
                           a.remedy or "-")
        return Panel(Group(head, seats, Text("alerts", style="bold"), alerts),
                     title="table-controller demo (simulated table)")
