"""Everything the monitor knows about the hand in progress, beside the engine's own state."""

from __future__ import annotations

from dataclasses import dataclass, field

from table_controller.engine import ActionTaken, Hand
from table_controller.monitor.board import BoardTracker
from table_controller.monitor.procedure import DealTracker, is_substantial


@dataclass(slots=True)
class HandRun:
    """One hand as the monitor follows it.

    ``in_hand``: pids of the cards that arrived on the felt during this hand (cards left over
    from an earlier hand are not part of it). ``halted``: the code of the stop alert that froze
    the hand until the floor resolves it. ``deal_over``: the first betting action was made (the
    deal ends there, alerts.md MISDEAL_WRONG_CARD_COUNT). ``exposed``: hole cards the dealer
    exposed during the deal. ``premature``: board cards dealt before the betting was complete.
    ``replacement_due``: seat -> pid of an exposed card whose seat is owed its replacement.
    """

    hand: Hand
    deal: DealTracker
    board: BoardTracker = field(default_factory=BoardTracker)
    in_hand: set[int] = field(default_factory=set)
    halted: str | None = None
    deal_over: bool = False
    exposed: list[int] = field(default_factory=list)
    premature: list[int] = field(default_factory=list)
    committed: set[int] = field(default_factory=set)
    replacement_due: dict[int, int] = field(default_factory=dict)
    returned_keys: dict[str, str] = field(default_factory=dict)  # RFID key -> seat zone it left
    duplicates: set[frozenset[int]] = field(default_factory=set)
    once: set[tuple[str, int]] = field(default_factory=set)
    face_up_in_stub: int = 0
    extra_cards: list[int] = field(default_factory=list)
    showdown_called: bool = False

    @classmethod
    def start(cls, hand: Hand) -> HandRun:
        return cls(hand=hand, deal=DealTracker(order=tuple(hand.deal_order), button=hand.button))

    def voluntary(self) -> list[bool]:
        """For each action taken so far (blinds are not actions): did it put chips in?"""
        return [rec.added > 0 for rec in self.hand.log if isinstance(rec, ActionTaken)]

    @property
    def substantial(self) -> bool:
        """Substantial action has happened [002 #32] (TDA 2024 36)."""
        return is_substantial(self.voluntary())
