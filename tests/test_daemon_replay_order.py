"""The journal gives a live hand's inputs back in the order the controller took them
(``Journal.hand_inputs``), across runs, so a restart can replay them; a journal whose console
rows have no place among the observations (made before resume) says so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from table_controller.daemon.journal import (
    ConsoleRecord,
    Journal,
    JournalError,
    ObservationRecord,
)
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Source,
)


def card(t: float, zone: str, key: str) -> CardObservation:
    return CardObservation(event=CardEvent.PLACED, zone=zone, t=t, source=Source.RFID, key=key)


def test_inputs_come_back_in_the_order_taken_across_runs(tmp_path: Path) -> None:
    j = Journal.open(tmp_path / "j.sqlite")
    j.start_run(t=0.0, wall="w", table_name="T", config="{}")
    j.record_observation(ButtonPressed(1.0), hand=1, wall="w")
    # an observation stamped before a request but taken after it (the reader's time)
    j.record_console({"cmd": "action", "seat": 1, "kind": "call"}, t=2.0, wall="w", hand=1,
                     error=None)
    j.record_observation(card(1.5, "seat1", "aa"), hand=1, wall="w")
    j.record_console({"cmd": "action", "seat": 2, "kind": "fold"}, t=2.5, wall="w", hand=1,
                     error="refused")  # not carried out: not an input
    j.record_observation(card(2.6, "seat2", "bb"), hand=1, wall="w", error="refused")
    j.start_run(t=10.0, wall="w", table_name="T", config="{}")
    j.record_console({"cmd": "action", "seat": 2, "kind": "check"}, t=11.0, wall="w", hand=1,
                     error=None)
    j.record_observation(card(12.0, "seat3", "cc"), hand=2, wall="w")  # another hand
    inputs = j.hand_inputs(1)
    j.close()
    kinds = [("obs", i.kind, i.run) if isinstance(i, ObservationRecord)
             else ("req", i.request, i.run) for i in inputs]
    assert kinds == [("obs", "button", 1),
                     ("req", '{"cmd": "action", "kind": "call", "seat": 1}', 1),
                     ("obs", "card", 1),
                     ("req", '{"cmd": "action", "kind": "check", "seat": 2}', 2)]
    assert isinstance(inputs[1], ConsoleRecord) and inputs[1].t == 2.0


def test_a_journal_made_before_resume_says_so(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    j = Journal.open(path)
    j.start_run(t=0.0, wall="w", table_name="T", config="{}")
    j.record_observation(ButtonPressed(1.0), hand=1, wall="w")
    j.record_console({"cmd": "action", "seat": 1, "kind": "call"}, t=2.0, wall="w", hand=1,
                     error=None)
    j.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE console SET after = NULL")  # as an older controller wrote it
    db.commit()
    db.close()
    j = Journal.open(path)
    try:
        with pytest.raises(JournalError, match="made before resume"):
            j.hand_inputs(1)
    finally:
        j.close()
