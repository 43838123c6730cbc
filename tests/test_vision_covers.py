"""A chip or a card protector on hole cards (docs/vision.md, "What is hidden is not evidence"):
the simulator's camera frames through the real vision code turn no card up and add none, the
tracker holds the cards something that is no card lies on, and a card turned up or a third
card beside the pair is still seen."""

from __future__ import annotations

import numpy as np
import pytest

from hw_sim.devices.camera import Cover, SceneCard
from hw_sim.devices.camera_chain import build_camera
from hw_sim.devices.table_model import TableModel
from hw_sim.harness.behaviours import table_setting
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face
from tests.camera_kit import deal_pairs, frames
from vision.analyse import SeenCard, TableView
from vision.tracker import CardTracker

SEATS = [f"seat{n}" for n in range(1, 8)]


@pytest.mark.parametrize(("seed", "kind"), [(2031, "protector"), (2033, "protector"),
                                            (2033, "chip"), (2034, "chip")])
def test_a_chip_or_protector_on_squared_hole_cards_turns_nothing_up(seed: int, kind: str
                                                                    ) -> None:
    """Each seat's two cards squared, then a chip or a protector laid on them, half off the
    pair: the part of it off the cards made a rectangle with a card's corner that read as a
    face (a ten, a king: PLACED face up), and the part on the card turned its back into a
    face or a joker. Now nothing is placed or turned over. (The lower card of a squared pair
    is hidden under the upper one: its removal is not this test's matter.)"""
    felt, light = table_setting(seed)
    model = TableModel()
    chain = build_camera(model, seed=seed, felt=felt, light=light, cache=0)
    deal_pairs(model, SEATS)
    t, dealt = frames(chain, 0.0, 4)
    assert sorted(o.zone for o in dealt if o.event is CardEvent.PLACED) == sorted(SEATS * 2)
    for zone in SEATS:
        model.square(zone)
        model.cover(zone, kind)
    _, later = frames(chain, t, 8)
    assert [(o.zone, o.event.name, o.face.name, o.card) for o in later
            if o.event is not CardEvent.REMOVED] == []


def test_a_card_turned_up_once_the_chip_is_off_is_seen() -> None:
    """A chip on a pair holds it; taken off, a card turned face up is FLIPPED, read right."""
    felt, light = table_setting(2033)
    model = TableModel()
    chain = build_camera(model, seed=2033, felt=felt, light=light, cache=0)
    cards = [model.draw_top(), model.draw_top()]
    for pc in cards:
        model.place(pc, "seat3", Face.DOWN)
    t, _ = frames(chain, 0.0, 4)
    model.cover("seat3", "chip")
    t, held = frames(chain, t, 6)
    assert held == []
    model.uncover("seat3")
    model.flip(cards[1])
    _, turned = frames(chain, t, 6)
    assert [(o.event, o.zone, o.face, o.card) for o in turned] == [
        (CardEvent.FLIPPED, "seat3", Face.UP, cards[1].card)]


@pytest.mark.parametrize("seat", ["seat2", "seat4", "seat6"])
def test_a_third_card_beside_a_pair_under_a_chip_is_placed(seat: str) -> None:
    """The pair squared on its first place with a chip on it; a third card dealt beside it,
    nothing over it, is a new card of the seat."""
    felt, light = table_setting(2031)
    chain = build_camera(TableModel(), seed=2031, felt=felt, light=light, cache=0)
    camera, analyser, tracker = chain.camera, chain.analyser, CardTracker()
    pair = [SceneCard(parse_card("Qd"), seat, 0, False),
            SceneCard(parse_card("5c"), seat, 0, False, rotation=3.0, offset=(5.0, 5.0))]
    third = SceneCard(parse_card("7h"), seat, 1, False)
    t, before, after = 0.0, [], []
    first = camera.render(pair, covers=[Cover(seat, "chip")])
    for _ in range(4):
        before += tracker.update(analyser.view(first), t)
        t += 0.1
    assert [(o.event, o.zone, o.face) for o in before] == [(CardEvent.PLACED, seat, Face.DOWN)]
    second = camera.render([*pair, third], covers=[Cover(seat, "chip")])
    for _ in range(4):
        after += tracker.update(analyser.view(second), t)
        t += 0.1
    assert [(o.event, o.zone, o.face) for o in after] == [(CardEvent.PLACED, seat, Face.DOWN)]


def _seen(label: str, x: float, y: float = 100.0, *, covered: bool = False) -> SeenCard:
    corners = np.array([(x - 36, y - 50), (x + 36, y - 50), (x + 36, y + 50), (x - 36, y + 50)],
                       np.float32)
    return SeenCard(label=label, corners=corners, zone="seat1", score=2.0, margin=0.2,
                    covered=covered)


def test_the_tracker_holds_the_cards_a_chip_lies_on() -> None:
    """In a zone where a chip lies on a card: a reading of a card's part in view does not turn
    it over, a piece over a card is not a new card, a card not found is not removed; a card
    beside them is placed; once the zone is clear the cards are read as ever."""
    tracker = CardTracker(confirm_frames=3, drop_frames=2)
    placed = [o for _ in range(3) for o in tracker.update(
        [_seen("back", 100), _seen("back", 200)], 0.0)]
    assert [(o.event, o.face) for o in placed] == [(CardEvent.PLACED, Face.DOWN)] * 2
    chip = frozenset({"seat1"})
    out: list[CardObservation] = []
    for k in range(6):
        # both read as faces under the chip, a piece over the second read as a card, a real
        # third card beside them
        frame = [_seen("8c", 100, covered=True), _seen("Th", 205, covered=True),
                 _seen("Jd", 200, 145, covered=True), _seen("back", 400)]
        out += tracker.update(TableView(frame, frozenset(), chip), 1.0 + k)
    for k in range(6):  # the second not found at all
        frame = [_seen("8c", 100, covered=True), _seen("back", 400)]
        out += tracker.update(TableView(frame, frozenset(), chip), 7.0 + k)
    assert [(o.event, o.face, o.card) for o in out] == [(CardEvent.PLACED, Face.DOWN, None)]
    assert sorted(label for _, label in tracker.cards.values()) == ["back", "back", "back"]
    # The chip is off: a card turned up is turned up.
    clear = [o for k in range(3) for o in tracker.update(
        TableView([_seen("Ks", 100), _seen("back", 200), _seen("back", 400)], frozenset()),
        20.0 + k)]
    assert [(o.event, o.card) for o in clear] == [(CardEvent.FLIPPED, parse_card("Ks"))]
