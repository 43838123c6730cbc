"""The outcome of a hand: pots and who got what (rules.md §4)."""

from __future__ import annotations

from dataclasses import dataclass, field

from table_controller.engine.slots import slot_setters


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


# The engine builds a PotAward and a HandResult at the end of every hand: through their
# slots (.slots).
_new = object.__new__
_POT_SLOTS = slot_setters(PotAward, "amount", "eligible", "winners", "shares")
_RESULT_SLOTS = slot_setters(HandResult, "pots", "returned", "rake", "voided", "final_stacks",
                             "showdown", "reason")


def pot_award(amount: int, eligible: tuple[int, ...], winners: tuple[int, ...],
              shares: dict[int, int]) -> PotAward:
    """``PotAward(amount=amount, eligible=eligible, winners=winners, shares=shares)``."""
    award = _new(PotAward)
    set_amount, set_eligible, set_winners, set_shares = _POT_SLOTS
    set_amount(award, amount)
    set_eligible(award, eligible)
    set_winners(award, winners)
    set_shares(award, shares)
    return award


def hand_result(pots: list[PotAward], returned: dict[int, int], rake: int,
                final_stacks: dict[int, int], showdown: bool) -> HandResult:
    """``HandResult(pots=pots, returned=returned, rake=rake, voided=False,
    final_stacks=final_stacks, showdown=showdown)``: a hand played to its end."""
    result = _new(HandResult)
    set_pots, set_returned, set_rake, set_voided, set_final, set_showdown, set_reason = (
        _RESULT_SLOTS)
    set_pots(result, pots)
    set_returned(result, returned)
    set_rake(result, rake)
    set_voided(result, False)
    set_final(result, final_stacks)
    set_showdown(result, showdown)
    set_reason(result, None)
    return result
