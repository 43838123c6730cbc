"""The board and the burn pile: which street is being dealt, and with what (rules.md §1, §5).

A street is burn + three cards (flop) or burn + one card (turn, river) [000]. The monitor hands
a street to the rules engine lazily ("commits" it): at the next betting action, the next street,
or the showdown. Until then the street may still be corrected (a four-card flop [002 #33], an
extra card [003], premature cards (TDA 2024 RP-5)), so what the engine gets is the corrected
street.

Burn accounting: ``burns`` counts every card that arrived on the burn pile in this hand;
``marker`` is that count when the last committed street got its last card. A street's first
card with no burn since the marker is MISSING_BURN (TDA 2024 39-B). A remedy that puts the
next street's burn card on the pile (an exposed card [000] [003], an extra card [003], the TDA
four-card-flop pick [002 #33]) is a burn like any other; a street dealt again after premature
cards keeps the marker of the street before it, so the burn that stayed still counts (RP-5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

STREET_NAMES = ("flop", "turn", "river")
STREET_SIZES = (3, 1, 1)


@dataclass(slots=True)
class BoardTracker:
    committed: int = 0                  # streets handed to the engine (0 = preflop)
    street: list[int] = field(default_factory=list)  # pids of the street being dealt
    burns: int = 0
    marker: int = 0
    last_card_burns: int = 0            # ``burns`` when the street got its last card

    @property
    def index(self) -> int:
        """The street being dealt: 0 flop, 1 turn, 2 river, 3 none left."""
        return self.committed

    @property
    def name(self) -> str:
        return STREET_NAMES[self.index] if self.index < 3 else "board"

    @property
    def size(self) -> int:
        return STREET_SIZES[self.index] if self.index < 3 else 0

    @property
    def full(self) -> bool:
        return self.index < 3 and len(self.street) >= self.size

    @property
    def burned_since_street(self) -> bool:
        return self.burns > self.marker

    @property
    def burned_after_last_card(self) -> bool:
        return self.burns > self.last_card_burns

    def add(self, pid: int) -> None:
        self.street.append(pid)
        if self.full:
            self.last_card_burns = self.burns

    def drop(self, pid: int) -> bool:
        if pid in self.street:
            self.street.remove(pid)
            return True
        return False

    def commit(self) -> None:
        self.committed += 1
        self.street = []
        self.marker = self.last_card_burns
