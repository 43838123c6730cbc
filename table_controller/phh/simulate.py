"""Random complete hands played by our engine (seeded), for example hand histories, the
round-trip tests and the benchmarks.

Every decision is drawn from what the engine says is legal (``hand.legal_actions()``), so a hand
played here is a hand the rules allow; cards come from one shuffled deck.
"""

from __future__ import annotations

import random

from table_controller.engine import (
    Action,
    ActionKind,
    GameConfig,
    Hand,
    LegalActions,
    Street,
    Table,
)
from table_controller.vocabulary.cards import DECK, Card

_DONE = (Street.SHOWDOWN, Street.COMPLETE)


def play_random_hand(table: Table, rng: random.Random, *, straddle: int | None = None) -> Hand:
    """Start a hand at ``table`` and play it to the end with random legal decisions.

    The hand is complete when this returns (``hand.result`` set); the caller decides whether to
    :meth:`Table.finish_hand` it.
    """
    hand = table.start_hand(straddle=straddle)
    deck: list[Card] = list(DECK)
    rng.shuffle(deck)
    for seat in hand.deal_order:
        hand.deal_hole(seat, (deck.pop(), deck.pop()))
    board = 0
    while hand.street not in _DONE:
        to_act = hand.to_act
        if to_act is None:
            count = 3 if board == 0 else 1
            hand.deal_board([deck.pop() for _ in range(count)])
            board += count
            continue
        hand.act(choose_action(hand.legal_actions(to_act), rng))
    if hand.street is Street.SHOWDOWN:
        hand.showdown()
    return hand


def choose_action(legal: LegalActions, rng: random.Random) -> Action:
    """A random legal decision: mostly calls and checks, some bets and raises, a few folds."""
    seat = legal.seat
    roll = rng.random()
    if legal.call_amount and legal.can_fold and roll < 0.2:
        return Action(seat=seat, kind=ActionKind.FOLD)
    low = legal.min_bet_to if legal.can_bet else legal.min_raise_to
    high = legal.max_bet_to if legal.can_bet else legal.max_raise_to
    if low is not None and high is not None and roll < 0.5:
        kind = ActionKind.BET if legal.can_bet else ActionKind.RAISE
        top = max(low, min(high, low * 3))
        amount = high if rng.random() < 0.15 else rng.randint(low, top)
        return Action(seat=seat, kind=kind, amount=amount)
    if legal.all_in_to is not None and roll < 0.53:
        return Action(seat=seat, kind=ActionKind.ALL_IN)
    if legal.can_check:
        return Action(seat=seat, kind=ActionKind.CHECK)
    if legal.can_call:
        return Action(seat=seat, kind=ActionKind.CALL)
    return Action(seat=seat, kind=ActionKind.FOLD)


def random_table(
    config: GameConfig,
    rng: random.Random,
    *,
    players: int,
    seats: int = 9,
    stacks: tuple[int, ...] = (10, 40, 150, 300, 1000),
) -> Table:
    """A table with ``players`` players at random seats with random stacks (``stacks`` are in
    half big blinds: 5 to 500 big blinds by default), the button on a random occupied seat."""
    table = Table(config, seats=seats)
    chosen = sorted(rng.sample(range(1, seats + 1), players))
    for seat in chosen:
        table.sit(seat, rng.choice(stacks) * max(config.big_blind, 1) // 2)
    table.set_button(rng.choice(chosen))
    return table
