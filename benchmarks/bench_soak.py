"""Soak: many hands on the simulated table with every kind of dealer error, sensor faults and a
table that behaves like a real one.

Three phases, one per sensor mode (``rfid``, ``camera``, ``both``): 1,000 hands each
(``--quick``: 30 with RFID alone, 6 with the camera) of six-handed no-limit 1/2 at a seven-seat
table (one seat empty, so a card can be dealt to it) through the real controller: the RFID
chain over a pty (virtual controller -> pyserial link -> reader), rendered camera frames
through the real vision code, the debounced shuffler button, the dealing monitor and the rules
engine.

- In half the hands the dealer makes one error, chosen among the kinds of
  :mod:`hw_sim.harness.dealer_errors` the mode can see; between streets, with probability 5%,
  a sensor gets a fault (link: random bytes (over the pty), an unplug, a tag dropout; camera: a
  frozen frame).
- The players and the dealer behave as at a real table (:mod:`hw_sim.harness.behaviours`, the
  default rates of ``demo``): peeks, squared cards, chips and protectors on them, cards slid
  under the dealer's hand, his hand over the board, folds pushed into the muck. With the
  camera, the hands are played on several tables (``TABLES``), each with its own cloth and
  light (:func:`hw_sim.harness.behaviours.table_setting`).

Reported per mode and per kind: errors injected, detected (the alert the kind must raise was
raised; goal: all), false alerts (stop/fix/warn alerts the hand's error does not explain; goal:
none) and the kinds the mode cannot see with the reason; per mode also false alerts per 1,000
hands and the behaviour each is traced to, sensor (fault/info) alerts by code and behaviour,
the behaviours made, chips conserved and hands per second (wall clock).

``python -m benchmarks soak`` runs the three phases one after the other;
``python -m benchmarks.bench_soak --mode camera --hands 1000 --out FILE`` runs one (so the
phases can run side by side, one per core), its figures written every 25 hands, and
``--table FILE...`` prints the per-kind table of such files together; ``--kinds K,K`` (with
``--error-rate``, default 1, and ``--tables``) hunts the misses of chosen kinds.
``--link in_process`` plays the RFID link in-process (no serial bytes, no
``serial_garbage``). Over the pty the firmware scans simulated PN5180s with its inventories
replayed once simulated (:mod:`hw_sim.devices.scan_replay`: the same bytes, a fraction of
the cost); with the camera most of a hand's time is the real vision code analysing each frame
the table changed in.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from hw_sim.harness.autoplay import AutoTable, HandReport
from hw_sim.harness.behaviours import Behaviours, table_setting
from hw_sim.harness.dealer_errors import BY_NAME, KINDS, MODES, kinds_seen

SEATS = 6
TABLE_SEATS = 7
STACK = 200
ERROR_RATE = 0.5
FAULT_RATE = 0.05
SENSORS = {"rfid": ("rfid",), "camera": ("camera",), "both": ("rfid", "camera")}
SEEDS = {"rfid": 2026, "camera": 2027, "both": 2028}
TABLES = 5
Link = Literal["pty", "in_process"]


def _per_kind(reports: list[HandReport], seeds: list[int],
              mode: str) -> dict[str, dict[str, Any]]:
    seed_of = {id(r): s for r, s in zip(reports, seeds, strict=True)}
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
            "missed": [f"hand {r.number} of table {seed_of[id(r)]}" for r in injected
                       if not r.detected][:5],
            "false_alerts": len(false),
            "false_alert_codes": dict(Counter(a.alert.code for a in false)),
        }
    clean = [r for r in reports if r.error is None]
    false = [a for r in clean for a in r.false_alerts]
    out["(no error)"] = {"code": "-", "planned": len(clean), "injected": len(clean),
                         "detected": 0, "missed": [], "false_alerts": len(false),
                         "false_alert_codes": dict(Counter(a.alert.code for a in false))}
    return out


def check_kinds(kinds: Sequence[str], mode: str, link: Link) -> None:
    """ValueError naming a kind of ``kinds`` that is unknown or that ``mode`` over ``link``
    cannot see (the in-process link has no tray antenna)."""
    seen = kinds_seen(SENSORS[mode], tray=link == "pty")
    for name in kinds:
        if name not in BY_NAME:
            raise ValueError(f"unknown error kind {name!r}; one of {', '.join(BY_NAME)}")
        if name not in seen:
            raise ValueError(f"the {mode} mode over the {link} link cannot see {name!r}")
    if not kinds:
        raise ValueError("no error kind named")


def soak(*, hands: int, mode: str, seed: int, error_rate: float = ERROR_RATE,
         fault_rate: float = FAULT_RATE, behaviours: Behaviours | None = None,
         link: Link = "pty", tables: int = 1, out: Path | None = None,
         every: int = 25, kinds: Sequence[str] | None = None) -> dict[str, Any]:
    """Play ``hands`` hands in ``mode`` over ``tables`` tables (each its own seed and, with the
    camera, its own cloth and light), one hand on each in turn, so the figures so far cover
    every table; the behaviours default to ``demo``'s. With ``out``, the figures so far are
    written there every ``every`` hands (``"complete": false`` until the last). ``kinds``: the
    dealer errors are only of these kinds (a hunt for one kind's misses); ValueError names a
    kind that is unknown or that the mode (or link) cannot make seen."""
    base = behaviours or Behaviours()
    sensors = SENSORS[mode]
    if kinds is not None:
        check_kinds(kinds, mode, link)
    played: list[AutoTable] = []
    setups: list[str] = []
    start = time.perf_counter()
    reports: list[HandReport] = []
    seeds: list[int] = []  # the seed of the table each report's hand was played on
    try:
        for k in range(tables):
            felt, light = table_setting(seed + k) if "camera" in sensors else (base.felt,
                                                                                base.light)
            played.append(AutoTable(seats=SEATS, stack=STACK, seed=seed + k,
                                    error_rate=error_rate, fault_rate=fault_rate,
                                    sensors=sensors, table_seats=TABLE_SEATS,
                                    behaviours=replace(base, felt=felt, light=light),
                                    rfid_link=link))
            if kinds is not None:
                played[-1].error_kinds = list(kinds)
            setups.append(f"{felt}/{light}")
        for n in range(1, hands + 1):
            reports.append(played[(n - 1) % tables].play_hand())
            seeds.append(seed + (n - 1) % tables)
            if out is not None and n % every == 0 and n < hands:
                partial = _figures(reports, seeds, played, setups, mode,
                                   time.perf_counter() - start)
                out.write_text(json.dumps(partial | {"complete": False}, indent=2) + "\n")
    finally:
        for t in played:
            t.close()
    values = _figures(reports, seeds, played, setups, mode, time.perf_counter() - start) \
        | {"complete": True, "link": link}
    if out is not None:
        out.write_text(json.dumps(values, indent=2) + "\n")
    return values


def _figures(reports: list[HandReport], seeds: list[int], tables: list[AutoTable],
             setups: list[str], mode: str, elapsed: float) -> dict[str, Any]:
    """The phase's figures; a hand is named by its number on its table and the table's seed
    (``AutoTable(seed=...)`` replays it)."""
    hands = len(reports)
    seed_of = {id(r): s for r, s in zip(reports, seeds, strict=True)}
    injected = [r for r in reports if r.injected]
    false = [(r, a) for r in reports for a in r.false_alerts]
    sensor = [(r, a) for r in reports for a in r.alerts
              if a.alert.severity.value in ("fault", "info")]
    return {
        "mode": mode,
        "hands": hands,
        "tables": setups,
        "errors_injected": len(injected),
        "errors_detected": sum(r.detected for r in injected),
        "false_alerts": len(false),
        "by_kind": _per_kind(reports, seeds, mode),
        "false_alerts_per_1000_hands": round(1000 * len(false) / hands, 2) if hands else 0.0,
        "false_alerts_by_behaviour": dict(Counter(r.cause(a) for r, a in false)),
        "false_alert_examples": [
            f"hand {r.number} of table {seed_of[id(r)]} (error {r.error}, faults {r.faults}): "
            f"step {a.step} "
            f"{a.alert.code}: {a.alert.message} (behaviour: {r.cause(a)})"
            for r, a in false][:10],
        "faults_injected": dict(Counter(f for r in reports for f in r.faults)),
        "fault_and_info_alerts": dict(Counter(a.alert.code for _, a in sensor)),
        "fault_and_info_alerts_by_behaviour": dict(Counter(r.cause(a) for r, a in sensor)),
        "behaviours": dict(Counter(kind for r in reports for _, kind, _ in r.behaviours)),
        "hands_with_problems": [f"hand {r.number} of table {seed_of[id(r)]}: {r.problem}"
                                for r in reports
                                if r.problem][:10],
        "chips_conserved": all(sum(t.stacks().values()) == SEATS * STACK for t in tables),
        "seconds": round(elapsed, 2),
        "hands_per_second": round(hands / elapsed, 3) if elapsed else 0.0,
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
    phases = []
    for mode in MODES:
        camera = "camera" in SENSORS[mode]
        phases.append(soak(hands=(6 if camera else 30) if quick else 1000, mode=mode,
                           seed=SEEDS[mode], tables=TABLES if camera else 1))
    for values in phases:
        _print(values)
    print(table(phases))
    return {p["mode"]: p for p in phases}


def _cli() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_soak")
    parser.add_argument("--mode", choices=MODES)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, help="the first table's seed (default per mode)")
    parser.add_argument("--link", choices=("pty", "in_process"), default="pty")
    parser.add_argument("--out", help="write the phase's figures (JSON) here, every 25 hands")
    parser.add_argument("--tables", type=int,
                        help=f"tables to spread the hands over (default {TABLES} with the "
                             "camera, else 1)")
    parser.add_argument("--kinds", help="only these dealer errors (comma-separated names), to "
                                        "hunt one kind's misses")
    parser.add_argument("--error-rate", type=float,
                        help=f"share of hands with an error (default {ERROR_RATE}, 1 with "
                             "--kinds)")
    parser.add_argument("--table", nargs="+", metavar="FILE",
                        help="print the per-kind table of phases written with --out")
    args = parser.parse_args()
    if args.table:
        print(table([json.loads(Path(f).read_text()) for f in args.table]))
        return 0
    if args.mode is None:
        parser.error("--mode or --table is needed")
    camera = "camera" in SENSORS[args.mode]
    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",")
                                             if k.strip()]
    rate = args.error_rate if args.error_rate is not None else (
        1.0 if kinds else ERROR_RATE)
    tables = args.tables if args.tables is not None else (TABLES if camera else 1)
    if tables < 1 or not 0.0 <= rate <= 1.0 or args.hands < 1:
        parser.error("--tables and --hands are at least 1, --error-rate is between 0 and 1")
    if kinds is not None:
        try:
            check_kinds(kinds, args.mode, args.link)
        except ValueError as exc:
            parser.error(str(exc))
    values = soak(hands=args.hands, mode=args.mode,
                  seed=SEEDS[args.mode] if args.seed is None else args.seed, link=args.link,
                  tables=tables, out=Path(args.out) if args.out else None, kinds=kinds,
                  error_rate=rate)
    _print(values)
    return 0


if __name__ == "__main__":
    raise SystemExit(_cli())
