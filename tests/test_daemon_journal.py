"""The journal: what is written reads back; every record is committed on its own (a process
killed right after writing loses nothing); a write that fails is queued and retried in order;
the ``journal`` command reads a file."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.daemon.journal import Journal, JournalError
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Face,
    SensorStatus,
    Source,
)

WALL = "2026-11-30T12:00:00.000+00:00"
PHH = 'variant = "NT"\n'


def card_obs(t: float, zone: str = "seat2", card: str = "As") -> CardObservation:
    return CardObservation(CardEvent.PLACED, zone, t, Source.RFID, "04a1b2", parse_card(card),
                           Face.DOWN, deck="red")


def fill(journal: Journal) -> None:
    journal.start_run(t=100.0, wall=WALL, table_name="T4", config="{}")
    journal.record_observation(ButtonPressed(100.5), hand=1, wall=WALL)
    journal.record_hand_start(number=1, t=100.5, wall=WALL, button=1, stacks={1: 100, 2: 100})
    journal.record_observation(card_obs(101.0), hand=1, wall=WALL)
    journal.record_observation(card_obs(102.0, zone="pool"), hand=1, wall=WALL,
                               error="unknown zone 'pool'")
    journal.record_observation(SensorStatus(Source.CAMERA, False, 103.0, "no frames"), hand=1,
                               wall=WALL)
    alert = Alert("MISDEAL_WRONG_FIRST_SEAT", 1, 101.0, seat=2, cards=(parse_card("As"),))
    journal.record_alert(alert, alert.to_dict())
    journal.record_console({"cmd": "resolve", "code": "MISDEAL_WRONG_FIRST_SEAT"}, t=104.0,
                           wall=WALL, hand=1, error=None)
    journal.record_hand_end(number=1, t=104.0, wall=WALL, voided=True,
                            cause="MISDEAL_WRONG_FIRST_SEAT", stacks={1: 100, 2: 100}, phh=None,
                            phh_error="void")
    journal.record_hand_start(number=2, t=110.0, wall=WALL, button=1, stacks={1: 100, 2: 100})
    journal.record_hand_end(number=2, t=120.0, wall=WALL, voided=False, cause=None,
                            stacks={1: 98, 2: 102}, phh=PHH, phh_error=None)


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal.open(path)
    fill(journal)
    journal.close()
    journal = Journal.open(path, readonly=True)
    hands = journal.hands()
    assert [h.number for h in hands] == [1, 2]
    assert hands[0].voided and hands[0].cause == "MISDEAL_WRONG_FIRST_SEAT"
    assert hands[0].stacks_before == {1: 100, 2: 100} and hands[0].phh is None
    assert hands[1].stacks_after == {1: 98, 2: 102} and hands[1].phh == PHH
    alerts = journal.alerts(hand=1)
    assert [a["code"] for a in alerts] == ["MISDEAL_WRONG_FIRST_SEAT"]
    assert alerts[0]["cards"] == ["As"] and alerts[0]["seat"] == 2
    assert journal.alerts(hand=2) == []
    window = journal.observations(start=100.8, end=102.5)
    assert [(o.kind, o.fields.get("zone"), o.accepted) for o in window] == [
        ("card", "seat2", True), ("card", "pool", False)]
    assert window[0].fields["card"] == "As" and window[0].fields["face"] == "down"
    assert window[1].error == "unknown zone 'pool'"
    kinds = [o.kind for o in journal.observations()]
    assert kinds == ["button", "card", "card", "sensor"]
    assert journal.console_requests(hand=1)[0]["ok"] is True
    with pytest.raises(JournalError, match="read-only"):
        journal.record_console({"cmd": "status"}, t=1.0, wall=WALL, hand=None, error=None)
    journal.close()


def test_runs_keep_their_own_hand_numbers(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    for _ in range(2):
        journal = Journal.open(path)
        fill(journal)
        journal.close()
    journal = Journal.open(path, readonly=True)
    assert [r["run"] for r in journal.runs()] == [1, 2]
    assert [h.number for h in journal.hands(run=1)] == [1, 2]
    assert journal.hand(2, run=2) is not None and journal.latest_run() == 2
    journal.close()


def test_records_survive_a_killed_process(tmp_path: Path) -> None:
    """Each record is committed when written: a writer killed without closing loses none."""
    path = tmp_path / "j.sqlite"
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path.cwd())!r})
        from table_controller.daemon.journal import Journal
        from table_controller.vocabulary.observations import ButtonPressed
        j = Journal.open({str(path)!r})
        j.start_run(t=0.0, wall="w", table_name="T", config="{{}}")
        for i in range(50):
            j.record_observation(ButtonPressed(float(i)), hand=None, wall="w")
        j.record_hand_start(number=1, t=50.0, wall="w", button=3, stacks={{3: 10}})
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.returncode == -9, proc.stderr.decode()
    journal = Journal.open(path)  # a writer recovers the WAL
    assert len(journal.observations(run=1)) == 50
    assert journal.hand(1, run=1) is not None
    assert journal.hand(1, run=1).button == 3  # type: ignore[union-attr]
    journal.close()


def test_failed_writes_are_queued_and_retried_in_order(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal.open(path, busy_timeout=0.05)
    journal.start_run(t=0.0, wall=WALL, table_name="T", config="{}")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    for i in range(3):
        journal.record_observation(ButtonPressed(float(i)), hand=None, wall=WALL)
    assert journal.pending == 3 and journal.failures == 1  # tried once, then waits to retry
    assert journal.flush(force=True) == 3  # still locked: nothing lost, nothing written
    assert journal.failures == 2
    blocker.execute("ROLLBACK")
    blocker.close()
    journal.record_observation(ButtonPressed(3.0), hand=None, wall=WALL)
    assert journal.pending == 4 and journal.failures == 2  # no retry before the interval
    assert journal.flush(force=True) == 0  # the controller's loop retries; close forces
    journal.record_observation(ButtonPressed(4.0), hand=None, wall=WALL)  # written at once
    assert journal.pending == 0
    assert [o.t for o in journal.observations()] == [0.0, 1.0, 2.0, 3.0, 4.0]
    journal.close()


def test_not_a_journal(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_bytes(b"this is not a database" * 100)
    with pytest.raises(JournalError, match=str(bogus)):
        Journal.open(bogus)
    with pytest.raises(JournalError, match="no journal"):
        Journal.open(tmp_path / "absent.sqlite", readonly=True)


def test_journal_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal.open(path)
    fill(journal)
    journal.close()
    assert main(["journal", str(path), "hands"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "void (MISDEAL_WRONG_FIRST_SEAT)" in out[0] and "played" in out[1]
    assert main(["journal", str(path), "alerts", "--hand", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["code"] == "MISDEAL_WRONG_FIRST_SEAT"
    assert main(["journal", str(path), "observations", "--from", "100.8", "--to", "102.5"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["zone"], x["accepted"]) for x in lines] == [("seat2", True), ("pool", False)]
    assert lines[0]["card"] == "As" and lines[1]["error"] == "unknown zone 'pool'"
    assert main(["journal", str(path), "observations", "--hand", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4
    assert main(["journal", str(path), "show", "1"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["voided"] and shown["console"][0]["request"].startswith('{"cmd": "resolve"')
    assert main(["journal", str(path), "export-phh", "2", "--out", str(tmp_path / "phh")]) == 0
    written = Path(capsys.readouterr().out.strip())
    assert written.read_text() == PHH and written.name == "hand-1-2.phh"
    assert main(["journal", str(path), "export-phh", "1"]) == 1
    assert "void" in capsys.readouterr().err
    assert main(["journal", str(path), "show", "9"]) == 1
    assert "no hand 9" in capsys.readouterr().err
    assert main(["journal", str(tmp_path / "absent.sqlite"), "hands"]) == 2


def test_published_bodies_are_kept_for_the_last_messages_only(tmp_path: Path) -> None:
    from table_controller.daemon import journal as journal_module

    journal = Journal.open(tmp_path / "j.sqlite")
    journal.keep_bodies = 1500
    journal.start_run(t=0.0, wall=WALL, table_name="T", config="{}")
    for seq in range(1, 3001):
        journal.record_published("floor", seq, "card", body=json.dumps({"seq": seq}))
    journal.record_published("public", 1, "card", body='{"seq": 1}')
    assert journal_module.PRUNE_EVERY == 1000
    # cleared at 2000 (up to 500) and at 3000 (up to 1500): 1501.. kept
    assert journal.first_kept("floor") == 1501 and journal.first_kept("public") == 1
    texts, more = journal.messages("floor", after=0, limit=3, max_bytes=10**6)
    assert [json.loads(t)["seq"] for t in texts] == [1501, 1502, 1503] and more
    texts, more = journal.messages("floor", after=2990, limit=500, max_bytes=10**6)
    assert len(texts) == 10 and not more
    texts, more = journal.messages("floor", after=0, limit=500, max_bytes=30)
    assert len(texts) == 2 and more  # about max_bytes, at least one
    journal.close()
    assert sqlite3.connect(tmp_path / "j.sqlite").execute(
        "SELECT COUNT(*) FROM published").fetchone()[0] == 3001  # rows stay, bodies go


def test_a_journal_from_before_message_bodies_gets_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    journal = Journal.open(path)
    journal.start_run(t=0.0, wall=WALL, table_name="T", config="{}")
    journal.record_published("floor", 1, "alert")
    journal.close()
    db = sqlite3.connect(path)  # as a journal of the earlier schema had it
    db.execute("DROP INDEX published_kept")
    db.execute("ALTER TABLE published DROP COLUMN body")
    db.commit()
    db.close()
    assert Journal.open(path, readonly=True).messages("floor", after=0, limit=5,
                                                      max_bytes=100) == ([], False)
    journal = Journal.open(path)
    journal.start_run(t=1.0, wall=WALL, table_name="T", config="{}")
    journal.record_published("floor", 2, "alert", body='{"seq": 2}')
    assert journal.messages("floor", after=0, limit=5, max_bytes=100) == (['{"seq": 2}'], False)
    assert journal.last_seqs() == {"floor": 2}
    journal.close()
