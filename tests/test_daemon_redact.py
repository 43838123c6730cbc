"""The public channel's view of an alert: hole cards (face down on a seat in the monitor's card
picture) are replaced by ``??`` in ``cards`` and in the texts; board cards and cards shown face
up stay. Which cards are secret is the monitor's card picture's answer
(``DealingMonitor.secret_cards``), not a second model rebuilt from raw observations."""

from __future__ import annotations

import pytest

from table_controller.daemon.redact import redact
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import parse_card
from tests.monitor_kit import MODE_IDS, MODES, monitor

THREE = {1: 100, 2: 100, 3: 100}


def test_secret_cards_are_hidden_everywhere_else_kept() -> None:
    secret = {parse_card("As"), parse_card("Ks")}
    alert = Alert("DUPLICATE_CARD", 1, 2.0, seat=2,
                  cards=(parse_card("As"), parse_card("7h"), parse_card("Td")),
                  message="As on seat 2 and As on the board; Td seen; As the dealer said",
                  remedy="Void; 7h stays")
    floor = alert.to_dict()  # one stamp of the wall time: two calls may fall in two ms
    public = redact(floor, secret)
    assert public["cards"] == ["??", "7h", "Td"]
    assert public["message"] == "?? on seat 2 and ?? on the board; Td seen; ?? the dealer said"
    assert public["remedy"] == "Void; 7h stays"
    assert floor["cards"] == ["As", "7h", "Td"]  # the floor's copy is untouched
    assert redact(floor, set()) == floor


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_hole_cards_are_secret_until_seen_face_up_and_a_new_hand_forgets(
        sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3, top=("As", "Kd", "7c", "2h", "9s", "Jd"))
    felt.button()
    felt.deal_hole()
    hole = {parse_card(c) for c in ("As", "Kd", "7c", "2h", "9s", "Jd")}
    # the reader names every card; the camera alone sees only backs: nothing to hide yet
    assert felt.mon.secret_cards() == (hole if "rfid" in sensors else frozenset())
    felt.act("1 call", "2 call", "3 check")
    felt.deal_street(3)
    board = {p.card for p in felt.on_felt("board")}
    assert not board & felt.mon.secret_cards()  # board cards are public
    if "camera" in sensors:
        shown = felt.on_felt("seat2")[0]
        felt.flip(str(shown.card))  # seat 2 shows a card: everybody saw it
        assert shown.card not in felt.mon.secret_cards()
    if "rfid" in sensors:
        folded = felt.on_felt("seat3")
        felt.act("2 check", "3 fold")
        for p in folded:
            felt.move(str(p.card), "muck")  # a folded hand in the muck stays secret
        assert {p.card for p in folded} <= felt.mon.secret_cards()
    felt.mon.void("floor", felt.t)
    felt.collect()
    felt.new_deck(seed=2)
    felt.button()
    assert felt.mon.secret_cards() == frozenset()
