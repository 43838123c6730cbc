"""Soak: many hands on the simulated table with dealer errors, sensor faults and a table that
behaves like a real one.

Three phases, one per sensor mode, 1,000 hands each (``--quick``: 40 with RFID alone, 6 with the
camera), six-handed no-limit through the real controller (the RFID reader, the debounced
shuffler button, the vision pipeline on rendered frames, the dealing monitor and the rules
engine):

- ``rfid``: RFID alone; ``camera``: the camera alone; ``both``: RFID and the camera, fused.
- In 10% of the hands the dealer makes one error (a kind the phase's sensors can see: wrong
  first seat, a card exposed during the deal (camera), premature flop, four-card flop, missing
  burn, duplicate card); between streets, with probability 5%, a sensor fault (on the RFID
  link: random bytes (over the pty), an unplug, a tag dropout; the camera freezing).
- The players and the dealer behave as at a real table (:mod:`hw_sim.harness.behaviours`, the
  default rates of ``demo``): peeks, squared cards, chips and protectors on them, cards slid
  under the dealer's hand, his hand over the board, folds pushed into the muck. With the
  camera, the hands are played on several tables (``TABLES``), each with its own cloth and
  light (:func:`hw_sim.harness.behaviours.table_setting`).

Reported per phase: errors injected and detected (goal: all), false game alerts (stop/fix/warn
alerts no injected error explains; goal: none) in all and per 1,000 hands, and the behaviour
each is traced to; sensor (fault/info) alerts by code and by behaviour; the behaviours made;
chips conserved; hands per second (wall clock).

``--link in_process`` plays the RFID link in-process (no serial bytes, no ``serial_garbage``):
the pty path simulates every PN5180 register access of the firmware's scan and costs most of
a hand's time on a loaded machine. One phase alone, its figures written as it goes (every 25
hands), for a long run in the background::

    python -m benchmarks.bench_soak --mode camera --hands 1000 --out /tmp/soak-camera.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Literal

from hw_sim.harness.autoplay import AutoTable, HandReport
from hw_sim.harness.behaviours import Behaviours, table_setting

SEATS = 6
STACK = 200
ERROR_RATE = 0.10
FAULT_RATE = 0.05
TABLES = 5
MODES: dict[str, tuple[str, ...]] = {"rfid": ("rfid",), "camera": ("camera",),
                                     "both": ("rfid", "camera")}
Link = Literal["pty", "in_process"]


def figures(reports: list[HandReport], tables: list[AutoTable], setups: list[str],
            elapsed: float) -> dict[str, object]:
    """The phase's figures from the hands played so far."""
    hands = len(reports)
    injected = [r for r in reports if r.injected]
    missed = [r for r in injected if not r.detected]
    false = [(r, a) for r in reports for a in r.false_alerts]
    sensor = [(r, a) for r in reports for a in r.alerts
              if a.alert.severity.value in ("fault", "info")]
    return {
        "hands": hands,
        "tables": setups,
        "errors_injected": len(injected),
        "errors_detected": len(injected) - len(missed),
        "errors_missed": [f"hand {r.number}: {r.error}" for r in missed],
        "errors_by_kind": dict(Counter(r.error for r in injected)),
        "false_alerts": len(false),
        "false_alerts_per_1000_hands": round(1000 * len(false) / hands, 2) if hands else 0.0,
        "false_alert_codes": dict(Counter(a.alert.code for _, a in false)),
        "false_alerts_by_behaviour": dict(Counter(r.cause(a) for r, a in false)),
        "false_alert_examples": [f"hand {r.number} step {a.step}: {a.alert.code}: "
                                 f"{a.alert.message} (behaviour: {r.cause(a)})"
                                 for r, a in false][:10],
        "faults_injected": dict(Counter(f for r in reports for f in r.faults)),
        "fault_and_info_alerts": dict(Counter(a.alert.code for _, a in sensor)),
        "fault_and_info_alerts_by_behaviour": dict(Counter(r.cause(a) for r, a in sensor)),
        "behaviours": dict(Counter(kind for r in reports for _, kind, _ in r.behaviours)),
        "hands_with_problems": [f"hand {r.number}: {r.problem}" for r in reports
                                if r.problem][:10],
        "chips_conserved": all(sum(t.stacks().values()) == SEATS * STACK for t in tables),
        "seconds": round(elapsed, 2),
        "hands_per_second": round(hands / elapsed, 3) if elapsed else 0.0,
    }


def soak(*, hands: int, sensors: tuple[str, ...], error_rate: float = ERROR_RATE,
         seed: int, behaviours: Behaviours | None = None, link: Link = "pty",
         tables: int = 1,
         progress: Callable[[dict[str, object]], None] | None = None) -> dict[str, object]:
    """Play ``hands`` hands over ``tables`` tables (each its own seed, cloth and light), one
    hand on each in turn, so the figures written as it goes cover every table; the behaviours
    default to ``demo``'s."""
    base = behaviours or Behaviours()
    reports: list[HandReport] = []
    played: list[AutoTable] = []
    setups: list[str] = []
    start = time.perf_counter()
    try:
        for k in range(tables):
            felt, light = table_setting(seed + k) if "camera" in sensors else (base.felt,
                                                                                base.light)
            played.append(AutoTable(seats=SEATS, stack=STACK, seed=seed + k,
                                    error_rate=error_rate, fault_rate=FAULT_RATE,
                                    sensors=sensors,
                                    behaviours=replace(base, felt=felt, light=light),
                                    rfid_link=link))
            setups.append(f"{felt}/{light}")
        for n in range(hands):
            reports.append(played[n % tables].play_hand())
            if progress is not None and len(reports) % 25 == 0:
                progress(figures(reports, played, setups, time.perf_counter() - start))
    finally:
        for table in played:
            table.close()
    return figures(reports, played, setups, time.perf_counter() - start)


def main(quick: bool) -> dict[str, object]:
    results: dict[str, object] = {}
    for phase, sensors in MODES.items():
        camera = "camera" in sensors
        results[phase] = soak(hands=(6 if camera else 40) if quick else 1000, sensors=sensors,
                              seed=2026 + len(results), tables=TABLES if camera else 1)
    for phase, values in results.items():
        print(f"  {phase}")
        assert isinstance(values, dict)
        width = max(len(k) for k in values)
        for key, value in values.items():
            print(f"    {key:<{width}}  {value}")
    return results


def _one_phase(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_soak")
    parser.add_argument("--mode", choices=sorted(MODES), required=True)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--link", choices=("pty", "in_process"), default="pty")
    parser.add_argument("--out", required=True, help="JSON file, rewritten every 25 hands")
    args = parser.parse_args(argv)
    out = Path(args.out)

    def write(values: dict[str, object], finished: bool = False) -> None:
        out.write_text(json.dumps({args.mode: values, "link": args.link,
                                   "finished": finished}, indent=2) + "\n")

    sensors = MODES[args.mode]
    write(soak(hands=args.hands, sensors=sensors, seed=args.seed, link=args.link,
               tables=TABLES if "camera" in sensors else 1, progress=write), finished=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_one_phase())
