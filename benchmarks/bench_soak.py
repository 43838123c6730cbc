"""Soak: many hands on the simulated table with every kind of dealer error and sensor faults.

Three phases, one per sensor mode (``rfid``, ``camera``, ``both``): 1,000 hands each
(``--quick``: 30) of six-handed no-limit 1/2 at a seven-seat table (one seat empty, so a card can
be dealt to it) through the real controller: the RFID chain over a pty (virtual controller ->
pyserial link -> reader), rendered camera frames through the real vision code, the debounced
shuffler button, the dealing monitor and the rules engine. In half the hands the dealer makes
one error, chosen among the kinds of :mod:`hw_sim.harness.dealer_errors` the mode can see;
between streets, with probability 5%, a sensor gets a fault (link: random bytes, an unplug, a
tag dropout; camera: a frozen frame).

Reported per mode and per kind: errors injected, detected (the alert the kind must raise was
raised; goal: all), false alerts (stop/fix/warn alerts the hand's error does not explain; goal:
none), and the kinds the mode cannot see with the reason; per mode also sensor alerts, chips
conserved and hands per second (wall clock).

``python -m benchmarks soak`` runs the three phases one after the other;
``python -m benchmarks.bench_soak --mode camera --hands 1000 --out FILE`` runs one (so the
phases can run side by side, one per core) and ``--table FILE...`` prints the per-kind table of
such files together.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hw_sim.harness.autoplay import AutoTable, HandReport
from hw_sim.harness.dealer_errors import KINDS, MODES

SEATS = 6
TABLE_SEATS = 7
STACK = 200
ERROR_RATE = 0.5
FAULT_RATE = 0.05
SENSORS = {"rfid": ("rfid",), "camera": ("camera",), "both": ("rfid", "camera")}
SEEDS = {"rfid": 2026, "camera": 2027, "both": 2028}


def _per_kind(reports: list[HandReport], mode: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        if not kind.seen_in(mode):
            out[kind.name] = {"code": kind.code, "unseen": kind.unseen[mode]}
            continue
        planned = [r for r in reports if r.error == kind.name]
        injected = [r for r in planned if r.injected]
        false = [a for r in planned for a in r.false_alerts]
        out[kind.name] = {
            "code": kind.code,
            "planned": len(planned),
            "injected": len(injected),
            "detected": sum(r.detected for r in injected),
            "missed": [f"hand {r.number}" for r in injected if not r.detected][:5],
            "false_alerts": len(false),
            "false_alert_codes": dict(Counter(a.alert.code for a in false)),
        }
    clean = [r for r in reports if r.error is None]
    false = [a for r in clean for a in r.false_alerts]
    out["(no error)"] = {"code": "-", "planned": len(clean), "injected": len(clean),
                         "detected": 0, "missed": [], "false_alerts": len(false),
                         "false_alert_codes": dict(Counter(a.alert.code for a in false))}
    return out


def soak(*, hands: int, mode: str, seed: int, error_rate: float = ERROR_RATE,
         fault_rate: float = FAULT_RATE, out: Path | None = None,
         every: int = 25) -> dict[str, Any]:
    """Play ``hands`` hands in ``mode``; with ``out``, the figures so far are written there
    every ``every`` hands (``"complete": false`` until the last)."""
    table = AutoTable(seats=SEATS, stack=STACK, seed=seed, error_rate=error_rate,
                      fault_rate=fault_rate, sensors=SENSORS[mode], table_seats=TABLE_SEATS)
    start = time.perf_counter()
    reports: list[HandReport] = []
    try:
        for n in range(1, hands + 1):
            reports.append(table.play_hand())
            if out is not None and n % every == 0 and n < hands:
                partial = _figures(reports, table, mode, time.perf_counter() - start)
                out.write_text(json.dumps(partial | {"complete": False}, indent=2) + "\n")
    finally:
        table.close()
    values = _figures(reports, table, mode, time.perf_counter() - start) | {"complete": True}
    if out is not None:
        out.write_text(json.dumps(values, indent=2) + "\n")
    return values


def _figures(reports: list[HandReport], table: AutoTable, mode: str,
             elapsed: float) -> dict[str, Any]:
    hands = len(reports)
    injected = [r for r in reports if r.injected]
    false = [a for r in reports for a in r.false_alerts]
    return {
        "mode": mode,
        "hands": hands,
        "errors_injected": len(injected),
        "errors_detected": sum(r.detected for r in injected),
        "false_alerts": len(false),
        "by_kind": _per_kind(reports, mode),
        "faults_injected": dict(Counter(f for r in reports for f in r.faults)),
        "fault_and_info_alerts": dict(Counter(
            a.alert.code for r in reports for a in r.alerts
            if a.alert.severity.value in ("fault", "info"))),
        "false_alert_examples": [
            f"hand {r.number} (error {r.error}, faults {r.faults}): step {a.step} "
            f"{a.alert.code}: {a.alert.message}" for r in reports for a in r.false_alerts][:10],
        "hands_with_problems": [f"hand {r.number}: {r.problem}" for r in reports
                                if r.problem][:10],
        "chips_conserved": sum(table.stacks().values()) == SEATS * STACK,
        "seconds": round(elapsed, 2),
        "hands_per_second": round(hands / elapsed, 2),
    }


def table(phases: list[dict[str, Any]]) -> str:
    """The per-kind figures of ``phases`` as a Markdown table: injected / detected / false
    alerts per mode, ``-`` where the mode cannot see the kind."""
    modes = [p["mode"] for p in phases]
    lines = ["| kind | code | " + " | ".join(f"{m} ({p['hands']} hands): inj / det / false"
                                              for m, p in zip(modes, phases, strict=True))
             + " |",
             "|---|---|" + "---|" * len(modes)]
    for name in [k.name for k in KINDS] + ["(no error)"]:
        code = phases[0]["by_kind"][name]["code"]
        cells = []
        for p in phases:
            row = p["by_kind"][name]
            cells.append("cannot see" if "unseen" in row else
                         f"{row['injected']} / {row['detected']} / {row['false_alerts']}")
        lines.append(f"| {name} | {code} | " + " | ".join(cells) + " |")
    lines.append("| all | | " + " | ".join(
        f"{p['errors_injected']} / {p['errors_detected']} / {p['false_alerts']}"
        for p in phases) + " |")
    return "\n".join(lines)


def _print(values: dict[str, Any]) -> None:
    print(f"  {values['mode']}")
    for key, value in values.items():
        if key == "by_kind":
            continue
        print(f"    {key:<22}  {value}")
    for name, row in values["by_kind"].items():
        if "unseen" in row:
            print(f"    {name:<26} cannot see: {row['unseen']}")
        else:
            print(f"    {name:<26} injected {row['injected']:>3}  detected {row['detected']:>3}"
                  f"  false {row['false_alerts']} {row['false_alert_codes'] or ''}"
                  f"{'  missed ' + ', '.join(row['missed']) if row['missed'] else ''}")


def main(quick: bool) -> dict[str, object]:
    phases = [soak(hands=30 if quick else 1000, mode=mode, seed=SEEDS[mode]) for mode in MODES]
    for values in phases:
        _print(values)
    print(table(phases))
    return {p["mode"]: p for p in phases}


def _cli() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_soak")
    parser.add_argument("--mode", choices=MODES)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--out", help="write the phase's figures (JSON) here")
    parser.add_argument("--table", nargs="+", metavar="FILE",
                        help="print the per-kind table of phases written with --out")
    args = parser.parse_args()
    if args.table:
        print(table([json.loads(Path(f).read_text()) for f in args.table]))
        return 0
    if args.mode is None:
        parser.error("--mode or --table is needed")
    values = soak(hands=args.hands, mode=args.mode, seed=SEEDS[args.mode],
                  out=Path(args.out) if args.out else None)
    _print(values)
    return 0


if __name__ == "__main__":
    raise SystemExit(_cli())
