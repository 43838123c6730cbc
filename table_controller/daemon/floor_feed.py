"""What the floor channel carries beyond the public one, for the floor's record of each hand
(docs/running.md, "Event bus"): which card landed where, when, seen by which sensor; which of
an alert's cards are hole cards; the pot and the hand history at the end of a hand; the pot and
the stacks after each betting action.

Pure functions of what the controller already holds; the controller publishes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from table_controller.engine import Hand
from table_controller.monitor.records import HandEnd
from table_controller.vocabulary.observations import CardObservation


def card_message(obs: CardObservation, *, hand: int | None, time: str) -> dict[str, Any]:
    """A card observation as the floor channel publishes it (topic ``card``): ``card`` is
    null when the sensor could not tell which card it is."""
    return {"type": "card", "hand": hand, "zone": obs.zone,
            "card": None if obs.card is None else str(obs.card), "face": obs.face.value,
            "event": obs.event.value, "source": obs.source.value, "time": time}


def hidden_cards(cards: Iterable[str], holes: frozenset[str]) -> list[str]:
    """The cards of an alert's ``cards`` that are hole cards now (the floor shows them to its
    staff only; :class:`~table_controller.daemon.redact.HoleCards` says which)."""
    return [c for c in cards if c in holes]


def hand_pot(end: HandEnd) -> int:
    """Every chip that was in the middle at the end: the pots awarded and the rake (an
    uncalled bet given back is not in it; a void hand's pot is 0, every chip went back)."""
    result = end.result
    if result is None or result.voided:
        return 0
    return int(sum(p.amount for p in result.pots) + result.rake)


def after_action(hand: Hand | None) -> dict[str, Any]:
    """The pot and the chips behind of each seat dealt in, as the hand stands after an action
    (empty between hands)."""
    if hand is None:
        return {}
    return {"pot": hand.pot, "stacks": _stacks(hand.stacks)}


def _stacks(stacks: Mapping[int, int]) -> dict[str, int]:
    return {str(s): v for s, v in sorted(stacks.items())}
