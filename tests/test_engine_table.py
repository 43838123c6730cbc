"""Button, blinds, seating and hand sequencing (rules.md §2) through the public API."""

from __future__ import annotations

import pytest

from table_controller.engine import (
    Action,
    ActionKind,
    ConfigError,
    GameConfig,
    Hand,
    IllegalAction,
    Posted,
    PostKind,
    RakeConfig,
    Table,
    TableError,
)
from table_controller.vocabulary.cards import parse_cards

F, X, C = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL


def table_with(stacks: dict[int, int], *, button: int, seats: int = 9,
               **config: object) -> Table:
    table = Table(GameConfig(**config), seats=seats)  # type: ignore[arg-type]
    for seat, chips in stacks.items():
        table.sit(seat, chips)
    table.set_button(button)
    return table


def fold_to_big_blind(hand: Hand) -> None:
    while hand.result is None:
        seat = hand.to_act
        assert seat is not None
        hand.act(Action(seat=seat, kind=F))


def play(table: Table) -> Hand:
    hand = table.start_hand()
    fold_to_big_blind(hand)
    table.finish_hand(hand)
    return hand


def positions(hand: Hand) -> tuple[int | None, int | None, int]:
    return hand.button, hand.small_blind_seat, hand.big_blind_seat


def test_seat_count_and_config_validation() -> None:
    with pytest.raises(ConfigError):
        Table(GameConfig(), seats=11)
    with pytest.raises(ConfigError):
        Table(GameConfig(), seats=1)
    with pytest.raises(ConfigError):
        GameConfig(big_blind=0)
    with pytest.raises(ConfigError):
        GameConfig(small_blind=5, big_blind=2)
    # Tournament rake is taken from the buy-ins, not at the table (rules.md §4 [002 #56]).
    with pytest.raises(ConfigError, match=r"\[002 #56\].*buy-ins"):
        GameConfig(tournament=True, rake=RakeConfig(percent=5, cap=3))
    with pytest.raises(ConfigError, match=r"\[002 #56\]"):
        GameConfig(tournament=True, rake=RakeConfig(percent=0))
    assert GameConfig(tournament=True).rake is None
    assert GameConfig(rake=RakeConfig(percent=5)).rake is not None
    table = Table(GameConfig(), seats=10)
    with pytest.raises(TableError):
        table.sit(11, 100)
    table.sit(10, 100)
    with pytest.raises(TableError, match="taken"):
        table.sit(10, 50)
    table.sit(1, 100)
    with pytest.raises(TableError, match="set the button"):
        table.start_hand()


def test_button_moves_clockwise_and_hand_numbers() -> None:
    table = table_with({1: 100, 3: 100, 5: 100, 8: 100}, button=1)
    seen = []
    for number in range(1, 6):
        hand = play(table)
        assert hand.number == number == table.hand_number
        seen.append(positions(hand))
    assert seen == [(1, 3, 5), (3, 5, 8), (5, 8, 1), (8, 1, 3), (1, 3, 5)]


def test_deal_order_starts_left_of_button_and_ends_with_button() -> None:
    table = table_with({2: 100, 4: 100, 7: 100}, button=4)
    hand = table.start_hand()
    assert hand.deal_order == (7, 2, 4)


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    table = table_with({3: 100, 6: 100}, button=6)
    hand = table.start_hand()
    assert positions(hand) == (6, 6, 3)
    assert hand.deal_order == (3, 6)  # the button gets the last card [000, 002 #30]
    assert hand.to_act == 6
    hand.act(Action(seat=6, kind=C))
    hand.act(Action(seat=3, kind=X))
    hand.deal_board(parse_cards("2c 7d 9h"))
    assert hand.to_act == 3


def test_heads_up_start_no_big_blind_twice_in_a_row() -> None:
    """[002 #30]: when a third player busts, the last big blind does not take it again."""
    table = table_with({1: 100, 2: 100, 3: 100}, button=1)
    hand = table.start_hand()
    assert positions(hand) == (1, 2, 3)
    fold_to_big_blind(hand)
    table.finish_hand(hand)
    table.leave(1)
    hand = table.start_hand()
    assert hand.big_blind_seat == 2  # not seat 3 again
    assert hand.button == hand.small_blind_seat == 3
    fold_to_big_blind(hand)
    table.finish_hand(hand)
    assert positions(table.start_hand()) == (2, 2, 3)


def test_cash_big_blind_moves_on_one_player() -> None:
    table = table_with({1: 100, 2: 100, 3: 100, 4: 100}, button=1)
    play(table)  # 1, 2, 3
    table.leave(2)  # the small blind leaves: the big blind still moves on one player
    hand = table.start_hand()
    assert positions(hand) == (1, 3, 4)


def test_tournament_dead_button_when_small_blind_busts() -> None:
    """[002 #28]: the big blind moves on one player; the button may rest on an empty seat only
    when the small blind busted."""
    table = table_with({1: 100, 2: 100, 3: 100, 4: 100, 5: 100}, button=1, tournament=True)
    play(table)  # button 1, SB 2, BB 3
    table.leave(2)  # the small blind busts
    hand = table.start_hand()
    assert positions(hand) == (2, 3, 4)  # dead button on the empty seat 2
    assert hand.deal_order[-1] == 1  # the last card goes to the last player before it
    fold_to_big_blind(hand)
    table.finish_hand(hand)
    table.leave(4)  # the big blind busts: next hand has no small blind
    hand = table.start_hand()
    assert positions(hand) == (3, None, 5)
    assert not any(isinstance(r, Posted) and r.kind is PostKind.SMALL_BLIND for r in hand.log)


def test_new_player_between_button_and_small_blind_waits() -> None:
    table = table_with({1: 100, 3: 100, 5: 100, 7: 100}, button=1)
    play(table)  # button 1, SB 3, BB 5
    table.sit(2, 100)  # between the button and the small blind [000, 003]
    table.sit(6, 100)  # elsewhere: dealt in at once
    assert table.waiting == (2,)
    hand = table.start_hand()
    assert 2 not in hand.deal_order and 6 in hand.deal_order
    assert positions(hand) == (3, 5, 6)
    fold_to_big_blind(hand)
    table.finish_hand(hand)
    assert not table.waiting  # the button passed him
    hand = table.start_hand()
    assert 2 in hand.deal_order


def test_missed_blinds_paid_on_return() -> None:
    table = table_with({1: 100, 2: 100, 3: 100, 4: 100, 5: 100}, button=1)
    play(table)  # 1, 2, 3
    table.sit_out(4)
    play(table)  # button 2, SB 3, BB 5: the big blind passed seat 4
    assert table.missed_blinds == {4: (False, True)}
    play(table)  # button 3, SB 5, BB 1: the small blind passed him too
    assert table.missed_blinds == {4: (True, True)}
    table.sit_in(4)
    hand = table.start_hand()
    assert positions(hand) == (5, 1, 2)
    posted = [(r.seat, r.kind, r.amount, r.live) for r in hand.log if isinstance(r, Posted)]
    assert (4, PostKind.MISSED_BIG_BLIND, 2, True) in posted
    assert (4, PostKind.MISSED_SMALL_BLIND, 1, False) in posted
    assert hand.bets[4] == 2 and hand.contributions[4] == 3
    assert table.missed_blinds == {}


def test_antes_go_to_the_pot_not_the_bet() -> None:
    table = table_with({1: 100, 2: 100, 3: 100}, button=1, ante=1)
    hand = table.start_hand()
    assert hand.bets == {2: 1, 3: 2}
    assert hand.pot == 6
    assert hand.legal_actions().call_amount == 2


def test_short_stacks_post_what_they_have() -> None:
    table = table_with({1: 100, 2: 1, 3: 1}, button=1, ante=1)
    hand = table.start_hand()
    assert hand.stacks == {1: 99, 2: 0, 3: 0}
    # Both others are all-in on their antes: nothing to bet against, the board runs out.
    assert hand.to_act is None and hand.betting_complete
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(3, (1, 2, 3))]


def test_no_chips_added_during_a_hand_and_hand_sequencing() -> None:
    table = table_with({1: 100, 2: 100}, button=1)
    hand = table.start_hand()
    with pytest.raises(TableError, match="no chips added"):
        table.add_chips(1, 50)
    with pytest.raises(TableError, match="not finished"):
        table.start_hand()
    with pytest.raises(TableError, match="not over"):
        table.finish_hand(hand)
    fold_to_big_blind(hand)
    table.finish_hand(hand)
    table.add_chips(1, 50)
    assert table.stacks == {1: 149, 2: 101}


def test_straddle_validation_leaves_table_unchanged() -> None:
    table = table_with({1: 100, 2: 100, 3: 100, 4: 3}, button=1)
    with pytest.raises(IllegalAction, match="straddle"):
        table.start_hand(straddle=4)
    assert table.hand is None and table.hand_number == 0
    hand = table.start_hand()
    assert hand.number == 1


def test_hand_from_positions_dead_button_and_dead_small_blind() -> None:
    """A hand set up from given positions (a hand history): the button on an empty seat and no
    small blind, as the dead-button rule can leave them [002 #28]."""
    config = GameConfig(small_blind=5, big_blind=10, ante=1, tournament=True)
    hand = Hand.from_positions(config=config, stacks={2: 100, 4: 100, 6: 100}, button=1,
                               big_blind_seat=2)
    assert hand.number == 1 and hand.button == 1
    assert hand.small_blind_seat is None and hand.big_blind_seat == 2
    assert hand.deal_order == (2, 4, 6)
    assert [(r.seat, r.kind) for r in hand.log if isinstance(r, Posted)] == [
        (2, PostKind.ANTE), (4, PostKind.ANTE), (6, PostKind.ANTE), (2, PostKind.BIG_BLIND)]
    assert hand.to_act == 4 and hand.legal_actions().call_amount == 10
    hand.act(Action(seat=4, kind=F))
    hand.act(Action(seat=6, kind=F))
    assert hand.result is not None and hand.result.final_stacks == {2: 102, 4: 99, 6: 99}


def test_hand_from_positions_refuses_positions_that_break_a_rule() -> None:
    config = GameConfig(small_blind=1, big_blind=2)
    stacks = {1: 100, 3: 100, 5: 100, 7: 100}
    with pytest.raises(IllegalAction, match="only seat 7, left of the big blind, may straddle"):
        Hand.from_positions(config=config, stacks=stacks, button=1, small_blind_seat=3,
                            big_blind_seat=5, straddle_seat=1)
    with pytest.raises(IllegalAction, match="big blind seat 2 is not dealt in"):
        Hand.from_positions(config=config, stacks=stacks, button=1, big_blind_seat=2)
    hand = Hand.from_positions(config=config, stacks=stacks, button=1, small_blind_seat=3,
                               big_blind_seat=5, straddle_seat=7, number=12)
    assert hand.number == 12 and hand.bets == {3: 1, 5: 2, 7: 4} and hand.to_act == 1
