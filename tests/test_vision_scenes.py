"""The labelled table scenes (vision.scenes) and the table benchmark's scoring: labels must be
true (visibility, hands, zones in image coordinates), scenes reproducible, and a detector that
returned the truth would score full marks. Small frames only (640x480)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import bridge_deck
from benchmarks.bench_vision_table import Failure, score
from vision import scenes, synth
from vision.analyse import SeenCard
from vision.layout import point_in_polygon


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    return synth.load_deck_images(bridge_deck.write_deck(tmp_path_factory.mktemp("bridge")))


def test_scenes_are_reproducible(deck: dict[str, np.ndarray]) -> None:
    setup = scenes.make_setup(1, size=(640, 480))
    a = scenes.make_scene(setup, deck, 3)
    b = scenes.make_scene(scenes.make_setup(1, size=(640, 480)), deck, 3)
    assert np.array_equal(a.image, b.image)
    assert [(c.label, c.visible) for c in a.cards] == [(c.label, c.visible) for c in b.cards]
    assert a.image.shape == (480, 640, 3)
    assert {"res:640x480", f"felt:{setup.felt}"} <= a.conditions


def test_visibility_and_pairs(deck: dict[str, np.ndarray]) -> None:
    setup = scenes.make_setup(2, size=(640, 480), felt="blue", tilt=0.0)
    scene = scenes.make_scene(setup, deck, 1, force=frozenset({"squared", "stacked"}))
    assert {"squared", "stacked"} <= scene.conditions
    for group in ("squared", "stacked"):
        pairs = [c for c in scene.cards if c.group == group]
        assert len(pairs) >= 2
        # The lower card of each pair is drawn first: a squared one shows a sliver only.
        lower = pairs[0::2]
        assert all(c.visible < (0.4 if group == "squared" else 0.95) for c in lower)
    assert sum(c.visible > 0.97 for c in scene.cards) >= 5
    assert all(0.0 <= c.visible <= 1.0 for c in scene.cards)
    # The deck's own proportions: bridge size.
    card = scene.cards[-1].corners
    sides = np.linalg.norm(card - np.roll(card, 1, axis=0), axis=1)
    assert sides.min() / sides.max() == pytest.approx(56 / 87, abs=0.03)


def test_a_hand_covers_zones_and_cards(deck: dict[str, np.ndarray]) -> None:
    setup = scenes.make_setup(3, size=(640, 480))
    scene = scenes.make_scene(setup, deck, 2, force=frozenset({"hand"}))
    assert "hand" in scene.conditions and scene.occluded_zones
    under = [c for c in scene.cards if c.under_hand]
    assert under and {c.zone for c in under} <= scene.occluded_zones
    plain = scenes.make_scene(setup, deck, 4)
    if "hand" not in plain.conditions:
        assert not plain.occluded_zones and not any(c.under_hand for c in plain.cards)


def test_zones_are_in_image_coordinates_under_perspective(deck: dict[str, np.ndarray]) -> None:
    setup = scenes.make_setup(4, size=(640, 480), tilt=38.0)
    layout = setup.layout()
    scene = scenes.make_scene(setup, deck, 5)
    placed = [c for c in scene.cards if c.group in ("single", "board")]
    assert placed
    for card in placed:
        cx, cy = (float(v) for v in card.corners.mean(axis=0))
        assert point_in_polygon((cx, cy), layout.zones[card.zone]), card
    # Seen from 38 degrees off vertical, the near side of the table looks larger.
    assert setup.scale_at(0, 250) > 1.3 * setup.scale_at(0, -250)
    empty = scenes.render_empty(setup)
    assert empty.shape == scene.image.shape


def test_scoring_gives_full_marks_to_the_truth(deck: dict[str, np.ndarray]) -> None:
    setup = scenes.make_setup(5, size=(640, 480))
    scene = scenes.make_scene(setup, deck, 6, force=frozenset({"muck", "hand"}))
    truth = [SeenCard(label=c.label, corners=c.corners, zone=c.zone, score=1.0, margin=1.0)
             for c in scene.cards]
    failures: list[Failure] = []
    tally = score(scene, truth, scene.occluded_zones, failures)
    assert tally.count == [1, 1] and tally.false == 0 and not failures
    assert tally.face_back[0] == tally.face_back[1] > 0
    assert tally.occluded == [1, 1] and tally.false_occluded == 0
    # One card missed and one invented: both counted.
    shifted = truth[0].corners + 400.0
    wrong = [*truth[1:], SeenCard("As", shifted, None, 1.0, 1.0)]
    tally = score(scene, wrong, frozenset(), failures)
    assert tally.false == 1 and tally.count == [0, 1] and failures


def test_the_deck_is_written_as_an_enrolment_folder(tmp_path: Path) -> None:
    folder = bridge_deck.write_deck(tmp_path)
    assert len(list(folder.glob("*.png"))) == 53
