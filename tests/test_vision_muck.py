"""A muck pile whose top card has none of its corners on the pile's outline: they lie over the
cards under it. The peeling took its possible cards from the outline's corners only, so that
card was never looked for, and the pile was counted a card short. It is found now from the
straight edges inside the pile that meet square (:mod:`vision.junctions`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision_table import iou
from vision import render, scenes
from vision.analyse import FrameAnalyser
from vision.junctions import junction_rects
from vision.recognise import Recogniser


@pytest.mark.parametrize(("seed", "felt", "tilt"), [(1, "green", 10.0), (2, "blue", 25.0),
                                                   (3, "printed", 0.0)])
def test_the_top_card_of_a_pile_is_found_inside_it(
        letele_deck: dict[str, np.ndarray], letele_recogniser: Recogniser, seed: int, felt: str,
        tilt: float) -> None:
    back = letele_deck["back"]
    aspect = back.shape[1] / back.shape[0]
    h = scenes.CARD_MM
    w = h * aspect
    setup = scenes.make_setup(seed, size=(1280, 720), felt=felt, tilt=tilt)
    table = scenes.calibrated_table(setup, letele_deck, aspect=aspect)
    analyser = FrameAnalyser(letele_recogniser, layout=setup.layout(), table=table)
    u, v = scenes.zone_centre("muck")
    rng = np.random.default_rng(seed)
    # Four backs pushed together, a little apart each way, and one on top of them turned by
    # 12 to 20 degrees: its corners all lie over the four, none on the pile's outline.
    laid = [("back", render.card_quad(u + sx * 0.08 * h, v + sy * 0.12 * h, w, h,
                                      float(rng.uniform(-4, 4))))
            for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))]
    top = render.card_quad(u, v, w, h, float(rng.uniform(12, 20)))
    laid.append(("back", top))
    view = analyser.view(scenes.render_laid(setup, letele_deck, laid))
    truth = [setup.to_image(np.asarray(q, np.float32)) for _, q in laid]
    top_seen = truth[-1]
    muck = [c for c in view.cards if c.zone == "muck"]
    assert view.occluded == frozenset()
    assert all(c.label == "back" for c in muck)
    # The top card is found: a card found is nearer it than any of the four (which it
    # overlaps at 0.6 to 0.7), and near it (its corners found where two edges meet, not
    # snapped to the outline as a lone card's are).
    assert any(iou(top_seen, c.corners) >= 0.75
               and iou(top_seen, c.corners) > max(iou(t, c.corners) for t in truth[:-1])
               for c in muck)
    # Nothing made up: every card found is one of the pile's.
    assert all(max(iou(t, c.corners) for t in truth) >= 0.5 for c in muck)


def test_two_edges_meeting_square_make_a_card_corner_either_way_round() -> None:
    """Two cards drawn on a window, the upper lying over the lower (the plane is the window
    itself, a card height 100 pixels): the upper card's corners over the lower card, where
    its sides meet square, are corners of possible cards, upright and lying, running along
    both sides; where the lower card's side ends under the upper card's (a T, one stroke
    running on past the meeting) is none, nor a corner of 60 degrees."""
    aspect = 0.7
    to_plane_h = np.diag([0.01, 0.01, 1.0])
    mask = np.ones((200, 200), np.uint8)
    grey = np.full((200, 200), 60, np.uint8)
    cv2.rectangle(grey, (20, 100), (180, 190), 120, -1)  # the lower card
    cv2.rectangle(grey, (60, 20), (140, 130), 200, -1)  # the upper card, over it
    grey = np.asarray(cv2.GaussianBlur(grey, (3, 3), 0), np.uint8)
    rects = junction_rects(grey, mask, to_plane_h, aspect)

    def at(x: float, y: float) -> list[np.ndarray]:
        return [r for r in rects if np.abs(r[0] - (x, y)).max() < 0.03]

    for x, y, right, down in ((0.6, 1.3, 1, -1), (1.4, 1.3, -1, -1)):
        found = at(x, y)
        sizes = {tuple(sorted((round(float(np.linalg.norm(r[1] - r[0])), 2),
                               round(float(np.linalg.norm(r[3] - r[0])), 2)))) for r in found}
        assert sizes == {(aspect, 1.0)}
        assert len(found) == 2  # upright and lying
        # The card runs from the corner along both sides: into the upper card.
        assert all(np.sign(r[2] - r[0]).tolist() == [right, down] for r in found)
    assert at(0.6, 1.0) == [] and at(1.4, 1.0) == []  # the Ts
    slant = np.full((200, 200), 60, np.uint8)
    cv2.fillPoly(slant, [np.array([(40, 40), (150, 40), (205, 135), (95, 135)], np.int32)], 200)
    assert not any(np.abs(r[0] - (0.4, 0.4)).max() < 0.05 or np.abs(r[0] - (1.5, 0.4)).max()
                   < 0.05 for r in junction_rects(slant, mask, to_plane_h, aspect))
    # Off the blob, nothing; nor on an empty or a plain window.
    assert len(junction_rects(grey, np.zeros_like(mask), to_plane_h, aspect)) == 0
    empty = np.zeros((0, 5), np.uint8)
    assert len(junction_rects(empty, empty, to_plane_h, aspect)) == 0
    plain = np.full((40, 40), 90, np.uint8)
    assert len(junction_rects(plain, np.ones_like(plain), to_plane_h, aspect)) == 0
