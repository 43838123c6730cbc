"""Reading cards under the room's light: a white balance, a dim room, a small blurred back.

The recogniser is used through its public API (``Recogniser.classify_cards`` for straightened
cards, ``classify_many`` for cards in a frame) on the CC0 letele deck (tests/data/vision/letele);
everything is seeded.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from table_controller.vocabulary.cards import DECK as CARDS
from vision import render, synth
from vision.recognise import CANON, Recogniser, hidden_mask
from vision.templates import DeckTemplates, enroll_from_folder

DECK = Path(__file__).resolve().parent / "data" / "vision" / "letele" / "cards"


@pytest.fixture(scope="module")
def deck() -> DeckTemplates:
    return enroll_from_folder(DECK, "letele")


@pytest.fixture(scope="module")
def recogniser(deck: DeckTemplates) -> Recogniser:
    return Recogniser(deck)


@pytest.fixture(scope="module")
def deck_images() -> dict[str, np.ndarray]:
    return synth.load_deck_images(DECK)


def _lit(card: np.ndarray, gains: tuple[float, float, float], rng: np.random.Generator
         ) -> np.ndarray:
    """A straightened card under a light of these channel gains (B, G, R), a little blurred,
    with sensor noise and JPEG, as a camera gives it."""
    f = card.astype(np.float32) * np.array(gains, np.float32)
    f = np.asarray(cv2.GaussianBlur(f, (0, 0), 0.7), np.float32) + rng.normal(
        0, 3, f.shape).astype(np.float32)
    return render.jpeg(np.asarray(np.clip(f, 0, 255), np.uint8), 80)


@pytest.mark.parametrize(("light", "gains"), [
    ("cool", (1.25, 1.0, 0.7)), ("warm", (0.7, 0.95, 1.25)), ("dim warm", (0.27, 0.36, 0.46))])
def test_white_balance_and_dim_light_leave_every_card_read(
        recogniser: Recogniser, deck: DeckTemplates, light: str,
        gains: tuple[float, float, float]) -> None:
    rng = np.random.default_rng(14)
    labels = [str(c) for c in CARDS]
    cards = []
    for k, label in enumerate(labels):
        card = cv2.resize(deck.faces[label], CANON, interpolation=cv2.INTER_AREA)
        if k % 2:
            card = cv2.rotate(card, cv2.ROTATE_180)
        cards.append(_lit(card, gains, rng))
    read = [r.label for r in recogniser.classify_cards(cards)]
    wrong = [(want, got) for want, got in zip(labels, read, strict=True) if want != got]
    assert wrong == [], f"{light}: {wrong}"


def test_a_small_blurred_lattice_back_is_a_back(recogniser: Recogniser,
                                                 deck_images: dict[str, np.ndarray]) -> None:
    """The deck's back is a fine red lattice: seen 30 to 40 pixels tall and blurred, its
    pattern is gone (the grey thumbnail correlates with nothing), its colour is not."""
    rng = np.random.default_rng(7)
    wrong = []
    for k in range(12):
        frame = render.felt(640, 480, rng)
        height = float(rng.uniform(30, 40))
        quad = render.card_quad(320.0, 240.0, height * 0.714, height, float(rng.uniform(-20, 20)))
        render.paste(frame, deck_images["back"], quad)
        frame = render.blur(frame, float(rng.uniform(1.0, 1.8)))
        frame = render.jpeg(render.noise(frame, rng, 3.0), 80)
        got = recogniser.classify_many(frame, [quad])[0]
        if got.label != "back":
            wrong.append((k, got.label))
    assert wrong == []


def test_a_card_half_under_another_is_read_from_its_corner_in_view(
        recogniser: Recogniser, deck_images: dict[str, np.ndarray]) -> None:
    """The lower card of a stacked pair: another card covers its top-left index and 60% of
    it. Told what is hidden (``hidden_mask`` of the card lying over it), the reader reads the
    bottom-right index and the part in view (without it, most of these are misread)."""
    rng = np.random.default_rng(3)
    labels = [str(c) for c in CARDS]
    wrong = []
    for k in range(26):
        lower, upper = labels[(2 * k) % 52], labels[(2 * k + 19) % 52]
        frame = render.felt(1280, 720, rng)
        quad = render.card_quad(640.0, 360.0, 71.4, 100.0, float(rng.uniform(-10, 10)))
        over = render.card_quad(640.0 - 16.0, 360.0 - 26.0, 71.4, 100.0,
                                float(rng.uniform(-10, 10)))
        render.paste(frame, deck_images[lower], quad)
        render.paste(frame, deck_images[upper], over)
        frame = render.jpeg(render.noise(frame, rng, 2.0), 85)
        got = recogniser.classify_many(frame, [quad], [hidden_mask(quad, [over])])[0]
        if got.label != lower:
            wrong.append((lower, got.label))
    assert wrong == []
