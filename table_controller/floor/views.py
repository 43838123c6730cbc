"""The public view of what the tables sent: hole cards masked, for viewers who are not signed
in as floor staff (alerts.md: hole cards only on channels allowed to carry them).

A table marks the hole cards of an alert in ``hidden`` (the cards of ``cards`` that are someone's
face-down hole cards); an alert without that list has all its cards masked, so a table that
does not say is never shown too much. A card observation on a seat, face down, is masked; a hand
history (PHH, which names every hand shown or mucked) is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller.vocabulary.alerts import HIDDEN_CARD, mask_cards


def public(message: Mapping[str, Any]) -> dict[str, Any]:
    kind = message.get("type")
    out: dict[str, Any]
    if kind == "alert":
        hidden = message.get("hidden")
        cards = message.get("cards") or []
        out = mask_cards(message, hidden if isinstance(hidden, list) else cards)
    elif kind == "card":
        out = dict(message)
        zone = str(message.get("zone", ""))
        if message.get("hole") or (zone.startswith("seat") and message.get("face") != "up"):
            out["card"] = HIDDEN_CARD
    else:
        out = dict(message)
    out.pop("hidden", None)
    out.pop("phh", None)
    return out
