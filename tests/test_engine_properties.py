"""Property tests: random tables and random legal (and some illegal) actions.

Every hand ends; chips are conserved; no stack goes negative; nobody wins from an opponent
more than he covered (rules.md §4 [000, 002 #17]); an illegal action changes nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine import (
    Action,
    ActionKind,
    ActionTaken,
    AnteFormat,
    AnteOrder,
    GameConfig,
    Hand,
    IllegalAction,
    OddChipRule,
    RakeConfig,
    Street,
    Structure,
    Table,
)
from table_controller.engine import citations as cite
from table_controller.engine.betting import BettingRound
from table_controller.vocabulary.cards import DECK, Card

MAX_STEPS = 400


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    big = draw(st.integers(1, 20))
    rake = draw(st.one_of(st.none(), st.builds(RakeConfig, percent=st.integers(0, 10),
                                               cap=st.one_of(st.none(), st.integers(0, 5)))))
    return GameConfig(
        structure=draw(st.sampled_from(list(Structure))),
        small_blind=draw(st.integers(0, big)),
        big_blind=big,
        ante=draw(st.integers(0, 3)),
        ante_format=draw(st.sampled_from(list(AnteFormat))),
        ante_order=draw(st.sampled_from(list(AnteOrder))),
        tournament=rake is None and draw(st.booleans()),  # no rake in tournaments [002 #56]
        odd_chip=draw(st.sampled_from(list(OddChipRule))),
        rake=rake,
    )


@st.composite
def tables(draw: st.DrawFn) -> Table:
    seats = draw(st.integers(2, 10))
    occupied = draw(st.lists(st.integers(1, seats), min_size=2, max_size=seats, unique=True))
    table = Table(draw(configs()), seats=seats)
    for seat in occupied:
        table.sit(seat, draw(st.integers(1, 400)))
    table.set_button(draw(st.sampled_from(sorted(occupied))))
    return table


def state(hand: Hand) -> tuple[object, ...]:
    return (copy.deepcopy(hand.players), hand.street, hand.to_act, len(hand.log),
            hand.held_out_of_turn, list(hand.board), hand.result)


def random_action(data: st.DataObject, hand: Hand, seat: int) -> Action:
    legal = hand.legal_actions(seat)
    kind = data.draw(st.sampled_from(sorted(legal.kinds, key=lambda k: k.value)))
    if kind is ActionKind.BET:
        assert legal.min_bet_to is not None and legal.max_bet_to is not None
        return Action(seat=seat, kind=kind,
                      amount=data.draw(st.integers(legal.min_bet_to, legal.max_bet_to)))
    if kind is ActionKind.RAISE:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        return Action(seat=seat, kind=kind,
                      amount=data.draw(st.integers(legal.min_raise_to, legal.max_raise_to)))
    return Action(seat=seat, kind=kind)


def try_illegal(data: st.DataObject, hand: Hand) -> None:
    """A random action that may well be illegal: if refused, nothing changed."""
    seat = data.draw(st.sampled_from(hand.deal_order))
    kind = data.draw(st.sampled_from(list(ActionKind)))
    amount = data.draw(st.one_of(st.none(), st.integers(-5, 1000)))
    action = Action(seat=seat, kind=kind, amount=amount)
    before = state(hand)
    try:
        hand.verify(action)
    except IllegalAction as err:
        assert err.rule
        try:
            hand.act(action)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"verify refused {action} but act applied it") from None
        assert state(hand) == before


def check_interpret(data: st.DataObject, hand: Hand, seat: int) -> None:
    """Whatever chips a player pushes, interpret_chips names a legal action (50% rule)."""
    pushed = data.draw(st.integers(0, hand.stacks[seat] + 5))
    single = data.draw(st.booleans())
    try:
        action = hand.interpret_chips(seat, pushed, single_chip=single)
    except IllegalAction:
        assert pushed == 0 and not hand.legal_actions(seat).can_check
        return
    assert hand.can(action), f"{action} from {pushed} pushed is not legal"


def start_hand(data: st.DataObject, table: Table) -> Hand:
    """Start a hand, sometimes with a straddle by a random seat (refused unless legal)."""
    if data.draw(st.booleans()):
        seat = data.draw(st.sampled_from(sorted(table.stacks)))
        try:
            return table.start_hand(straddle=seat)
        except IllegalAction as err:
            assert "straddle" in str(err)
            assert table.hand is None
    return table.start_hand()


def play_hand(data: st.DataObject, table: Table) -> Hand:
    hand = start_hand(data, table)
    deck = list(data.draw(st.permutations(DECK)))
    for seat in hand.deal_order:
        hand.deal_hole(seat, [deck.pop(), deck.pop()])
    for _ in range(MAX_STEPS):
        if hand.result is not None:
            break
        if data.draw(st.integers(0, 60)) == 0:
            hand.void("misdeal")
            break
        if data.draw(st.integers(0, 5)) == 0 and not hand.betting_complete:
            try_illegal(data, hand)
        if hand.street is Street.SHOWDOWN:
            hand.showdown()
        elif hand.betting_complete:
            count = 3 if not hand.board else 1
            hand.deal_board([deck.pop() for _ in range(count)])
        else:
            in_turn = hand.to_act
            assert in_turn is not None
            seat = in_turn
            if data.draw(st.integers(0, 6)) == 0:
                seat = data.draw(st.sampled_from(hand.deal_order))
            if seat != in_turn:  # out of turn [002 #35]: held, or refused if not possible
                if hand.legal_actions(seat).can_fold:
                    action = random_action(data, hand, seat)
                    if hand.can(action):
                        hand.act(action)
                continue
            if data.draw(st.integers(0, 3)) == 0:
                check_interpret(data, hand, seat)
            hand.act(random_action(data, hand, seat))
    assert hand.result is not None, "the hand did not end"
    return hand


def check_result(hand: Hand) -> None:
    result = hand.result
    assert result is not None
    start = hand.starting_stacks
    assert set(result.final_stacks) == set(start)
    assert all(chips >= 0 for chips in result.final_stacks.values())
    assert sum(result.final_stacks.values()) + result.rake == sum(start.values())
    assert hand.stacks == result.final_stacks
    if result.voided:
        assert result.final_stacks == start
        return
    put_in = hand.contributions
    assert sum(p.amount for p in result.pots) + result.rake == sum(put_in.values())
    for pot in result.pots:
        assert sum(pot.shares.values()) == pot.amount
        assert set(pot.shares) <= set(pot.eligible)
    # a single (big blind or button) ante is dead: anyone may win it, nobody had to match it
    dead = hand.dead_ante
    layered = {s: c - (dead if s == hand.ante_seat else 0) for s, c in put_in.items()}
    for seat, final in result.final_stacks.items():
        won = final - (start[seat] - put_in[seat])
        covered = sum(min(layered[seat], layered[other]) for other in layered) + dead
        assert won <= covered, f"seat {seat} won {won}, covered only {covered}"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), table=tables())
def test_random_hands_conserve_chips_and_end(data: st.DataObject, table: Table) -> None:
    before = sum(table.stacks.values())
    raked = 0
    for _ in range(3):
        if sum(1 for chips in table.stacks.values() if chips > 0) < 2:
            break
        for seat, chips in table.stacks.items():
            if chips == 0:
                table.leave(seat)
        hand = play_hand(data, table)
        check_result(hand)
        assert hand.result is not None
        raked += hand.result.rake
        table.finish_hand(hand)
        assert sum(table.stacks.values()) + raked == before


def _twin_step(data: st.DataObject, held: Hand, in_turn: Hand) -> None:
    """One decision by the seat to act, the same through act() and act_in_turn(); sometimes
    first a random action, perhaps illegal or out of turn, which both refuse alike."""
    seat = held.to_act
    assert seat is not None and seat == in_turn.to_act
    if data.draw(st.integers(0, 3)) == 0:
        other = data.draw(st.sampled_from(held.deal_order))
        kind = data.draw(st.sampled_from(list(ActionKind)))
        amount = data.draw(st.one_of(st.none(), st.integers(-5, 1000)))
        before = state(in_turn)
        try:
            in_turn.act_in_turn(other, kind, amount)
        except IllegalAction as err:
            assert state(in_turn) == before
            if other != seat:
                assert err.rule == cite.TURN_ORDER and "out of turn" in str(err)
            else:
                with pytest.raises(IllegalAction) as same:
                    held.act(Action(seat=other, kind=kind, amount=amount))
                assert (same.value.rule, str(same.value)) == (err.rule, str(err))
        else:
            assert other == seat
            held.act(Action(seat=other, kind=kind, amount=amount))
            assert held.log == in_turn.log
            return
    action = random_action(data, held, seat)
    held.act(action)
    in_turn.act_in_turn(action.seat, action.kind, action.amount)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), table=tables())
def test_act_in_turn_plays_as_act(data: st.DataObject, table: Table) -> None:
    """Hand.act_in_turn applies a decision in turn exactly as act() does (same log, same
    state, same refusals naming the same rule) and refuses one out of turn, changing
    nothing."""
    twin = copy.deepcopy(table)
    held, in_turn = table.start_hand(), twin.start_hand()
    deck = list(data.draw(st.permutations(DECK)))
    for seat in held.deal_order:
        cards = [deck.pop(), deck.pop()]
        held.deal_hole(seat, cards)
        in_turn.deal_hole(seat, cards)
    for _ in range(MAX_STEPS):
        if held.result is not None:
            break
        if held.street is Street.SHOWDOWN:
            held.showdown()
            in_turn.showdown()
        elif held.betting_complete:
            board = [deck.pop() for _ in range(3 if not held.board else 1)]
            held.deal_board(board)
            in_turn.deal_board(board)
        else:
            _twin_step(data, held, in_turn)
        assert held.log == in_turn.log
        assert state(held) == state(in_turn)
    assert held.result is not None and held.result == in_turn.result


_IMMUTABLE = (int, str, bool, tuple, frozenset, type(None), Street, GameConfig)
Move = Callable[[Hand], object]


def _hole(seat: int, cards: list[Card]) -> Move:
    return lambda hand: hand.deal_hole(seat, cards)


def _board(cards: list[Card]) -> Move:
    return lambda hand: hand.deal_board(cards)


def _act(action: Action) -> Move:
    return lambda hand: hand.act(action)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), table=tables())
def test_a_copy_of_a_hand_is_independent(data: st.DataObject, table: Table) -> None:
    """Hand.copy() at any point: the copy shares nothing it could change with the original,
    is not changed by playing the original, and plays to the same end."""
    hand = table.start_hand()
    deck = list(data.draw(st.permutations(DECK)))
    moves = [_hole(s, [deck.pop(), deck.pop()]) for s in hand.deal_order]
    copy_at = data.draw(st.integers(0, 30))
    twin: Hand | None = None
    played: list[Move] = []
    for step in range(MAX_STEPS):
        if step == copy_at or (twin is None and hand.result is not None):
            twin = hand.copy()
            assert vars(twin).keys() == vars(hand).keys()
            assert vars(twin._round).keys() == vars(hand._round).keys()
            for name, value in vars(twin).items():
                if not isinstance(value, _IMMUTABLE):
                    assert value is not vars(hand)[name] or name == "result", name
            frozen, played = state(twin), []
        if hand.result is not None:
            break
        if moves:
            move = moves.pop(0)
        elif hand.street is Street.SHOWDOWN:
            move = Hand.showdown
        elif hand.betting_complete:
            move = _board([deck.pop() for _ in range(3 if not hand.board else 1)])
        else:
            seat = hand.to_act
            assert seat is not None
            move = _act(random_action(data, hand, seat))
        move(hand)
        played.append(move)
    assert twin is not None and hand.result is not None
    assert state(twin) == frozen  # playing the original changed nothing in the copy
    for move in played:
        move(twin)
    assert twin.log == hand.log and twin.result == hand.result


def _decided(rnd: BettingRound, seat: int, kind: ActionKind, amount: int) -> object:
    try:
        return rnd.decide(seat, kind, amount)
    except IllegalAction as err:
        return (err.rule, str(err))


def _by_the_rules(rnd: BettingRound, seat: int, amount: int) -> object:
    try:
        return rnd._resolve_raise(rnd.players[seat], amount, all_in_declared=False)
    except IllegalAction as err:
        return (err.rule, str(err))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), table=tables())
def test_bets_and_raises_decided_alike_on_every_path(data: st.DataObject, table: Table) -> None:
    """BettingRound.decide's quick acceptance of the usual no-limit bet or raise gives what
    the general rules (_resolve_raise) give, for any amount, in any state of random hands:
    the same record, or the same refusal naming the same rule."""
    hand = table.start_hand()
    deck = list(data.draw(st.permutations(DECK)))
    for seat in hand.deal_order:
        hand.deal_hole(seat, [deck.pop(), deck.pop()])
    rnd = hand._round
    for _ in range(MAX_STEPS):
        if hand.result is not None:
            break
        if hand.street is Street.SHOWDOWN:
            hand.showdown()
            continue
        if hand.betting_complete:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
            continue
        to_act = hand.to_act
        assert to_act is not None
        p = rnd.players[to_act]
        current, total = rnd.current_bet, p.bet + p.stack
        edges = {current, rnd.config.big_blind, current + rnd.min_raise, total,
                 data.draw(st.integers(current - 2, max(current, total + 2)))}
        for kind in (ActionKind.BET, ActionKind.RAISE):
            for amount in {e + d for e in edges for d in (-1, 0, 1)}:
                assert _decided(rnd, to_act, kind, amount) == _by_the_rules(rnd, to_act, amount)
        hand.act(random_action(data, hand, to_act))


def _turn_state(rnd: BettingRound) -> tuple[object, ...]:
    return (rnd.live, rnd._able, rnd.over, rnd.next_seat)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), table=tables())
def test_turn_state_after_each_decision_is_a_recount(data: st.DataObject, table: Table) -> None:
    """BettingRound.apply updates the turn state from the one decision; it is always what a
    full recount (refresh) of the players finds, checked right after every decision."""
    hand = table.start_hand()
    rnd = hand._round
    apply = rnd.apply
    checked = []

    def apply_and_recount(record: ActionTaken) -> None:
        apply(record)
        if rnd.fresh:
            updated = _turn_state(rnd)
            rnd.refresh()
            assert _turn_state(rnd) == updated
            checked.append(record)

    rnd.apply = apply_and_recount  # type: ignore[method-assign,assignment]
    deck = list(data.draw(st.permutations(DECK)))
    for seat in hand.deal_order:
        hand.deal_hole(seat, [deck.pop(), deck.pop()])
    for _ in range(MAX_STEPS):
        if hand.result is not None:
            break
        if hand.street is Street.SHOWDOWN:
            hand.showdown()
        elif hand.betting_complete:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        else:
            to_act = hand.to_act
            assert to_act is not None
            hand.act(random_action(data, hand, to_act))
    assert len(checked) == sum(1 for r in hand.log if isinstance(r, ActionTaken))
