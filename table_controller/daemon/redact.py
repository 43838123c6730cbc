"""Which cards are hole cards, so the public channel can leave them out.

alerts.md: "Hole cards appear in an alert only on channels that are allowed to carry them". A card
counts as a hole card from the moment a sensor sees it on a seat zone face down until the next
hand starts; a card seen face up on a seat (exposed during the deal, turned over by its player,
shown at the showdown) is known to everyone at the table and is not hidden.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import CardObservation, Face
from table_controller.vocabulary.zones import seat_of

HIDDEN = "??"


class HoleCards:
    def __init__(self) -> None:
        self._hidden: set[str] = set()
        self._shown: set[str] = set()

    def new_hand(self) -> None:
        self._hidden.clear()
        self._shown.clear()

    def observe(self, obs: CardObservation) -> None:
        if obs.card is None or seat_of(obs.zone) is None:
            return
        name = str(obs.card)
        if obs.face is Face.UP:
            self._shown.add(name)
        else:
            self._hidden.add(name)

    def add(self, cards: list[Card]) -> None:
        """Cards the engine holds as someone's hole cards."""
        self._hidden.update(str(c) for c in cards)

    @property
    def hidden(self) -> frozenset[str]:
        return frozenset(self._hidden - self._shown)

    def redact(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of an alert object with hole cards replaced by ``??`` in ``cards`` and in the
        message and remedy texts."""
        hidden = self.hidden
        out = dict(payload)
        cards = [HIDDEN if c in hidden else c for c in payload.get("cards", [])]
        out["cards"] = cards
        if hidden:
            pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(sorted(hidden)) +
                                 r")(?![A-Za-z0-9])")
            for key in ("message", "remedy"):
                text = payload.get(key)
                if isinstance(text, str):
                    out[key] = pattern.sub(HIDDEN, text)
        return out
