"""Betting rules of the engine (rules.md §3) through the public API."""

from __future__ import annotations

import copy

import pytest

from table_controller.engine import (
    Action,
    ActionKind,
    ActionTaken,
    GameConfig,
    Hand,
    IllegalAction,
    OutOfTurnHeld,
    OutOfTurnReleased,
    Street,
    Structure,
    Table,
    TimeExpired,
)
from table_controller.vocabulary.cards import Card, parse_cards

F, X, C, B, R, A = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
                    ActionKind.RAISE, ActionKind.ALL_IN)


def start(stacks: dict[int, int], *, button: int, seats: int = 9, straddle: int | None = None,
          **config: object) -> Hand:
    table = Table(GameConfig(**config), seats=seats)  # type: ignore[arg-type]
    for seat, chips in stacks.items():
        table.sit(seat, chips)
    table.set_button(button)
    return table.start_hand(straddle=straddle)


def act(hand: Hand, seat: int, kind: ActionKind, amount: int | None = None) -> None:
    hand.act(Action(seat=seat, kind=kind, amount=amount))


def to_flop(hand: Hand, board: str = "2c 7d 9h") -> None:
    """Everyone calls or checks preflop, then the flop."""
    while not hand.betting_complete:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_actions()
        act(hand, seat, X if legal.can_check else C)
    hand.deal_board(parse_cards(board))


def snapshot(hand: Hand) -> tuple[object, ...]:
    return (copy.deepcopy(hand.players), hand.street, hand.to_act, len(hand.log),
            hand.held_out_of_turn, hand.pot)


def test_preflop_order_blinds_and_big_blind_option() -> None:
    hand = start({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    assert (hand.small_blind_seat, hand.big_blind_seat) == (2, 3)
    assert hand.bets == {2: 1, 3: 2}
    assert hand.to_act == 4  # left of the big blind [000]
    act(hand, 4, C)
    act(hand, 1, C)
    act(hand, 2, C)
    # Everyone called: the big blind still has his option (live blind) [000, 001].
    assert hand.to_act == 3
    legal = hand.legal_actions()
    assert legal.can_check and legal.min_raise_to == 4
    act(hand, 3, R, 6)
    assert hand.to_act == 4
    act(hand, 4, C)
    act(hand, 1, F)
    act(hand, 2, C)
    assert hand.betting_complete and hand.pot == 6 * 3 + 2


def test_postflop_first_left_of_button_and_min_bet() -> None:
    hand = start({1: 100, 2: 100, 3: 100}, button=3)
    to_flop(hand)
    assert hand.street is Street.FLOP and hand.to_act == 1
    legal = hand.legal_actions()
    assert legal.can_check and legal.min_bet_to == 2 and legal.max_bet_to == 98
    with pytest.raises(IllegalAction, match=r"TDA 43 \[002 #37\]: minimum bet is to 2"):
        act(hand, 1, B, 1)


def test_min_raise_is_the_largest_previous_raise() -> None:
    hand = start({1: 500, 2: 500, 3: 500, 4: 500}, button=4)
    to_flop(hand)
    act(hand, 1, B, 10)
    act(hand, 2, R, 30)  # raise by 20
    assert hand.legal_actions(3).min_raise_to == 50
    with pytest.raises(IllegalAction) as err:
        act(hand, 3, R, 45)
    assert err.value.rule == "TDA 43 [002 #37]"
    assert str(err.value) == "TDA 43 [002 #37]: minimum raise is to 50"
    act(hand, 3, R, 50)


def test_illegal_action_leaves_state_unchanged() -> None:
    hand = start({1: 100, 2: 100, 3: 100}, button=3)
    before = snapshot(hand)
    for bad in (Action(seat=1, kind=X), Action(seat=1, kind=R, amount=3),
                Action(seat=1, kind=R, amount=1000), Action(seat=7, kind=C),
                Action(seat=1, kind=B, amount=None)):
        assert not hand.can(bad)
        with pytest.raises(IllegalAction):
            hand.act(bad)
        assert snapshot(hand) == before


def test_short_all_in_does_not_reopen_betting_seed_example() -> None:
    """[000]: A bets 20, B all-in for 25 (a pseudo raise), C calls 25: A may only call 5."""
    hand = start({1: 200, 2: 27, 3: 200}, button=3)
    to_flop(hand)  # each has put 2 in preflop
    act(hand, 1, B, 20)
    act(hand, 2, A)  # 25: short of the minimum raise to 40
    assert hand.actions_this_round[-1].to == 25
    assert not hand.actions_this_round[-1].full_raise
    assert hand.legal_actions(3).min_raise_to == 45  # not yet acted: may raise a full raise
    act(hand, 3, C)
    legal = hand.legal_actions(1)
    assert legal.call_amount == 5 and not legal.can_raise and legal.all_in_to is None
    assert legal.reason_no_raise is not None and "TDA 47" in legal.reason_no_raise
    with pytest.raises(IllegalAction, match="does not reopen"):
        act(hand, 1, R, 60)
    act(hand, 1, C)
    assert hand.betting_complete


def test_short_all_ins_adding_up_to_a_full_raise_reopen() -> None:
    """TDA 47: cumulative short all-ins that reach a full raise reopen the betting."""
    hand = start({1: 500, 2: 34, 3: 49, 4: 500}, button=4)
    to_flop(hand)
    act(hand, 1, B, 20)
    act(hand, 2, A)  # to 32: short
    act(hand, 3, A)  # to 47: short again, but 27 over A's 20 >= a full raise of 20
    act(hand, 4, C)
    assert hand.legal_actions(1).min_raise_to == 67
    act(hand, 1, R, 67)  # reopened: the raise is taken (BettingRound.decide's quick path)
    assert hand.actions_this_round[-1].full_raise


def test_short_all_ins_one_chip_short_of_a_full_raise_do_not_reopen() -> None:
    """TDA 47: short all-ins adding up to one chip less than a full raise: no raise."""
    hand = start({1: 500, 2: 34, 3: 41, 4: 500}, button=4)
    to_flop(hand)
    act(hand, 1, B, 20)
    act(hand, 2, A)  # to 32: short
    act(hand, 3, A)  # to 39: 19 over A's 20, one short of a full raise of 20
    act(hand, 4, C)
    before = snapshot(hand)
    for kind in (R, B):
        with pytest.raises(IllegalAction, match="does not reopen"):
            hand.act_in_turn(1, kind, 80)
    assert snapshot(hand) == before
    act(hand, 1, C)
    assert hand.betting_complete


def test_full_raise_reopens_for_everyone() -> None:
    hand = start({1: 500, 2: 500, 3: 500}, button=3)
    to_flop(hand)
    act(hand, 1, B, 20)
    act(hand, 2, C)
    act(hand, 3, R, 40)
    assert hand.legal_actions(1).min_raise_to == 60


def test_no_raise_when_every_opponent_is_all_in() -> None:
    hand = start({1: 500, 2: 30}, button=1)
    act(hand, 1, C)
    act(hand, 2, A)
    legal = hand.legal_actions(1)
    assert legal.call_amount == 28 and not legal.can_raise
    act(hand, 1, C)
    assert hand.betting_complete and hand.to_act is None


def test_pot_limit_maximum_is_pot_including_call() -> None:
    hand = start({1: 500, 2: 500, 3: 500}, button=1, structure=Structure.POT_LIMIT)
    # Seat 1 (button) first: pot 3, call 2 -> raise by 5, to 7.
    assert hand.legal_actions().max_raise_to == 7
    with pytest.raises(IllegalAction, match=r"pot limit.*to 7 at most"):
        act(hand, 1, R, 8)
    act(hand, 1, R, 7)
    # Seat 2 (SB 1 in): pot 10, call 6 -> to 7 + 16 = 23.
    assert hand.legal_actions().max_raise_to == 23
    act(hand, 2, C)
    act(hand, 3, C)
    hand.deal_board(parse_cards("2c 7d 9h"))
    assert hand.legal_actions().max_bet_to == 21


def test_fixed_limit_sizes_and_cap_multiway() -> None:
    hand = start({1: 500, 2: 500, 3: 500, 4: 500}, button=4, structure=Structure.FIXED_LIMIT,
                 small_blind=5, big_blind=10)
    # The big blind is the bet; three raises make the cap [000, 002 #40].
    legal = hand.legal_actions()
    assert legal.min_raise_to == legal.max_raise_to == 20
    with pytest.raises(IllegalAction, match="fixed limit: raise is to 20"):
        act(hand, 3, R, 25)
    act(hand, 3, R, 20)
    act(hand, 4, R, 30)
    act(hand, 1, R, 40)
    legal = hand.legal_actions(2)
    assert not legal.can_raise and "capped" in (legal.reason_no_raise or "")
    act(hand, 2, F)  # a fold does not lift the cap even when two players remain
    act(hand, 3, C)
    act(hand, 4, C)
    assert hand.betting_complete
    hand.deal_board(parse_cards("2c 7d 9h"))
    assert hand.legal_actions().min_bet_to == 10
    act(hand, 1, X)
    hand2 = start({1: 500, 2: 500, 3: 500}, button=3, structure=Structure.FIXED_LIMIT,
                  small_blind=5, big_blind=10)
    to_flop(hand2)
    act(hand2, 1, B, 10)
    act(hand2, 2, R, 20)
    act(hand2, 3, F)
    act(hand2, 1, R, 30)
    act(hand2, 2, R, 40)  # the cap: but the round was heads-up before it was reached
    act(hand2, 1, R, 50)  # cash game heads-up: unlimited raising
    assert hand2.legal_actions(2).min_raise_to == 60


def test_fixed_limit_cap_stays_heads_up_in_tournaments() -> None:
    hand = start({1: 500, 2: 500}, button=1, structure=Structure.FIXED_LIMIT,
                 small_blind=5, big_blind=10, tournament=True)
    act(hand, 1, R, 20)
    act(hand, 2, R, 30)
    act(hand, 1, R, 40)
    legal = hand.legal_actions(2)
    assert not legal.can_raise and legal.call_amount == 10


def test_fixed_limit_turn_uses_big_bet() -> None:
    hand = start({1: 500, 2: 500}, button=1, structure=Structure.FIXED_LIMIT,
                 small_blind=5, big_blind=10)
    to_flop(hand)
    act(hand, 2, X)
    act(hand, 1, X)
    hand.deal_board(parse_cards("Ks"))
    assert hand.legal_actions().min_bet_to == 20


def test_fixed_limit_half_bet_all_in_counts_as_full_bet() -> None:
    """[000, 002 #37]: in fixed limit an all-in of at least half a bet reopens."""
    hand = start({1: 500, 2: 27, 3: 500}, button=3, structure=Structure.FIXED_LIMIT,
                 small_blind=5, big_blind=10)
    to_flop(hand)  # 10 each in
    act(hand, 1, B, 10)
    act(hand, 2, A)  # 17: seven over the bet, at least half of 10 -> counts as a full raise
    assert hand.actions_this_round[-1].full_raise
    legal3 = hand.legal_actions(3)
    # A full raise goes on top of the all-in (Robert's Rules: a $15 all-in raised to $35).
    assert legal3.call_amount == 17 and legal3.min_raise_to == 27
    act(hand, 3, C)
    legal1 = hand.legal_actions(1)
    assert legal1.call_amount == 7 and legal1.min_raise_to == 27  # reopened for the bettor
    act(hand, 1, R, 27)
    act(hand, 3, R, 37)


def test_fixed_limit_small_all_in_does_not_reopen() -> None:
    hand = start({1: 500, 2: 24, 3: 500}, button=3, structure=Structure.FIXED_LIMIT,
                 small_blind=5, big_blind=10)
    to_flop(hand)
    act(hand, 1, B, 10)
    act(hand, 2, A)  # 14: less than half a bet over
    assert not hand.actions_this_round[-1].full_raise
    assert hand.legal_actions(3).min_raise_to == 20  # completes the wager to a full raise
    act(hand, 3, C)
    assert not hand.legal_actions(1).can_raise


def test_straddle_acts_as_a_raise_and_keeps_the_option() -> None:
    hand = start({1: 100, 2: 100, 3: 100, 4: 100, 5: 100}, button=1, straddle=4)
    assert hand.bets == {2: 1, 3: 2, 4: 4}
    assert hand.to_act == 5
    assert hand.legal_actions().min_raise_to == 8
    for seat in (5, 1, 2, 3):
        act(hand, seat, C)
    assert hand.to_act == 4  # the straddler keeps the option
    assert hand.legal_actions().can_check
    act(hand, 4, R, 12)
    with pytest.raises(IllegalAction, match="left of the big blind"):
        start({1: 100, 2: 100, 3: 100, 4: 100}, button=1, straddle=1)


def test_out_of_turn_binding_when_action_unchanged() -> None:
    """[002 #35]: a call out of turn stands when the action to him does not change."""
    hand = start({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    act(hand, 1, C)  # button calls out of turn (seat 4 is to act)
    assert hand.held_out_of_turn == {1: Action(seat=1, kind=C)}
    assert isinstance(hand.log[-1], OutOfTurnHeld)
    assert hand.to_act == 4
    act(hand, 4, C)  # a call does not change the action: seat 1's call takes effect
    taken = hand.actions_this_round
    assert [(t.seat, t.kind, t.out_of_turn) for t in taken] == [(4, C, False), (1, C, True)]
    assert hand.to_act == 2


def test_out_of_turn_void_when_action_changes() -> None:
    hand = start({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    act(hand, 1, R, 6)  # out of turn
    act(hand, 4, R, 10)  # the action to seat 1 changed: his raise is void, chips back
    assert isinstance(hand.log[-1], OutOfTurnReleased)
    assert hand.to_act == 1 and hand.held_out_of_turn == {}
    assert hand.players[1].bet == 0
    legal = hand.legal_actions()
    assert legal.call_amount == 10 and legal.min_raise_to == 18  # he may call, raise or fold


def test_out_of_turn_fold_stands_even_if_action_changes() -> None:
    hand = start({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    act(hand, 2, F)  # small blind folds out of turn
    act(hand, 4, R, 6)
    act(hand, 1, C)
    assert hand.players[2].folded
    assert hand.to_act == 3


def test_second_out_of_turn_action_refused() -> None:
    hand = start({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    act(hand, 2, C)
    with pytest.raises(IllegalAction, match="already has an action out of turn"):
        act(hand, 2, R, 8)
    with pytest.raises(IllegalAction, match="not dealt in"):
        hand.verify(Action(seat=9, kind=C))


def test_time_expired_kills_the_hand() -> None:
    hand = start({1: 100, 2: 100, 3: 100}, button=1)
    with pytest.raises(IllegalAction, match=r"\[002 #24\]"):
        hand.time_expired(2)
    hand.time_expired(1)
    assert hand.players[1].folded
    assert any(isinstance(r, TimeExpired) for r in hand.log)
    assert isinstance(hand.log[-1], ActionTaken) and hand.log[-1].kind is F


def test_premature_board_is_refused() -> None:
    hand = start({1: 100, 2: 100, 3: 100}, button=1)
    with pytest.raises(IllegalAction, match="premature"):
        hand.deal_board(parse_cards("2c 7d 9h"))


@pytest.mark.parametrize(
    ("pushed", "single", "expected"),
    [
        (10, False, Action(seat=1, kind=C)),  # exactly a call
        (14, False, Action(seat=1, kind=C)),  # 4 over the call: under 50% of a raise of 10
        (15, False, Action(seat=1, kind=R, amount=20)),  # 50% -> obliged to a full raise
        (19, False, Action(seat=1, kind=R, amount=20)),
        (25, False, Action(seat=1, kind=R, amount=25)),  # more than a full raise: as pushed
        (40, False, Action(seat=1, kind=R, amount=40)),  # a full raise as pushed
        (100, True, Action(seat=1, kind=C)),  # single oversized chip: a call [002 #38]
        (5, False, Action(seat=1, kind=C)),  # under-call completed to a call
        (500, False, Action(seat=1, kind=A)),  # everything: all-in
    ],
)
def test_interpret_chips_fifty_percent_rule(pushed: int, single: bool,
                                            expected: Action) -> None:
    hand = start({1: 500, 2: 500, 3: 500}, button=3)
    to_flop(hand)
    act(hand, 1, X)
    act(hand, 2, B, 10)
    act(hand, 3, C)
    hand_action = hand.interpret_chips(1, pushed, single_chip=single)
    assert hand_action == expected
    assert hand.can(hand_action)


def test_interpret_chips_big_blind_option_and_no_reopen() -> None:
    hand = start({1: 500, 2: 500, 3: 500}, button=1, small_blind=5, big_blind=10)
    for seat in (1, 2):
        act(hand, seat, C)
    # The big blind's option: a single chip is no raise, nothing is owed: a check.
    assert hand.interpret_chips(3, 100, single_chip=True) == Action(seat=3, kind=X)
    assert hand.interpret_chips(3, 4) == Action(seat=3, kind=X)  # under 50% of a raise
    assert hand.interpret_chips(3, 5) == Action(seat=3, kind=R, amount=20)
    short = start({1: 200, 2: 27, 3: 200}, button=3)
    to_flop(short)
    act(short, 1, B, 20)
    act(short, 2, A)
    act(short, 3, C)
    # Not reopened by the short all-in: whatever he pushes beyond the call is returned.
    assert short.interpret_chips(1, 150) == Action(seat=1, kind=C)


def test_interpret_chips_opening() -> None:
    hand = start({1: 500, 2: 500, 3: 500}, button=3)
    to_flop(hand)
    assert hand.interpret_chips(1, 0) == Action(seat=1, kind=X)
    assert hand.interpret_chips(1, 25, single_chip=True) == Action(seat=1, kind=B, amount=25)
    assert hand.interpret_chips(1, 1) == Action(seat=1, kind=B, amount=2)


def test_bet_and_raise_are_synonyms_and_call_may_state_total() -> None:
    hand = start({1: 100, 2: 100, 3: 100}, button=1)
    act(hand, 1, B, 6)  # "bet" facing the big blind is read as a raise to 6
    assert hand.actions_this_round[-1].kind is R
    act(hand, 2, C, 6)
    with pytest.raises(IllegalAction, match="a call is to 6"):
        act(hand, 3, C, 5)


def test_out_of_turn_raise_applied_when_only_calls_come_before() -> None:
    hand = start({1: 100, 2: 100, 3: 100, 4: 100, 5: 100}, button=1)
    act(hand, 1, R, 8)  # the button raises out of turn; seat 4 and 5 are still to act
    act(hand, 4, C)
    assert hand.to_act == 5
    act(hand, 5, F)  # a call and a fold do not change the action to seat 1
    taken = hand.actions_this_round[-1]
    assert (taken.seat, taken.kind, taken.to, taken.out_of_turn) == (1, R, 8, True)
    assert hand.to_act == 2


def test_short_stack_may_only_go_all_in_below_the_minimum() -> None:
    hand = start({1: 100, 2: 15, 3: 100}, button=3)
    to_flop(hand)
    act(hand, 1, B, 10)
    legal = hand.legal_actions(2)  # 13 behind: a call of 10, a raise only all-in to 13
    assert legal.call_amount == 10 and legal.min_raise_to is None and legal.all_in_to == 13
    with pytest.raises(IllegalAction, match="minimum raise is to 20; short of it, only all-in"):
        act(hand, 2, R, 12)
    act(hand, 2, R, 13)
    assert hand.actions_this_round[-1].all_in


def test_all_in_above_the_limit_is_refused_in_pot_and_fixed_limit() -> None:
    pl = start({1: 500, 2: 500}, button=1, structure=Structure.POT_LIMIT)
    assert pl.legal_actions().all_in_to is None
    with pytest.raises(IllegalAction, match="pot limit"):
        act(pl, 1, A)
    fl = start({1: 500, 2: 500}, button=1, structure=Structure.FIXED_LIMIT)
    with pytest.raises(IllegalAction, match="fixed limit: raise is to 4"):
        act(fl, 1, A)


def test_hole_cards_are_checked() -> None:
    hand = start({1: 100, 2: 100, 3: 100}, button=1)
    with pytest.raises(IllegalAction, match="two hole cards"):
        hand.deal_hole(1, parse_cards("As"))
    with pytest.raises(IllegalAction, match="not dealt in"):
        hand.deal_hole(7, parse_cards("As Ks"))
    hand.deal_hole(1, parse_cards("As Ks"))
    with pytest.raises(IllegalAction, match="duplicate card"):
        hand.deal_hole(2, parse_cards("Ks Qs"))
    with pytest.raises(IllegalAction, match="already has hole cards"):
        hand.deal_hole(1, parse_cards("2c 3c"))
    assert hand.hole_cards == {1: tuple(parse_cards("As Ks"))}
    # Card objects of their own (not the deck's, which the readers hand out) count the same
    with pytest.raises(IllegalAction, match=r"duplicate card.*Ks"):
        hand.deal_hole(2, (Card(13, "s"), Card(12, "h")))
    with pytest.raises(IllegalAction, match=r"duplicate card.*Qh"):
        hand.deal_hole(2, (Card(12, "h"), Card(12, "h")))
    hand.deal_hole(2, (Card(12, "h"), Card(2, "c")))
    with pytest.raises(IllegalAction, match=r"duplicate card.*2c"):
        hand.deal_hole(3, parse_cards("2c 2d"))
    with pytest.raises(IllegalAction, match=r"duplicate card.*Qh"):  # one of each kind
        hand.deal_hole(3, (parse_cards("2d")[0], Card(12, "h")))
    hand.deal_hole(3, (parse_cards("2d")[0], Card(2, "h")))
    assert hand.hole_cards[3] == tuple(parse_cards("2d 2h"))


def test_checks_and_calls_in_turn_play_as_act() -> None:
    """act_in_turn's check and call (BettingRound.check_or_call_in_turn, one step) give the
    log, stacks and turn that act() gives: a call, an all-in call for less, checks to the end
    of the round; a check facing a bet and a call of nothing are refused alike."""
    stacks = {1: 300, 2: 40, 3: 300, 4: 300}
    held, in_turn = start(stacks, button=4), start(stacks, button=4)
    for hand in (held, in_turn):
        to_flop(hand)
        act(hand, 1, B, 60)
    steps = [(2, C), (3, C), (4, C)]  # seat 2 calls all-in for less
    for seat, kind in steps:
        act(held, seat, kind)
        in_turn.act_in_turn(seat, kind)
        assert in_turn.log == held.log and snapshot(in_turn) == snapshot(held)
    short = in_turn.log[-3]
    assert isinstance(short, ActionTaken) and short.all_in and short.added == 38
    for hand in (held, in_turn):
        hand.deal_board(parse_cards("Kd"))
    with pytest.raises(IllegalAction, match="nothing to call"):
        in_turn.act_in_turn(1, C)
    for seat in (1, 3, 4):
        act(held, seat, X)
        in_turn.act_in_turn(seat, X)
        assert in_turn.log == held.log and snapshot(in_turn) == snapshot(held)
    assert in_turn.betting_complete and in_turn.street is Street.TURN
    for hand in (held, in_turn):
        hand.deal_board(parse_cards("Qs"))
        act(hand, 1, B, 20)
    before = snapshot(in_turn)
    with pytest.raises(IllegalAction, match="cannot check facing a bet"):
        in_turn.act_in_turn(3, X)
    assert snapshot(in_turn) == before


def test_check_or_call_in_turn_is_act_in_turn_with_the_kind_that_fits() -> None:
    """Hand.check_or_call_in_turn (PHH's cc) plays as act_in_turn(CALL if to_call else CHECK),
    and refuses what act_in_turn refuses, with the same error, changing nothing."""
    stacks = {1: 300, 2: 40, 3: 300, 4: 300}
    ours, theirs = start(stacks, button=4), start(stacks, button=4)
    with pytest.raises(IllegalAction) as expected:
        theirs.act_in_turn(1, X)
    before = snapshot(ours)
    with pytest.raises(IllegalAction) as refused:
        ours.check_or_call_in_turn(1)  # seat 3, left of the big blind, is to act
    assert (refused.value.rule, str(refused.value)) == (expected.value.rule, str(expected.value))
    assert snapshot(ours) == before
    for hand in (ours, theirs):
        act(hand, 3, R, 50)
    while theirs.to_act is not None:  # seat 2 calls all-in for less, then the others call
        seat = theirs.to_act
        theirs.act_in_turn(seat, C if theirs.to_call(seat) else X)
        ours.check_or_call_in_turn(seat)
        assert ours.log == theirs.log and snapshot(ours) == snapshot(theirs)
    with pytest.raises(IllegalAction, match="betting round is over"):
        ours.check_or_call_in_turn(1)
    for hand in (ours, theirs):
        hand.deal_board(parse_cards("2c 7d 9h"))
    for seat in (1, 3, 4):  # checks
        theirs.act_in_turn(seat, X)
        ours.check_or_call_in_turn(seat)
        assert ours.log == theirs.log and snapshot(ours) == snapshot(theirs)


def test_bets_and_raises_in_turn_play_as_act() -> None:
    """act_in_turn's usual no-limit bet or raise (BettingRound.raise_in_turn, one step): a
    bet, a full raise, an all-in short of a full raise (which does not reopen the betting), a
    re-raise, give the log and state act() gives; below the minimum is refused alike."""
    stacks = {1: 300, 2: 75, 3: 300, 4: 300}
    held, in_turn = start(stacks, button=4), start(stacks, button=4)
    for hand in (held, in_turn):
        to_flop(hand)
    with pytest.raises(IllegalAction) as expected:
        held.act(Action(seat=1, kind=B, amount=1))
    before = snapshot(in_turn)
    with pytest.raises(IllegalAction) as refused:
        in_turn.act_in_turn(1, B, 1)
    assert (refused.value.rule, str(refused.value)) == (expected.value.rule, str(expected.value))
    assert snapshot(in_turn) == before
    steps = [(1, B, 40), (2, R, 73), (3, R, 150), (4, C, None), (1, R, 298)]
    for seat, kind, amount in steps:  # seat 2 all-in for 73: 33 over 40, short of a raise
        act(held, seat, kind, amount)
        in_turn.act_in_turn(seat, kind, amount)
        assert in_turn.log == held.log and snapshot(in_turn) == snapshot(held)
    short = in_turn.log[-4]
    assert isinstance(short, ActionTaken) and short.all_in and not short.full_raise
