"""One dealer error, one alert (alerts.md "Lifecycle"): raised at the first card that shows it,
restated as updates with the same ``ref``, ended by a resolution saying how."""

from __future__ import annotations

import pytest

from table_controller.monitor import ConsoleAction, MonitorOutput
from table_controller.vocabulary.alerts import Severity
from table_controller.vocabulary.zones import BOARD, BURN, seat_zone
from tests.monitor_kit import MODE_IDS, MODES, Felt, codes, monitor

THREE = {1: 100, 2: 100, 3: 100}


def game(out: MonitorOutput) -> list[str]:
    return codes(out.alerts)


def to_flop(felt: Felt) -> None:
    felt.button()
    felt.deal_hole()
    felt.act("1 call", "2 call", "3 check")


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_premature_flop_is_one_alert_updated_card_by_card(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, seed=21)
    felt.button()
    felt.deal_hole()
    felt.act("1 call")
    felt.place(BURN)
    before = len(felt.outputs)
    first = felt.place(BOARD)
    assert codes(first) == ["PREMATURE_BOARD_CARD"]  # at the first card
    felt.place(BOARD)
    felt.place(BOARD)
    life = MonitorOutput()
    for out in felt.outputs[before:]:
        life += out
    assert game(life) == ["PREMATURE_BOARD_CARD"]  # one alert, not one per card
    ref = life.alerts[0].ref
    assert ref is not None
    assert [u.ref for u in life.updates] == [ref, ref]
    assert [len(u.cards) for u in life.updates] == [2, 3]
    for card in life.updates[-1].cards:
        felt.take_back(str(card))
    felt.resolve("PREMATURE_BOARD_CARD")
    (end,) = felt.outputs[-1].resolved
    assert (end.ref, end.code, end.by, end.hand) == (ref, "PREMATURE_BOARD_CARD", "verified", 1)


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_flop_without_burn_raises_one_missing_burn_at_its_first_card(
        sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, seed=22)
    to_flop(felt)
    before = len(felt.outputs)
    assert codes(felt.place(BOARD)) == ["MISSING_BURN"]
    felt.place(BOARD)
    felt.place(BOARD)
    life = MonitorOutput()
    for out in felt.outputs[before:]:
        life += out
    assert game(life) == ["MISSING_BURN"]
    assert {u.ref for u in life.updates} == {life.alerts[0].ref}
    assert len(life.updates[-1].cards) == 3


def test_a_remedy_not_carried_out_is_an_update_then_verified() -> None:
    felt = monitor(THREE, seats=3, seed=23)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check")
    (alert,) = felt.deal_street(1)
    again = felt.mon.resolve("PREMATURE_BOARD_CARD", felt.t)
    assert again.alerts == () and [u.ref for u in again.updates] == [alert.ref]
    assert "Remedy not carried out" in again.updates[0].message and again.resolved == ()
    felt.take_back(str(alert.cards[0]))
    done = felt.mon.resolve("PREMATURE_BOARD_CARD", felt.t)
    assert [(r.ref, r.by) for r in done.resolved] == [(alert.ref, "verified")]


def test_misdeal_resolved_by_the_floor_and_open_alerts_end_with_the_hand() -> None:
    felt = monitor(THREE, seats=3, seed=24)
    felt.button()
    order = felt.mon.deal_order()
    felt.place(seat_zone(order[1]))  # the first card to the wrong seat: a misdeal
    (stop,) = [a for a in felt.alerts if a.severity is Severity.STOP]
    out = felt.mon.resolve(stop.code, felt.t)
    assert out.hand_ended is not None and out.hand_ended.voided
    assert [(r.ref, r.by) for r in out.resolved] == [(stop.ref, "floor")]


def test_an_alert_open_at_the_hand_end_is_resolved_by_hand_end() -> None:
    felt = monitor(THREE, seats=3, seed=25)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check", "3 check", "1 check")
    (burn,) = felt.deal_street(1, burn=False)
    assert burn.code == "MISSING_BURN"
    felt.act("2 check")  # after action the cards stand; nobody resolves it
    out = felt.mon.console(ConsoleAction(3, "fold", None, felt.t))
    out += felt.mon.console(ConsoleAction(1, "fold", None, felt.t))
    assert out.hand_ended is not None
    assert [(r.ref, r.code, r.by) for r in out.resolved] == [(burn.ref, "MISSING_BURN",
                                                              "hand_end")]


def test_every_alert_has_its_own_identity() -> None:
    felt = monitor(THREE, seats=3, seed=26)
    to_flop(felt)
    felt.deal_street(3)
    felt.act("2 check")
    felt.deal_street(1)
    refs = [a.ref for out in felt.outputs for a in out.alerts]
    assert None not in refs and len(set(refs)) == len(refs)
