"""A card peeled out of a blob whose whole outline is seen (its sides borne out, under no other
card) is as certain as a lone card: it is kept however faint its reading. Scenes of
:mod:`vision.scenes` drawn with the letele development deck, whose pink lattice back is lost
under blur."""

from __future__ import annotations

import numpy as np

from benchmarks.bench_vision_table import iou
from vision import scenes
from vision.analyse import FrameAnalyser
from vision.arrays import Quad
from vision.recognise import Recogniser
from vision.table_detect import detect_on_table


def _best(card: Quad, quads: list[Quad]) -> tuple[float, int]:
    """The detection nearest ``card`` (intersection over union) and its index."""
    return max(((iou(card, q), j) for j, q in enumerate(quads)), default=(0.0, -1))


def test_backs_side_by_side_are_found_under_blur(letele_deck: dict[str, np.ndarray],
                                                 letele_recogniser: Recogniser) -> None:
    """Pairs of backs laid side by side whose blobs merge are peeled apart; blurred, their
    lattice is lost (plain, scoring like no back), but each shows its whole outline, so every
    one is a card. (Before, five of these eighteen were dropped as outlines that look like no
    card.) One of them has a chip wholly within its outline, unseen by the detection: its
    colour cells, like neither the back nor any face, are left out of face or back (with the
    warm light undone and without that, it read as a face)."""
    setup = scenes.make_setup(44, size=(1280, 720))
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    scene = scenes.make_scene(setup, letele_deck, 1)
    assert "blur" in scene.conditions
    found = detect_on_table(scene.image, table, aspect=letele_recogniser.aspect,
                            card_height=setup.layout().card_height)
    view = FrameAnalyser(letele_recogniser, layout=setup.layout(), table=table).view(scene.image)
    seen = [s.corners for s in view.cards]
    pairs = [c for c in scene.cards if c.group == "single"]
    assert len(pairs) == 18
    peeled_whole = 0
    for card in pairs:
        value, j = _best(card.corners, found.quads)
        assert value >= 0.8
        peeled_whole += found.peeled[j] and found.whole[j]
        assert _best(card.corners, seen)[0] >= 0.8
        assert next(s for s in view.cards if iou(card.corners, s.corners) >= 0.8).label == "back"
    assert peeled_whole >= 5


def test_a_card_lying_under_another_is_not_whole(letele_deck: dict[str, np.ndarray],
                                                letele_recogniser: Recogniser) -> None:
    """The lower card of a stacked pair shows part of its outline only: it must still look
    like a card to be kept; the card on top shows all of it."""
    setup = scenes.make_setup(13, size=(1280, 720), tilt=15.0)
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    lower = upper = 0
    for k in range(3):
        scene = scenes.make_scene(setup, letele_deck, k, force=frozenset({"stacked"}))
        found = detect_on_table(scene.image, table, aspect=letele_recogniser.aspect,
                                card_height=setup.layout().card_height)
        for quad, whole in zip(found.quads, found.whole, strict=True):
            value, i = _best(quad, [c.corners for c in scene.cards])
            card = scene.cards[i]
            if value < 0.8 or card.group != "stacked":
                continue
            if card.visible < 0.7:
                lower += 1
                assert not whole
            elif card.visible == 1.0:
                upper += whole
    assert lower >= 4
    assert upper >= 4


def test_touching_board_cards_are_outlined_to_their_own_edges(
        letele_deck: dict[str, np.ndarray], letele_recogniser: Recogniser) -> None:
    """A touching board at 640x480: between two cards the side steps down into the dark gap
    and the next card's edge steps back up, as strong; the card's own edge is the step from
    its level towards the gap. (Before, the middle card's side went to its neighbour's edge:
    a corner 6.9 pixels off, on a card 40 pixels tall.)"""
    setup = scenes.make_setup(20, size=(640, 480), tilt=5.0)
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    scene = scenes.make_scene(setup, letele_deck, 2)
    found = detect_on_table(scene.image, table, aspect=letele_recogniser.aspect,
                            card_height=setup.layout().card_height)
    board = [c for c in scene.cards if c.group == "board"]
    assert len(board) == 3
    for card in board:
        value, j = _best(card.corners, found.quads)
        assert value >= 0.9
        corners = np.asarray(card.corners)
        off = np.linalg.norm(corners[:, None] - found.quads[j][None], axis=2).min(axis=1)
        assert float(off.max()) < 1.0


def test_a_lone_card_under_a_steep_camera_is_outlined_at_its_corners(
        letele_deck: dict[str, np.ndarray], letele_recogniser: Recogniser) -> None:
    """Under a camera 40 degrees off vertical a card turned on the table is a trapezoid in
    the picture: its smallest box there runs along none of its sides, and the sides fitted
    from it put corners 16 to 18 pixels off. The box is taken in the table's plane, where the
    card is a rectangle."""
    setup = scenes.make_setup(30, size=(1280, 720), tilt=40.0)
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    scene = scenes.make_scene(setup, letele_deck, 0)
    found = detect_on_table(scene.image, table, aspect=letele_recogniser.aspect,
                            card_height=setup.layout().card_height)
    lone = 0
    for card in scene.cards:
        if card.visible < 0.99 or card.group != "single":
            continue
        value, j = _best(card.corners, found.quads)
        assert value >= 0.8
        if found.peeled[j]:
            continue
        lone += 1
        corners = np.asarray(card.corners)
        off = np.linalg.norm(corners[:, None] - found.quads[j][None], axis=2).min(axis=1)
        assert float(off.max()) < 2.0
    assert lone >= 8


def test_plain_backs_peeled_from_a_blurred_pile_are_kept_by_their_colour(
        letele_deck: dict[str, np.ndarray], letele_recogniser: Recogniser) -> None:
    """Motion blur leaves a back's lattice plain, as plain as a sleeve; an outline inferred
    inside a blob that is plain is still a card when its colour says the deck's back (its
    face-or-back evidence at least 1.0). (Before, the burn pile and a pair beside another were
    dropped: six of the nine cards in view found, now all.)"""
    setup = scenes.make_setup(47, size=(1280, 720))
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    scene = scenes.make_scene(setup, letele_deck, 1)
    assert "blur" in scene.conditions
    view = FrameAnalyser(letele_recogniser, layout=setup.layout(), table=table).view(scene.image)
    shown = [c for c in scene.cards if c.visible >= 0.6]
    assert len(shown) == 9
    for card in shown:
        value, j = _best(card.corners, [s.corners for s in view.cards])
        assert value >= 0.8
        assert view.cards[j].label == "back"
    assert len(view.cards) == 9
