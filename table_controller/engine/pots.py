"""Main and side pots, uncalled bets, split pots and odd chips (rules.md §4).

Pure functions over plain mappings so that the rules can be tested on their own and the
worked examples of [000] reproduced chip for chip.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """``amount`` chips contested by ``eligible`` seats (ascending seat order)."""

    amount: int
    eligible: tuple[int, ...]


def uncalled_excess(bets: Mapping[int, int]) -> tuple[int, int] | None:
    """The uncalled part of the largest bet: ``(seat, chips)`` or None.

    Uncalled bets are returned [002 #48] (TDA 2024 rule 21 context): the top bettor gets back
    what exceeds the second-largest bet of any player (folded players' chips count, they were
    called when they were put in).
    """
    top_seat = None
    top = second = 0
    for seat, bet in bets.items():  # one pass: the largest and the second-largest bet
        if bet > top:
            top_seat, top, second = seat, bet, top
        elif bet > second:
            second = bet
    if top_seat is not None and top > second:
        return top_seat, top - second
    return None


def build_pots(contributions: Mapping[int, int], live: Collection[int], *,
               dead: int = 0) -> list[Pot]:
    """Split everything put in (antes, blinds, bets) into the main pot and side pots.

    A player can win from each opponent at most what he put in himself; the excess forms side
    pots contested only by those who contributed to them, main pot first, never mixed
    ([000, 001, 002 #17], TDA 2024 rule 21). ``live`` are the seats still holding cards
    (folded seats' chips stay in the pots they reached, they contest nothing). Chips above the
    deepest live contribution (possible only with folded over-contributions) join the last pot.
    Pots with the same contenders are merged (a level created only by a folded player's
    amount is not a separate pot).

    ``dead``: chips in the middle that are nobody's contribution to match, the single ante of
    a big-blind or button ante (rules.md §2, TDA 2024 RP-11): they go to the main pot, which
    every live player contests (``contributions`` then leave them out).
    """
    live_levels = sorted({contributions[s] for s in live if contributions.get(s, 0) > 0})
    pots: list[Pot] = [Pot(dead, tuple(sorted(live)))] if dead else []
    previous = 0
    for i, level in enumerate(live_levels):
        last = i == len(live_levels) - 1
        amount = 0
        for chips in contributions.values():
            upper = chips if last else min(chips, level)
            amount += max(0, upper - previous)
        eligible = tuple(sorted(s for s in live if contributions.get(s, 0) >= level))
        _add(pots, amount, eligible)
        previous = level
    if not live_levels:
        total = sum(contributions.values())
        if total:
            _add(pots, total, tuple(sorted(live)))
    return [p for p in pots if p.amount > 0]


def _add(pots: list[Pot], amount: int, eligible: tuple[int, ...]) -> None:
    """Append a pot, merged into the last one when the contenders are the same."""
    if pots and pots[-1].eligible == eligible:
        pots[-1] = Pot(pots[-1].amount + amount, eligible)
    else:
        pots.append(Pot(amount, eligible))


def split_pot(amount: int, winners_in_odd_chip_order: Sequence[int], *, unit: int,
              one_odd_chip_each: bool = True) -> dict[int, int]:
    """Divide ``amount`` among the winners; odd chips follow the given order.

    Each winner gets the same whole number of ``unit`` chips (the smallest denomination in
    play); the chips left over are the odd chips. With ``one_odd_chip_each`` (TDA [002 #16],
    TDA 2024 rule 20) they go one unit at a time to the winners in the order given, so nobody
    gets more than one odd chip; otherwise ([001]) the whole remainder goes to the first winner
    of the order. A remainder that is not a whole unit goes to the next winner in the order.
    """
    winners = list(winners_in_odd_chip_order)
    if not winners:
        raise ValueError("a pot needs at least one winner")
    count = len(winners)
    base = (amount // (unit * count)) * unit
    shares = {seat: base for seat in winners}
    remainder = amount - base * count
    if not one_odd_chip_each:
        shares[winners[0]] += remainder
        return shares
    whole, partial = divmod(remainder, unit)
    for seat in winners[:whole]:  # whole < count: at most one odd chip each
        shares[seat] += unit
    shares[winners[whole]] += partial  # a broken unit goes to the next winner in order
    return shares
