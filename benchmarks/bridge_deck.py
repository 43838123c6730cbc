"""A held-out deck for the table benchmark: bridge-size (56 x 87 mm), drawn here procedurally.

The vision code is never tuned on this design (its development decks are the letele design and
the simulator's art); it exists so the table benchmark measures a deck "as a card room would
install it". It differs from both on purpose: bridge proportions (narrower than poker's 63 x 88),
ivory paper with no border line, a serif rank font (Hershey complex) with the index in all four
corners, suit signs drawn from parametric curves (a heart curve, concave diamond sides, a flared
club stem), the usual pip layouts for 2 to 10, court cards with a coloured panel and a script
letter, and a full-bleed maroon back (no white margin) with a gold lattice and a medallion.

``write_deck(folder)`` writes ``As.png`` ... ``back.png`` (BGRA, 232 x 360, transparent rounded
corners): a folder that ``table-controller vision enroll`` takes as scans.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from table_controller.vocabulary.cards import DECK, RANKS, Card
from vision.arrays import Image

WIDTH, HEIGHT = 232, 360
ASPECT = 56.0 / 87.0
_PAPER = (226, 240, 248)
_RED = (40, 22, 184)
_BLACK = (34, 24, 22)
_RADIUS = 15
_FONT = cv2.FONT_HERSHEY_COMPLEX

Colour = tuple[int, int, int]


def _suit_points(suit: str, cx: float, cy: float, size: float) -> list[np.ndarray]:
    """Filled polygons of a suit sign ``size`` pixels tall centred on (cx, cy)."""
    t = np.linspace(0, 2 * math.pi, 72, endpoint=False)
    r = size / 2
    polys: list[np.ndarray] = []
    if suit in "hs":
        # The heart curve, 32 units tall; the spade is a heart upside down with a stem.
        x = 16 * np.sin(t) ** 3
        y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        y = (y + 3) / 16
        x = x / 16
        if suit == "s":
            y = -y - 0.25
            polys.append(np.array([(cx, cy + 0.1 * r), (cx + 0.45 * r, cy + r),
                                   (cx - 0.45 * r, cy + r)]))
        else:
            y = y * 0.95
        polys.append(np.stack([cx + x * r * 0.95, cy + y * r], axis=1))
    elif suit == "d":
        # A rhombus with slightly concave sides.
        k = np.linspace(0, 1, 12)
        corners = [(0, -1), (0.7, 0), (0, 1), (-0.7, 0)]
        pts = []
        for i in range(4):
            (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
            mx, my = (x0 + x1) / 2 * 0.86, (y0 + y1) / 2 * 0.86
            for s in k[:-1]:
                px = (1 - s) ** 2 * x0 + 2 * (1 - s) * s * mx + s * s * x1
                py = (1 - s) ** 2 * y0 + 2 * (1 - s) * s * my + s * s * y1
                pts.append((cx + px * r, cy + py * r))
        polys.append(np.array(pts))
    else:
        for dx, dy in ((0, -0.5), (-0.5, 0.15), (0.5, 0.15)):
            polys.append(np.stack([cx + (dx + 0.36 * np.cos(t)) * r,
                                   cy + (dy + 0.36 * np.sin(t)) * r], axis=1))
        polys.append(np.array([(cx - 0.08 * r, cy - 0.1 * r), (cx + 0.08 * r, cy - 0.1 * r),
                               (cx + 0.4 * r, cy + r), (cx - 0.4 * r, cy + r)]))
    return polys


def _suit(img: Image, suit: str, cx: float, cy: float, size: float, colour: Colour,
          *, flip: bool = False) -> None:
    polys = _suit_points(suit, cx, cy, size)
    if flip:
        polys = [np.stack([2 * cx - p[:, 0], 2 * cy - p[:, 1]], axis=1) for p in polys]
    shift = 4
    for p in polys:
        cv2.fillPoly(img, [np.round(p * (1 << shift)).astype(np.int32)], colour, cv2.LINE_AA,
                     shift)


def _rounded_alpha() -> Image:
    alpha = np.zeros((HEIGHT, WIDTH), np.uint8)
    r = _RADIUS
    cv2.rectangle(alpha, (r, 0), (WIDTH - 1 - r, HEIGHT - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (WIDTH - 1, HEIGHT - 1 - r), 255, -1)
    for x, y in ((r, r), (WIDTH - 1 - r, r), (r, HEIGHT - 1 - r), (WIDTH - 1 - r, HEIGHT - 1 - r)):
        cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    return alpha


def _index(card: Card, colour: Colour) -> Image:
    """Rank over suit on paper, 34 x 70 px."""
    tile = np.full((70, 34, 3), _PAPER, np.uint8)
    text = "10" if card.rank == 10 else RANKS[card.rank - 2]
    scale = 0.72 if len(text) == 2 else 0.95
    thick = 2
    (tw, th), _ = cv2.getTextSize(text, _FONT, scale, thick)
    if len(text) == 2:
        # A condensed 10: each digit drawn narrow.
        part = np.full((th + 8, tw + 4, 3), _PAPER, np.uint8)
        cv2.putText(part, text, (2, th + 3), _FONT, scale, colour, thick, cv2.LINE_AA)
        part = np.asarray(cv2.resize(part, (30, th + 8), interpolation=cv2.INTER_AREA), np.uint8)
        tile[2:2 + part.shape[0], 2:32] = part
    else:
        cv2.putText(tile, text, ((34 - tw) // 2, 4 + th), _FONT, scale, colour, thick, cv2.LINE_AA)
    _suit(tile, card.suit, 17, 50, 22, colour)
    return tile


_PIPS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0.2), (0.5, 0.8)],
    3: [(0.5, 0.2), (0.5, 0.5), (0.5, 0.8)],
    4: [(0.28, 0.2), (0.72, 0.2), (0.28, 0.8), (0.72, 0.8)],
    5: [(0.28, 0.2), (0.72, 0.2), (0.5, 0.5), (0.28, 0.8), (0.72, 0.8)],
    6: [(0.28, 0.2), (0.72, 0.2), (0.28, 0.5), (0.72, 0.5), (0.28, 0.8), (0.72, 0.8)],
    7: [(0.28, 0.2), (0.72, 0.2), (0.5, 0.35), (0.28, 0.5), (0.72, 0.5), (0.28, 0.8),
        (0.72, 0.8)],
    8: [(0.28, 0.2), (0.72, 0.2), (0.5, 0.35), (0.28, 0.5), (0.72, 0.5), (0.5, 0.65),
        (0.28, 0.8), (0.72, 0.8)],
    9: [(0.28, 0.2), (0.72, 0.2), (0.28, 0.4), (0.72, 0.4), (0.5, 0.5), (0.28, 0.6),
        (0.72, 0.6), (0.28, 0.8), (0.72, 0.8)],
    10: [(0.28, 0.2), (0.72, 0.2), (0.5, 0.3), (0.28, 0.4), (0.72, 0.4), (0.28, 0.6),
         (0.72, 0.6), (0.5, 0.7), (0.28, 0.8), (0.72, 0.8)],
}


def _court(img: Image, card: Card, colour: Colour) -> None:
    x0, y0, x1, y1 = 44, 48, WIDTH - 44, HEIGHT - 48
    robe = {"J": (160, 110, 40), "Q": (40, 150, 210), "K": (60, 130, 60)}[RANKS[card.rank - 2]]
    cv2.rectangle(img, (x0, y0), (x1, y1), (200, 225, 240), -1)
    cv2.rectangle(img, (x0, y0), (x1, y1), colour, 2, cv2.LINE_AA)
    mid = (y0 + y1) // 2
    for top in (True, False):
        sign = 1 if top else -1
        base = mid - sign * 8
        # a bust: shoulders in the robe's colour, a head, a crown's three points
        cv2.ellipse(img, ((x0 + x1) // 2, base), (48, 40), 0, 180 if top else 0,
                    360 if top else 180, robe, -1, cv2.LINE_AA)
        hy = base - sign * 62
        cv2.circle(img, ((x0 + x1) // 2, hy), 18, (150, 190, 230), -1, cv2.LINE_AA)
        cy = hy - sign * 22
        pts = np.array([(x0 + 52, cy), (x0 + 60, cy - sign * 18), (x0 + 72, cy - sign * 6),
                        ((x0 + x1) // 2, cy - sign * 22), (x1 - 72, cy - sign * 6),
                        (x1 - 60, cy - sign * 18), (x1 - 52, cy)], np.int32)
        cv2.fillPoly(img, [pts], (30, 170, 220), cv2.LINE_AA)
    cv2.line(img, (x0, mid), (x1, mid), colour, 1, cv2.LINE_AA)
    letter = RANKS[card.rank - 2]
    cv2.putText(img, letter, (x0 + 6, y0 + 34), cv2.FONT_HERSHEY_SCRIPT_COMPLEX, 1.2, colour, 2,
                cv2.LINE_AA)
    _suit(img, card.suit, x1 - 20, y0 + 22, 24, colour)
    _suit(img, card.suit, x0 + 20, y1 - 22, 24, colour, flip=True)


@lru_cache(maxsize=64)
def face(card: Card) -> Image:
    """The face of ``card``: BGRA, read-only."""
    colour = _RED if card.suit in "hd" else _BLACK
    img = np.full((HEIGHT, WIDTH, 3), _PAPER, np.uint8)
    tile = _index(card, colour)
    turned = cv2.rotate(tile, cv2.ROTATE_180)
    img[8:78, 5:39] = tile
    img[8:78, WIDTH - 39:WIDTH - 5] = tile
    img[HEIGHT - 78:HEIGHT - 8, 5:39] = turned
    img[HEIGHT - 78:HEIGHT - 8, WIDTH - 39:WIDTH - 5] = turned
    if card.rank == 14:
        _suit(img, card.suit, WIDTH / 2, HEIGHT / 2, 96, colour)
        cv2.circle(img, (WIDTH // 2, HEIGHT // 2), 66, colour, 1, cv2.LINE_AA)
    elif card.rank > 10:
        _court(img, card, colour)
    else:
        x0, y0, w, h = 46, 40, WIDTH - 92, HEIGHT - 80
        for px, py in _PIPS[card.rank]:
            _suit(img, card.suit, x0 + px * w, y0 + py * h, 40, colour, flip=py > 0.5)
    return _finish(img)


def _finish(img: Image) -> Image:
    out = np.dstack([img, _rounded_alpha()])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def back() -> Image:
    """The back: full-bleed maroon, a gold lattice and a medallion (BGRA, read-only)."""
    img = np.full((HEIGHT, WIDTH, 3), (44, 28, 122), np.uint8)
    gold = (70, 160, 205)
    for k in range(-HEIGHT, WIDTH + HEIGHT, 18):
        cv2.line(img, (k, 0), (k + HEIGHT // 2, HEIGHT), gold, 1, cv2.LINE_AA)
        cv2.line(img, (k, 0), (k - HEIGHT // 2, HEIGHT), gold, 1, cv2.LINE_AA)
    cx, cy = WIDTH // 2, HEIGHT // 2
    cv2.ellipse(img, (cx, cy), (62, 84), 0, 0, 360, (44, 28, 122), -1, cv2.LINE_AA)
    cv2.ellipse(img, (cx, cy), (62, 84), 0, 0, 360, gold, 3, cv2.LINE_AA)
    cv2.ellipse(img, (cx, cy), (46, 66), 0, 0, 360, gold, 1, cv2.LINE_AA)
    for a in range(0, 360, 30):
        x = cx + 30 * math.cos(math.radians(a))
        y = cy + 44 * math.sin(math.radians(a))
        cv2.circle(img, (round(x), round(y)), 6, gold, -1, cv2.LINE_AA)
    return _finish(img)


def write_deck(folder: str | Path) -> Path:
    """Write ``As.png`` ... ``Kc.png`` and ``back.png`` into ``folder``; returns it."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for card in DECK:
        cv2.imwrite(str(out / f"{card}.png"), face(card))
    cv2.imwrite(str(out / "back.png"), back())
    return out
