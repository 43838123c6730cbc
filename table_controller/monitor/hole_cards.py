"""Which cards are hole cards, read off the card picture as it changes.

alerts.md: hole cards appear in an alert only on channels allowed to carry them. A card counts as
a hole card from the moment the picture has it on a seat zone, not face up, until the next hand
starts (a folded hand pushed into the muck stays secret); a card the picture has seen face up on
a seat (exposed during the deal, turned over by its player, shown at the showdown) is known to
everyone at the table and is not secret.
"""

from __future__ import annotations

from table_controller.monitor.cards_in_play import TrackedCard
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import seat_of


class HoleCardLog:
    """The hole cards of the hand in progress (or of the last one, until the next starts)."""

    def __init__(self) -> None:
        self._dealt: set[Card] = set()
        self._shown: set[Card] = set()

    def new_hand(self) -> None:
        self._dealt.clear()
        self._shown.clear()

    def note(self, tc: TrackedCard, zone: str) -> None:
        """The picture changed ``tc`` in ``zone`` (it arrived, left, turned, was named)."""
        if tc.card is None or seat_of(zone) is None:
            return
        if tc.face is Face.UP:
            self._shown.add(tc.card)
        else:
            self._dealt.add(tc.card)

    @property
    def secret(self) -> frozenset[Card]:
        """Cards that lay on a seat face down and were never seen face up there."""
        return frozenset(self._dealt - self._shown)
