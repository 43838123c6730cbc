"""``table-controller sim SCENARIO.toml [--json] [--check] [--journal FILE]``: run a scenario on
the simulated table through the daemon's controller (docs/simulator.md, docs/scenario.md).

With ``--journal`` the controller journals the run as a table does (every observation, console
request, alert and hand, with its hand history), so ``table-controller journal FILE hands``
lists the scenario's hands.

Exit status: 0 the run went through (and with ``--check`` matched every expectation); 1 a step
could not be carried out, or ``--check`` found a difference (each one is named); 2 the scenario
file is invalid or the journal cannot be opened (nothing runs).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


def resolve_path(name: str) -> Path:
    """``name`` as given if it exists, else the built-in scenario of that name."""
    path = Path(name)
    if path.exists():
        return path
    for candidate in (BUILT_IN / name, BUILT_IN / f"{name}.toml"):
        if candidate.is_file():
            return candidate
    return path


BUILT_IN = Path(__file__).resolve().parents[1] / "data" / "scenarios"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", nargs="?",
                        help="scenario file (TOML, see docs/simulator.md), or the name of a "
                             "built-in scenario (see --list)")
    parser.add_argument("--list", action="store_true", help="list the built-in scenarios")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per line: alerts, hand_end, a final summary")
    parser.add_argument("--check", action="store_true",
                        help="compare with [[expect]] and [result]; exit 1 on any difference")
    parser.add_argument("--journal", metavar="FILE",
                        help="journal the run into this file (SQLite), as a table does")


def run(args: argparse.Namespace) -> int:
    from hw_sim.harness.expectations import RaisedAlert, differences
    from hw_sim.harness.runner import Listeners, build_runner
    from hw_sim.harness.scenario import ScenarioError, load_scenario
    from table_controller.daemon.journal import Journal, JournalError

    if args.list:
        for path in sorted(BUILT_IN.glob("*.toml")):
            try:
                print(f"{path.stem}: {load_scenario(path).name}")
            except ScenarioError as exc:
                print(f"{path.stem}: invalid: {exc}")
        return 0
    if not args.scenario:
        print("sim: give a scenario file (or --list)", file=sys.stderr)
        return 2
    try:
        scenario = load_scenario(resolve_path(args.scenario))
    except ScenarioError as exc:
        print(f"invalid scenario: {exc}", file=sys.stderr)
        return 2

    journal = None
    if args.journal:
        try:
            journal = Journal.open(args.journal)
        except JournalError as exc:
            print(f"sim: {exc}", file=sys.stderr)
            return 2
    started = datetime.now(UTC)
    out = sys.stdout
    origin: list[float] = []

    def wall(t: float) -> datetime:
        return started + timedelta(seconds=t - origin[0]) if origin else started

    def on_alert(raised: RaisedAlert) -> None:
        a = raised.alert
        if args.json:
            shown = {"type": "alert", "id": raised.id, **a.to_dict(wall(a.t))}
            if raised.update:
                shown["update"] = True
            print(json.dumps(shown, separators=(", ", ": ")), file=out, flush=True)
        else:
            seat = "" if a.seat is None else f" seat {a.seat}"
            cards = f" [{' '.join(str(c) for c in a.cards)}]" if a.cards else ""
            what = "  update" if raised.update else ""
            print(f"step {raised.step:>3}  hand {a.hand}  {a.severity.value.upper():5} "
                  f"{a.code}{seat}{cards}{what}: {a.message or '-'} -> {a.remedy or '-'}",
                  file=out, flush=True)

    def on_resolved(record: dict[str, Any]) -> None:
        if args.json:
            print(json.dumps(record), file=out, flush=True)
        else:
            print(f"alert {record['id']} {record['code']} resolved ({record['by']})",
                  file=out, flush=True)

    def on_hand_end(record: dict[str, Any]) -> None:
        if args.json:
            print(json.dumps(record), file=out, flush=True)
        else:
            how = f" void ({record.get('cause')})" if record.get("voided") else ""
            stacks = " ".join(f"{s}:{v}" for s, v in record.get("stacks", {}).items())
            print(f"hand {record.get('hand')} ended{how}; stacks {stacks}", file=out, flush=True)

    runner = build_runner(scenario, listeners=Listeners(on_alert=on_alert, on_update=on_alert,
                                                         on_resolved=on_resolved,
                                                         on_hand_end=on_hand_end),
                          journal=journal, wall_start=started)
    origin.append(runner.table.clock())
    try:
        record = runner.run()
    finally:
        runner.close()
    diffs = differences(scenario, record) if args.check else list(record.errors)
    summary = {
        "type": "summary", "scenario": scenario.path, "name": scenario.name,
        "hands": record.hands, "alerts": len(record.alerts),
        "stacks": {str(s): v for s, v in sorted(record.stacks.items())},
        "simulated_seconds": round(runner.table.clock() - origin[0], 3),
    }
    if args.check:
        summary["passed"] = not diffs
        summary["differences"] = diffs
    elif diffs:
        summary["errors"] = diffs
    if args.json:
        print(json.dumps(summary), file=out, flush=True)
    else:
        stacks = " ".join(f"{s}:{v}" for s, v in sorted(record.stacks.items()))
        print(f"{scenario.path}: {record.hands} hand(s), {len(record.alerts)} alert(s); "
              f"stacks {stacks}", file=out)
    for d in diffs:
        print(f"{scenario.path}: {d}", file=sys.stderr)
    if args.check and not diffs:
        print(f"{scenario.path}: check passed", file=sys.stderr)
    return 1 if diffs else 0
