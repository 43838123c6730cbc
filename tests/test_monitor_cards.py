"""Card identity, the stub, the console and the green button: duplicate and foreign cards,
jokers, face-up cards in the stub, cards exposed by players, the deck check, actions out of turn,
time, hands without a button press (alerts.md)."""

from __future__ import annotations

import pytest

from table_controller.monitor import ConsoleAction
from table_controller.vocabulary.alerts import Alert, Severity
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from table_controller.vocabulary.zones import BOARD, BURN, SHUFFLER
from tests.monitor_kit import MODE_IDS, MODES, codes, monitor

THREE = {1: 100, 2: 100, 3: 100}


@pytest.mark.parametrize("sensors", [("rfid",), ("rfid", "camera")], ids=["rfid", "both"])
def test_duplicate_in_a_hole_is_found_during_the_deal(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, top=["Kh"])
    felt.button()
    felt.place("seat2")
    out = felt.bring("seat3", "Kh", copy=True)
    assert codes(out) == ["DUPLICATE_CARD"] and out[0].cards == (parse_card("Kh"),)
    assert felt.mon.halted == "DUPLICATE_CARD"


def test_duplicate_voids_even_after_substantial_action() -> None:
    """TDA 2024 35-E: all bets returned whatever action has happened."""
    felt = monitor(THREE, seats=3, top=["Kh"])
    felt.button()
    felt.deal_hole()
    felt.act("1 raise 6", "2 call", "3 call")
    felt.deal_street(3)
    felt.act("2 bet 10", "3 call")
    out = felt.bring(BURN, "Kh", copy=True)
    assert codes(out) == ["DUPLICATE_CARD"]
    felt.collect()
    felt.resolve("DUPLICATE_CARD")
    assert felt.mon.table.stacks == THREE and felt.mon.events[-1].voided


@pytest.mark.parametrize("sensors", [("rfid",), ("rfid", "camera")], ids=["rfid", "both"])
def test_foreign_card_in_a_hand_voids_it(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3)
    felt.button()
    felt.deal_hole()
    felt.act("1 raise 6", "2 call", "3 call")
    felt.place(BURN)
    out = felt.bring(BOARD, "9c", foreign=True)
    assert codes(out) == ["FOREIGN_CARD"] and out[0].severity is Severity.STOP
    assert "void" in out[0].remedy and felt.mon.halted == "FOREIGN_CARD"
    felt.collect()
    felt.resolve("FOREIGN_CARD")
    assert felt.mon.table.stacks == THREE


def test_foreign_card_in_the_muck_is_only_removed() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    felt.deal_hole()
    out = felt.bring("muck", "9c", foreign=True)
    assert codes(out) == ["FOREIGN_CARD"] and "void" not in out[0].remedy.lower()
    assert codes(felt.resolve("FOREIGN_CARD")) == ["FOREIGN_CARD"]  # still there
    felt.take_back("9c")
    assert felt.resolve("FOREIGN_CARD") == []
    assert felt.mon.halted is None
    assert codes(felt.act("1 fold", "2 fold")) == []
    assert felt.mon.table.stacks == {1: 100, 2: 99, 3: 101}


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_joker_is_discarded_and_replaced(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3)
    felt.button()
    felt.place("seat2")
    out = felt.bring("seat3", None, joker=True, face=Face.UP if sensors == ("camera",)
                     else Face.DOWN)
    assert codes(out) == ["JOKER"] and out[0].seat == 3
    joker = felt.on_felt("seat3")[0]
    assert codes(felt.resolve("JOKER")) == ["JOKER"]  # not discarded yet
    felt.alerts += felt.mon.observe(CardObservation(
        event=CardEvent.REMOVED, zone="seat3", t=felt.t, source=Source.RFID, key=joker.uid)).alerts
    if joker.track is not None:
        felt.alerts += felt.mon.observe(CardObservation(
            event=CardEvent.REMOVED, zone="seat3", t=felt.t, source=Source.CAMERA,
            key=joker.track)).alerts
    joker.zone = "gone"
    felt.settle()
    for seat in (3, 1, 2, 3, 1):  # the joker took no place in the deal
        assert codes(felt.place(f"seat{seat}")) == []
    assert felt.resolve("JOKER") == []
    assert codes(felt.act("1 fold", "2 fold")) == []


@pytest.mark.parametrize("sensors", [("camera",), ("rfid", "camera")], ids=["camera", "both"])
def test_face_up_card_in_the_stub(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3)
    felt.button()
    out = list(felt.mon.observe(CardObservation(
        event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t, source=Source.CAMERA, key="stub1",
        card=parse_card("8h"), face=Face.UP)).alerts)
    out += felt.settle()
    assert codes(out) == ["FACE_UP_IN_DECK"] and out[0].cards == (parse_card("8h"),)
    assert codes(felt.resolve("FACE_UP_IN_DECK")) == ["FACE_UP_IN_DECK"]
    felt.mon.observe(CardObservation(event=CardEvent.REMOVED, zone=SHUFFLER, t=felt.t,
                                     source=Source.CAMERA, key="stub1"))
    felt.settle()
    assert felt.resolve("FACE_UP_IN_DECK") == []
    out = list(felt.mon.observe(CardObservation(
        event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t, source=Source.CAMERA, key="stub2",
        card=parse_card("9h"), face=Face.UP)).alerts)
    assert codes(out + felt.settle()) == ["MISDEAL_MULTIPLE_EXPOSED"]  # two seen [002 #31]


@pytest.mark.parametrize("sensors", [("camera",), ("rfid", "camera")], ids=["camera", "both"])
def test_card_exposed_by_player_is_info_and_not_at_showdown(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, seed=21)
    felt.button()
    felt.deal_hole()
    felt.act("1 call", "2 call", "3 check")
    card = str(felt.on_felt("seat1")[0].card)
    out = felt.flip(card)
    assert [a.code for a in out] == ["CARD_EXPOSED_BY_PLAYER"]
    assert out[0].severity is Severity.INFO and out[0].seat == 1
    for street in (3, 1, 1):
        felt.deal_street(street)
        felt.act("2 check", "3 check", "1 check")
    assert codes(felt.showdown(), game_only=False) == []


def test_deck_check_at_the_green_button() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3, stub_visible=True)
    missing = felt.stub.pop(10)
    for p in felt.stub:
        felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t,
                                         source=Source.RFID, key=p.uid, card=p.card))
    out = felt.button()
    assert codes(out) == ["DECK_INCOMPLETE"] and out[0].cards == (missing.card,)
    assert "missing" in out[0].message


def test_full_deck_passes_the_check() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3, stub_visible=True)
    for p in felt.stub:
        felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t,
                                         source=Source.RFID, key=p.uid, card=p.card))
    assert felt.button() == []


def test_action_out_of_turn_is_held_by_the_engine() -> None:
    felt = monitor({1: 100, 2: 100, 3: 100, 4: 100}, seats=4)
    felt.button()
    felt.deal_hole()
    out = felt.act("1 call")  # seat 4 is to act
    assert codes(out) == ["ACTION_OUT_OF_TURN"] and out[0].seat == 1
    assert "seat 4 was to act" in out[0].message
    assert codes(felt.act("4 fold", "2 fold")) == []  # seat 1's call applies in its turn
    hand = felt.mon.hand
    assert hand is not None and hand.to_act == 3


def test_time_expired_kills_the_hand() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    felt.deal_hole()
    out = list(felt.mon.console(ConsoleAction(1, "time_expired", None, felt.t)).alerts)
    assert [a.code for a in out] == ["TIME_EXPIRED"] and out[0].seat == 1
    assert codes(felt.act("2 fold")) == []
    assert felt.mon.table.stacks == {1: 100, 2: 99, 3: 101}


def test_green_button_during_a_hand_is_ignored() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    out = felt.button()
    assert codes(out) == ["GREEN_BUTTON_DURING_HAND"] and felt.mon.hand_number == 1


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_card_without_hand(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3)
    out = felt.place("seat2")
    assert codes(out) == ["CARD_WITHOUT_HAND"] and out[0].hand is None and out[0].seat == 2
    felt.collect()
    assert felt.button() == [] and felt.mon.open_alerts == ()


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_cards_dealt_without_a_hand_are_one_error(sensors: tuple[str, ...]) -> None:
    """[002 #19] TDA 23, alerts.md "One error, one alert": dealing on without the green button
    is one alert; each further card restates it (an update, same ref) until it is resolved."""
    felt = monitor(THREE, sensors=sensors, seats=3)
    first = felt.place("seat2")
    more = felt.place("seat3") + felt.place("board")
    life = felt.lifecycle()
    assert codes(list(life.alerts)) == ["CARD_WITHOUT_HAND"] and first[0].seat == 2
    assert [u.ref for u in life.updates] == [first[0].ref] * 2
    assert more[-1].message == ("3 cards landed on the felt (seat 2, seat 3, the board) with "
                                "no hand running")
    assert codes(felt.resolve("CARD_WITHOUT_HAND")) == []
    again = felt.place("seat1")
    assert codes(again) == ["CARD_WITHOUT_HAND"] and again[0].ref != first[0].ref


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_the_same_card_dealt_before_the_button_again_after_a_hand(
        sensors: tuple[str, ...]) -> None:
    """Each time between hands is its own: a card that was dealt before the button once (its
    tag known since) is reported again when it is dealt before the button after a later hand
    (found in the soak with both sensors: the second time went unreported)."""
    felt = monitor(THREE, sensors=sensors, seats=3)
    assert codes(felt.place("seat2", "As")) == ["CARD_WITHOUT_HAND"]
    piece = felt.find("As")
    felt.put(piece, SHUFFLER)  # gathered into the tray, where the antenna reads it
    assert codes(felt.button()) == []
    felt.deal_hole()
    felt.act("1 fold", "2 fold")
    assert felt.mon.hand is None
    felt.collect()
    again = felt.put(piece, "seat2")
    assert codes(again) == ["CARD_WITHOUT_HAND"] and again[0].seat == 2


def test_cards_gathered_after_a_hand_raise_nothing() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    felt.deal_hole()
    felt.act("1 fold", "2 fold")
    assert felt.mon.hand is None
    assert codes(felt.move(str(felt.on_felt("seat1")[0].card), "muck")) == []
    assert codes(felt.collect()) == []


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_showdown_player_who_mucks_wins_nothing(sensors: tuple[str, ...]) -> None:
    """All cards must be tabled to win [002 #13]: the seat whose cards went to the muck is out;
    the others' cards are read from the felt (cards speak, [002 #10])."""
    felt = monitor(THREE, sensors=sensors, seats=3, seed=23)
    felt.button()
    felt.deal_hole()
    felt.act("1 call", "2 call", "3 check")
    for street in (3, 1, 1):
        felt.deal_street(street)
        felt.act("2 check", "3 check", "1 check")
    order = felt.mon.showdown_order()
    mucker = order[-1]
    for p in felt.on_felt(f"seat{mucker}"):
        felt.put(p, "muck", Face.DOWN)
    for seat in order[:-1]:
        for p in felt.on_felt(f"seat{seat}"):
            felt.flip(str(p.card), f"seat{seat}")
    assert codes(list(felt.mon.showdown(felt.t).alerts), game_only=False) == []
    result = felt.mon.events[-1].result
    assert result is not None and mucker not in {w for pot in result.pots for w in pot.winners}
    assert felt.mon.table.stacks[mucker] == 98


def test_other_deck_in_the_shuffler_is_not_foreign() -> None:
    """Two decks alternate at a table (rules.md §1): the other deck waiting in the shuffler is
    neither a FOREIGN_CARD nor a hole in the deck check."""
    felt = monitor(THREE, sensors=("rfid",), seats=3, stub_visible=True)
    out: list[Alert] = []
    for p in felt.stub:
        out += felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER,
                                                t=felt.t, source=Source.RFID, key=p.uid,
                                                card=p.card)).alerts
    for i, p in enumerate(felt.stub[:10]):
        out += felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER,
                                                t=felt.t, source=Source.RFID, key=f"b{i}",
                                                card=p.card, deck="B", foreign=True)).alerts
    assert out == [] and felt.button() == []
