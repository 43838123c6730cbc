"""``table-controller journal FILE runs|hands|alerts|observations|show N|export-phh N``: read a
table's journal
(docs/running.md). The file is opened read-only, so it can be read while the controller runs.

Exit status: 0 done; 1 no such hand, or the hand has no hand history (void or not finished);
2 the file is not a journal.
"""

from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="journal file (SQLite)")
    parser.add_argument("--run", type=int, help="which start of the controller (default: last)")
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    sub.add_parser("runs", help="each start of the controller")
    hands = sub.add_parser("hands", help="the hands of the run")
    hands.add_argument("--json", action="store_true",
                       help="every hand of every run, one JSON object a line")
    alerts = sub.add_parser("alerts", help="the alerts of the run, or of one hand")
    alerts.add_argument("--hand", type=int, help="only this hand")
    alerts.add_argument("--json", action="store_true",
                        help="every alert of every run, one JSON object a line")
    obs = sub.add_parser("observations", help="what the sensors saw, as JSON lines")
    obs.add_argument("--hand", type=int, help="only during this hand")
    obs.add_argument("--from", dest="start", type=float, metavar="T",
                     help="from this monotonic time (the t of a hand or alert)")
    obs.add_argument("--to", dest="end", type=float, metavar="T", help="up to this time")
    show = sub.add_parser("show", help="one hand: record, alerts, console requests")
    show.add_argument("hand", type=int)
    export = sub.add_parser("export-phh", help="write a hand's PHH history")
    export.add_argument("hand", type=int)
    export.add_argument("--out", help="folder to write hand-RUN-N.phh into (default: stdout)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from table_controller.daemon.journal import Journal, JournalError

    try:
        journal = Journal.open(args.file, readonly=True)
    except JournalError as exc:
        print(f"journal: {exc}", file=sys.stderr)
        return 2
    try:
        if args.what == "runs":
            for r in journal.runs():
                print(f"run {r['run']}  {r['started']}  table {r['table']}")
            return 0
        if args.what == "hands" and args.json:
            for h in journal.all_hands():
                if args.run is not None and h.run != args.run:
                    continue
                print(json.dumps({
                    "run": h.run, "hand": h.number,
                    "start_stacks": {str(k): v for k, v in sorted(h.stacks_before.items())},
                    "end_stacks": None if h.stacks_after is None else {
                        str(k): v for k, v in sorted(h.stacks_after.items())},
                    "voided": bool(h.voided), "ended": h.finished}))
            return 0
        if args.what == "alerts" and args.json:
            for run_number, a in journal.all_alerts():
                if (args.run is not None and run_number != args.run) or (
                        args.hand is not None and a.get("hand") != args.hand):
                    continue
                print(json.dumps({"run": run_number, "hand": a.get("hand"), "id": a.get("id"),
                                  "code": a.get("code"), "update": a.get("update"),
                                  "time": a.get("time")}))
            return 0
        if args.what == "hands":
            for h in journal.hands(run=args.run):
                if not h.finished:
                    end = "in progress (or the controller stopped)"
                elif h.voided:
                    end = f"void ({h.cause})"
                else:
                    end = "played"
                stacks = " ".join(f"{s}:{v}" for s, v in sorted((h.stacks_after or {}).items()))
                print(f"hand {h.number:>4}  {h.start_wall or '-'}  button {h.button}  {end}"
                      + (f"  stacks {stacks}" if stacks else ""))
            return 0
        if args.what == "alerts":
            for a in journal.alerts(hand=args.hand, run=args.run):
                print(json.dumps(a))
            return 0
        if args.what == "observations":
            for o in journal.observations(start=args.start, end=args.end, hand=args.hand,
                                          run=args.run):
                print(json.dumps({"t": o.t, "time": o.wall, "hand": o.hand, "kind": o.kind,
                                  **o.fields, "accepted": o.accepted, "error": o.error}))
            return 0
        hand = journal.hand(args.hand, run=args.run)
        if hand is None:
            print(f"journal: no hand {args.hand} in run {args.run or journal.latest_run()}",
                  file=sys.stderr)
            return 1
        if args.what == "show":
            print(json.dumps({
                "run": hand.run, "hand": hand.number, "start": hand.start_wall,
                "end": hand.end_wall, "button": hand.button,
                "stacks_before": {str(k): v for k, v in sorted(hand.stacks_before.items())},
                "stacks_after": None if hand.stacks_after is None else
                {str(k): v for k, v in sorted(hand.stacks_after.items())},
                "voided": hand.voided, "cause": hand.cause,
                "alerts": journal.alerts(hand=hand.number, run=hand.run),
                "console": journal.console_requests(hand=hand.number, run=hand.run),
                "phh": hand.phh, "phh_error": hand.phh_error}, indent=1))
            return 0
        if hand.phh is None:
            print(f"journal: hand {hand.number} has no hand history: "
                  f"{hand.phh_error or 'not finished'}", file=sys.stderr)
            return 1
        if args.out:
            folder = Path(args.out)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"hand-{hand.run}-{hand.number}.phh"
            path.write_text(hand.phh)
            print(path)
        else:
            sys.stdout.write(hand.phh)
        return 0
    except JournalError as exc:
        print(f"journal: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
