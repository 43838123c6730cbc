"""The hole-card deal: order, exposures, counts, substantial action (rules.md §2, §5; alerts.md).

Every misdeal code, the button's two cards in a row, heads-up order, a newcomer who waits, and
the misdeal that comes too late (MISDEAL_AFTER_ACTION).
"""

from __future__ import annotations

import pytest

from table_controller.monitor import ConsoleAction, MonitorError
from table_controller.vocabulary.alerts import Severity
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BURN
from tests.monitor_kit import MODE_IDS, MODES, codes, monitor

FOUR = {1: 100, 2: 100, 3: 100, 4: 100}
CAMERA_MODES = (("camera",), ("rfid", "camera"))


@pytest.mark.parametrize("sensors", CAMERA_MODES, ids=["camera", "both"])
@pytest.mark.parametrize("position", [0, 1])
def test_first_two_cards_face_up_is_a_misdeal(sensors: tuple[str, ...], position: int) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    if position == 1:
        felt.place("seat2")
    out = felt.place(f"seat{2 + position}", face=Face.UP)
    assert codes(out) == ["MISDEAL_EXPOSED_FIRST_CARDS"]
    assert out[0].seat == 2 + position and out[0].severity is Severity.STOP
    assert felt.mon.halted == "MISDEAL_EXPOSED_FIRST_CARDS"
    assert codes(felt.place("seat4") + felt.place("seat1")) == []  # frozen: no more alerts
    felt.collect()
    felt.resolve("MISDEAL_EXPOSED_FIRST_CARDS")
    end = felt.mon.events[-1]
    assert end.voided and end.cause == "MISDEAL_EXPOSED_FIRST_CARDS"
    assert end.stacks == FOUR and felt.mon.table.button == 1


@pytest.mark.parametrize("sensors", CAMERA_MODES, ids=["camera", "both"])
def test_second_exposed_card_is_a_misdeal(sensors: tuple[str, ...]) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    assert codes(felt.place("seat4", face=Face.UP)) == ["EXPOSED_CARD_REPLACE"]
    out = felt.place("seat1", face=Face.UP)
    assert codes(out) == ["MISDEAL_MULTIPLE_EXPOSED"]
    assert len(out[0].cards) == 2


def test_exposed_card_in_both_mode_camera_report_after_the_tag() -> None:
    """The reader reports the card first (no face), the camera then sees it face up."""
    felt = monitor(FOUR, sensors=("rfid", "camera"), seats=4)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    out = felt.place("seat4", face=Face.UP)
    assert codes(out) == ["EXPOSED_CARD_REPLACE"] and out[0].cards


def test_exposed_card_camera_first() -> None:
    felt = monitor(FOUR, sensors=("rfid", "camera"), seats=4, camera_first=True)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    out = felt.place("seat4", face=Face.UP)
    assert codes(out) == ["EXPOSED_CARD_REPLACE"] and out[0].seat == 4


@pytest.mark.parametrize("sensors", CAMERA_MODES, ids=["camera", "both"])
def test_exposed_card_remedy_checked(sensors: tuple[str, ...]) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    exposed = felt.place("seat4", face=Face.UP)[0].cards[0]
    for seat in (1, 2, 3, 4, 1):
        felt.place(f"seat{seat}")
    again = felt.resolve("EXPOSED_CARD_REPLACE")  # nothing was done
    assert codes(again) == ["EXPOSED_CARD_REPLACE"]
    assert "still on seat 4" in again[0].message
    felt.move(str(exposed), BURN, Face.DOWN)
    again = felt.resolve("EXPOSED_CARD_REPLACE")  # not yet replaced
    assert codes(again) == ["EXPOSED_CARD_REPLACE"] and "1 card" in again[0].message
    felt.place("seat4")
    assert felt.resolve("EXPOSED_CARD_REPLACE") == []
    assert codes(felt.act("4 fold", "1 fold", "2 fold")) == []
    assert felt.mon.table.stacks == {1: 100, 2: 99, 3: 101, 4: 100}


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_card_to_empty_seat(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 4: 100}, sensors=sensors, seats=6)
    felt.button()
    felt.place("seat2")
    out = felt.place("seat5")
    assert codes(out) == ["MISDEAL_EMPTY_SEAT"] and out[0].seat == 5
    assert "is empty" in out[0].message


def test_newcomer_between_button_and_small_blind_waits_and_gets_no_card() -> None:
    """rules.md §2 [000] [003]: a new player the blinds would skip waits for the button."""
    felt = monitor({1: 100, 3: 100, 5: 100}, seats=6, button=1)
    mon = felt.mon
    felt.button()
    felt.deal_hole()
    felt.act("1 fold", "3 fold")
    felt.collect()
    mon.table.sit(2, 100)  # between the button (1) and the small blind (3) that just passed
    felt.button()
    assert mon.deal_order() == (5, 1, 3)  # seat 2 waits for this hand
    felt.place("seat5")
    out = felt.place("seat2")
    assert codes(out) == ["MISDEAL_EMPTY_SEAT"] and "not dealt in" in out[0].message


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_card_out_of_order(sensors: tuple[str, ...]) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    felt.place("seat2")
    out = felt.place("seat4")
    assert codes(out) == ["MISDEAL_OUT_OF_ORDER"] and out[0].seat == 4
    assert "seat 3 was next" in out[0].message


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_button_may_get_two_cards_in_a_row(sensors: tuple[str, ...]) -> None:
    """[002 #31]: the dealer skipped the button in round one and gives him both at the end."""
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    for seat in (2, 3, 4, 2, 3, 4, 1, 1):
        assert codes(felt.place(f"seat{seat}")) == []
    assert codes(felt.act("4 fold", "1 fold", "2 fold")) == []


def test_heads_up_big_blind_first_button_last() -> None:
    felt = monitor({2: 100, 5: 100}, seats=6, button=2)
    felt.button()
    assert felt.mon.deal_order() == (5, 2)
    out = felt.place("seat2")
    assert codes(out) == ["MISDEAL_WRONG_FIRST_SEAT"] and "seat 5" in out[0].message


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_wrong_card_count_at_first_action(sensors: tuple[str, ...]) -> None:
    felt = monitor(FOUR, sensors=sensors, seats=4)
    felt.button()
    for seat in (2, 3, 4, 1, 2, 3, 4):
        felt.place(f"seat{seat}")
    out = felt.act("4 call")  # seat 1 has one card only
    assert codes(out) == ["MISDEAL_WRONG_CARD_COUNT"] and out[0].seat == 1
    assert felt.mon.hand is not None and felt.mon.hand.log[-1].__class__.__name__ != \
        "ActionTaken"  # the action was not applied: the hand is stopped


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_extra_card_is_burned(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=sensors, seats=3)
    felt.button()
    felt.deal_hole()
    out = felt.place("seat2")
    assert codes(out) == ["EXTRA_CARD_BURN"] and out[0].seat == 2
    extra = felt.on_felt("seat2")[-1]
    assert codes(felt.resolve("EXTRA_CARD_BURN")) == ["EXTRA_CARD_BURN"]  # not done yet
    felt.put(extra, BURN, Face.DOWN)
    assert felt.resolve("EXTRA_CARD_BURN") == []
    felt.act("1 call", "2 call", "3 check")
    assert codes(felt.deal_street(3, burn=False)) == []  # the extra card was the flop's burn


def test_two_extra_cards_are_a_misdeal() -> None:
    felt = monitor({1: 100, 2: 100, 3: 100}, seats=3)
    felt.button()
    felt.deal_hole()
    felt.place("seat2")
    out = felt.place("seat3")
    assert codes(out) == ["MISDEAL_WRONG_CARD_COUNT"] and "Two extra cards" in out[0].message


def test_button_position_reported_by_console() -> None:
    felt = monitor(FOUR, seats=4)
    felt.button()
    assert list(felt.mon.console(ConsoleAction(1, "button", None, felt.t)).alerts) == []
    out = list(felt.mon.console(ConsoleAction(3, "button", None, felt.t)).alerts)
    assert codes(out) == ["MISDEAL_BUTTON_POSITION"]
    assert "move the button to seat 1" in out[0].remedy


def test_two_folds_are_not_substantial_action() -> None:
    """[002 #32]: two actions without chips are not substantial; the misdeal still stands."""
    felt = monitor({1: 100, 2: 100, 3: 100, 4: 100, 5: 100}, seats=5)
    felt.button()
    felt.deal_hole()
    felt.act("4 fold", "5 fold")
    out = list(felt.mon.console(ConsoleAction(3, "button", None, felt.t)).alerts)
    assert codes(out) == ["MISDEAL_BUTTON_POSITION"]


@pytest.mark.parametrize("actions", [("4 call", "5 fold"), ("4 fold", "5 fold", "1 fold")])
def test_misdeal_after_substantial_action_is_a_warning(actions: tuple[str, ...]) -> None:
    """Two actions with chips, or three actions: the hand is played out [002 #32]."""
    felt = monitor({1: 100, 2: 100, 3: 100, 4: 100, 5: 100}, seats=5)
    felt.button()
    felt.deal_hole()
    felt.act(*actions)
    out = list(felt.mon.console(ConsoleAction(3, "button", None, felt.t)).alerts)
    assert codes(out) == ["MISDEAL_AFTER_ACTION"]
    assert out[0].extra["condition"] == "MISDEAL_BUTTON_POSITION"
    assert felt.mon.halted is None
    out = felt.place("seat3")  # a third card to seat 3, later on
    assert codes(out) == ["MISDEAL_AFTER_ACTION"]


def test_actions_while_stopped_are_not_applied() -> None:
    felt = monitor(FOUR, seats=4)
    felt.button()
    felt.place("seat3")
    assert felt.mon.halted == "MISDEAL_WRONG_FIRST_SEAT"
    assert felt.act("4 fold") == []
    with pytest.raises(MonitorError, match="resolve it first"):
        felt.mon.showdown(felt.t)


def test_illegal_console_action_is_a_clear_error_and_changes_nothing() -> None:
    felt = monitor(FOUR, seats=4)
    felt.button()
    felt.deal_hole()
    with pytest.raises(MonitorError, match="raise"):
        felt.act("4 raise 3")  # below the minimum raise
    assert felt.mon.hand is not None and felt.mon.hand.to_act == 4
    assert codes(felt.act("4 fold", "1 fold", "2 fold")) == []
    with pytest.raises(MonitorError, match="no hand"):
        felt.act("1 check")


def test_console_record_validation() -> None:
    with pytest.raises(MonitorError, match="kind"):
        ConsoleAction(1, "shove")
    with pytest.raises(MonitorError, match="amount"):
        ConsoleAction(1, "raise")
    with pytest.raises(MonitorError, match="seat"):
        ConsoleAction(11, "fold")
    assert ConsoleAction(1, "all_in").kind == "allin"


@pytest.mark.parametrize("sensors", CAMERA_MODES, ids=["camera", "both"])
def test_exposed_card_is_the_flops_burn(sensors: tuple[str, ...]) -> None:
    """[000] [003]: the replaced exposed card is the burn card, so the flop comes without one
    and that is no MISSING_BURN."""
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=sensors, seats=3, seed=31)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    exposed = felt.place("seat1", face=Face.UP)[0].cards[0]
    for seat in (2, 3, 1):
        felt.place(f"seat{seat}")
    felt.move(str(exposed), BURN, Face.DOWN)
    felt.place("seat1")
    assert felt.resolve("EXPOSED_CARD_REPLACE") == []
    felt.act("1 call", "2 call", "3 check")
    assert codes(felt.deal_street(3, burn=False)) == []
    assert codes(felt.act("2 check", "3 check", "1 check")) == []
    turn = codes(felt.deal_street(1, burn=False))
    # The turn needs its own burn; a camera alone cannot tell a missing burn on a pile.
    assert turn == (["MISSING_BURN"] if "rfid" in sensors else [])
