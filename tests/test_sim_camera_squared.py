"""A squared pair of hole cards on the simulated camera, through the real vision code: the
camera sees one card where two lie (the upper one a few pixels off the lower one's place), and
the tracker holds the lower one under it (where the sliver of the lower card is wide enough
to be told apart, vision/squared.py, the camera reports it as a back of a squared pile, which
holds a card of the seat under the upper one), so both still count; when the pair is picked
up both go together; spread face up at the showdown, they are the two cards turned over. Before, the
lower card was REMOVED while the RFID reader still read it
(SENSOR_CONFLICT with both sensors, docs/simulator.md "Behaviours")."""

from __future__ import annotations

import pytest

from hw_sim.devices.camera_chain import build_camera
from hw_sim.devices.table_model import TableModel
from table_controller.vocabulary.observations import CardEvent
from tests.camera_kit import deal_pairs, frames

SEATS = ("seat1", "seat2", "seat3", "seat4")


@pytest.mark.parametrize(("felt", "turned_up"), [("green", False), ("printed", True)])
def test_a_squared_pair_counts_two_until_it_is_picked_up(felt: str, turned_up: bool) -> None:
    model = TableModel()
    chain = build_camera(model, felt=felt)
    deal_pairs(model, SEATS)
    t, placed = frames(chain, 0.0, 4)
    assert sorted(o.zone for o in placed if o.event is CardEvent.PLACED) == sorted(SEATS * 2)
    for zone in SEATS:
        model.square(zone)
    t, seen = frames(chain, t, 10)
    assert seen == []
    held = chain.tracker.under
    assert sorted(chain.tracker.cards[k][0] for k in held) == sorted(SEATS)
    assert len(chain.tracker.cards) == 2 * len(SEATS)
    if turned_up:  # the showdown: each pair spread face up, two cards turned over, no third
        for zone in SEATS:
            for pc in model.in_zone(zone):
                model.flip(pc)
        t, shown = frames(chain, t, 8)
        assert sorted((o.event, o.zone) for o in shown) == sorted(
            (CardEvent.FLIPPED, zone) for zone in SEATS * 2)
        labels = {str(pc.card) for zone in SEATS for pc in model.in_zone(zone)}
        assert {label for _, label in chain.tracker.cards.values()} == labels
        assert chain.tracker.under == {}
    model.gather()  # the pairs picked up: each seat's two cards go in the same frame
    t, gone = frames(chain, t, 8)
    assert sorted(o.zone for o in gone if o.event is CardEvent.REMOVED) == sorted(SEATS * 2)
    assert len({o.t for o in gone}) == 1
    assert chain.tracker.cards == {} and chain.tracker.under == {}
