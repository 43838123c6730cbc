"""The messages a client missed, from the journal: the console request ``{"cmd": "messages",
"channel": "floor", "after": 41}`` (docs/running.md, "Catching up").

Every message published is journaled with its body (:meth:`Sequences.stamp`), the last
:data:`~table_controller.daemon.journal.KEEP_BODIES` of each channel. An answer gives at most
:data:`MAX_MESSAGES` messages and about :data:`MAX_BYTES` of them, in ``seq`` order; ``more``
says the client asks again after the last one it got. ``first`` is the oldest ``seq`` still
kept: a client that needs older ones (it was away for more than that) cannot have them and
takes a snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from table_controller.daemon.console_input import RequestError
from table_controller.daemon.journal import Journal

CHANNELS = ("public", "floor", "alerts")
MAX_MESSAGES = 500
MAX_BYTES = 512 * 1024
"""Well inside what a console client reads in one answer, a few milliseconds of the loop."""


def answer(journal: Journal | None, request: Mapping[str, Any], last: Mapping[str, int]
           ) -> dict[str, Any]:
    """The answer's fields: ``channel``, ``messages``, ``more``, ``first``, ``last`` (the
    channel's last ``seq``). ``last``: channel -> its last seq (:func:`.snapshot.seqs`)."""
    channel = request.get("channel")
    if channel not in CHANNELS or channel not in last:
        known = [c for c in CHANNELS if c in last]
        raise RequestError(f"messages: 'channel' must be one of {', '.join(known)}, not "
                           f"{str(channel)[:32]!r}")
    after = request.get("after")
    if after is None:
        raise RequestError("messages: 'after' is required (the last seq you have, 0 for all)")
    limit = request.get("limit")
    limit = MAX_MESSAGES if limit is None else min(int(limit), MAX_MESSAGES)
    if journal is None:
        raise RequestError("messages: this controller keeps no journal")
    texts, more = journal.messages(str(channel), after=int(after), limit=int(limit),
                                   max_bytes=MAX_BYTES)
    return {"channel": channel, "messages": [json.loads(t) for t in texts], "more": more,
            "first": journal.first_kept(str(channel)), "last": last[str(channel)]}
