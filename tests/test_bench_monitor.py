"""The monitor benchmark's stream (benchmarks/bench_monitor.py) is a correctness check too: a
seeded run of random hands with injected dealer errors, in both sensor setups, detects every
error, raises no false alarm, and replays to the same alerts. No timing is asserted."""

from __future__ import annotations

import pytest

from benchmarks.bench_monitor import measure


@pytest.mark.parametrize("sensors", [frozenset({"rfid", "camera"}), frozenset({"rfid"})],
                         ids=["both", "rfid"])
def test_stream_detects_every_injected_error_and_nothing_else(sensors: frozenset[str]) -> None:
    r = measure(12, sensors, seed=11)
    assert r["errors_injected"] > 0 and r["alerts_timed"] > 0
    assert r["errors_missed"] == {} and r["false_alarms"] == {}
    assert r["observations"] > 12 * 20 and r["console_actions"] > 12
