"""The public channel's copy of an alert: hole cards replaced by ``??``.

alerts.md: "Hole cards appear in an alert only on channels that are allowed to carry them". Which
cards are secret is the dealing monitor's to say, from its picture of where the cards lie
(:meth:`table_controller.monitor.DealingMonitor.secret_cards`: a card that lay face down on a
seat in this hand and was never seen face up there); this module only rewrites the alert.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from table_controller.vocabulary.cards import Card

HIDDEN = "??"


def redact(payload: Mapping[str, Any], secret: Collection[Card]) -> dict[str, Any]:
    """A copy of an alert object with the ``secret`` cards replaced by ``??`` in ``cards``
    and in the message and remedy texts."""
    names = {str(c) for c in secret}
    out = dict(payload)
    out["cards"] = [HIDDEN if c in names else c for c in payload.get("cards", [])]
    if names:
        pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(sorted(names)) +
                             r")(?![A-Za-z0-9])")
        for key in ("message", "remedy"):
            text = payload.get(key)
            if isinstance(text, str):
                out[key] = pattern.sub(HIDDEN, text)
    return out
