"""The journal's WAL checkpoints, off the controller's loop.

In WAL mode every commit appends to the ``-wal`` file; a *checkpoint* copies those pages back
into the database file and syncs it to disk. SQLite runs one by itself inside the commit that
takes the WAL past 1,000 pages, on the connection that commits: the controller's loop, which
then waits for the copy and the fsync (measured on the development machine: tens of
milliseconds, up to 0.6 s on a loaded disk, at about one event in a hundred: most of the tail of
a card's latency to its alert, ``python -m benchmarks daemon_latency``).

:class:`Checkpointer` takes that work to its own thread and connection: the journal's
connection turns automatic checkpoints off (``PRAGMA wal_autocheckpoint = 0``) and the
checkpointer runs ``PRAGMA wal_checkpoint(PASSIVE)`` every :data:`CHECKPOINT_INTERVAL`
seconds (and a restart when the WAL has grown long, :data:`RESTART_FRAMES`). A passive
checkpoint never waits for the writer nor blocks it; the commits themselves
are unchanged (each record its own transaction, ``synchronous = NORMAL``), so what a killed
process leaves is the same, and after a power cut at most the last interval's commits may be
missing (docs/running.md, "Journal"). When the journal is closed the last checkpoint runs on
the closing connection, as before.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

CHECKPOINT_INTERVAL = 1.0
"""Seconds between two checkpoints of the journal's WAL."""
RESTART_FRAMES = 10_000
"""A WAL longer than this many pages (about 40 MB) after a passive checkpoint is restarted
(``wal_checkpoint(RESTART)``): the writer resets the WAL by itself only when a checkpoint
copied everything and no commit came meanwhile, which a table writing without a pause may
not give it."""


class Checkpointer:
    """Checkpoints the WAL of the SQLite database at ``path`` every ``interval`` seconds, on
    its own thread and connection, until :meth:`stop`."""

    def __init__(self, path: str, *, interval: float = CHECKPOINT_INTERVAL) -> None:
        if not interval > 0:
            raise ValueError(f"checkpoint interval {interval!r}: more than 0 seconds")
        self.path = path
        self.interval = interval
        self.checkpoints = 0
        """Checkpoints run (each copied what the WAL held; observable by tests)."""
        self.failures = 0
        self.restarts = 0
        """Restarts of a WAL that had grown past :data:`RESTART_FRAMES`."""
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout = 0")  # a busy database waits for the next turn
        self._thread = threading.Thread(target=self._loop, name="journal-checkpoint",
                                        daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                self.checkpoint()
        finally:
            with self._lock:
                self._db.close()

    def checkpoint(self) -> None:
        """One passive checkpoint now; a failure (the database busy) is logged once in a row
        and the next turn tries again."""
        try:
            with self._lock:
                row = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if row is not None and row[1] > RESTART_FRAMES:
                    # what came in during the passive one, under the write lock: a commit
                    # meanwhile waits (its busy timeout) for those few pages, not for the WAL
                    self._db.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
                    self.restarts += 1
        except sqlite3.Error as exc:
            if not self.failures:
                log.warning("journal %s: checkpoint failed (%s); trying again", self.path, exc)
            self.failures += 1
            return
        self.failures = 0
        self.checkpoints += 1

    def stop(self) -> None:
        """End the thread (its connection closes with it)."""
        self._stop.set()
        self._thread.join(timeout=5.0)
