"""The simulator's own card design, drawn with OpenCV primitives (no image files).

Faces are white with a grey edge, the rank and suit index in the top-left corner and again,
turned half a turn, in the bottom-right corner, and a large suit sign (or a framed court letter)
in the middle; hearts and diamonds in red, spades and clubs in black. The back is a blue lattice
inside a white border. The joker (rules.md §5: a joker in the deck is discarded and replaced) has
no rank or suit: a purple star in two corners, a jester's head with a three-pointed cap in the
middle and the word JOKER under it. Images are BGRA with transparent rounded corners, portrait,
63:88.

This design is deliberately different from the deck the vision benchmark is measured on, so the
benchmark says nothing flattering about a design the code was tuned against.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from table_controller.vocabulary.cards import DECK, RANKS, Card
from vision.arrays import Image

WIDTH, HEIGHT = 180, 252
_RED = (30, 30, 200)
_BLACK = (25, 25, 25)
_RADIUS = 12


def _suit_shape(img: Image, suit: str, cx: float, cy: float, size: float,
                colour: tuple[int, int, int]) -> None:
    """Draw a suit sign of height ``size`` centred on (cx, cy)."""
    r = size / 2

    def pt(x: float, y: float) -> tuple[int, int]:
        return (round(cx + x * r), round(cy + y * r))

    def circle(x: float, y: float, rad: float) -> None:
        cv2.circle(img, pt(x, y), max(1, round(rad * r)), colour, -1, cv2.LINE_AA)

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [np.array([pt(x, y) for x, y in points], np.int32)], colour, cv2.LINE_AA)

    if suit == "d":
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit == "h":
        circle(-0.45, -0.4, 0.5)
        circle(0.45, -0.4, 0.5)
        poly([(-0.93, -0.22), (0.93, -0.22), (0, 1)])
    elif suit == "s":
        # A sharp point on top, wide shoulders: unlike the club's round top lobe.
        circle(-0.42, 0.25, 0.42)
        circle(0.42, 0.25, 0.42)
        poly([(-0.84, 0.2), (0.84, 0.2), (0, -1.05)])
        poly([(0, 0.2), (0.35, 1), (-0.35, 1)])
    else:
        # Three separate round lobes and a thin stem.
        circle(0, -0.55, 0.38)
        circle(-0.55, 0.12, 0.38)
        circle(0.55, 0.12, 0.38)
        poly([(0, -0.1), (0.22, 1), (-0.22, 1)])


def _rounded_alpha() -> Image:
    alpha = np.zeros((HEIGHT, WIDTH), np.uint8)
    r = _RADIUS
    cv2.rectangle(alpha, (r, 0), (WIDTH - 1 - r, HEIGHT - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (WIDTH - 1, HEIGHT - 1 - r), 255, -1)
    for x, y in ((r, r), (WIDTH - 1 - r, r), (r, HEIGHT - 1 - r), (WIDTH - 1 - r, HEIGHT - 1 - r)):
        cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    return alpha


def _index(card: Card, colour: tuple[int, int, int]) -> Image:
    """The corner index (rank over suit) on a white tile, 36 x 66 px."""
    tile = np.full((66, 36, 3), 255, np.uint8)
    text = "10" if card.rank == 10 else RANKS[card.rank - 2]
    scale = 0.8 if len(text) == 2 else 1.05
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    cv2.putText(tile, text, ((36 - tw) // 2, 4 + th + (26 - th) // 2),
                cv2.FONT_HERSHEY_DUPLEX, scale, colour, 2, cv2.LINE_AA)
    _suit_shape(tile, card.suit, 18, 48, 28, colour)
    return tile


@lru_cache(maxsize=64)
def _face_cached(card: Card) -> Image:
    colour = _RED if card.suit in "hd" else _BLACK
    img = np.full((HEIGHT, WIDTH, 3), 255, np.uint8)
    tile = _index(card, colour)
    img[8:74, 6:42] = tile
    img[HEIGHT - 74:HEIGHT - 8, WIDTH - 42:WIDTH - 6] = cv2.rotate(tile, cv2.ROTATE_180)
    if card.rank > 10:
        cv2.rectangle(img, (48, 60), (WIDTH - 48, HEIGHT - 60), colour, 3, cv2.LINE_AA)
        letter = RANKS[card.rank - 2]
        (tw, th), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_TRIPLEX, 2.4, 4)
        cv2.putText(img, letter, ((WIDTH - tw) // 2, 112 + th // 2), cv2.FONT_HERSHEY_TRIPLEX,
                    2.4, colour, 4, cv2.LINE_AA)
        _suit_shape(img, card.suit, WIDTH / 2, 170, 34, colour)
    else:
        _suit_shape(img, card.suit, WIDTH / 2, HEIGHT / 2, 44 + 5 * (card.rank - 2), colour)
    return _finish(img)


def _finish(img: Image) -> Image:
    alpha = _rounded_alpha()
    edge = cv2.morphologyEx(alpha, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    img[edge > 0] = (img[edge > 0] * 0.55 + 90).astype(np.uint8)
    out = np.dstack([img, alpha])
    out.setflags(write=False)
    return out


def face(card: Card) -> Image:
    """The face of ``card`` (BGRA, 180 x 252, read-only)."""
    return _face_cached(card)


_PURPLE = (140, 40, 120)
_GOLD = (40, 170, 230)


def _star(img: Image, cx: float, cy: float, r: float, colour: tuple[int, int, int]) -> None:
    """A filled five-pointed star of outer radius ``r`` centred on (cx, cy), point up."""
    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.42
        a = np.pi * (k / 5.0 - 0.5)
        pts.append((round(cx + rad * np.cos(a)), round(cy + rad * np.sin(a))))
    cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA)


@lru_cache(maxsize=1)
def joker() -> Image:
    """The joker's face (BGRA, 180 x 252, read-only)."""
    img = np.full((HEIGHT, WIDTH, 3), 255, np.uint8)
    _star(img, 24, 30, 16, _PURPLE)
    _star(img, WIDTH - 24, HEIGHT - 30, 16, _PURPLE)
    cx = WIDTH // 2
    # the cap: three points with bells, over a band
    for tip, bell in (((40, 46), (36, 40)), ((cx, 28), (cx, 22)), ((WIDTH - 40, 46),
                                                                    (WIDTH - 36, 40))):
        cv2.fillPoly(img, [np.array([(cx - 40, 104), tip, (cx + 40, 104)], np.int32)],
                     _RED if tip[0] != cx else _PURPLE, cv2.LINE_AA)
        cv2.circle(img, bell, 7, _GOLD, -1, cv2.LINE_AA)
    cv2.rectangle(img, (cx - 44, 98), (cx + 44, 110), _PURPLE, -1, cv2.LINE_AA)
    # the face: a round head with eyes and a wide smile
    cv2.circle(img, (cx, 142), 32, _GOLD, -1, cv2.LINE_AA)
    cv2.circle(img, (cx - 12, 134), 4, _BLACK, -1, cv2.LINE_AA)
    cv2.circle(img, (cx + 12, 134), 4, _BLACK, -1, cv2.LINE_AA)
    cv2.ellipse(img, (cx, 146), (18, 12), 0, 10, 170, _BLACK, 3, cv2.LINE_AA)
    # a ruff collar of dark triangles
    for k in range(-3, 4):
        x = cx + k * 14
        cv2.fillPoly(img, [np.array([(x - 8, 174), (x + 8, 174), (x, 190)], np.int32)],
                     _PURPLE, cv2.LINE_AA)
    (tw, th), _ = cv2.getTextSize("JOKER", cv2.FONT_HERSHEY_DUPLEX, 1.0, 2)
    cv2.putText(img, "JOKER", ((WIDTH - tw) // 2, 212 + th // 2), cv2.FONT_HERSHEY_DUPLEX, 1.0,
                _BLACK, 2, cv2.LINE_AA)
    return _finish(img)


@lru_cache(maxsize=1)
def back() -> Image:
    """The back (BGRA, 180 x 252, read-only)."""
    img = np.full((HEIGHT, WIDTH, 3), 255, np.uint8)
    inner = np.full((HEIGHT - 24, WIDTH - 24, 3), (150, 70, 25), np.uint8)
    for k in range(-HEIGHT, WIDTH + HEIGHT, 14):
        cv2.line(inner, (k, 0), (k + HEIGHT, HEIGHT), (215, 170, 120), 2, cv2.LINE_AA)
        cv2.line(inner, (k, 0), (k - HEIGHT, HEIGHT), (215, 170, 120), 2, cv2.LINE_AA)
    img[12:HEIGHT - 12, 12:WIDTH - 12] = inner
    return _finish(img)


def write_deck(folder: str) -> None:
    """Write the design as an enrolment folder: ``As.png`` ..., ``back.png`` and
    ``joker.png``."""
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for card in DECK:
        cv2.imwrite(str(out / f"{card}.png"), face(card))
    cv2.imwrite(str(out / "back.png"), back())
    cv2.imwrite(str(out / "joker.png"), joker())
