"""The outcome of a hand: pots and who got what (rules.md §4)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class PotAward:
    """One pot (main pot first) and how it was paid.

    ``eligible``: seats that contested it; ``winners``: seats paid; ``shares``: seat -> chips
    (odd chips included, rules.md §4). ``amount`` is after rake.
    """

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """How a hand ended.

    ``returned``: uncalled bets given back (seat -> chips) [002 #48], or, for a voided hand,
    every chip a seat put in. ``final_stacks``: seat -> chips after the hand, every seat dealt
    in. ``showdown``: whether hands were compared (False when all but one folded).
    """

    pots: list[PotAward]
    returned: dict[int, int]
    rake: int
    voided: bool
    final_stacks: dict[int, int]
    showdown: bool = False
    reason: str | None = None
