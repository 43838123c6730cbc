"""Cards that land within one look of the sensors (table_controller.monitor.arrivals).

A quick dealer puts two cards down within one scan cycle: the reader reports them in antenna
order, which need not be the order they landed in. The monitor takes them as the procedure
expects; taken as reported, the same cards would be a misdeal or a missing burn. Errors that
leave a card where it should not be are still raised.
"""

from __future__ import annotations

import pytest

from table_controller.vocabulary.zones import BOARD, BURN
from tests.monitor_kit import MODE_IDS, MODES, Felt, codes, monitor

FOUR = {1: 100, 2: 100, 3: 100, 4: 100}
SEVEN = {s: 100 for s in range(1, 8)}


def _dealt_to(felt: Felt) -> list[int]:
    run = felt.mon.ctx.run
    assert run is not None
    return [seat for seat, _pid in run.deal.dealt]


def _two_dealt(sensors: tuple[str, ...]) -> Felt:
    """Button on seat 1, the deal going 2, 3, 4, 1: seats 2 and 3 have their first card."""
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    return felt


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_the_deal_round_the_table_in_one_scan_is_no_misdeal(sensors: tuple[str, ...]) -> None:
    """Seats 4 and 1 in one look come as 1, 4 (antenna order)."""
    felt = _two_dealt(sensors)
    assert codes(felt.at_once(["seat4", "seat1"])) == []
    assert codes(felt.at_once(["seat3", "seat2"])) == []  # the second round, two at a time
    assert codes(felt.at_once(["seat4", "seat1"])) == []
    assert _dealt_to(felt) == [2, 3, 4, 1, 2, 3, 4, 1]
    assert codes(felt.act("4 call", "1 call", "2 call", "3 check")) == []


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_taken_as_reported_the_same_cards_are_a_misdeal(sensors: tuple[str, ...]) -> None:
    felt = _two_dealt(sensors)
    assert codes(felt.at_once(["seat4", "seat1"], ordered=False)) == ["MISDEAL_OUT_OF_ORDER"]


def test_a_card_that_skips_a_seat_is_a_misdeal_in_one_scan_too() -> None:
    """Seats 4 and 6 in one look, seat 5 owed the next card: no order of the two is right."""
    felt = monitor(SEVEN, seats=7, button=3)
    felt.button()
    felt.place("seat4")
    assert codes(felt.at_once(["seat5", "seat7"])) == ["MISDEAL_OUT_OF_ORDER"]


def test_the_first_card_to_the_wrong_seat_in_a_scan_with_the_right_one() -> None:
    """The small blind's card and the next seat's in one look: the deal is right."""
    felt = monitor(SEVEN, seats=7, button=6)
    felt.button()
    assert codes(felt.at_once(["seat1", "seat7"])) == []
    assert _dealt_to(felt) == [7, 1]


def _to_flop(felt: Felt) -> None:
    felt.button()
    felt.deal_hole()
    felt.act("4 call", "1 call", "2 call", "3 check")


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_a_burn_and_the_flop_in_one_scan_is_no_missing_burn(sensors: tuple[str, ...]) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4, seed=3)
    _to_flop(felt)
    assert codes(felt.at_once([BURN, BOARD, BOARD, BOARD])) == []
    assert codes(felt.act("2 check", "3 check", "4 check", "1 check")) == []
    assert codes(felt.at_once([BURN, BOARD])) == []  # the turn


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_taken_as_reported_the_burn_comes_too_late(sensors: tuple[str, ...]) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4, seed=3)
    _to_flop(felt)
    assert "MISSING_BURN" in codes(felt.at_once([BURN, BOARD, BOARD, BOARD], ordered=False))


def test_a_flop_with_no_burn_in_one_scan_is_still_a_missing_burn() -> None:
    felt = monitor(FOUR, seats=4, seed=3)
    _to_flop(felt)
    assert set(codes(felt.at_once([BOARD, BOARD, BOARD]))) == {"MISSING_BURN"}
