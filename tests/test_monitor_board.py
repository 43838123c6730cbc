"""The board and the burn pile: four-card flop in both rule profiles, extra and premature board
cards, missing burn, and the check of each remedy (rules.md §5, alerts.md)."""

from __future__ import annotations

import pytest

from table_controller.monitor import MonitorError
from table_controller.vocabulary.cards import Card, parse_card
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BOARD, BURN
from tests.monitor_kit import MODE_IDS, MODES, Felt, codes, monitor

THREE = {1: 100, 2: 100, 3: 100}


def to_flop(felt: Felt) -> None:
    felt.button()
    felt.deal_hole()
    felt.act("1 call", "2 call", "3 check")


def four_card_flop(felt: Felt) -> list[Card]:
    to_flop(felt)
    felt.place(BURN)
    for _ in range(3):
        felt.place(BOARD)
    out = felt.place(BOARD)
    assert codes(out) == ["FOUR_CARD_FLOP"]
    return list(out[0].cards)


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_four_card_flop_tda_names_the_random_burn_and_checks_it(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, burn="Kd",
                   top=["2c", "3c", "4c", "5c", "6c", "7c", "8d", "Ah", "Kd", "Qs", "Jh"])
    four = four_card_flop(felt)
    assert [str(c) for c in four] == ["Ah", "Kd", "Qs", "Jh"]
    alert = felt.mon.open_alerts[-1]
    assert alert.extra["burn"] == parse_card("Kd") and "Kd is the burn card" in alert.remedy
    felt.move("Ah", BURN, Face.DOWN)  # the dealer burns the wrong card
    again = felt.resolve("FOUR_CARD_FLOP")
    assert codes(again) == ["FOUR_CARD_FLOP"] and "Kd is still on the board" in again[0].message
    felt.move("Ah", BOARD, Face.UP)
    felt.move("Kd", BURN, Face.DOWN)
    assert felt.resolve("FOUR_CARD_FLOP") == []
    assert codes(felt.act("2 check", "3 check", "1 check")) == []
    hand = felt.mon.hand
    assert hand is not None and sorted(map(str, hand.board)) == ["Ah", "Jh", "Qs"]
    assert codes(felt.deal_street(1, burn=False)) == []  # Kd was the turn's burn card


def test_four_card_flop_default_chooser_is_one_of_the_four() -> None:
    felt = monitor(THREE, seats=3, seed=12)
    four = four_card_flop(felt)
    burn = felt.mon.open_alerts[-1].extra["burn"]
    assert burn in four


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_four_card_flop_house_new_flop(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, rules="house", seed=9)
    four = four_card_flop(felt)
    alert = felt.mon.open_alerts[-1]
    assert "reshuffle" in alert.remedy and "burn" not in alert.extra
    again = felt.resolve("FOUR_CARD_FLOP")
    assert codes(again) == ["FOUR_CARD_FLOP"] and "still on the board" in again[0].message
    for card in four:
        felt.take_back(str(card))
    felt.stub = felt.stub[4:] + felt.stub[:4]  # reshuffled: the old flop cards go down
    for _ in range(3):
        assert codes(felt.place(BOARD)) == []
    assert felt.resolve("FOUR_CARD_FLOP") == []
    assert codes(felt.act("2 check", "3 check", "1 check")) == []
    hand = felt.mon.hand
    assert hand is not None and len(hand.board) == 3 and not set(hand.board) & set(four)
    assert codes(felt.deal_street(1)) == []


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_extra_turn_card(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, seed=10)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check", "3 check", "1 check")
    felt.deal_street(1)
    out = felt.place(BOARD)
    assert codes(out) == ["EXTRA_BOARD_CARD"]
    extra = out[0].cards[0]
    assert codes(felt.resolve("EXTRA_BOARD_CARD")) == ["EXTRA_BOARD_CARD"]
    felt.take_back(str(extra))
    assert felt.resolve("EXTRA_BOARD_CARD") == []
    assert codes(felt.act("2 check", "3 check", "1 check")) == []
    hand = felt.mon.hand
    assert hand is not None and extra not in hand.board and len(hand.board) == 4


def test_sixth_board_card() -> None:
    felt = monitor(THREE, seats=3, seed=11)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check", "3 check", "1 check")
    felt.deal_street(1)
    felt.act("2 check", "3 check", "1 check")
    felt.deal_street(1)
    felt.act("2 check", "3 check", "1 check")
    out = felt.place(BOARD)
    assert codes(out) == ["EXTRA_BOARD_CARD"] and "sixth" in out[0].message


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_premature_turn_remedy_checked(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, seed=13)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check")
    out = felt.deal_street(1)
    assert codes(out) == ["PREMATURE_BOARD_CARD"]
    card = out[0].cards[0]
    again = felt.resolve("PREMATURE_BOARD_CARD")
    assert codes(again) == ["PREMATURE_BOARD_CARD"] and str(card) in again[0].message
    felt.take_back(str(card))
    assert felt.resolve("PREMATURE_BOARD_CARD") == []
    felt.act("3 check", "1 check")
    assert codes(felt.place(BOARD)) == []  # the turn again, the burn stayed
    hand = felt.mon.hand
    felt.act("2 check")
    assert hand is not None and len(hand.board) == 4


def test_premature_flop_before_any_action() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    felt.deal_hole()
    felt.place(BURN)
    assert codes(felt.place(BOARD)) == ["PREMATURE_BOARD_CARD"]


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_missing_burn_on_the_flop(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, seed=14)
    to_flop(felt)
    out = felt.deal_street(3, burn=False)
    assert set(codes(out)) == {"MISSING_BURN"}
    last = out[-1]
    assert len(last.cards) == 3 and last.severity.value == "warn"
    assert codes(felt.resolve("MISSING_BURN")) == ["MISSING_BURN"]  # no burn yet
    for card in reversed(last.cards):  # the floor has it corrected: back on top, burn, deal
        felt.take_back(str(card))
    felt.place(BURN)
    assert codes(felt.deal_street(3, burn=False)) == []
    assert felt.resolve("MISSING_BURN") == []
    assert codes(felt.act("2 check", "3 check", "1 check")) == []


def test_missing_burn_after_action_stands() -> None:
    felt = monitor(THREE, seats=3, seed=15)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check", "3 check", "1 check")
    assert codes(felt.deal_street(1, burn=False)) == ["MISSING_BURN"]
    felt.act("2 check")
    assert felt.resolve("MISSING_BURN") == []  # after action the cards stand


def test_all_in_runout_streets_follow_each_other() -> None:
    felt = monitor({1: 20, 2: 100, 3: 100}, seats=3, seed=16)
    felt.button()
    felt.deal_hole()
    felt.act("1 allin", "2 call", "3 call")
    assert codes(felt.deal_street(3)) == []
    felt.act("2 allin", "3 call")
    assert codes(felt.deal_street(1) + felt.deal_street(1)) == []
    assert codes(felt.showdown(), game_only=False) == []
    assert felt.mon.events[-1].result is not None
    assert sum(felt.mon.table.stacks.values()) == 220


def test_resolve_without_open_alert_is_an_error() -> None:
    felt = monitor(THREE, seats=3)
    with pytest.raises(MonitorError, match="no open PREMATURE_BOARD_CARD"):
        felt.resolve("PREMATURE_BOARD_CARD")


def test_camera_alone_burns_hidden_on_the_pile() -> None:
    """The camera sees the top of the burn pile: burns after the first may not show. Then no
    MISSING_BURN is claimed and an all-in runout still goes street by street."""
    felt = monitor({1: 20, 2: 100, 3: 100}, sensors=("camera",), seats=3, seed=17)
    felt.button()
    felt.deal_hole()
    felt.act("1 allin", "2 allin", "3 call")
    assert codes(felt.deal_street(3)) == []
    for _ in range(2):
        felt.put(felt.draw(), BURN, Face.DOWN, camera_sees=False)
        assert codes(felt.place(BOARD)) == []
    assert codes(felt.showdown(), game_only=False) == []
    assert sum(felt.mon.table.stacks.values()) == 220


def test_camera_alone_empty_burn_pile_is_a_missing_burn() -> None:
    felt = monitor(THREE, sensors=("camera",), seats=3, seed=18)
    to_flop(felt)
    assert set(codes(felt.deal_street(3, burn=False))) == {"MISSING_BURN"}
