"""The journal's WAL checkpoints run on their own thread, not inside the controller's commits
(table_controller/daemon/checkpoint.py): the writer's automatic checkpoint is off, the records
still reach the database file itself, and every record stays committed on its own."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from table_controller.daemon import checkpoint
from table_controller.daemon.checkpoint import Checkpointer
from table_controller.daemon.journal import Journal


def _wait(predicate: object, timeout: float = 10.0) -> bool:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.01)
    return True


def _rows_in_main_file(journal_path: Path, copy: Path) -> int:
    """Console rows in the database file alone (without its -wal): only what a checkpoint
    copied there (not even the schema before the first)."""
    shutil.copyfile(journal_path, copy)
    db = sqlite3.connect(copy)
    try:
        if db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'console'"
                      ).fetchone()[0] == 0:
            return 0
        return int(db.execute("SELECT COUNT(*) FROM console").fetchone()[0])
    finally:
        db.close()


def test_records_reach_the_database_file_by_the_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    journal = Journal.open(path, checkpoint_interval=0.05)
    try:
        assert journal._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        journal.start_run(t=0.0, wall="2026-12-01T00:00:00.000", table_name="t", config="{}")
        for i in range(20):
            journal.record_console({"cmd": "status", "n": i}, t=float(i), wall="w", hand=None,
                                   error=None)
        checkpointer = journal.checkpointer
        assert checkpointer is not None
        done = checkpointer.checkpoints
        assert _wait(lambda: checkpointer.checkpoints >= done + 2)
        assert _rows_in_main_file(path, tmp_path / "main-only.sqlite") == 20
        assert len(journal.console_requests()) == 20
    finally:
        journal.close()
    assert not checkpointer._thread.is_alive()


def test_without_a_checkpoint_the_records_are_in_the_wal_only(tmp_path: Path) -> None:
    """The test above can fail: with a checkpoint interval longer than the test, the rows
    are committed (readable) but not yet in the database file."""
    path = tmp_path / "journal.sqlite"
    journal = Journal.open(path, checkpoint_interval=3600.0)
    try:
        journal.start_run(t=0.0, wall="w", table_name="t", config="{}")
        journal.record_console({"cmd": "status"}, t=1.0, wall="w", hand=None, error=None)
        assert len(journal.console_requests()) == 1
        assert _rows_in_main_file(path, tmp_path / "main-only.sqlite") == 0
    finally:
        journal.close()
    # closing checkpoints: the file alone has the row now
    assert _rows_in_main_file(path, tmp_path / "after-close.sqlite") == 1


def test_a_long_wal_is_restarted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkpoint, "RESTART_FRAMES", 10)
    path = tmp_path / "journal.sqlite"
    journal = Journal.open(path, checkpoint_interval=3600.0)
    try:
        journal.start_run(t=0.0, wall="w", table_name="t", config="{}")
        for i in range(30):  # a page or more each
            journal.record_console({"cmd": "status", "n": i}, t=float(i), wall="w",
                                   hand=None, error=None)
        checkpointer = journal.checkpointer
        assert checkpointer is not None
        checkpointer.checkpoint()
        assert checkpointer.restarts == 1
        journal.record_console({"cmd": "status"}, t=99.0, wall="w", hand=None, error=None)
        probe = sqlite3.connect(path, isolation_level=None)
        try:  # the WAL started again from its beginning: only the last record's pages
            frames = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
        finally:
            probe.close()
        assert 0 < frames < 10
        assert len(journal.console_requests()) == 31
    finally:
        journal.close()


def test_the_interval_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="checkpoint interval"):
        Checkpointer(str(tmp_path / "x.sqlite"), interval=0.0)
