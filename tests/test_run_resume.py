"""A ``run --sim`` killed with SIGKILL mid-hand and started again on the same journal: the
killed hand gets its one end (voided, chips returned), and the stacks, the button and the hand
numbers carry on; ``journal FILE hands --json`` lists the hands of every run."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.daemon.journal import Journal
from table_controller.daemon.resume import NOT_RESUMED
from tests.test_daemon_run import start, stop
from tests.test_run_sim_alone import sim_config


def wait_for_hand(journal_path: Path, *, started: int, deadline: float) -> None:
    """Until the journal's last run has a hand numbered ``started`` or more with a start."""
    while time.monotonic() < deadline:
        if journal_path.exists():
            j = Journal.open(journal_path, readonly=True)
            try:
                if any(h.number >= started for h in j.hands()):
                    return
            finally:
                j.close()
        time.sleep(0.1)
    raise AssertionError(f"hand {started} never started")


def test_sigkill_mid_hand_then_restart_carries_the_table_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(sim_config(tmp_path))
    journal_path = tmp_path / "journal.sqlite"
    proc, _ = start(["run", "--sim", "--config", str(cfg), "--error-rate", "0"], tmp_path)
    try:
        wait_for_hand(journal_path, started=2, deadline=time.monotonic() + 120)
        time.sleep(1.0)  # hand 2 is under way
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    proc, _ = start(["run", "--sim", "--config", str(cfg), "--error-rate", "0"], tmp_path)
    try:
        j = Journal.open(journal_path, readonly=True)
        try:
            first = j.all_hands()
        finally:
            j.close()
        last = max(x.number for x in first if x.run == 1)
        killed = next(h for h in first if h.run == 1 and h.number == last)
        wait_for_hand(journal_path, started=killed.number + 1,
                      deadline=time.monotonic() + 60)
    finally:
        code, _out, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
    assert main(["journal", str(journal_path), "hands", "--json"]) == 0
    hands = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    runs = {h["run"] for h in hands}
    assert runs == {1, 2}
    # every hand of every run has exactly one end; numbers go on across the runs
    keys = [(h["run"], h["hand"]) for h in hands]
    assert len(keys) == len(set(keys))
    assert [h["hand"] for h in hands] == list(range(1, len(hands) + 1))
    by_key = {(h["run"], h["hand"]): h for h in hands}
    dead = by_key[(1, killed.number)]
    assert dead["ended"] and dead["voided"] and dead["end_stacks"] == dead["start_stacks"]
    next_hand = by_key[(2, killed.number + 1)]
    assert next_hand["start_stacks"] == dead["start_stacks"]  # the chips carried over
    assert all(h["ended"] for h in hands if h["run"] == 1)
    j = Journal.open(journal_path, readonly=True)
    try:
        record = j.hand(killed.number, run=1)
        assert record is not None and record.cause == NOT_RESUMED
        second = j.hand(killed.number + 1, run=2)
        assert second is not None and second.button == killed.button  # a void: it stays
    finally:
        j.close()
