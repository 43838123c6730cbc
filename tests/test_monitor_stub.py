"""The shuffler's stub seen by the sensors (zone ``shuffler``): the reader's tray antenna reads
every tag in it, the camera sees only its top card. Cards dealt from it are dealt cards; cards
put back into it have an unknown face; the camera's view of the top follows the card it names."""

from __future__ import annotations

from table_controller.monitor import ConsoleAction
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from table_controller.vocabulary.zones import SHUFFLER
from tests.monitor_kit import Felt, codes, monitor

THREE = {1: 100, 2: 100, 3: 100}


def read_stub(felt: Felt) -> None:
    """The tray antenna reports every tag of the stub."""
    for p in felt.stub:
        felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t,
                                         source=Source.RFID, key=p.uid, card=p.card))
    felt.settle()


def camera_top(felt: Felt, event: CardEvent, *, card_up: bool) -> list[Alert]:
    """The camera's one track over the stub: a back, or the top card face up."""
    top = felt.stub[0]
    obs = CardObservation(event=event, zone=SHUFFLER, t=felt.t, source=Source.CAMERA,
                          key="stubtop", card=top.card if card_up else None,
                          face=Face.UP if card_up else Face.DOWN)
    return [*felt.mon.observe(obs).alerts, *felt.settle()]


def test_the_camera_names_the_face_up_card_on_the_pile_not_the_tag_it_first_matched() -> None:
    """[003]: the top of the stub turns out face up. The camera's track over the stub was
    matched with some tag when it showed a back; the face-up card it now names has a tag of
    its own in the stub, so the alert names that card and the sensors do not disagree."""
    felt = monitor(THREE, sensors=("rfid", "camera"), seats=4, seed=41, stub_visible=True)
    read_stub(felt)
    assert codes(camera_top(felt, CardEvent.PLACED, card_up=False), game_only=False) == []
    felt.button()
    felt.stub.insert(0, felt.stub.pop(30))  # a card from inside the stub is found on top
    out = camera_top(felt, CardEvent.FLIPPED, card_up=True) + felt.settle(1.0)
    assert [a.code for a in out] == ["FACE_UP_IN_DECK"]
    assert list(out[0].cards) == [felt.stub[0].card]


def test_cards_dealt_from_the_read_stub_and_gathered_back_raise_nothing() -> None:
    """With the tray antenna, every hole card leaves the shuffler zone: a deal, not a move
    about the felt. A face-up board card put back into the stub (premature flop remedy) is
    not a face-up card in the deck: the reader cannot see which way up it went in."""
    felt = monitor(THREE, sensors=("rfid", "camera"), seats=4, seed=42, stub_visible=True)
    read_stub(felt)
    out = felt.button() + felt.deal_hole()
    out += felt.place("burn") + felt.place("board") + felt.place("board") + felt.place("board")
    assert set(codes(out)) == {"PREMATURE_BOARD_CARD"}  # restated with each card
    out = []
    for p in felt.on_felt("board"):
        p.zone = SHUFFLER
        out += felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER,
                                                t=felt.t, source=Source.RFID, key=p.uid,
                                                card=p.card)).alerts
        assert p.track is not None
        out += felt.mon.observe(CardObservation(event=CardEvent.REMOVED, zone="board", t=felt.t,
                                                source=Source.CAMERA, key=p.track)).alerts
    out += felt.settle(1.0) + felt.resolve("PREMATURE_BOARD_CARD")
    out += felt.act("1 fold", "2 fold")
    assert codes(out, game_only=False) == []


def test_deck_check_counts_the_decks_cards_left_on_the_felt() -> None:
    """[003]: the deck check is about cards lost or doubled. A card of the deck left in the
    muck before the green button is accounted for; a card nowhere is missing."""
    felt = monitor(THREE, sensors=("rfid",), seats=4, seed=43, stub_visible=True)
    left = felt.stub.pop(0)
    lost = felt.stub.pop(0)
    read_stub(felt)
    felt.put(left, "muck")
    out = felt.button()
    assert codes(out) == ["DECK_INCOMPLETE"]
    assert list(out[0].cards) == [lost.card]
    assert "missing" in out[0].message and felt.mon.halted is None
    assert codes(list(felt.mon.console(ConsoleAction(1, "button", None, felt.t)).alerts)) == []
