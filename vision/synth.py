"""Synthetic overhead frames with ground truth, for measuring detection and recognition.

A scene is drawn from a deck folder (``As.png`` ... ``back.png``, BGRA or BGR) on felt, with the
conditions a real camera adds: a slightly tilted view (perspective), cards turned up to 15
degrees either way or upside down, touching board cards, uneven light, glare, blur, noise and
JPEG compression. Everything is seeded, so a test set is the same on every machine.

When the deck folder holds jokers (``joker.png``, ``joker2.png``, ...), about a third of the
frames (``joker_rate``) show one face-up joker in place of one of the cards dealt, drawn from a
random-number stream of its own: the rest of the frame is the same as without jokers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from table_controller.vocabulary.cards import DECK
from table_controller.vocabulary.zones import BOARD, BURN, MUCK, SEAT_ZONES
from vision import render
from vision.arrays import Image, Vector
from vision.layout import CARD_ASPECT, TableLayout, default_layout
from vision.templates import JOKER, joker_name


@dataclass(frozen=True, slots=True)
class TruthCard:
    """One card drawn: ``label`` is ``"As"`` style, ``"back"`` or ``"joker"`` (any joker design,
    face up); ``corners`` in frame pixels
    (the card image's top-left, top-right, bottom-right, bottom-left)."""

    label: str
    zone: str
    corners: Vector


@dataclass(frozen=True, slots=True)
class SynthFrame:
    image: Image
    cards: tuple[TruthCard, ...]
    seed: int


def load_deck_images(folder: str | Path) -> dict[str, Image]:
    """``{"As": image, ..., "back": image}`` as BGRA, plus ``"joker"``, ``"joker2"``, ... for
    the joker designs the folder holds; raises ValueError naming a missing file."""
    folder = Path(folder)
    out: dict[str, Image] = {}
    jokers = sorted(j for j in (joker_name(p.stem) for p in folder.glob("*.png")) if j)
    for name in [str(c) for c in DECK] + ["back"] + jokers:
        path = folder / f"{name}.png"
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ValueError(f"deck image missing or unreadable: {path}")
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        out[name] = np.asarray(img, np.uint8)
    return out


def _place_row(rng: np.random.Generator, cx: float, cy: float, n: int, card_w: float,
               gap: tuple[float, float], angle: float, jitter: float) -> list[tuple[float, float,
                                                                                     float]]:
    a = math.radians(angle)
    axis = (math.cos(a), -math.sin(a))
    g = float(rng.uniform(*gap))
    pitch = card_w + g
    out = []
    for i in range(n):
        t = (i - (n - 1) / 2) * pitch
        out.append((cx + t * axis[0], cy + t * axis[1], angle + float(rng.uniform(-jitter,
                                                                                   jitter))))
    return out


def _near(a: Vector, b: Vector, margin: float = 4.0) -> bool:
    """True when two card outlines overlap or come within ``margin`` pixels."""
    for p, q in ((a, b), (b, a)):
        for pt in p:
            if cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(pt[0]), float(pt[1])),
                                    True) > -margin:
                return True
    area, _ = cv2.intersectConvexConvex(a, b)
    return bool(area > 0)


def make_frame(deck: Mapping[str, Image], seed: int, *, layout: TableLayout | None = None,
               effects: bool = True, joker_rate: float = 0.3) -> SynthFrame:
    """One seeded frame with a random deal in progress; with probability ``joker_rate`` (when
    ``deck`` has joker designs) one of its cards is a face-up joker."""
    layout = layout or default_layout()
    rng = np.random.default_rng(seed)
    order = [str(c) for c in DECK]
    rng.shuffle(order)
    deal = iter(order)
    placements: list[tuple[str, str, float, float, float]] = []
    card_h = layout.card_height * float(rng.uniform(0.95, 1.05))
    card_w = card_h * CARD_ASPECT
    showdown = rng.random() < 0.3
    for zone in SEAT_ZONES:
        if zone not in layout.slots or rng.random() < 0.35:
            continue
        s0, s1 = layout.slots[zone][0], layout.slots[zone][1]
        cx, cy = (s0.x + s1.x) / 2, (s0.y + s1.y) / 2
        up = showdown and rng.random() < 0.6
        for x, y, ang in _place_row(rng, cx, cy, 2, card_w, (7, 16), float(rng.uniform(-15, 15)),
                                    3.0):
            placements.append((next(deal) if up else "back", zone, x, y, ang))
    n_board = int(rng.choice([0, 3, 3, 4, 4, 5]))
    if n_board:
        s = layout.slots[BOARD]
        cx = s[0].x + (n_board - 1) / 2 * (s[1].x - s[0].x)
        cx += float(rng.uniform(-8, 8))
        touching = rng.random() < 0.6
        gap = (0.0, 1.5) if touching else (3.0, 9.0)
        for x, y, ang in _place_row(rng, cx, s[0].y, n_board, card_w, gap,
                                    float(rng.uniform(-15, 15)) if not touching else
                                    float(rng.uniform(-6, 6)), 0.6 if touching else 3.0):
            placements.append((next(deal), BOARD, x, y, ang))
    for zone in (BURN, MUCK):
        n = int(rng.integers(0, 3))
        slots = layout.slots.get(zone, ())
        if n and len(slots) >= 2:
            cx, cy = (slots[0].x + slots[1].x) / 2, (slots[0].y + slots[1].y) / 2
            row = _place_row(rng, cx, cy, 2, card_w, (8, 16), float(rng.uniform(-15, 15)), 3.0)
            for x, y, ang in row[:n]:
                label = "back" if zone == BURN or rng.random() < 0.7 else next(deal)
                placements.append((label, zone, x, y, ang))
    designs = sorted(k for k in deck if joker_name(k))
    joker_rng = np.random.default_rng((seed, 0x4A4B))
    if designs and placements and joker_rng.random() < joker_rate:
        k = int(joker_rng.integers(len(placements)))
        _, zone, x, y, ang = placements[k]
        placements[k] = (designs[int(joker_rng.integers(len(designs)))], zone, x, y, ang)
    frame = render.felt(layout.width, layout.height, rng)
    homography = render.tilt_homography(layout.width, layout.height, rng, 0.03)
    truth: list[TruthCard] = []
    taken: list[tuple[str, Vector]] = []
    for label, zone, x, y, ang in placements:
        if rng.random() < 0.5:
            ang += 180.0
        quad = render.card_quad(x, y, card_w, card_h, ang)
        quad = render.transform_points(quad, homography)
        if any(z != zone and _near(quad, q) for z, q in taken):
            continue  # would lie on or against another zone's card: not a deal we model
        taken.append((zone, quad))
        render.paste(frame, deck[label], quad)
        truth.append(TruthCard(label=JOKER if joker_name(label) else label, zone=zone,
                               corners=quad))
    if effects:
        frame = render.light(frame, rng, gain=0.15)
        if rng.random() < 0.6:
            frame = render.glare(frame, rng, spots=int(rng.integers(1, 3)),
                                 strength=float(rng.uniform(40, 110)))
        frame = render.blur(frame, float(rng.uniform(0.0, 1.2)))
        frame = render.noise(frame, rng, float(rng.uniform(1.0, 6.0)))
        frame = render.jpeg(frame, int(rng.integers(60, 96)))
    return SynthFrame(image=frame, cards=tuple(truth), seed=seed)
