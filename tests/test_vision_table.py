"""The calibrated table: the empty cloth learned (any colour, any print), the plane from a few
cards, overlapping cards separated, and occlusion known (a hand over a zone leaves its cards as
they were in the tracker). Small frames (640x480 and 1280x720), a few scenes each."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks import bridge_deck
from benchmarks.bench_vision_table import iou
from table_controller.vocabulary.observations import CardEvent
from vision import render, scenes, synth
from vision.analyse import (
    SURE_FACE,
    SURE_FACE_PEELED,
    FrameAnalyser,
    SeenCard,
    TableView,
    sure_reading,
)
from vision.empty_table import (
    EmptyTable,
    TableCalibrationError,
    calibrate_table,
    learn_empty,
    plane_from_cards,
)
from vision.recognise import Recogniser
from vision.templates import enroll_from_folder
from vision.tracker import CardTracker

ASPECT = 56 / 87


@pytest.fixture(scope="module")
def deck_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bridge_deck.write_deck(tmp_path_factory.mktemp("bridge"))


@pytest.fixture(scope="module")
def deck(deck_folder: Path) -> dict[str, np.ndarray]:
    return synth.load_deck_images(deck_folder)


@pytest.fixture(scope="module")
def recogniser(deck_folder: Path) -> Recogniser:
    return Recogniser(enroll_from_folder(deck_folder, "bridge"))


def test_the_plane_comes_from_a_few_cards_under_strong_perspective(
        deck: dict[str, np.ndarray]) -> None:
    setup = scenes.make_setup(11, size=(1280, 720), tilt=38.0, felt="printed")
    table = scenes.calibrated_table(setup, deck, aspect=ASPECT)
    assert table.plane is not None
    # A card anywhere on the table is an aspect x 1 rectangle in the plane found.
    for u, v in ((0, -240), (0, 240), (-420, 0), (420, 60)):
        quad = setup.to_image(render.card_quad(u, v, 88 * ASPECT, 88, 25.0))
        p = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), table.plane)
        sides = np.linalg.norm(p.reshape(-1, 2) - np.roll(p.reshape(-1, 2), 1, axis=0), axis=1)
        assert sorted(sides) == pytest.approx([ASPECT, ASPECT, 1, 1], abs=0.04)
    with pytest.raises(TableCalibrationError, match="at least 2 cards"):
        plane_from_cards([quad], ASPECT)
    with pytest.raises(TableCalibrationError, match="at least 3 cards"):
        calibrate_table([scenes.render_empty(setup)], scenes.render_empty(setup, 1),
                        aspect=ASPECT)


def test_the_print_is_cloth_and_what_the_camera_ignores_is_shown(
        deck: dict[str, np.ndarray], tmp_path: Path) -> None:
    setup = scenes.make_setup(12, size=(640, 480), felt="printed", tilt=0.0)
    table = learn_empty([scenes.render_empty(setup, k) for k in range(2)])
    from vision.empty_table import half

    assert not table.foreground(half(scenes.render_empty(setup, 5))).any()
    ignored = table.ignored()
    assert ignored.shape == (480, 640, 3)
    assert (ignored == (255, 0, 255)).all(axis=2).sum() == 0  # tinted, not painted over
    table.save(tmp_path / "t.npz")
    again = EmptyTable.load(tmp_path / "t.npz")
    assert again.width == 640 and np.allclose(again.background, table.background)
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(TableCalibrationError, match="not a table calibration"):
        EmptyTable.load(tmp_path / "bad.npz")


@pytest.mark.parametrize("felt", ["blue", "black", "printed"])
def test_stacked_and_squared_pairs_count_as_two(deck: dict[str, np.ndarray],
                                                recogniser: Recogniser, felt: str) -> None:
    setup = scenes.make_setup(13, size=(1280, 720), felt=felt, tilt=25.0)
    table = scenes.calibrated_table(setup, deck, aspect=ASPECT)
    analyser = FrameAnalyser(recogniser, layout=setup.layout(), table=table)
    found = total = 0
    for k in range(3):
        scene = scenes.make_scene(setup, deck, k, force=frozenset({"stacked", "squared"}))
        seen = analyser.analyse(scene.image)
        for card in scene.cards:
            if card.group in ("stacked", "squared") and card.visible >= 0.10:
                total += 1
                found += any(iou(card.corners, s.corners) >= 0.5 for s in seen)
    assert total >= 12
    assert found >= 0.75 * total  # (muck, stacked and squared figures: the table benchmark)


def test_a_hand_over_a_zone_leaves_its_cards_as_they_were(deck: dict[str, np.ndarray],
                                                          recogniser: Recogniser) -> None:
    setup = scenes.make_setup(14, size=(640, 480), felt="green", tilt=10.0)
    table = scenes.calibrated_table(setup, deck, aspect=ASPECT)
    analyser = FrameAnalyser(recogniser, layout=setup.layout(), table=table)
    scene = scenes.make_scene(setup, deck, 2, force=frozenset({"hand"}))
    view = analyser.view(scene.image)
    covered = {c.zone for c in scene.cards if c.under_hand}
    assert covered & view.occluded  # (the benchmark measures how often all of them are)
    # The tracker: a card confirmed in a zone stays while a hand covers the zone, however
    # long, and nothing new is placed there; once clear, a missing card goes as usual.
    card = SeenCard("As", np.array([(0, 0), (10, 0), (10, 14), (0, 14)], np.float32) + 100,
                    "board", 1.0, 1.0)
    tracker = CardTracker(confirm_frames=2, drop_frames=2)
    assert tracker.update([card], 0.0) == []
    assert [o.event for o in tracker.update([card], 0.1)] == [CardEvent.PLACED]
    ghost = SeenCard("Kd", card.corners + 300, "board", 1.0, 1.0)
    for k in range(10):
        assert tracker.update(TableView([ghost], frozenset({"board"})), 0.2 + k) == []
    assert list(tracker.cards.values()) == [("board", "As")]
    events = tracker.update([], 20.0) + tracker.update([], 21.0)
    assert [o.event for o in events] == [CardEvent.REMOVED]


def test_no_card_is_made_up_next_to_a_hand(deck: dict[str, np.ndarray],
                                           recogniser: Recogniser) -> None:
    """A blob holding a hand or an arm yields only cards with most of their sides in view;
    the rest of it is the occluder, so every zone the hand covers is held."""
    false = held = scenes_seen = 0
    for seed, size, felt in ((16, (1280, 720), "green"), (17, (1280, 720), "grey"),
                             (18, (640, 480), "blue")):
        setup = scenes.make_setup(seed, size=size, felt=felt, tilt=15.0)
        analyser = FrameAnalyser(recogniser, layout=setup.layout(),
                                 table=scenes.calibrated_table(setup, deck, aspect=ASPECT))
        for k in range(6):
            scene = scenes.make_scene(setup, deck, k, force=frozenset({"hand"}))
            view = analyser.view(scene.image)
            false += sum(max((iou(c.corners, s.corners) for c in scene.cards), default=0.0)
                         < 0.25 for s in view.cards)
            held += {c.zone for c in scene.cards if c.under_hand} <= view.occluded
            scenes_seen += 1
    # A made-up card overlaps no card by a quarter. (Before the occluder rule, counting every
    # detection under 0.5 of a card as false: 27 in these 18 scenes, and 4 hands not held.
    # Since the reader keeps a peeled back by its colour, about ten real cards of stacked
    # pairs are kept with outlines half a card off, which the table benchmark counts as
    # false cards; they are not made up.)
    assert false <= 6
    assert held >= scenes_seen - 1


def test_a_frame_of_another_size_than_the_calibration_is_refused(
        deck: dict[str, np.ndarray], recogniser: Recogniser) -> None:
    setup = scenes.make_setup(15, size=(640, 480))
    table = scenes.calibrated_table(setup, deck, aspect=ASPECT)
    analyser = FrameAnalyser(recogniser, layout=setup.layout(), table=table)
    with pytest.raises(ValueError, match="not the calibrated table's 640x480"):
        analyser.analyse(np.zeros((720, 1280, 3), np.uint8))


def test_a_side_is_snapped_onto_its_own_edge_not_a_stronger_one_nearby() -> None:
    """A back lying squared on another: its own edge is faint (back on back), the lower
    card's outline four pixels out is strong; the side found a pixel off goes to its own."""
    from vision.edges import snap

    grey = np.zeros((200, 200), np.float32)
    grey[40:160, 50:150] = 150.0  # the card underneath, on dark cloth: a strong edge
    grey[44:156, 54:146] = 240.0  # the card on top: a fainter edge
    own = np.array([(53.5, 43.5), (145.5, 43.5), (145.5, 155.5), (53.5, 155.5)], np.float32)
    found = own + np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float32)  # a pixel out
    (snapped,) = snap(grey, [found])
    assert np.abs(snapped - own).max() < 0.75


def test_a_face_read_on_an_outline_cut_from_a_pile_needs_a_stronger_score(
        deck: dict[str, np.ndarray], recogniser: Recogniser) -> None:
    """The cards of a muck pile are cut out of one blob (``peeled``); a face read on such an
    outline turns a known card over only at SURE_FACE_PEELED (a back in the soak's muck read
    as a ten at 2.64 made a false DUPLICATE_CARD), a face seen whole at SURE_FACE."""
    assert SURE_FACE < SURE_FACE_PEELED
    assert sure_reading("back", 0.05, peeled=True) and sure_reading("joker", 0.0, peeled=True)
    assert sure_reading("Ts", 3.0, peeled=False) and not sure_reading("Ts", 3.0, peeled=True)
    assert sure_reading("Ts", SURE_FACE_PEELED, peeled=True)
    assert not sure_reading("Ts", 2.4, peeled=False)
    setup = scenes.make_setup(17, size=(1280, 720), felt="grey")
    table = scenes.calibrated_table(setup, deck, aspect=ASPECT)
    analyser = FrameAnalyser(recogniser, layout=setup.layout(), table=table)
    piled = 0
    for k in range(3):
        scene = scenes.make_scene(setup, deck, k, force=frozenset({"muck"}))
        for s in analyser.analyse(scene.image):
            # A squared pile's lower card is never sure (vision/squared.py).
            assert s.sure == (not s.squared and sure_reading(s.label, s.score, peeled=s.peeled))
            piled += s.zone == "muck" and s.peeled
    assert piled >= 3


def test_a_bare_forearm_from_the_frame_edge_is_no_row_of_cards(
        deck: dict[str, np.ndarray], recogniser: Recogniser) -> None:
    """A forearm about a card wide, reaching in from the frame's border, was peeled into a
    ladder of card-sized rectangles (two sides each on the arm's outline), read as backs
    (skin near the back's maroon): four made-up cards. A blob reaching the frame's border is
    an arm: its cards need most of their sides borne out, the rest is the occluder. (The
    board's ace beside the hand, in the arm's blob with too few of its sides in view, is held
    as occluded with it now rather than read.)"""
    setup = scenes.make_setup(18, size=(640, 480), felt="blue", tilt=15.0)
    table = scenes.calibrated_table(setup, deck, aspect=ASPECT)
    analyser = FrameAnalyser(recogniser, layout=setup.layout(), table=table)
    scene = scenes.make_scene(setup, deck, 2, force=frozenset({"hand"}))
    view = analyser.view(scene.image)
    made_up = [s for s in view.cards
               if max(iou(c.corners, s.corners) for c in scene.cards) < 0.25]
    assert made_up == []
    # The arm is what lies over the board: the board's zone is held (it was not: the arm
    # was taken for cards, and nothing was left over to be the occluder).
    assert "board" in {c.zone for c in scene.cards if c.under_hand}
    assert {c.zone for c in scene.cards if c.under_hand} <= view.occluded


def test_a_side_between_two_touching_cards_is_snapped_to_its_own_edge() -> None:
    """Two pale cards touching, a dark gap line between them: the side found two pixels out
    (on the gap) goes back to its own edge, the step down into the gap, not to the next
    card's edge just beyond it, the step back up, as strong; unsigned, it goes to the
    neighbour's (the lone card's rule: a squared pair's top card's nearest step)."""
    from vision.edges import snap

    grey = np.full((200, 260), 40.0, np.float32)  # dark cloth
    grey[40:160, 30:129] = 235.0  # the card, its right edge at x = 129
    grey[40:160, 131:230] = 235.0  # its neighbour beyond a two-pixel gap
    own = np.array([(29.5, 39.5), (128.5, 39.5), (128.5, 159.5), (29.5, 159.5)], np.float32)
    found = own + np.array([(0, 0), (2.5, 0), (2.5, 0), (0, 0)], np.float32)
    (snapped,) = snap(grey, [found], [True])
    assert np.abs(snapped - own).max() < 0.75
    (unsigned,) = snap(grey, [found])
    assert np.abs(unsigned - own).max() > 1.0

