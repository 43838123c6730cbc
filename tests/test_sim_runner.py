"""The scenario runner drives the daemon's controller through the real RFID reader (over the
serial link on a pty, or with the controller end played in-process) and the real button
debouncer; alerts are attributed to steps; the controller's journal holds what the sensors saw
and what the console asked, as a table's does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from hw_sim.harness.expectations import differences
from hw_sim.harness.runner import build_runner
from hw_sim.harness.scenario import load_scenario
from table_controller.daemon.journal import Journal


@pytest.mark.parametrize("rfid", ["pty", "in_process"])
def test_runner_drives_the_controller_and_attributes_steps(
        rfid: Literal["pty", "in_process"], tmp_path: Path,
        scenario_file: Callable[[str], Path]) -> None:
    sc = load_scenario(scenario_file("runner-reader-button-faults"))
    runner = build_runner(sc, journal=Journal.open(tmp_path / "journal.sqlite"),
                          rfid_link=rfid)
    try:
        record = runner.run()
        felt_after = list(runner.table.model.felt)
    finally:
        runner.close()
    assert record.errors == []
    assert differences(sc, record) == []
    assert record.hands == 1 and felt_after == []  # the hand ended: the cards were gathered
    flop = next(r.alert for r in record.alerts if r.alert.code == "FOUR_CARD_FLOP")

    journal = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        seen = journal.observations()
        requests = [r["request"] for r in journal.console_requests()]
        (hand,) = journal.hands()
    finally:
        journal.close()
    assert sum(o.kind == "sensor" and not o.fields["online"] for o in seen) == 1  # the unplug
    assert sum(o.kind == "button" for o in seen) == 1  # the bounce burst is one press
    placed = [o.fields for o in seen if o.kind == "card" and o.fields["event"] == "placed"
              and o.fields["zone"] != "shuffler"]  # the tray antenna reads the stub too
    # hole cards arrive one at a time, in the dealing order, identified by their tags
    assert [(f["zone"], f["card"]) for f in placed[:6]] == [
        ("seat2", "As"), ("seat3", "Kd"), ("seat1", "Qh"),
        ("seat2", "Jc"), ("seat3", "Td"), ("seat1", "9s")]
    # the dealer put the burn card the controller named (TDA 2024 39-A) on the burn pile
    burns = [f["card"] for f in placed if f["zone"] == "burn"]
    assert burns == ["2c", str(flop.extra["burn"])]
    # a short tag dropout is absorbed by the reader's hold time: no hole card left its seat
    assert not any(o.kind == "card" and o.fields["event"] == "removed"
                   and o.fields["zone"].startswith("seat") and o.hand == 1 for o in seen)
    assert requests[:3] == ['{"cmd": "action", "kind": "call", "seat": 1}',
                            '{"cmd": "action", "kind": "call", "seat": 2}',
                            '{"cmd": "action", "kind": "check", "seat": 3}']
    assert '{"cmd": "resolve", "code": "FOUR_CARD_FLOP"}' in requests
    assert hand.stacks_after == {1: 104, 2: 98, 3: 98} and hand.phh is not None
