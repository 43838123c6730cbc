"""What a tag UID means: the card it is enrolled as, and in which deck.

The deck registry (``firmware_bridge.decks``) answers ``identify(uid)`` with a
:class:`TagIdentity`; the RFID reader only needs something with that method (:class:`TagResolver`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from table_controller.vocabulary.cards import Card


@dataclass(frozen=True, slots=True)
class TagIdentity:
    """``card`` None and ``deck`` None: a tag of no enrolled deck (a foreign card, rules.md §5).
    ``active`` is true only for a tag of the table's active deck. ``joker`` marks a tag enrolled
    as a joker (rules.md §5: discarded and replaced, not a dealer error)."""

    card: Card | None
    deck: str | None
    active: bool
    joker: bool = False

    @property
    def foreign(self) -> bool:
        return not self.active and not self.joker


class TagResolver(Protocol):
    def identify(self, uid: bytes) -> TagIdentity: ...
