"""What a monitor call did, from its answer alone: every input returns one frozen
``MonitorOutput`` with the alerts raised, the engine hand started and the ``HandEnd`` of the
hand ended (docs/monitor.md), so no caller compares the monitor's state before and after."""

from __future__ import annotations

import dataclasses

import pytest

from table_controller.monitor import ConsoleAction, MonitorError, MonitorOutput
from table_controller.monitor.output import NOTHING
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Source,
)
from tests.monitor_kit import monitor

THREE = {1: 100, 2: 100, 3: 100}


def test_the_green_button_returns_the_hand_it_started_and_a_fold_out_its_end() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3)
    started = felt.mon.observe(ButtonPressed(felt.t))
    assert started.hand_started is not None and started.hand_started is felt.mon.hand
    assert started.hand_started.number == 1 and started.alerts == () and started.hand_ended is None
    again = felt.mon.observe(ButtonPressed(felt.t + 1))  # a press during the hand starts none
    assert again.hand_started is None and [a.code for a in again.alerts] == [
        "GREEN_BUTTON_DURING_HAND"]
    felt.t += 2
    felt.deal_hole()
    first = felt.mon.console(ConsoleAction(1, "fold", None, felt.t))
    assert first.empty and first == NOTHING
    out = felt.mon.console(ConsoleAction(2, "fold", None, felt.t))
    end = out.hand_ended
    assert end is not None and end.number == 1 and not end.voided and end.cause is None
    assert end.stacks == {1: 100, 2: 99, 3: 101} and end.hand is started.hand_started
    assert end.result is not None and felt.mon.hand is None


def test_a_resolved_misdeal_returns_the_void_hand_end() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3)
    felt.button()
    alerts = felt.place("seat3")  # the first card belongs to seat 2 (the small blind)
    assert [a.code for a in alerts] == ["MISDEAL_WRONG_FIRST_SEAT"]
    out = felt.mon.resolve("MISDEAL_WRONG_FIRST_SEAT", felt.t)
    assert out.hand_ended is not None and out.hand_ended.voided
    assert out.hand_ended.cause == "MISDEAL_WRONG_FIRST_SEAT"
    assert out.hand_ended.stacks == THREE and out.hand_started is None


def test_a_floor_void_and_a_refused_input() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3)
    felt.button()
    bad = CardObservation(CardEvent.PLACED, "pool", felt.t, Source.RFID, "ff", None)
    with pytest.raises(MonitorError, match="pool"):
        felt.mon.observe(bad)  # refused: the state is as it was, nothing to report
    out = felt.mon.void("floor: wrong deck", felt.t)
    assert out.hand_ended is not None and out.hand_ended.cause == "floor: wrong deck"


def test_outputs_are_frozen_and_add_up_in_order() -> None:
    a = MonitorOutput(alerts=(Alert("JOKER", 1, 1.0),))
    b = MonitorOutput(alerts=(Alert("FOREIGN_CARD", 1, 2.0),))
    assert [x.code for x in (a + b).alerts] == ["JOKER", "FOREIGN_CARD"]
    assert (a + NOTHING) == a and NOTHING.empty and not a.empty
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.alerts = ()  # type: ignore[misc]
    felt = monitor(THREE, sensors=("rfid",), seats=3)
    hand = felt.mon.observe(ButtonPressed(felt.t)).hand_started
    assert hand is not None
    with pytest.raises(ValueError, match="two hands started"):
        _ = MonitorOutput(hand_started=hand) + MonitorOutput(hand_started=hand)
