"""Pots, side pots, showdown, odd chips, rake and voids (rules.md §4) through the public API."""

from __future__ import annotations

import pytest

from table_controller.engine import (
    Action,
    ActionKind,
    BetReturned,
    CardsShown,
    GameConfig,
    Hand,
    IllegalAction,
    OddChipRule,
    RakeConfig,
    Street,
    Table,
)
from table_controller.engine.pots import Pot, build_pots, split_pot, uncalled_excess
from table_controller.vocabulary.cards import Card, parse_cards

F, X, C, B, R, A = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
                    ActionKind.RAISE, ActionKind.ALL_IN)


def start(stacks: dict[int, int], *, button: int, **config: object) -> tuple[Table, Hand]:
    table = Table(GameConfig(**config), seats=9)  # type: ignore[arg-type]
    for seat, chips in stacks.items():
        table.sit(seat, chips)
    table.set_button(button)
    return table, table.start_hand()


def act(hand: Hand, seat: int, kind: ActionKind, amount: int | None = None) -> None:
    hand.act(Action(seat=seat, kind=kind, amount=amount))


def call_around(hand: Hand) -> None:
    while not hand.betting_complete:
        seat = hand.to_act
        assert seat is not None
        act(hand, seat, X if hand.legal_actions().can_check else C)


def run_out(hand: Hand, boards: tuple[str, ...] = ("2c 7d 9h", "Ks", "3d")) -> None:
    dealt = {0: 0, 3: 1, 4: 2, 5: 3}[len(hand.board)]
    for board in boards[dealt:]:
        call_around(hand)
        hand.deal_board(parse_cards(board))
    call_around(hand)


# ---------------------------------------------------------------- worked examples [000]
def test_seed_example_one_pure() -> None:
    """[000]: A bets 20, B all-in for 5, C calls 20 -> main pot 15, side pot 30 (A and C)."""
    pots = build_pots({1: 20, 2: 5, 3: 20}, live={1, 2, 3})
    assert pots == [Pot(15, (1, 2, 3)), Pot(30, (1, 3))]


def test_seed_example_two_pure() -> None:
    """[000]: A all-in 50, B calls 50, C raises to 100, D folds, B calls -> 150 and 100."""
    pots = build_pots({1: 50, 2: 100, 3: 100, 4: 0}, live={1, 2, 3})
    assert pots == [Pot(150, (1, 2, 3)), Pot(100, (2, 3))]


def test_seed_example_one_through_a_hand() -> None:
    # Seats 1=A, 2=B, 3=C; each puts 2 in preflop, then the seed's flop betting.
    _, hand = start({1: 200, 2: 7, 3: 200}, button=3)
    call_around(hand)
    hand.deal_board(parse_cards("2c 7d 9h"))
    act(hand, 1, B, 20)
    act(hand, 2, A)
    act(hand, 3, C)
    assert hand.betting_complete
    pots = hand.pots()
    assert [p.amount for p in pots] == [6 + 15, 30]
    assert [p.eligible for p in pots] == [(1, 2, 3), (1, 3)]
    # Side-pot contenders show first [000]: A and C before B.
    call_around(hand)
    hand.deal_board(parse_cards("Ks"))
    call_around(hand)
    hand.deal_board(parse_cards("3d"))
    call_around(hand)
    assert hand.showdown_order() == [1, 3, 2]


def test_seed_example_two_through_a_hand() -> None:
    # Seats 1=A, 2=B, 3=C, 4=D; button D; each puts 2 in preflop.
    _, hand = start({1: 52, 2: 300, 3: 300, 4: 300}, button=4)
    call_around(hand)
    hand.deal_board(parse_cards("2c 7d 9h"))
    act(hand, 1, A)  # 50
    act(hand, 2, C)
    act(hand, 3, R, 100)
    act(hand, 4, F)
    act(hand, 2, C)
    assert hand.betting_complete
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(8 + 150, (1, 2, 3)),
                                                            (100, (2, 3))]


# ---------------------------------------------------------------- pot rules
def test_uncalled_bet_returned_and_no_showdown_when_all_fold() -> None:
    table, hand = start({1: 100, 2: 100, 3: 100}, button=1)
    act(hand, 1, R, 10)
    act(hand, 2, F)
    act(hand, 3, F)
    assert hand.street is Street.COMPLETE and hand.result is not None
    assert hand.result.returned == {1: 8}
    assert any(isinstance(r, BetReturned) and r.amount == 8 for r in hand.log)
    assert hand.result.pots[0].shares == {1: 5}
    assert not hand.result.showdown
    assert hand.result.final_stacks == {1: 103, 2: 99, 3: 98}
    with pytest.raises(IllegalAction, match="rabbit"):
        hand.deal_board(parse_cards("2c 7d 9h"))
    table.finish_hand(hand)
    assert table.stacks == {1: 103, 2: 99, 3: 98}


def test_all_in_for_more_than_the_caller_gets_excess_back() -> None:
    _, hand = start({1: 100, 2: 40}, button=1)
    act(hand, 1, A)
    act(hand, 2, C)
    assert hand.betting_complete
    assert hand.contributions == {1: 40, 2: 40}
    assert hand.stacks == {1: 60, 2: 0}
    # No more betting: the board runs out without actions [000, 002 #11].
    hand.deal_hole(1, parse_cards("As Ah"))
    hand.deal_hole(2, parse_cards("Kc Kd"))
    for board in ("2c 7d 9h", "Qs", "3d"):
        assert hand.to_act is None
        hand.deal_board(parse_cards(board))
    assert hand.street is Street.SHOWDOWN
    result = hand.showdown()
    assert result.final_stacks == {1: 140, 2: 0}


def test_three_way_all_in_side_pots_paid_separately() -> None:
    _, hand = start({1: 30, 2: 60, 3: 200, 4: 200}, button=4)
    act(hand, 3, A)
    act(hand, 4, C)
    act(hand, 1, A)
    act(hand, 2, A)
    hand.deal_hole(1, parse_cards("As Ah"))  # best: wins the main pot only
    hand.deal_hole(2, parse_cards("Ks Kh"))  # second: wins the first side pot
    hand.deal_hole(3, parse_cards("Qs Qh"))
    hand.deal_hole(4, parse_cards("Js Jh"))
    for board in ("2c 7d 9h", "5s", "3d"):
        hand.deal_board(parse_cards(board))
    result = hand.showdown()
    assert [(p.amount, p.winners) for p in result.pots] == [(120, (1,)), (90, (2,)),
                                                           (280, (3,))]
    assert result.final_stacks == {1: 120, 2: 90, 3: 280, 4: 0}


# ---------------------------------------------------------------- splitting
def test_split_pot_odd_chip_rules() -> None:
    assert split_pot(5, [3, 1], unit=1) == {3: 3, 1: 2}
    assert split_pot(11, [2, 3, 1], unit=1) == {2: 4, 3: 4, 1: 3}
    assert split_pot(11, [2, 3, 1], unit=1, one_odd_chip_each=False) == {2: 5, 3: 3, 1: 3}
    assert split_pot(70, [2, 3, 1], unit=25) == {2: 25, 3: 25, 1: 20}
    assert split_pot(55, [2, 3], unit=25) == {2: 30, 3: 25}


def _split_hand(rule: OddChipRule) -> dict[int, int]:
    # Seats 2 and 3 both play the board; the folded small blind (seat 5) leaves an odd chip.
    _, hand = start({2: 100, 3: 100, 4: 100, 5: 100}, button=4, odd_chip=rule)
    assert (hand.small_blind_seat, hand.big_blind_seat) == (5, 2)
    act(hand, 3, C)  # seat 3 acts first preflop
    act(hand, 4, F)
    act(hand, 5, F)
    act(hand, 2, X)
    for board in ("Ac Kd Qh", "Jc", "Ts"):
        hand.deal_board(parse_cards(board))
        act(hand, 2, X)  # first left of the button
        act(hand, 3, X)
    hand.deal_hole(2, parse_cards("2c 3d"))
    hand.deal_hole(3, parse_cards("4c 5d"))
    result = hand.showdown()
    assert result.pots[0].amount == 5 and result.pots[0].winners == (2, 3)
    return result.pots[0].shares


def test_odd_chip_tda_first_left_of_button() -> None:
    assert _split_hand(OddChipRule.TDA) == {2: 3, 3: 2}  # clockwise from button 4: 5, 2, 3


def test_odd_chip_house_later_actor_gets_smaller_share() -> None:
    # [000]: preflop order 3, 4, 5, 2: seat 2 began acting later, he gets the smaller share.
    assert _split_hand(OddChipRule.HOUSE_LATER_ACTOR) == {3: 3, 2: 2}


def test_odd_chip_house_counterclockwise() -> None:
    # [001]: nearest the dealer counter-clockwise from button 4 is seat 3.
    assert _split_hand(OddChipRule.HOUSE_COUNTERCLOCKWISE) == {3: 3, 2: 2}


# ---------------------------------------------------------------- rake
def test_no_flop_no_drop() -> None:
    _, hand = start({1: 100, 2: 100, 3: 100}, button=1, rake=RakeConfig(percent=10, cap=3))
    act(hand, 1, R, 10)
    act(hand, 2, R, 30)
    act(hand, 3, F)
    act(hand, 1, F)  # everybody but seat 2 folds before the flop: 22 won, no rake
    assert hand.result is not None and hand.result.rake == 0
    assert hand.result.pots[0].amount == 22 and hand.result.returned == {2: 20}


def test_rake_percent_and_cap_after_flop() -> None:
    _, hand = start({1: 100, 2: 100, 3: 100}, button=1,
                    rake=RakeConfig(percent="5", cap=3))
    call_around(hand)
    hand.deal_board(parse_cards("2c 7d 9h"))
    act(hand, 2, B, 20)
    act(hand, 3, F)
    act(hand, 1, F)
    assert hand.result is not None
    assert hand.result.rake == 0  # 5% of 6 rounds down to 0
    _, hand = start({1: 100, 2: 100, 3: 100}, button=1,
                    rake=RakeConfig(percent="5", cap=3))
    act(hand, 1, R, 40)
    act(hand, 2, C)
    act(hand, 3, C)
    hand.deal_board(parse_cards("2c 7d 9h"))
    act(hand, 2, B, 20)
    act(hand, 3, F)
    act(hand, 1, F)
    assert hand.result is not None
    assert hand.result.rake == 3  # 5% of 120 = 6, capped at 3
    assert hand.result.final_stacks[2] == 60 + 120 - 3


# ---------------------------------------------------------------- showdown
def test_showdown_order_last_aggressor_then_clockwise() -> None:
    _, hand = start({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    call_around(hand)
    hand.deal_board(parse_cards("2c 7d 9h"))
    call_around(hand)
    hand.deal_board(parse_cards("Ks"))
    call_around(hand)
    hand.deal_board(parse_cards("3d"))
    act(hand, 2, X)
    act(hand, 3, B, 10)
    act(hand, 4, R, 20)
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, C)
    assert hand.showdown_order() == [4, 1, 2, 3]


def test_showdown_order_without_bet_starts_left_of_button() -> None:
    _, hand = start({1: 100, 2: 100, 3: 100}, button=2)
    run_out(hand)
    assert hand.showdown_order() == [3, 1, 2]


def test_showdown_requires_tabled_cards_and_allows_muck() -> None:
    _, hand = start({1: 100, 2: 100}, button=1)
    run_out(hand)
    hand.deal_hole(1, parse_cards("As Ah"))
    with pytest.raises(IllegalAction, match=r"cards must be tabled"):
        hand.showdown()
    result = hand.showdown(mucked=[2])
    assert result.pots[0].winners == (1,)
    shown = [r for r in hand.log if isinstance(r, CardsShown)]
    assert [r.seat for r in shown] == [1] and shown[0].description == "Pair of Aces"


def test_showdown_cards_may_be_given_late_and_duplicates_refused() -> None:
    _, hand = start({1: 100, 2: 100}, button=1)
    run_out(hand)
    with pytest.raises(IllegalAction, match="duplicate"):
        hand.showdown({1: parse_cards("As Ah"), 2: parse_cards("As Kd")})
    assert hand.street is Street.SHOWDOWN
    result = hand.showdown({1: parse_cards("As Ah"), 2: parse_cards("Qc Qd")})
    assert result.final_stacks == {1: 102, 2: 98}


def test_showdown_confirms_dealt_cards_in_any_order_and_checks_new_ones() -> None:
    """Cards confirmed for a seat that was dealt them (in any order, as other Card objects)
    are the dealt cards: not checked again; different ones are refused; cards for a seat
    with none recorded are checked against every card of the hand."""
    _, hand = start({1: 100, 2: 100, 3: 100}, button=3)
    hand.deal_hole(1, parse_cards("As Ah"))
    hand.deal_hole(2, parse_cards("Kc Kd"))
    run_out(hand)
    with pytest.raises(IllegalAction, match="seat 1 was dealt As Ah, not As Qh"):
        hand.showdown({1: parse_cards("As Qh")})
    with pytest.raises(IllegalAction, match="duplicate card"):
        hand.showdown({1: parse_cards("Ah As"), 3: parse_cards("Kd 5c")})
    with pytest.raises(IllegalAction, match="duplicate card"):
        hand.showdown({3: parse_cards("9h 5c")})  # the board's 9h
    assert hand.street is Street.SHOWDOWN
    result = hand.showdown({1: [Card(14, "h"), Card(14, "s")], 2: parse_cards("Kd Kc"),
                            3: parse_cards("5c 6c")})
    assert result.pots[0].winners == (2,)  # three kings with the board's Ks
    shown = {r.seat: r.cards for r in hand.log if isinstance(r, CardsShown)}
    assert shown[1] == (Card(14, "h"), Card(14, "s"))  # as confirmed


def test_void_returns_every_chip() -> None:
    table, hand = start({1: 100, 2: 100, 3: 100}, button=1, ante=1)
    act(hand, 1, R, 10)
    act(hand, 2, C)
    result = hand.void("misdeal: two cards exposed")
    assert result.voided and result.returned == {1: 11, 2: 11, 3: 3}
    assert result.final_stacks == {1: 100, 2: 100, 3: 100}
    assert hand.street is Street.COMPLETE
    with pytest.raises(IllegalAction):
        act(hand, 3, C)
    table.finish_hand(hand)
    assert table.button == 1  # the button does not move after a void
    redeal = table.start_hand()
    assert (redeal.button, redeal.small_blind_seat, redeal.big_blind_seat) == (1, 2, 3)


def test_uncalled_excess_helper() -> None:
    assert uncalled_excess({1: 10, 2: 4}) == (1, 6)
    assert uncalled_excess({1: 10, 2: 10}) is None
    assert uncalled_excess({}) is None


def test_result_builders_make_the_dataclasses_their_constructors_make() -> None:
    """The engine's builders of PotAward and HandResult (set through the slots, for speed)
    give equal, equally frozen objects."""
    from dataclasses import FrozenInstanceError

    from table_controller.engine.results import HandResult, PotAward, hand_result, pot_award

    award = pot_award(10, (1, 2), (1,), {1: 10})
    assert award == PotAward(amount=10, eligible=(1, 2), winners=(1,), shares={1: 10})
    result = hand_result([award], {2: 3}, 1, {1: 110, 2: 90}, True)
    assert result == HandResult(pots=[award], returned={2: 3}, rake=1, voided=False,
                                final_stacks={1: 110, 2: 90}, showdown=True)
    assert result.reason is None and repr(result).startswith("HandResult(pots=[PotAward(")
    with pytest.raises(FrozenInstanceError):
        result.rake = 0  # type: ignore[misc]


def test_slot_setters_are_every_field_in_order() -> None:
    """A builder through the slots cannot leave a field unset or set one for another."""
    from table_controller.engine.results import PotAward
    from table_controller.engine.slots import slot_setters

    assert len(slot_setters(PotAward, "amount", "eligible", "winners", "shares")) == 4
    with pytest.raises(ValueError, match="not its fields"):
        slot_setters(PotAward, "amount", "eligible", "winners")  # shares left unset
    with pytest.raises(ValueError, match="not its fields"):
        slot_setters(PotAward, "eligible", "amount", "winners", "shares")


def test_single_pot_when_everyone_still_in_put_in_the_same() -> None:
    """Every live player put in the same (one folded after the blinds): the one pot of every
    chip, as build_pots gives it; the showdown logs it as the same PotAwarded record."""
    import dataclasses

    from table_controller.engine import PotAwarded

    _, hand = start({1: 100, 2: 100, 3: 100}, button=1, small_blind=1, big_blind=2)
    for seat, cards in zip(hand.deal_order, ("As Ad", "Ks Kd", "2c 3d"), strict=True):
        hand.deal_hole(seat, parse_cards(cards))
    act(hand, hand.to_act, R, 10)  # type: ignore[arg-type]
    act(hand, hand.to_act, F)  # type: ignore[arg-type]
    call_around(hand)
    live = hand.live_seats
    assert hand.pots() == build_pots(hand.contributions, live) == [
        Pot(sum(hand.contributions.values()), tuple(sorted(live)))]
    run_out(hand, ("4h 7d 9c", "Js", "5d"))
    hand.showdown()
    record = next(r for r in hand.log if isinstance(r, PotAwarded))
    assert record == PotAwarded(record.index, record.amount, record.shares)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.amount = 0  # type: ignore[misc]
