"""Complete random hands simulated per second, six-handed no limit: our engine vs pokerkit.

Both sides play the same kind of hand: six players with stacks of 20 to 500 big blinds, cards
dealt from a shuffled deck, every decision drawn at random from the legal ones with the same
weights (about 20% folds facing a bet, 30% bets or raises, the rest checks and calls), to the
end with the pots paid. Ours: a fresh :class:`Table`, ``start_hand``, the engine's own
``legal_actions``, ``showdown``, ``finish_hand``. pokerkit: a fresh state with its default
automations (it deals from its own shuffled deck), the same decisions through its ``can_*``
queries.
"""

from __future__ import annotations

import os
import random
import time
import warnings
from typing import Any

from table_controller.engine import GameConfig, Table
from table_controller.phh.simulate import play_random_hand

STACKS = (40, 150, 300, 1000)  # half big blinds, as in simulate.random_table
PLAYERS = 6


def ours(hands: int, seed: int) -> tuple[float, int]:
    config = GameConfig(small_blind=1, big_blind=2)
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for _ in range(hands):
        table = Table(config, seats=PLAYERS)
        for seat in range(1, PLAYERS + 1):
            table.sit(seat, rng.choice(STACKS))
        table.set_button(rng.randint(1, PLAYERS))
        hand = play_random_hand(table, rng)
        table.finish_hand(hand)
        actions += sum(1 for r in hand.log if type(r).__name__ == "ActionTaken")
    return hands / (time.perf_counter() - start), actions


def pokerkit(hands: int, seed: int) -> tuple[float, int]:
    import pokerkit as pk

    automations = (
        pk.Automation.ANTE_POSTING,
        pk.Automation.BET_COLLECTION,
        pk.Automation.BLIND_OR_STRADDLE_POSTING,
        pk.Automation.CARD_BURNING,
        pk.Automation.HOLE_DEALING,
        pk.Automation.BOARD_DEALING,
        pk.Automation.RUNOUT_COUNT_SELECTION,
        pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        pk.Automation.HAND_KILLING,
        pk.Automation.CHIPS_PUSHING,
        pk.Automation.CHIPS_PULLING,
    )
    rng = random.Random(seed)
    random.seed(seed)  # pokerkit shuffles its own deck with the random module
    actions = 0
    start = time.perf_counter()
    for _ in range(hands):
        stacks = [rng.choice(STACKS) for _ in range(PLAYERS)]
        state = pk.NoLimitTexasHoldem.create_state(
            automations, True, 0, (1, 2), 2, stacks, PLAYERS, mode=pk.Mode.CASH_GAME
        )
        while state.status:
            if state.actor_index is not None:
                actions += 1
                roll = rng.random()
                if state.checking_or_calling_amount and roll < 0.2:
                    state.fold()
                elif roll < 0.5 and state.can_complete_bet_or_raise_to():
                    low = state.min_completion_betting_or_raising_to_amount
                    high = state.max_completion_betting_or_raising_to_amount
                    assert low is not None and high is not None
                    top = max(low, min(high, low * 3))
                    state.complete_bet_or_raise_to(
                        high if rng.random() < 0.15 else rng.randint(low, top)
                    )
                else:
                    state.check_or_call()
            else:
                raise AssertionError("pokerkit state stuck")
    return hands / (time.perf_counter() - start), actions


def main(quick: bool) -> dict[str, Any]:
    # Rounds alternate the two sides (the machine is shared); the best round of each counts.
    rounds = 1 if quick else 5
    our_hands = 300 if quick else 600
    their_hands = 100 if quick else 200
    ours_rate = theirs_rate = 0.0
    our_actions = their_actions = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(rounds):
            rate, our_actions = ours(our_hands, seed=1 + r)
            ours_rate = max(ours_rate, rate)
            rate, their_actions = pokerkit(their_hands, seed=1 + r)
            theirs_rate = max(theirs_rate, rate)
    ratio = ours_rate / theirs_rate
    print(f"{'engine':<10} {'hands':>6} {'hands/s':>10} {'actions/hand':>13}  (best of {rounds})")
    print(f"{'ours':<10} {our_hands:>6} {ours_rate:>10.0f} {our_actions / our_hands:>13.1f}")
    print(f"{'pokerkit':<10} {their_hands:>6} {theirs_rate:>10.0f} "
          f"{their_actions / their_hands:>13.1f}")
    load = os.getloadavg()[0]
    print(f"ratio ours/pokerkit: {ratio:.1f}x (goal >= 10x); load average {load:.1f}")
    return {
        "load_average": round(load, 2),
        "ours_hands_per_s": round(ours_rate, 1),
        "pokerkit_hands_per_s": round(theirs_rate, 1),
        "ours_actions_per_hand": round(our_actions / our_hands, 2),
        "pokerkit_actions_per_hand": round(their_actions / their_hands, 2),
        "ratio": round(ratio, 2),
    }
