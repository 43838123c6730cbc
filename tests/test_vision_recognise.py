"""Enrolment and recognition on a deck the simulator does not use (CC0 letele design).

A small seeded subset of the kind of frames the benchmark measures (vision.synth: perspective,
rotation up to 15 degrees, upside-down cards, touching board cards, glare, blur, noise, JPEG):
24 frames, about 430 cards of which 110 face up. Face or back and the card count must be right
everywhere (goals 99.9% and 99.5%); identity must reach 99% (goal 99.5%, measured on 2,400
face-up cards by benchmarks/bench_vision.py): one blurred low spade read as a club, the
benchmark's remaining failure mode, is allowed, two are not. Eleven of the frames show a face-up
joker (the deck's two joker designs, rules.md §5): every one must be read as a joker, and no card
as a joker.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import render, synth
from vision.analyse import FrameAnalyser
from vision.detect import detect_cards, order_corners
from vision.layout import default_layout
from vision.recognise import CANON, Recogniser
from vision.templates import (
    DeckTemplates,
    EnrolmentError,
    enroll_from_folder,
    enroll_from_frames,
    enroll_from_source,
    load_deck,
    save_deck,
    warp_card,
    warp_cards,
)

DECK = Path(__file__).resolve().parent / "data" / "vision" / "letele" / "cards"


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return Recogniser(enroll_from_folder(DECK, "letele"))


@pytest.fixture(scope="module")
def deck_images() -> dict[str, np.ndarray]:
    return synth.load_deck_images(DECK)


def test_accuracy_goals_on_a_seeded_subset(recogniser: Recogniser,
                                           deck_images: dict[str, np.ndarray]) -> None:
    analyser = FrameAnalyser(recogniser, layout=default_layout())
    faces = faces_ok = cards = face_back_ok = counts_ok = jokers = jokers_ok = false_jokers = 0
    frames = 24
    for seed in range(frames):
        frame = synth.make_frame(deck_images, 700 + seed)
        seen = analyser.analyse(frame.image)
        counts_ok += len(seen) == len(frame.cards)
        for truth in frame.cards:
            centre = truth.corners.mean(axis=0)
            got = min(seen, key=lambda s: float(np.linalg.norm(s.corners.mean(axis=0) - centre)))
            assert float(np.linalg.norm(got.corners.mean(axis=0) - centre)) < 15
            cards += 1
            face_back_ok += (got.label == "back") == (truth.label == "back")
            if truth.label == "joker":
                jokers += 1
                jokers_ok += got.label == "joker"
            elif truth.label != "back":
                faces += 1
                faces_ok += got.label == truth.label
                false_jokers += got.label == "joker"
    assert faces >= 100 and cards >= 380
    assert faces_ok / faces >= 0.99
    assert face_back_ok == cards
    assert counts_ok == frames
    assert jokers >= 8 and jokers_ok == jokers
    assert false_jokers == 0


def test_upside_down_and_turned_cards_read_the_same(recogniser: Recogniser,
                                                    deck_images: dict[str, np.ndarray]) -> None:
    rng = np.random.default_rng(5)
    for label in ("As", "Td", "7c", "Qh", "2s", "9d"):
        for angle in (0.0, 13.0, -14.0, 180.0, 192.0):
            frame = np.zeros((300, 300, 3), np.uint8)
            frame[:] = (38, 112, 30)
            quad = render.card_quad(150, 150, 72, 100, angle)
            render.paste(frame, deck_images[label], quad)
            frame = render.noise(frame, rng, 3.0)
            rec = recogniser.classify(frame, order_corners(quad))
            assert rec.label == label, (label, angle)
            assert rec.face_up and rec.card is not None and str(rec.card) == label


@pytest.mark.parametrize("design", ["joker", "joker2"])
def test_a_face_up_joker_is_read_as_a_joker(recogniser: Recogniser,
                                            deck_images: dict[str, np.ndarray],
                                            design: str) -> None:
    """Both of the deck's joker designs (the coloured one and the outline one), turned and upside
    down, under noise and blur: label "joker", no card, face up (rules.md §5)."""
    rng = np.random.default_rng(11)
    for angle in (0.0, 12.0, -15.0, 180.0, 195.0):
        frame = render.felt(300, 300, rng)
        quad = render.card_quad(150, 150, 72, 100, angle)
        render.paste(frame, deck_images[design], quad)
        frame = render.noise(render.blur(frame, 0.8), rng, 3.0)
        rec = recogniser.classify(frame, order_corners(quad))
        assert rec.label == "joker", (design, angle, rec)
        assert rec.joker and rec.face_up and rec.card is None
        assert rec.margin > 0.05


def test_without_enrolled_jokers_no_card_is_called_a_joker(
        deck_images: dict[str, np.ndarray]) -> None:
    deck = enroll_from_folder(DECK, "letele")
    plain = Recogniser(DeckTemplates(name="plain", faces=deck.faces, back=deck.back))
    assert not plain.has_jokers
    frame = render.felt(300, 300, np.random.default_rng(2))
    quad = render.card_quad(150, 150, 72, 100, 4.0)
    render.paste(frame, deck_images["joker"], quad)
    assert plain.classify(frame, order_corners(quad)).label != "joker"


def test_back_is_told_from_faces(recogniser: Recogniser,
                                 deck_images: dict[str, np.ndarray]) -> None:
    back = cv2.resize(deck_images["back"][:, :, :3], CANON)
    rec = recogniser.classify_warped(np.ascontiguousarray(back))
    assert rec.label == "back" and not rec.face_up and rec.card is None
    assert rec.margin > 0.2


def test_enrolment_round_trip_through_the_store(tmp_path: Path) -> None:
    deck = enroll_from_folder(DECK, "letele")
    assert not deck.missing() and len(deck.faces) == 52
    assert sorted(deck.jokers) == ["joker", "joker2"]
    folder = save_deck(deck, tmp_path)
    assert (folder / "deck.json").is_file() and (folder / "As.png").is_file()
    assert (folder / "joker2.png").is_file()
    again = load_deck("letele", tmp_path)
    assert set(again.faces) == set(deck.faces)
    assert sorted(again.jokers) == ["joker", "joker2"]
    assert np.abs(again.faces["As"].astype(int) - deck.faces["As"].astype(int)).max() <= 1
    assert np.abs(again.jokers["joker2"].astype(int)
                  - deck.jokers["joker2"].astype(int)).max() <= 1
    # A deck stored before jokers were enrolled (no "jokers" in deck.json) still loads.
    meta = json.loads((folder / "deck.json").read_text())
    del meta["jokers"]
    (folder / "deck.json").write_text(json.dumps(meta))
    assert load_deck("letele", tmp_path).jokers == {}
    meta["jokers"] = ["joker", "As"]
    (folder / "deck.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match=r"damaged.*not joker names: As"):
        load_deck("letele", tmp_path)


def test_enrolment_errors_name_the_problem(tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    partial.mkdir()
    for name in ("As.png", "Kd.png"):
        shutil.copy(DECK / name, partial / name)
    with pytest.raises(EnrolmentError, match=r"back\.png is missing"):
        enroll_from_folder(partial, "p")
    shutil.copy(DECK / "back.png", partial / "back.png")
    with pytest.raises(EnrolmentError, match="missing cards: 2s"):
        enroll_from_folder(partial, "p")
    assert len(enroll_from_folder(partial, "p", allow_partial=True).faces) == 2
    (partial / "Zz.png").write_bytes(b"")
    with pytest.raises(EnrolmentError, match=r"Zz\.png"):
        enroll_from_folder(partial, "p", allow_partial=True)
    (partial / "Zz.png").unlink()
    shutil.copy(DECK / "joker.png", partial / "Joker.png")
    assert list(enroll_from_folder(partial, "p", allow_partial=True).jokers) == ["joker"]
    (partial / "jokerx.png").write_bytes(b"")
    with pytest.raises(EnrolmentError, match=r"not cards: jokerx\.png"):
        enroll_from_folder(partial, "p", allow_partial=True)
    (partial / "jokerx.png").unlink()
    shutil.copy(DECK / "joker.png", partial / "joker.jpg")
    with pytest.raises(EnrolmentError, match="a second picture of joker"):
        enroll_from_folder(partial, "p", allow_partial=True)
    (partial / "joker.jpg").unlink()
    (partial / "Qs.png").write_bytes(b"not a png")
    with pytest.raises(EnrolmentError, match=r"Qs\.png: not a readable image"):
        enroll_from_folder(partial, "p", allow_partial=True)
    with pytest.raises(EnrolmentError, match="bad deck name"):
        enroll_from_folder(DECK, "../evil")
    with pytest.raises(EnrolmentError, match="not enrolled"):
        load_deck("nothing", tmp_path)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "deck.json").write_text("{")
    with pytest.raises(EnrolmentError, match="damaged"):
        load_deck("broken", tmp_path)


def test_enrolment_from_camera_photos_card_by_card(deck_images: dict[str, np.ndarray]) -> None:
    """Photos of each card alone on the felt, as the interactive enrolment takes them."""
    def photo(label: str, angle: float) -> np.ndarray:
        frame = render.felt(640, 480, np.random.default_rng(1))
        render.paste(frame, deck_images[label], render.card_quad(320, 240, 144, 200, angle))
        return frame

    labels = ["As", "Kh", "7d", "back"]
    asked: list[str] = []
    shots = iter([photo("As", 5), render.felt(640, 480, np.random.default_rng(2)),  # no card
                  photo("Kh", -8), photo("7d", 3), photo("back", 0), photo("joker", 2),
                  photo("joker2", -4)])

    def ask(label: str) -> bool:
        asked.append(label)
        return True

    deck = enroll_from_source(lambda: next(shots), "cam", ask, labels, jokers=2)
    # the empty frame is asked for again; the jokers come last
    assert asked == ["As", "Kh", "Kh", "7d", "back", "joker", "joker2"]
    assert set(deck.faces) == {"As", "Kh", "7d"}
    assert sorted(deck.jokers) == ["joker", "joker2"]
    # The cut-out photo matches the scan it came from.
    scan = enroll_from_folder(DECK, "letele").faces["Kh"]
    a = cv2.resize(deck.faces["Kh"], CANON).astype(np.float32)
    b = cv2.resize(scan, CANON).astype(np.float32)
    a, b = (a - a.mean()).ravel(), (b - b.mean()).ravel()
    assert float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)) > 0.9 or float(
        a @ b[::-1] / np.linalg.norm(a) / np.linalg.norm(b)) > 0.9
    with pytest.raises(EnrolmentError, match="aborted at As"):
        enroll_from_source(lambda: None, "cam", lambda label: False, labels)
    with pytest.raises(EnrolmentError, match="the back was not captured"):
        enroll_from_frames([("As", photo("As", 0))], "cam")
    with pytest.raises(EnrolmentError, match="'Zz' is not a card, the back or a joker"):
        enroll_from_frames([("Zz", photo("As", 0))], "cam")


def test_warp_straightens_the_card(deck_images: dict[str, np.ndarray]) -> None:
    frame = render.felt(400, 400, np.random.default_rng(3))
    quad = render.card_quad(200, 200, 144, 200, 10.0)
    render.paste(frame, deck_images["Qd"], quad, shadow=0.0)
    warped = warp_card(frame, order_corners(quad), (144, 200))
    flat = synth.load_deck_images(DECK)["Qd"]
    ref = cv2.resize(flat[:, :, :3], (144, 200)).astype(int)
    inner = (slice(20, -20), slice(20, -20))
    diff = np.minimum(np.abs(warped.astype(int) - ref)[inner].mean(),
                      np.abs(warped[::-1, ::-1].astype(int) - ref)[inner].mean())
    assert diff < 20


def test_warp_cards_stacks_what_warp_card_gives_one_by_one(
        deck_images: dict[str, np.ndarray]) -> None:
    frame = synth.make_frame(deck_images, 701).image
    quads = detect_cards(frame)
    assert len(quads) >= 10
    stacked = warp_cards(frame, quads, CANON)
    assert stacked.shape == (CANON[1] * len(quads), CANON[0], 3)
    for i, quad in enumerate(quads):
        one = warp_card(frame, quad, CANON).astype(int)
        part = stacked[i * CANON[1]:(i + 1) * CANON[1]].astype(int)
        # Sampling positions are rounded to 1/32 pixel both ways, with slightly different
        # float arithmetic: at most a rare pixel on a sharp edge differs, and by a few levels.
        assert np.abs(part - one).max() <= 8
        assert (part != one).mean() < 0.01
    assert warp_cards(frame, [], CANON).shape == (0, CANON[0], 3)
    # More cards than one cv2.remap call can take (maps under 32,767 rows): sampled in slices.
    many = [quads[i % len(quads)] for i in range(400)]
    tall = warp_cards(frame, many, CANON)
    assert tall.shape == (CANON[1] * 400, CANON[0], 3)
    assert np.array_equal(tall[-CANON[1]:], stacked[(399 % len(quads)) * CANON[1]:][:CANON[1]])


def test_reading_a_frame_in_one_batch_gives_each_card_s_own_reading(
        recogniser: Recogniser, deck_images: dict[str, np.ndarray]) -> None:
    frame = synth.make_frame(deck_images, 703).image
    quads = detect_cards(frame)
    batch = recogniser.classify_many(frame, quads)
    assert len(batch) == len(quads) and any(r.face_up for r in batch)
    for quad, rec in zip(quads, batch, strict=True):
        alone = recogniser.classify(frame, quad)
        assert alone.label == rec.label
        assert abs(alone.score - rec.score) < 1e-4
    faces = [warp_card(frame, q, CANON) for q, r in zip(quads, batch, strict=True) if r.face_up]
    labels = [r.label for r in recogniser.classify_cards(faces)]
    assert labels == [recogniser.classify_warped(f).label for f in faces]
    assert recogniser.classify_many(frame, []) == []


def test_reading_on_halves_already_straightened_is_the_same(
        recogniser: Recogniser, deck_images: dict[str, np.ndarray]) -> None:
    # The analyser straightens every card at half size once and hands that to the reading:
    # the readings must be those the reading makes on its own, and halves of other cards
    # are refused.
    frame = synth.make_frame(deck_images, 704).image
    quads = detect_cards(frame)
    assert len(quads) >= 5
    half = (CANON[0] // 2, CANON[1] // 2)
    halves = warp_cards(frame, quads, half)
    own = recogniser.classify_many(frame, quads)
    given = recogniser.classify_many(frame, quads, halves=halves)
    assert [(r.label, r.score, r.margin) for r in given] == [
        (r.label, r.score, r.margin) for r in own]
    # Face or back is told from the halves given, whatever the outlines given with them.
    ups = [r.face_up for r in own]
    assert ups != ups[1:] + ups[:1]  # faces and backs: turning the outlines changes them
    swapped = recogniser.classify_many(frame, quads[1:] + quads[:1], halves=halves)
    assert [r.face_up for r in swapped] == ups
    with pytest.raises(ValueError, match="halves"):
        recogniser.classify_many(frame, quads[:-1], halves=halves)
