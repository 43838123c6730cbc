"""The simulator's virtual camera through the real vision code: sources, detection, tracking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hw_sim.devices import card_art
from hw_sim.devices.camera import SceneCard, VirtualCamera
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, Face, Source
from vision.analyse import FrameAnalyser
from vision.detect import FrameError, detect_cards, order_corners
from vision.recognise import Recogniser
from vision.sources import FrameSourceError, VideoCaptureSource, open_source
from vision.templates import enroll_from_folder
from vision.tracker import CardTracker


@pytest.fixture(scope="module")
def sim_recogniser(tmp_path_factory: pytest.TempPathFactory) -> Recogniser:
    folder = tmp_path_factory.mktemp("simdeck")
    card_art.write_deck(str(folder))
    return Recogniser(enroll_from_folder(folder, "sim"))


def _c(text: str) -> SceneCard:
    card, zone, slot, face = text.split()
    return SceneCard(None if card == "?" else parse_card(card), zone, int(slot), face == "up")


SCENE = [_c(t) for t in (
    "As board 0 up", "Kd board 1 up", "Th board 2 up", "9c board 3 up",
    "2c seat1 0 down", "? seat1 1 down", "7s seat5 0 up", "Qh seat5 1 up",
    "? burn 0 down", "3d muck 1 up",
)]


def _corner_error(found: list[np.ndarray], truth: np.ndarray) -> float:
    t = order_corners(truth)
    best = min(found, key=lambda q: float(np.abs(q.mean(axis=0) - t.mean(axis=0)).sum()))
    return min(float(np.abs(np.roll(best, k, axis=0) - t).max()) for k in (0, 2))


def test_frames_are_the_layout_size_and_reproducible() -> None:
    cam = VirtualCamera(seed=7, clock=lambda: 12.5)
    cam.set_scene(SCENE)
    a, b = cam.read(), cam.read()
    assert a.image.shape == (720, 1280, 3) and a.image.dtype == np.uint8
    assert (a.t, a.index, b.index) == (12.5, 0, 1)
    assert np.array_equal(cam.render(frame_index=0), a.image)
    assert not np.array_equal(a.image, b.image)  # fresh sensor noise per frame


@pytest.mark.parametrize("noise", [0.0, 2.0])
def test_a_caching_camera_renders_the_frames_a_fresh_one_does(noise: float) -> None:
    """Frames from a camera that keeps frames and felts with cards laid (``cache``) equal, to
    the byte, those of one that renders each afresh: cards dealt one by one with the stub's top
    card drawn last, covers laid and lifted, a card lifted and put back, a card turned over,
    a card taken away, a scene seen before; with noise, each frame index its own."""
    from hw_sim.devices.camera import Cover
    from hw_sim.devices.camera_chain import stub_layout

    cached = VirtualCamera(layout=stub_layout(), seed=9, noise_sigma=noise, cache=3,
                           felt="printed", light="warm")
    fresh = VirtualCamera(layout=stub_layout(), seed=9, noise_sigma=noise, felt="printed",
                          light="warm")
    stub = [_c("? shuffler 0 down"), _c("5h shuffler 0 up")]
    dealt: list[SceneCard] = []
    scenes: list[tuple[list[SceneCard], list[Cover]]] = [([stub[0]], [])]
    for k, card in enumerate(SCENE[3:]):
        dealt.append(card)
        scenes.append(([*dealt, stub[k % 2]], []))
    seat = [Cover("seat1", "chip"), Cover("seat5", "hand")]
    scenes += [(dealt, seat[:1]), (dealt, seat), (dealt, seat[:1])]
    lifted = [SceneCard(c.card, c.zone, c.slot, c.face_up, lifted=c.zone == "seat5")
              for c in dealt]
    scenes += [(lifted, seat), (dealt, seat), (dealt, [])]
    turned = [SceneCard(c.card, c.zone, c.slot, not c.face_up) if c.zone == "seat1" else c
              for c in dealt]
    scenes += [(turned, []), (dealt[:3] + dealt[4:], []), (dealt, []), ([], []),
               ([*dealt, stub[1]], [])]
    for index, (scene, covers) in enumerate(scenes):
        for again in (0, 1):   # the same scene twice: the frame kept, or with noise a new one
            frame_index = index * 2 + again if noise else 0
            assert np.array_equal(cached.render(scene, frame_index=frame_index, covers=covers),
                                  fresh.render(scene, frame_index=frame_index, covers=covers)
                                  ), f"scene {index}"
    assert len(cached._canvases) <= 3 and len(cached._frames) <= 3
    kept = cached.render(scenes[-1][0])
    kept[:] = 0                     # a frame given out is the caller's own
    assert np.array_equal(cached.render(scenes[-1][0]), fresh.render(scenes[-1][0]))


@pytest.mark.parametrize("shadow", [0.35, 0.0])
def test_a_card_laid_from_its_sprite_is_the_card_pasted(shadow: float) -> None:
    """vision.render.paste is now a sprite (the card warped, its shadow and alpha worked out)
    laid on the frame, so a card lying still is warped once; the frame is the one the single
    pass gave, to the byte, on the frame's edge too."""
    import math

    import cv2

    from vision import render

    rng = np.random.default_rng(5)
    card = card_art.face(parse_card("Qh"))
    for cx, cy, angle in ((320.0, 240.0, 7.0), (10.0, 470.0, -20.0), (639.0, 5.0, 45.0)):
        quad = render.card_quad(cx, cy, 72, 100, angle)
        frame = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
        laid = frame.copy()
        render.paste(laid, card, quad, shadow=shadow)
        # the single pass, as it was
        h, w = frame.shape[:2]
        x0 = max(math.floor(float(quad[:, 0].min())) - 4, 0)
        y0 = max(math.floor(float(quad[:, 1].min())) - 4, 0)
        x1 = min(math.ceil(float(quad[:, 0].max())) + 5, w)
        y1 = min(math.ceil(float(quad[:, 1].max())) + 5, h)
        ch, cw = card.shape[:2]
        src = np.array([(0, 0), (cw, 0), (cw, ch), (0, ch)], np.float32)
        m = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0], np.float32)))
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(card, m, size, flags=cv2.INTER_AREA if cw > size[0] else
                                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=0)
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        roi = frame[y0:y1, x0:x1].astype(np.float32)
        if shadow > 0:
            sh = cv2.GaussianBlur(alpha[:, :, 0], (0, 0), 1.6)
            sh = np.roll(sh, (1, 1), axis=(0, 1))[:, :, None]
            roi *= 1.0 - shadow * sh
        roi = roi * (1.0 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
        frame[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
        assert np.array_equal(laid, frame)


@pytest.mark.parametrize(("palm", "edge"), [((600.0, 500.0), (620.0, 780.0)),
                                             ((80.0, 60.0), (40.0, -60.0))])
def test_a_hand_is_shaded_only_where_its_shadow_falls(palm: tuple[float, float],
                                                      edge: tuple[float, float]) -> None:
    """A hand and arm drawn over a frame (vision.props.draw_reach) shade only the box their
    shadow covers; the frame is the one shading all of it gives, to the byte."""
    import math

    import cv2

    from vision import props

    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    hand, arm = props.hand_shapes(palm, math.atan2(palm[1] - edge[1], palm[0] - edge[0]), 3.0,
                                  np.array(edge), np.random.default_rng(4))
    shadow = np.array([24.0, 30.0])
    drawn, ids = frame.copy(), np.zeros((720, 1280), np.int16)
    props.draw_reach(drawn, ids, hand, arm, 1, props.SKIN[1], props.SLEEVES[2], shadow)
    # the reference: the shadow over the whole frame, then the same shapes
    expected, ids2 = frame.copy(), np.zeros((720, 1280), np.int16)
    dark = np.zeros((180, 320), np.uint8)
    for poly in [*hand, *arm]:
        cv2.fillPoly(dark, [np.round((poly + shadow) / 4).astype(np.int32)], 255)
    full = cv2.resize(cv2.GaussianBlur(dark, (0, 0), 1.5), (1280, 720),
                      interpolation=cv2.INTER_LINEAR)
    shade = 1 - 0.45 * full.astype(np.float32)[:, :, None] / 255.0
    expected[:] = (expected.astype(np.float32) * shade).astype(np.uint8)
    for poly in arm:
        props.fill(expected, poly, props.SLEEVES[2])
        props.mark(ids2, poly, 1)
    for poly in hand:
        props.fill(expected, poly, props.SKIN[1])
        props.mark(ids2, poly, 1)
    darker = props.SKIN[1]
    for poly in hand[1:]:
        props.polyline(expected, poly, (int(darker[0] * 0.8), int(darker[1] * 0.8),
                                        int(darker[2] * 0.8)), 1)
    assert np.array_equal(drawn, expected) and np.array_equal(ids, ids2)
    assert not np.array_equal(drawn, frame)


def test_scene_with_a_bad_zone_or_slot_is_refused() -> None:
    cam = VirtualCamera()
    with pytest.raises(ValueError, match="kitchen"):
        cam.set_scene([SceneCard(None, "kitchen", 0)])
    with pytest.raises(ValueError, match="no slot 5"):
        cam.set_scene([SceneCard(None, "board", 5)])


def test_detector_finds_touching_board_cards_with_exact_corners() -> None:
    cam = VirtualCamera(seed=1)
    board = [SceneCard(parse_card(c), "board", i, True, rotation=0.0, offset=(-10.0 * i, 0.0))
             for i, c in enumerate(["As", "Kd", "Th", "9c"])]  # slots 10 px apart: they touch
    quads = detect_cards(cam.render(board))
    assert len(quads) == 4
    for sc in board:
        assert _corner_error(quads, cam.quad_of(sc)) < 2.0


def test_analyser_reads_every_card_and_its_zone(sim_recogniser: Recogniser) -> None:
    cam = VirtualCamera(seed=2)
    cam.set_scene(SCENE)
    seen = FrameAnalyser(sim_recogniser, layout=cam.layout).analyse(cam.read().image)
    got = sorted((s.zone or "-", s.label) for s in seen)
    want = sorted((sc.zone, str(sc.card) if sc.face_up and sc.card else "back") for sc in SCENE)
    assert got == want
    for sc in SCENE:
        assert _corner_error([s.corners for s in seen], cam.quad_of(sc)) < 3.0


def test_cloth_of_another_colour(sim_recogniser: Recogniser) -> None:
    # A red cloth (BGR): the felt's colour is taken from the frame, not assumed green.
    cam = VirtualCamera(seed=5, felt=(35, 30, 120))
    cam.set_scene(SCENE)
    seen = FrameAnalyser(sim_recogniser, layout=cam.layout).analyse(cam.read().image)
    got = sorted((s.zone or "-", s.label) for s in seen)
    want = sorted((sc.zone, str(sc.card) if sc.face_up and sc.card else "back") for sc in SCENE)
    assert got == want


def test_tracker_on_camera_frames_emits_rfid_like_observations(
        sim_recogniser: Recogniser) -> None:
    t = [100.0]
    cam = VirtualCamera(seed=3, clock=lambda: t[0])
    analyser = FrameAnalyser(sim_recogniser, layout=cam.layout)
    tracker = CardTracker(confirm_frames=3, drop_frames=2, deck="sim")
    flop = [_c("As board 0 up"), _c("Kd board 1 up"), _c("Th board 2 up"),
            _c("? seat2 0 down")]
    cam.set_scene(flop)
    events = []
    for _ in range(3):
        frame = cam.read()
        events += tracker.update(analyser.analyse(frame.image), frame.t)
        t[0] += 1 / 30
    placed = sorted((e.zone, str(e.card) if e.card else None, e.face) for e in events)
    assert placed == [("board", "As", Face.UP), ("board", "Kd", Face.UP),
                      ("board", "Th", Face.UP), ("seat2", None, Face.DOWN)]
    assert all(e.event is CardEvent.PLACED and e.source is Source.CAMERA and e.deck == "sim"
               for e in events)
    assert [e.t for e in events] == pytest.approx([100.0 + 2 / 30] * 4)
    # The seat's card is turned over: it flips after three frames, same key.
    key = next(e.key for e in events if e.zone == "seat2")
    cam.set_scene([*flop[:3], _c("8h seat2 0 up")])
    flips = []
    for _ in range(3):
        frame = cam.read()
        flips += tracker.update(analyser.analyse(frame.image), frame.t)
    assert [(e.event, e.key, str(e.card), e.face) for e in flips] == [
        (CardEvent.FLIPPED, key, "8h", Face.UP)]


JOKERS = [SceneCard(None, "board", 3, True, joker=True), SceneCard(None, "seat4", 0, True,
                                                                   joker=True, rotation=180.0),
          SceneCard(None, "muck", 0, True, joker=True), SceneCard(None, "seat4", 1, False,
                                                                  joker=True)]


def test_the_simulators_deck_includes_its_joker(tmp_path: Path) -> None:
    card_art.write_deck(str(tmp_path))
    assert (tmp_path / "joker.png").is_file()
    deck = enroll_from_folder(tmp_path, "sim")
    assert list(deck.jokers) == ["joker"] and not deck.missing()


def test_a_joker_scene_card_draws_the_joker_face_up_and_a_back_face_down() -> None:
    up, down = SceneCard(None, "board", 0, True, joker=True), JOKERS[3]
    assert up.art() is card_art.joker() and down.art() is card_art.back()
    assert SceneCard(parse_card("As"), "board", 0, True).art() is card_art.face(parse_card("As"))
    assert SceneCard(None, "board", 0, True).art() is card_art.back()  # unknown card
    with pytest.raises(ValueError, match="a joker has no rank or suit"):
        SceneCard(parse_card("As"), "board", 0, True, joker=True)


def test_face_up_jokers_are_read_as_jokers_among_cards(sim_recogniser: Recogniser) -> None:
    """rules.md §5: a face-up joker on the board, on a seat (upside down) and in the muck is
    read as "joker", next to real cards; a face-down joker is a back."""
    for seed in (2, 8):
        cam = VirtualCamera(seed=seed)
        scene = [sc for sc in SCENE if (sc.zone, sc.slot) not in (("board", 3), ("muck", 0))]
        scene += JOKERS
        cam.set_scene(scene)
        seen = FrameAnalyser(sim_recogniser, layout=cam.layout).analyse(cam.read().image)
        got = sorted((s.zone or "-", s.label) for s in seen)
        want = sorted((sc.zone, "joker" if sc.joker and sc.face_up
                       else str(sc.card) if sc.face_up and sc.card else "back") for sc in scene)
        assert got == want
        assert all(s.card is None and s.face_up for s in seen if s.joker)


def test_tracker_reports_a_joker_turned_up_on_the_board(sim_recogniser: Recogniser) -> None:
    cam = VirtualCamera(seed=4)
    analyser = FrameAnalyser(sim_recogniser, layout=cam.layout)
    tracker = CardTracker(confirm_frames=2, deck="sim")
    flop = [_c("As board 0 up"), _c("Kd board 1 up"), _c("Th board 2 up")]
    events = []
    for scene in (flop, flop, [*flop, JOKERS[0]], [*flop, JOKERS[0]]):
        cam.set_scene(scene)
        frame = cam.read()
        events += tracker.update(analyser.analyse(frame.image), float(frame.index))
    jokers = [e for e in events if e.joker]
    assert [(e.event, e.zone, e.card, e.face, e.t) for e in jokers] == [
        (CardEvent.PLACED, "board", None, Face.UP, 3.0)]
    assert sorted(str(e.card) for e in events if not e.joker) == ["As", "Kd", "Th"]


def test_remembering_analyser_reads_only_what_changed(sim_recogniser: Recogniser) -> None:
    cam = VirtualCamera(seed=6)
    analyser = FrameAnalyser(sim_recogniser, layout=cam.layout, remember=True)
    cam.set_scene(SCENE)
    first = analyser.analyse(cam.read().image)
    assert analyser.read_count == len(SCENE)
    for _ in range(2):
        again = analyser.analyse(cam.read().image)  # fresh sensor noise, same cards
        assert sorted(s.label for s in again) == sorted(s.label for s in first)
    assert analyser.read_count == len(SCENE)
    # The seat-1 card is turned over in place: only it is read again, and read right.
    turned = [sc if (sc.zone, sc.slot) != ("seat1", 0) else _c("2c seat1 0 up") for sc in SCENE]
    cam.set_scene(turned)
    seen = analyser.analyse(cam.read().image)
    assert analyser.read_count == len(SCENE) + 1
    assert sorted((s.zone, s.label) for s in seen if s.zone == "seat1") == [
        ("seat1", "2c"), ("seat1", "back")]


def test_video_file_round_trip_through_videocapture(tmp_path: Path,
                                                    sim_recogniser: Recogniser) -> None:
    cam = VirtualCamera(seed=4)
    path = cam.write_video(tmp_path / "deal.avi", [SCENE[:2], SCENE[:4]], frames_per_scene=2)
    source = VideoCaptureSource(str(path), clock=lambda: 5.0)
    analyser = FrameAnalyser(sim_recogniser, layout=cam.layout)
    counts = []
    try:
        while (frame := source.read()) is not None:
            assert frame.image.shape == (720, 1280, 3)
            counts.append(sorted(s.label for s in analyser.analyse(frame.image)))
    finally:
        source.close()
    assert counts == [["As", "Kd"]] * 2 + [sorted(["As", "Kd", "Th", "9c"])] * 2


def test_open_source_sim_and_bad_sources(tmp_path: Path) -> None:
    src = open_source("sim")
    frame = src.read()
    assert frame is not None and frame.image.shape == (720, 1280, 3)
    assert detect_cards(frame.image) == []  # empty felt
    src.close()
    with pytest.raises(FrameSourceError, match=r"nope\.avi"):
        open_source(str(tmp_path / "nope.avi"))


@pytest.mark.parametrize("bad", [None, np.zeros((10, 10, 3), np.uint8),
                                 np.zeros((100, 100), np.uint8),
                                 np.zeros((100, 100, 3), np.float32)])
def test_malformed_frames_raise_a_clear_error(bad: object) -> None:
    with pytest.raises(FrameError, match="frame"):
        detect_cards(bad)  # type: ignore[arg-type]
