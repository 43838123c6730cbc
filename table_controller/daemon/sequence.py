"""Sequence numbers of the controller's outgoing channels (docs/running.md, "Sequence numbers").

Every message a channel sends carries ``seq``: 1 for the first message ever sent on it, then
one more for each message, across restarts of the controller (each number is journaled before
the message goes out, and a restart continues after the largest one in the journal). A
subscriber that sees a number skipped has missed messages: it asks for a snapshot
(``{"cmd": "snapshot"}``), which says the ``seq`` of each channel it is current to.
"""

from __future__ import annotations

from table_controller.daemon.journal import Journal


class Sequences:
    """The last number of each channel; ``journal`` None: counted in memory only."""

    def __init__(self, journal: Journal | None = None) -> None:
        self._journal = journal
        self._last: dict[str, int] = dict(journal.last_seqs()) if journal is not None else {}

    def next(self, channel: str, topic: str) -> int:
        """The number of the message about to go out on ``channel`` (journaled first)."""
        seq = self._last.get(channel, 0) + 1
        self._last[channel] = seq
        if self._journal is not None:
            self._journal.record_published(channel, seq, topic)
        return seq

    def last(self, channel: str) -> int:
        """The number of the last message sent on ``channel`` (0: none yet)."""
        return self._last.get(channel, 0)
