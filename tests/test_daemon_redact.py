"""The public channel's view of an alert: hole cards (seen face down on a seat) are replaced by
``??`` in ``cards`` and in the texts; board cards and cards shown face up stay."""

from __future__ import annotations

from table_controller.daemon.redact import HoleCards
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source


def seen(zone: str, card: str, face: Face, event: CardEvent = CardEvent.PLACED
         ) -> CardObservation:
    return CardObservation(event, zone, 1.0, Source.RFID, card, parse_card(card), face)


def test_hole_cards_are_hidden_everywhere_else_kept() -> None:
    holes = HoleCards()
    holes.observe(seen("seat2", "As", Face.DOWN))
    holes.observe(seen("seat2", "Ks", Face.DOWN))
    holes.observe(seen("board", "7h", Face.UP))
    holes.observe(seen("seat3", "Td", Face.UP))  # exposed: everybody saw it
    alert = Alert("DUPLICATE_CARD", 1, 2.0, seat=2,
                  cards=(parse_card("As"), parse_card("7h"), parse_card("Td")),
                  message="As on seat 2 and As on the board; Td seen; As the dealer said",
                  remedy="Void; 7h stays")
    public = holes.redact(alert.to_dict())
    assert public["cards"] == ["??", "7h", "Td"]
    assert public["message"] == "?? on seat 2 and ?? on the board; Td seen; ?? the dealer said"
    assert public["remedy"] == "Void; 7h stays"
    assert alert.to_dict()["cards"] == ["As", "7h", "Td"]  # the floor's copy is untouched


def test_a_card_turned_up_is_no_longer_hidden_and_a_new_hand_forgets() -> None:
    holes = HoleCards()
    holes.observe(seen("seat1", "2c", Face.DOWN))
    assert holes.hidden == {"2c"}
    holes.observe(seen("seat1", "2c", Face.UP, CardEvent.FLIPPED))
    assert holes.hidden == frozenset()
    holes.add([parse_card("9d")])  # the engine's hole cards count too
    assert holes.hidden == {"9d"}
    holes.new_hand()
    assert holes.hidden == frozenset()
