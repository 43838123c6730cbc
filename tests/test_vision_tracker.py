"""The per-zone tracker: N consistent frames before a card counts, RFID-like observations."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, Face, Source
from vision.analyse import SeenCard
from vision.tracker import CardTracker


def seen(label: str, zone: str | None, x: float, y: float = 100.0) -> SeenCard:
    corners = np.array([(x - 36, y - 50), (x + 36, y - 50), (x + 36, y + 50), (x - 36, y + 50)],
                       np.float32)
    return SeenCard(label=label, corners=corners, zone=zone, score=2.0, margin=0.2)


def run(tracker: CardTracker, frames: list[list[SeenCard]], t0: float = 50.0,
        dt: float = 0.1) -> list[list[tuple[str, str, str, str | None, Face, float]]]:
    out = []
    for i, frame in enumerate(frames):
        obs = tracker.update(frame, t0 + i * dt)
        for o in obs:
            assert o.source is Source.CAMERA
        out.append([(o.event.value, o.key, o.zone, str(o.card) if o.card else None, o.face,
                     round(o.t, 3)) for o in obs])
    return out


def test_card_counts_after_n_consistent_frames_with_the_frame_time() -> None:
    tracker = CardTracker(confirm_frames=3)
    events = run(tracker, [[seen("As", "board", 100)]] * 4)
    assert events == [[], [], [("placed", "cam1", "board", "As", Face.UP, 50.2)], []]
    assert tracker.cards == {"cam1": ("board", "As")}


def test_an_inconsistent_read_restarts_the_count() -> None:
    tracker = CardTracker(confirm_frames=3)
    frames = [[seen("As", "board", 100)], [seen("Ah", "board", 101)],
              [seen("As", "board", 100)], [seen("As", "board", 100)], [seen("As", "board", 99)]]
    events = run(tracker, frames)
    assert [e for f in events for e in f] == [("placed", "cam1", "board", "As", Face.UP, 50.4)]


def test_back_is_a_face_down_card_without_identity_then_flips() -> None:
    tracker = CardTracker(confirm_frames=2, deck="red")
    frames = [[seen("back", "seat3", 300)]] * 2 + [[seen("Kd", "seat3", 302)]] * 2
    obs = []
    for i, f in enumerate(frames):
        obs += tracker.update(f, float(i))
    assert [(o.event, o.card, o.face, o.key, o.deck) for o in obs] == [
        (CardEvent.PLACED, None, Face.DOWN, "cam1", "red"),
        (CardEvent.FLIPPED, parse_card("Kd"), Face.UP, "cam1", "red"),
    ]


def test_a_reading_not_sure_does_not_turn_a_known_card() -> None:
    """A back in a pile read, at a weak score, as a face (the camera soak's muck: a second ten
    of spades beside the board's): the card stays a back however long the reading lasts; a
    face read after it corrects only on a sure reading, and a new card may come of an unsure
    one."""
    tracker = CardTracker(confirm_frames=2)
    weak = SeenCard(label="Ts", corners=seen("Ts", "muck", 300).corners, zone="muck",
                    score=0.54, margin=0.1, sure=False)
    frames = [[seen("back", "muck", 300)]] * 2 + [[weak]] * 6
    assert [e for f in run(tracker, frames) for e in f] == [
        ("placed", "cam1", "muck", None, Face.DOWN, 50.1)]
    events = run(tracker, [[seen("Ts", "muck", 300)]] * 2, t0=51.0)
    assert events[1] == [("flipped", "cam1", "muck", "Ts", Face.UP, 51.1)]
    fresh = CardTracker(confirm_frames=2)
    new = run(fresh, [[weak]] * 2)
    assert new[1] == [("placed", "cam1", "muck", "Ts", Face.UP, 50.1)]
    events = run(fresh, [[SeenCard(label="Th", corners=weak.corners, zone="muck", score=1.0,
                                   margin=0.1, sure=False)]] * 4, t0=52.0)
    assert [e for f in events for e in f] == []


def test_a_face_up_joker_is_a_joker_observation_without_a_card() -> None:
    """rules.md §5 (alert JOKER): the camera reports a joker as joker=True, card None, face up;
    a joker lying face down is a back like any other."""
    tracker = CardTracker(confirm_frames=2, deck="red")
    frames = [[seen("back", "board", 300)]] * 2 + [[seen("joker", "board", 301)]] * 2
    obs = []
    for i, f in enumerate(frames):
        obs += tracker.update(f, float(i))
    assert [(o.event, o.card, o.face, o.joker, o.key) for o in obs] == [
        (CardEvent.PLACED, None, Face.DOWN, False, "cam1"),
        (CardEvent.FLIPPED, None, Face.UP, True, "cam1"),
    ]
    assert tracker.cards == {"cam1": ("board", "joker")}
    obs = tracker.update([seen("joker", "muck", 900)], 9.0)
    assert obs == []
    obs = tracker.update([seen("joker", "muck", 900)], 10.0)
    assert [(o.event, o.zone, o.card, o.face, o.joker) for o in obs] == [
        (CardEvent.PLACED, "muck", None, Face.UP, True)]
    assert seen("joker", "muck", 0).joker and seen("joker", "muck", 0).card is None
    assert not seen("As", "muck", 0).joker and not seen("back", "muck", 0).joker


def test_card_removed_after_drop_frames_without_it() -> None:
    tracker = CardTracker(confirm_frames=1, drop_frames=3)
    events = run(tracker, [[seen("7c", "muck", 500)], [], [], []])
    assert events[0] == [("placed", "cam1", "muck", "7c", Face.UP, 50.0)]
    assert events[1:] == [[], [], [("removed", "cam1", "muck", "7c", Face.UP, 50.3)]]
    assert tracker.cards == {}


def test_a_card_missed_for_a_frame_keeps_its_key() -> None:
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    events = run(tracker, [[seen("9h", "board", 100)]] * 2 + [[]] + [[seen("9h", "board", 104)]])
    assert [e for f in events for e in f] == [("placed", "cam1", "board", "9h", Face.UP, 50.1)]
    assert tracker.cards == {"cam1": ("board", "9h")}


def test_cards_side_by_side_are_separate_tracks_and_zones_do_not_mix() -> None:
    tracker = CardTracker(confirm_frames=1)
    frame = [seen("As", "board", 100), seen("Kd", "board", 180), seen("back", "seat1", 140),
             seen("2c", None, 900)]
    obs = tracker.update(frame, 1.0)
    assert sorted((o.key, o.zone, str(o.card)) for o in obs) == [
        ("cam1", "board", "As"), ("cam2", "board", "Kd"), ("cam3", "seat1", "None")]
    # Moving a card into another zone is a removal there and a placement here.
    tracker = CardTracker(confirm_frames=1, drop_frames=1)
    tracker.update([seen("As", "burn", 100)], 0.0)
    obs = tracker.update([seen("As", "muck", 110)], 1.0)
    assert sorted((o.event.value, o.zone) for o in obs) == [("placed", "muck"),
                                                            ("removed", "burn")]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        CardTracker(confirm_frames=0)


def test_a_sighting_works_out_its_centre_once() -> None:
    """The tracker asks every sighting for its centre at every frame, and a still table's
    frames share their sightings: the centre is the corners' mean, worked out once, and not
    part of what a sighting shows."""
    card = seen("As", "board", 300.5, 120.25)
    first = card.centre
    assert first == (300.5, 120.25)
    assert card.centre is first
    again = SeenCard(label=card.label, corners=card.corners, zone=card.zone, score=card.score,
                     margin=card.margin)
    assert repr(again) == repr(card) and "centre" not in repr(card)


def _pair(x0: float = 300.0, x1: float = 380.0) -> list[SeenCard]:
    return [seen("back", "seat3", x0), seen("back", "seat3", x1)]


def _flat(events: list[list[tuple[str, str, str, str | None, Face, float]]]
          ) -> list[tuple[str, str, str, str | None, Face, float]]:
    return [e for f in events for e in f]


def test_a_card_squared_onto_the_other_in_one_frame_holds_the_lower_one() -> None:
    """A player squares his two hole cards: the second slides onto the first in one frame, and
    the camera sees one card (a few pixels off the first's place). Both still count; the
    first lies under the second until the pair is picked up, then both go together."""
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    squared = [seen("back", "seat3", 305, 106)]
    events = run(tracker, [_pair()] * 2 + [squared] * 8)
    assert [e[0] for e in _flat(events)] == ["placed", "placed"]
    assert tracker.cards == {"cam1": ("seat3", "back"), "cam2": ("seat3", "back")}
    assert tracker.under == {"cam1": "cam2"}
    events = run(tracker, [[]] * 3, t0=60.0)
    assert sorted(_flat(events)) == [("removed", "cam1", "seat3", None, Face.DOWN, 60.2),
                                     ("removed", "cam2", "seat3", None, Face.DOWN, 60.2)]
    assert tracker.cards == {} and tracker.under == {}


def test_a_card_slid_slowly_onto_the_other_holds_the_lower_one() -> None:
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    frames = [_pair()] * 2 + [_pair(300, x) for x in (360, 340, 320)]
    frames += [[seen("back", "seat3", 304, 103)]] * 6
    events = run(tracker, frames)
    assert [e[0] for e in _flat(events)] == ["placed", "placed"]
    assert tracker.under == {"cam1": "cam2"}
    assert len(tracker.cards) == 2


def test_a_card_taken_from_beside_another_is_still_removed() -> None:
    """Nothing covers the place of a card taken away: it is removed, even though the card
    left beside it still shows (it lies still, where it lay)."""
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    events = run(tracker, [_pair()] * 2 + [[seen("back", "seat3", 300)]] * 4)
    assert [e[:3] for e in _flat(events)] == [
        ("placed", "cam1", "seat3"), ("placed", "cam2", "seat3"), ("removed", "cam2", "seat3")]
    assert tracker.under == {}


def test_a_card_under_one_that_moves_off_it_and_is_not_seen_is_removed() -> None:
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    frames = [_pair()] * 2 + [[seen("back", "seat3", 305, 106)]] * 2
    frames += [[seen("back", "seat3", 330, 106)], [seen("back", "seat3", 360, 106)]] + [
        [seen("back", "seat3", 380, 106)]] * 3
    events = run(tracker, frames)
    assert [e[:3] for e in _flat(events)] == [
        ("placed", "cam1", "seat3"), ("placed", "cam2", "seat3"), ("removed", "cam1", "seat3")]


def test_a_squared_pair_turned_up_apart_counts_two_and_holds_nothing() -> None:
    """At the showdown the squared cards are turned up side by side: the lower one is seen
    again, and the upper one is the card beside it, turned up (never a third card on the seat,
    nor the lower one under the upper one's former outline)."""
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    frames = [_pair()] * 2 + [[seen("back", "seat3", 305, 106)]] * 3
    frames += [[seen("Kd", "seat3", 300), seen("7h", "seat3", 380)]] * 4
    events = run(tracker, frames)
    assert [(e[0], e[1], e[3]) for e in _flat(events)] == [
        ("placed", "cam1", None), ("placed", "cam2", None),
        ("flipped", "cam1", "Kd"), ("flipped", "cam2", "7h")]
    assert tracker.cards == {"cam1": ("seat3", "Kd"), "cam2": ("seat3", "7h")}
    assert tracker.under == {}


def test_a_frame_that_misses_the_upper_card_keeps_the_pair() -> None:
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    squared = [seen("back", "seat3", 305, 106)]
    events = run(tracker, [_pair()] * 2 + [squared] * 3 + [[]] + [squared] * 6)
    assert [e[0] for e in _flat(events)] == ["placed", "placed"]
    assert len(tracker.cards) == 2 and tracker.under == {"cam1": "cam2"}


def test_the_lower_card_of_a_squared_pile_slid_out_beside_it_is_no_third_card() -> None:
    """The camera soak of 2026-12-03 (table 2030, hands 35 and 39): a pair laid apart, then
    squared and seen as a squared pile (the upper card and the lower one's sliver), the lower
    card held under the upper. The player peeks: the upper card is read face up where the
    pile lay, and the lower card shows beside it, further than a card moves in a frame. It
    was placed as a third card (a false MISDEAL_AFTER_ACTION); it is the held card come out
    from under the upper one."""
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    lower = replace(seen("back", "seat3", 305, 106), squared=True, sure=False)
    frames = [_pair()] * 2 + [[seen("back", "seat3", 300), lower]] * 3
    events = run(tracker, frames)
    assert [e[0] for e in _flat(events)] == ["placed", "placed"]
    assert len(tracker.under) == 1
    events = run(tracker, [[seen("8c", "seat3", 300), seen("back", "seat3", 470)]] * 4,
                 t0=60.0)
    assert [(e[0], e[3]) for e in _flat(events)] == [("flipped", "8c")]
    assert sorted(label for _, label in tracker.cards.values()) == ["8c", "back"]
    assert tracker.under == {}
    # A back that comes while the pile is still seen whole is a card come.
    tracker = CardTracker(confirm_frames=2, drop_frames=3)
    run(tracker, frames)
    events = run(tracker, [[seen("back", "seat3", 300), lower, seen("back", "seat3", 560)]] * 3,
                 t0=60.0)
    assert [e[0] for e in _flat(events)] == ["placed"] and len(tracker.cards) == 3
