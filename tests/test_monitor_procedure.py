"""The deal-order state machine on its own (rules.md §2 and §5, [002 #30] [002 #31])."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.monitor.procedure import DealTracker, Placement, is_substantial


def regular(order: tuple[int, ...]) -> list[int]:
    return list(order) * 2


def test_regular_deal_and_completion() -> None:
    d = DealTracker(order=(2, 3, 4, 1), button=1)
    for i, seat in enumerate(regular(d.order)):
        assert d.judge(seat) is Placement.OK
        assert d.record(seat, pid=100 + i) == i
    assert d.complete and d.expected() == ()
    assert d.judge(2) is Placement.EXTRA and d.judge(6) is Placement.EMPTY_SEAT
    assert d.position(103) == 3


def test_first_card_elsewhere_and_out_of_order() -> None:
    d = DealTracker(order=(2, 3, 4, 1), button=1)
    assert d.judge(3) is Placement.WRONG_FIRST_SEAT
    d.record(2, 1)
    assert d.judge(4) is Placement.OUT_OF_ORDER and d.expected() == (3,)


def test_button_two_cards_in_a_row() -> None:
    """[002 #31]: the button skipped in round one gets both his cards at the end."""
    d = DealTracker(order=(2, 3, 4, 1), button=1)
    for i, seat in enumerate((2, 3, 4)):
        d.record(seat, i)
    assert set(d.expected()) == {1, 2}
    for i, seat in enumerate((2, 3, 4)):
        assert d.judge(seat) is Placement.OK
        d.record(seat, 10 + i)
    assert d.expected() == (1,)
    d.record(1, 20)
    assert d.expected() == (1,)
    d.record(1, 21)
    assert d.complete


def test_heads_up_order() -> None:
    """Heads-up the big blind gets the first card, the button the last [000] [002 #30]."""
    d = DealTracker(order=(6, 3), button=3)
    for i, seat in enumerate((6, 3, 6, 3)):
        assert d.judge(seat) is Placement.OK
        d.record(seat, i)
    assert d.complete


def test_forgotten_card_is_owed_again() -> None:
    d = DealTracker(order=(2, 3, 1), button=1)
    for i, seat in enumerate(regular(d.order)):
        d.record(seat, i)
    d.forget(2)  # seat 1's first card (the exposed one) went to the burn pile
    assert not d.complete and d.expected() == (1,)


def test_substantial_action() -> None:
    """[002 #32]: two actions with chips in, or any three actions."""
    assert not is_substantial([])
    assert not is_substantial([False, False])
    assert is_substantial([False, True])
    assert is_substantial([False, False, False])


@settings(max_examples=80, deadline=None)
@given(n=st.integers(2, 10), button_index=st.integers(0, 9), data=st.data())
def test_any_swap_of_two_different_seats_is_caught(n: int, button_index: int,
                                                    data: st.DataObject) -> None:
    seats = list(range(1, n + 1))
    b = seats[button_index % n]
    order = tuple(seats[seats.index(b) + 1:] + seats[:seats.index(b) + 1])
    if n == 2:
        order = (order[0], order[1])
    sequence = regular(order)
    i = data.draw(st.integers(0, len(sequence) - 2))
    if sequence[i] == sequence[i + 1]:
        return
    swapped = [*sequence[:i], sequence[i + 1], sequence[i], *sequence[i + 2:]]
    d = DealTracker(order=order, button=b)
    verdicts = []
    for k, seat in enumerate(swapped):
        v = d.judge(seat)
        verdicts.append(v)
        if v is not Placement.OK:
            break
        d.record(seat, k)
    button_deferred = swapped[i] == order[0] and sequence[i] == b and i == len(order) - 1
    if i == 0:
        assert verdicts[-1] is Placement.WRONG_FIRST_SEAT
    elif button_deferred and n == 2:
        # heads-up: big blind, big blind, button, button is the button's two cards in a row
        assert verdicts == [Placement.OK] * 4 and d.complete
    else:
        # a deferred button may not take his first card in the middle of round two either
        assert verdicts[-1] is Placement.OUT_OF_ORDER
