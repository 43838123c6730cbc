"""Soak: many hands on the simulated table with dealer errors and faults on the RFID link.

Phase ``rfid``: 1,000 hands (``--quick``: 60) of six-handed no-limit play through the real
controller (the RFID chain over a pty: virtual controller -> pyserial link -> reader; the
debounced shuffler button; the dealing monitor and the rules engine). In 5% of the hands the
dealer makes one error (a kind the RFID sensor can see: wrong first seat, premature flop,
four-card flop, missing burn, duplicate card); between streets, with probability 5%, the link
gets a fault (random bytes, an unplug, a tag dropout).

Phase ``rfid+camera``: 100 hands (``--quick``: 10) with the camera too (rendered frames through
the real vision code, fused with RFID by the monitor), a 20% error rate that includes a card
exposed during the deal, and camera freezes among the faults. Slower: every movement renders
and analyses a frame.

Reported per phase: errors injected and detected (goal: all), false game alerts (stop/fix/warn
alerts no injected error explains; goal: none), sensor alerts, chips conserved, hands per
second (wall clock).
"""

from __future__ import annotations

import time
from collections import Counter

from hw_sim.harness.autoplay import AutoTable

SEATS = 6
STACK = 200


def soak(*, hands: int, sensors: tuple[str, ...], error_rate: float,
         seed: int) -> dict[str, object]:
    table = AutoTable(seats=SEATS, stack=STACK, seed=seed, error_rate=error_rate,
                      fault_rate=0.05, sensors=sensors)
    start = time.perf_counter()
    try:
        reports = [table.play_hand() for _ in range(hands)]
    finally:
        table.close()
    elapsed = time.perf_counter() - start
    injected = [r for r in reports if r.injected]
    missed = [r for r in injected if not r.detected]
    false = [a for r in reports for a in r.false_alerts]
    return {
        "hands": hands,
        "errors_injected": len(injected),
        "errors_detected": len(injected) - len(missed),
        "errors_missed": [f"hand {r.number}: {r.error}" for r in missed],
        "errors_by_kind": dict(Counter(r.error for r in injected)),
        "false_alerts": len(false),
        "false_alert_codes": dict(Counter(a.alert.code for a in false)),
        "faults_injected": dict(Counter(f for r in reports for f in r.faults)),
        "fault_and_info_alerts": dict(Counter(
            a.alert.code for r in reports for a in r.alerts
            if a.alert.severity.value in ("fault", "info"))),
        "hands_with_problems": [f"hand {r.number}: {r.problem}" for r in reports
                                if r.problem][:10],
        "chips_conserved": sum(table.stacks().values()) == SEATS * STACK,
        "seconds": round(elapsed, 2),
        "hands_per_second": round(hands / elapsed, 2),
    }


def main(quick: bool) -> dict[str, object]:
    figures: dict[str, object] = {
        "rfid": soak(hands=60 if quick else 1000, sensors=("rfid",), error_rate=0.05,
                     seed=2026),
        "rfid+camera": soak(hands=10 if quick else 100, sensors=("rfid", "camera"),
                            error_rate=0.20, seed=2027),
    }
    for phase, values in figures.items():
        print(f"  {phase}")
        assert isinstance(values, dict)
        width = max(len(k) for k in values)
        for key, value in values.items():
            print(f"    {key:<{width}}  {value}")
    return figures
