"""The eight shared scenarios (shared/scenarios/*.toml), replayed through the monitor's API with
hand-built observations, in each sensor mode where the sensors can see the error.

Each test follows its scenario step by step and checks the alerts raised at each step (faults
and info excepted, as ``strict`` does), the number of hands and the final stacks.
"""

from __future__ import annotations

import pytest

from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import Face, Source
from table_controller.vocabulary.zones import BOARD, BURN
from tests.monitor_kit import MODE_IDS, MODES, codes, monitor

BOTH = ("rfid", "camera")


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_01_side_pot_showdown(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 50, 4: 200}, sensors=sensors, top=[
        "As", "Kd", "Jh", "Ad", "Qc", "Jc", "2s", "Kh", "7d", "2c", "3s", "9s", "5d", "4h"])
    mon = felt.mon
    assert codes(felt.button()) == []
    assert mon.deal_order() == (2, 4, 1)
    assert codes(felt.deal_hole()) == []
    assert codes(felt.act("1 raise 6", "2 call", "4 call")) == []
    assert codes(felt.deal_street(3)) == []
    assert codes(felt.act("2 allin", "4 call", "1 allin", "4 call")) == []
    assert codes(felt.deal_street(1)) == []
    assert codes(felt.deal_street(1)) == []
    assert codes(felt.showdown(), game_only=False) == []
    assert [e.number for e in mon.events] == [1]
    assert mon.table.stacks == {1: 0, 2: 150, 4: 200}
    assert mon.hand is None


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_02_four_card_flop_tda(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100, 5: 100}, sensors=sensors, seed=2)
    felt.button()
    felt.deal_hole()
    assert codes(felt.act("5 call", "1 call", "2 call", "3 check")) == []
    assert codes(felt.place(BURN)) == []
    for _ in range(3):
        assert codes(felt.place(BOARD)) == []
    step8 = felt.place(BOARD)
    assert codes(step8) == ["FOUR_CARD_FLOP"]
    alert = step8[0]
    burn = alert.extra["burn"]
    assert burn in alert.cards and len(alert.cards) == 4
    assert f"{burn} is the burn card" in alert.remedy
    felt.move(str(burn), BURN, Face.DOWN)
    assert codes(felt.resolve("FOUR_CARD_FLOP")) == []
    assert codes(felt.act("2 check", "3 check", "5 check", "1 check")) == []
    assert codes(felt.place(BOARD)) == []  # the turn with no new burn: no MISSING_BURN
    assert codes(felt.act("2 check", "3 check", "5 check", "1 check")) == []
    assert codes(felt.deal_street(1)) == []
    assert codes(felt.act("2 check", "3 check", "5 check", "1 check")) == []
    assert codes(felt.showdown()) == []
    hand = felt.mon.events[0].result
    assert felt.mon.events[0].voided is False and hand is not None
    flop = [c for c in alert.cards if c != burn]
    assert sum(hand.final_stacks.values()) == 400
    assert len(mon_board(felt)) == 5 and set(flop) <= set(mon_board(felt))


def mon_board(felt: object) -> list[object]:
    from tests.monitor_kit import Felt

    assert isinstance(felt, Felt)
    return [p.card for p in felt.on_felt(BOARD)]


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_03_misdeal_wrong_first_seat(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100, 4: 100}, sensors=sensors, seats=4, seed=3)
    mon = felt.mon
    felt.button()
    step2 = felt.place("seat3")
    assert codes(step2) == ["MISDEAL_WRONG_FIRST_SEAT"]
    assert step2[0].seat == 3 and step2[0].hand == 1
    felt.collect()
    assert codes(felt.resolve("MISDEAL_WRONG_FIRST_SEAT")) == []
    assert mon.events[-1].voided and mon.events[-1].cause == "MISDEAL_WRONG_FIRST_SEAT"
    felt.new_deck(seed=33)
    assert codes(felt.button()) == []
    assert mon.hand_number == 2 and mon.deal_order() == (2, 3, 4, 1)  # the button stayed
    assert codes(felt.deal_hole()) == []
    assert codes(felt.act("4 fold", "1 fold", "2 fold")) == []
    assert len(mon.events) == 2
    assert mon.table.stacks == {1: 100, 2: 99, 3: 101, 4: 100}


@pytest.mark.parametrize("sensors", [("camera",), BOTH], ids=["camera", "both"])
def test_04_exposed_card_replaced(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=sensors, seats=3, seed=4)
    felt.button()
    assert codes(felt.place("seat2") + felt.place("seat3")) == []
    step4 = felt.place("seat1", face=Face.UP)
    assert codes(step4) == ["EXPOSED_CARD_REPLACE"]
    exposed = step4[0].cards[0]
    assert step4[0].seat == 1 and str(exposed) in step4[0].remedy
    assert codes(felt.place("seat2") + felt.place("seat3") + felt.place("seat1")) == []
    felt.move(str(exposed), BURN, Face.DOWN)
    felt.place("seat1")
    assert codes(felt.resolve("EXPOSED_CARD_REPLACE")) == []
    assert codes(felt.act("1 fold", "2 fold")) == []
    assert felt.mon.table.stacks == {1: 100, 2: 99, 3: 101}
    assert len(felt.mon.events) == 1


def test_04_rfid_alone_cannot_see_an_exposed_card() -> None:
    """The reader sees no faces: the deal looks regular (docs/monitor.md, limits)."""
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=("rfid",), seats=3, seed=4)
    felt.button()
    felt.place("seat2")
    felt.place("seat3")
    assert codes(felt.place("seat1", face=Face.UP)) == []


@pytest.mark.parametrize("sensors", [("rfid",), BOTH], ids=["rfid", "both"])
def test_05_duplicate_card_void(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=sensors, seats=3, seed=5,
                   top=["As", "7d", "Tc", "4h", "8s", "Qd"])
    mon = felt.mon
    felt.button()
    felt.deal_hole()
    assert codes(felt.act("1 raise 6", "2 call", "3 call")) == []
    felt.place(BURN)
    step5 = felt.bring(BOARD, "As", copy=True)
    assert codes(step5) == ["DUPLICATE_CARD"]
    assert step5[0].cards == (parse_card("As"),) and step5[0].hand == 1
    felt.collect()
    assert codes(felt.resolve("DUPLICATE_CARD")) == []
    assert mon.events[-1].voided and mon.table.stacks == {1: 100, 2: 100, 3: 100}
    assert len(mon.events) == 1


def test_05_camera_alone_sees_a_duplicate_only_face_up() -> None:
    """A hole card is a back to the camera: the duplicate shows when both are face up."""
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=("camera",), seats=3, seed=5,
                   top=["As", "7d", "Tc", "4h", "8s", "Qd"])
    felt.button()
    felt.deal_hole()
    felt.act("1 raise 6", "2 call", "3 call")
    felt.place(BURN)
    assert codes(felt.bring(BOARD, "As", copy=True)) == []
    out = felt.flip("As", "seat2")  # seat 2 turns his ace up: now two aces of spades are seen
    assert "DUPLICATE_CARD" in codes(out)


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_06_premature_flop(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100}, sensors=sensors, seats=3, seed=6)
    mon = felt.mon
    felt.button()
    felt.deal_hole()
    assert codes(felt.act("1 call", "2 call")) == []
    step4 = felt.deal_street(3)
    assert set(codes(step4)) == {"PREMATURE_BOARD_CARD"}
    last = step4[-1]
    assert len(last.cards) == 3 and "no new burn" in last.remedy
    for p in list(felt.on_felt(BOARD)):
        felt.take_back(str(p.card))
    assert codes(felt.resolve("PREMATURE_BOARD_CARD")) == []
    assert codes(felt.act("3 check")) == []
    for _ in range(3):
        assert codes(felt.place(BOARD)) == []  # no new burn, and no MISSING_BURN
    assert codes(felt.act("2 bet 4", "3 fold", "1 fold")) == []
    assert mon.table.stacks == {1: 98, 2: 104, 3: 98}
    assert len(mon.events) == 1


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_07_heads_up_order(sensors: tuple[str, ...]) -> None:
    felt = monitor({3: 50, 6: 50}, sensors=sensors, seats=6, button=3, seed=7)
    mon = felt.mon
    felt.button()
    assert mon.deal_order() == (6, 3)  # the big blind gets the first card, the button the last
    for seat in ("seat6", "seat3", "seat6", "seat3"):
        assert codes(felt.place(seat)) == []
    assert codes(felt.act("3 call", "6 check")) == []
    assert codes(felt.deal_street(3)) == []
    assert codes(felt.act("6 check", "3 check")) == []
    assert codes(felt.deal_street(1)) == []
    assert codes(felt.act("6 check", "3 check")) == []
    assert codes(felt.deal_street(1)) == []
    assert codes(felt.act("6 bet 2", "3 fold")) == []
    felt.collect()
    felt.new_deck(seed=77)
    felt.button()
    assert mon.deal_order() == (3, 6)  # the button moved to seat 6
    assert codes(felt.deal_hole()) == []
    assert codes(felt.act("6 fold")) == []
    assert len(mon.events) == 2
    assert mon.table.stacks == {3: 49, 6: 51}


@pytest.mark.parametrize("sensors", [("rfid",), BOTH], ids=["rfid", "both"])
def test_08_link_faults_no_false_alarm(sensors: tuple[str, ...]) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100, 4: 100}, sensors=sensors, seats=4, button=2,
                   seed=8)
    mon = felt.mon
    felt.button()
    felt.deal_hole()
    # tag dropout: a hole card's tag misses reads for a moment, then is seen again
    p = felt.on_felt("seat3")[0]
    from table_controller.vocabulary.observations import CardEvent, CardObservation

    for event in (CardEvent.REMOVED, CardEvent.PLACED):
        felt.alerts += mon.observe(CardObservation(
            event=event, zone="seat3", t=felt.t, source=Source.RFID, key=p.uid,
            card=p.card)).alerts
        felt.settle(0.1)
    # the serial link drops for a moment and comes back; the reader reports its tags again
    felt.sensor(Source.RFID, False)
    felt.sensor(Source.RFID, True)
    for q in felt.pieces:
        if q.zone.startswith("seat"):
            felt.alerts += mon.observe(CardObservation(
                event=CardEvent.PLACED, zone=q.zone, t=felt.t, source=Source.RFID, key=q.uid,
                card=q.card)).alerts
    felt.settle()
    felt.act("1 raise 5", "2 fold", "3 fold", "4 fold")
    assert codes(felt.alerts) == []
    assert "DUPLICATE_CARD" not in codes(felt.alerts, game_only=False)
    assert codes(felt.alerts, game_only=False) == ["SENSOR_OFFLINE", "SENSOR_RECOVERED"]
    assert mon.table.stacks == {1: 103, 2: 100, 3: 99, 4: 98}
