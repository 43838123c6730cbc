"""Sequence numbers of the controller's outgoing channels (docs/running.md, "Sequence numbers").

Every message a channel sends carries ``seq``: 1 for the first message ever sent on it, then
one more for each message, across restarts of the controller (each number is journaled before
the message goes out, and a restart continues after the largest one in the journal). A
subscriber that sees a number skipped has missed messages: it asks for a snapshot
(``{"cmd": "snapshot"}``), which says the ``seq`` of each channel it is current to, and for the
messages it missed (``{"cmd": "messages", ...}``, :mod:`.catch_up`): :meth:`Sequences.stamp`
journals each message's body with its number, so the journal can give them again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from table_controller.daemon.journal import Journal


class Sequences:
    """The last number of each channel; ``journal`` None: counted in memory only."""

    def __init__(self, journal: Journal | None = None) -> None:
        self._journal = journal
        self._last: dict[str, int] = dict(journal.last_seqs()) if journal is not None else {}

    def next(self, channel: str, topic: str) -> int:
        """The number of the message about to go out on ``channel`` (journaled first, without
        its body: prefer :meth:`stamp`)."""
        seq = self._last.get(channel, 0) + 1
        self._last[channel] = seq
        if self._journal is not None:
            self._journal.record_published(channel, seq, topic)
        return seq

    def stamp(self, channel: str, topic: str, payload: Mapping[str, Any]
              ) -> tuple[dict[str, Any], str]:
        """``payload`` numbered as the next message of ``channel``: the message (``seq``
        added) and its JSON text, journaled with its number before it goes out."""
        seq = self._last.get(channel, 0) + 1
        self._last[channel] = seq
        message = {**payload, "seq": seq}
        text = json.dumps(message)
        if self._journal is not None:
            self._journal.record_published(channel, seq, topic, body=text)
        return message, text

    def lasts(self) -> dict[str, int]:
        """Every channel that has sent a message -> the number of its last one."""
        return dict(self._last)

    def last(self, channel: str) -> int:
        """The number of the last message sent on ``channel`` (0: none yet)."""
        return self._last.get(channel, 0)
