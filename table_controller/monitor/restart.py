"""The alerts of a restart during a hand (docs/running.md, "Restart after a crash"): the
controller rebuilt the hand from its journal, or could not.

Pure: the controller says what it found (the hand, the time, the cards that changed while it
was down, or why the hand cannot be rebuilt); these make the alerts of alerts.md. Both are
``info``: the sensors' observations of a moved card go through the monitor's checks like any
other, and a hand that cannot be rebuilt is already void (rules.md §5: all action void, every
chip returned, the button stays; TDA 35).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card


@dataclass(frozen=True, slots=True)
class DownChange:
    """One card that changed while the controller was down: ``was`` the zone the journal left
    it in (None: it was not on the felt), ``now`` where the sensors see it (None: nowhere).
    ``card`` is None when its identity is not known."""

    card: Card | None
    was: str | None
    now: str | None

    def describe(self) -> str:
        name = "a card" if self.card is None else str(self.card)
        if self.was is None:
            return f"{name} appeared in {self.now}"
        if self.now is None:
            return f"{name} vanished from {self.was}"
        return f"{name} moved from {self.was} to {self.now}"


def cards_moved_while_down(hand: int, t: float, changes: Sequence[DownChange]) -> Alert:
    """CARDS_MOVED_WHILE_DOWN: the sensors' first picture after the restart against the
    rebuilt hand (one alert for the restart, every change named)."""
    if not changes:
        raise ValueError("cards_moved_while_down: no change to report")
    text = "; ".join(c.describe() for c in changes)
    return Alert(code="CARDS_MOVED_WHILE_DOWN", hand=hand, t=t,
                 cards=tuple(c.card for c in changes if c.card is not None),
                 message=f"While the controller was down: {text}",
                 remedy="Check the cards named; the hand goes on with the cards where they "
                        "are now")


def hand_not_resumed(hand: int, t: float, why: str) -> Alert:
    """HAND_NOT_RESUMED: the hand could not be rebuilt from the journal, and is void."""
    return Alert(code="HAND_NOT_RESUMED", hand=hand, t=t,
                 message=f"Hand {hand} was live when the controller stopped and cannot be "
                         f"rebuilt: {why}",
                 remedy="The hand is void, every chip returned, the button stays: collect the "
                        "cards and press the green button for the next hand")
