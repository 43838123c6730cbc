"""Showdown: who shows first, rake, and paying each pot with the odd-chip rule (rules.md §4)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from table_controller.engine.config import OddChipRule, RakeConfig
from table_controller.engine.pots import Pot, split_pot
from table_controller.engine.results import PotAward, pot_award

# read as globals (an Enum class attribute costs ten times more)
_TDA, _COUNTERCLOCKWISE = OddChipRule.TDA, OddChipRule.HOUSE_COUNTERCLOCKWISE


def clockwise_from(seats: Iterable[int], after: int | None) -> list[int]:
    """``seats`` in clockwise order starting with the first seat after ``after`` (which may
    itself be empty or absent); seat numbers grow clockwise."""
    ordered = sorted(seats)
    if after is None:
        return ordered
    later = [s for s in ordered if s > after]
    return later + [s for s in ordered if s <= after]


def showdown_order(live: Collection[int], pots: Sequence[Pot], *, aggressor: int | None,
                   button: int | None) -> list[int]:
    """Order in which the live players table their hands (rules.md §4, TDA 17 [000, 002 #12]).

    The player who made the last aggressive action of the final betting round shows first;
    without one, the first live player left of the button; then clockwise. Players contesting
    a side pot show before those contesting only the main pot (deepest pot first) [000].
    """
    if aggressor is not None and aggressor in live:
        start = clockwise_from(live, aggressor - 1)
    else:
        start = clockwise_from(live, button)

    if len(pots) == 1 and all(seat in pots[0].eligible for seat in start):
        return start  # one pot that every live player contests: the clockwise order

    def deepest(seat: int) -> int:
        return max((i for i, pot in enumerate(pots) if seat in pot.eligible), default=-1)

    return sorted(start, key=lambda seat: -deepest(seat))  # stable: keeps the clockwise order


def odd_chip_order(winners: Collection[int], *, rule: OddChipRule, button: int | None,
                   preflop_order: Sequence[int]) -> list[int]:
    """Winners in the order they receive odd chips (rules.md §4).

    TDA [002 #16] (TDA 2024 rule 20): clockwise from the button, first winner left of it first.
    [000]: the smaller share to the player who began acting later, so the earliest to act in
    the hand (preflop order) is first. [001]: the winner nearest the dealer counter-clockwise
    (the button seat itself first) takes the whole remainder.
    """
    if rule is _TDA:
        return clockwise_from(winners, button)
    if rule is OddChipRule.HOUSE_LATER_ACTOR:
        rank = {seat: i for i, seat in enumerate(preflop_order)}
        return sorted(winners, key=lambda s: rank.get(s, len(rank)))
    anchor = button if button is not None else 0
    return sorted(winners, key=lambda s: (anchor - s) % 1000)


def take_rake(pots: Sequence[Pot], rake: RakeConfig | None, *, flop_dealt: bool
              ) -> tuple[list[Pot], int]:
    """Apply the rake: nothing without a flop ("no flop, no drop" [000]); otherwise the
    configured percentage of all pots, capped, taken from the main pot first, then the side
    pots in order (engine decision, docs/engine.md)."""
    if rake is None or not flop_dealt:
        return list(pots), 0
    due = rake.rake_for(sum(p.amount for p in pots))
    taken = due
    out: list[Pot] = []
    for pot in pots:
        part = min(due, pot.amount)
        due -= part
        out.append(Pot(pot.amount - part, pot.eligible))
    return out, taken


def award_pots(pots: Sequence[Pot], scores: Mapping[int, int], *, rule: OddChipRule,
               unit: int, button: int | None, preflop_order: Sequence[int]
               ) -> list[PotAward]:
    """Pay each pot separately, never mixing them [000, 002 #17]: the best score among its
    eligible players who tabled a hand wins; ties split it with the odd-chip rule.

    ``scores`` holds only players whose cards were tabled (cards must be tabled to win,
    [002 #13]); the caller guarantees each pot has at least one of them.
    """
    awards: list[PotAward] = []
    for pot in pots:
        contenders = [s for s in pot.eligible if s in scores]
        best = max(scores[s] for s in contenders)
        winners = [s for s in contenders if scores[s] == best]
        order = odd_chip_order(winners, rule=rule, button=button, preflop_order=preflop_order)
        shares = split_pot(pot.amount, order, unit=unit,
                           one_odd_chip_each=rule is not _COUNTERCLOCKWISE)
        awards.append(pot_award(pot.amount, pot.eligible, tuple(sorted(winners)), shares))
    return awards
