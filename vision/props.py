"""What lies on a table besides cards, drawn for test scenes: cloths, their print, chips, card
protectors, and hands and sleeves over the felt.

Everything is drawn in image pixels onto a BGR frame, in place. Shapes that lie on the table
(the cloth's print, chips, protectors) come as plane points already carried into the image by
the caller's homography; hands and sleeves are above the table and are drawn as seen. Each
drawing function also fills the same shape with an object id in an int16 *id buffer* (the
caller's record of what is on top where, to tell how much of each card stays visible).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.arrays import Image, Vector

Colour = tuple[int, int, int]

FELTS: dict[str, Colour] = {
    "green": (38, 112, 30),
    "blue": (140, 82, 24),
    "grey": (112, 112, 106),
    "black": (30, 30, 32),
    "printed": (40, 104, 36),
}
"""Cloth colours (BGR); the printed cloth is green with a gold and white print."""

CHIP_COLOURS: tuple[Colour, ...] = ((40, 40, 200), (170, 70, 20), (25, 25, 25), (40, 140, 40),
                                    (230, 230, 230), (30, 160, 230), (140, 40, 140))
SKIN: tuple[Colour, ...] = ((150, 178, 225), (110, 145, 200), (75, 105, 160), (45, 65, 100))
SLEEVES: tuple[Colour, ...] = ((28, 28, 28), (205, 205, 210), (90, 45, 30), (60, 60, 130))

_SHIFT = 4  # sub-pixel bits for OpenCV's polygon drawing


def _fixed(points: Vector) -> np.ndarray:
    return np.round(np.asarray(points, np.float64) * (1 << _SHIFT)).astype(np.int32)


def fill(image: Image, points: Vector, colour: Colour) -> None:
    """Fill a polygon given in float pixels (anti-aliased)."""
    cv2.fillPoly(image, [_fixed(points)], colour, cv2.LINE_AA, _SHIFT)


def mark(ids: Image, points: Vector, object_id: int) -> None:
    """Record ``object_id`` under a polygon in the id buffer (no anti-aliasing)."""
    cv2.fillPoly(ids, [np.round(np.asarray(points)).astype(np.int32)], int(object_id))


def polyline(image: Image, points: Vector, colour: Colour, thickness: int,
             closed: bool = True) -> None:
    cv2.polylines(image, [_fixed(points)], closed, colour, max(thickness, 1), cv2.LINE_AA,
                  _SHIFT)


def disc(centre: tuple[float, float], radius: float, n: int = 28) -> Vector:
    """A circle of the plane as an (n, 2) polygon (plane units)."""
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a)], axis=1)


def ellipse(centre: tuple[float, float], rx: float, ry: float, n: int = 120) -> Vector:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([centre[0] + rx * np.cos(a), centre[1] + ry * np.sin(a)], axis=1)


def chip(image: Image, ids: Image, rim: Vector, object_id: int, colour: Colour,
         lift: tuple[float, float]) -> None:
    """One chip: its rim (a projected disc, (n, 2) image pixels) filled with ``colour``, six
    white edge spots and an inner ring; ``lift`` moves it up the stack (image pixels)."""
    pts = np.asarray(rim, np.float64) + np.asarray(lift)
    side = np.asarray(colour, np.float64) * 0.6
    fill(image, pts + np.array([0.0, 1.5]), (int(side[0]), int(side[1]), int(side[2])))
    fill(image, pts, colour)
    centre = pts.mean(axis=0)
    n = len(pts)
    for k in range(6):
        i = (k * n) // 6
        a = pts[i]
        b = pts[(i + max(n // 24, 1)) % n]
        ia = centre + (a - centre) * 0.78
        ib = centre + (b - centre) * 0.78
        fill(image, np.array([a, b, ib, ia]), (235, 235, 235))
    polyline(image, centre + (pts - centre) * 0.62, (235, 235, 235), 1)
    mark(ids, pts, object_id)


def protector(image: Image, ids: Image, rim: Vector, object_id: int, rng: np.random.Generator
              ) -> None:
    """A card protector: a metal or coloured disc with a raised rim and a letter on it."""
    pts = np.asarray(rim, np.float64)
    metal = rng.random() < 0.5
    base: Colour = (150, 150, 155) if metal else CHIP_COLOURS[int(rng.integers(len(CHIP_COLOURS)))]
    fill(image, pts + np.array([1.5, 2.0]), (20, 20, 20))
    fill(image, pts, base)
    centre = pts.mean(axis=0)
    inner = centre + (pts - centre) * 0.8
    light: Colour = (215, 215, 220) if metal else (240, 240, 240)
    polyline(image, inner, light, 2)
    radius = float(np.linalg.norm(pts - centre, axis=1).mean())
    letter = "AK7"[int(rng.integers(3))]
    scale = max(radius / 28, 0.3)
    (tw, th), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    cv2.putText(image, letter, (int(centre[0] - tw / 2), int(centre[1] + th / 2)),
                cv2.FONT_HERSHEY_SIMPLEX, scale, light, 2, cv2.LINE_AA)
    mark(ids, pts, object_id)


def _capsule(a: Vector, b: Vector, radius: float, n: int = 10) -> Vector:
    """A rounded bar from a to b (a finger, an arm) as a polygon."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    d = b - a
    length = float(np.linalg.norm(d))
    if length < 1e-6:
        return disc((float(a[0]), float(a[1])), radius, 2 * n)
    ang = math.atan2(float(d[1]), float(d[0]))
    pts = []
    for k in range(n + 1):
        t = ang - math.pi / 2 + math.pi * k / n
        pts.append(b + radius * np.array([math.cos(t), math.sin(t)]))
    for k in range(n + 1):
        t = ang + math.pi / 2 + math.pi * k / n
        pts.append(a + radius * np.array([math.cos(t), math.sin(t)]))
    return np.array(pts)


def hand_shapes(palm: tuple[float, float], towards: float, scale: float, edge: Vector,
                rng: np.random.Generator) -> tuple[list[Vector], list[Vector]]:
    """A hand reaching over the table: the polygons of the hand (palm, four fingers, thumb)
    and of the arm, from the frame's edge point ``edge`` to the palm. ``towards``: direction the
    fingers point (radians, image axes); ``scale``: pixels per millimetre at the palm."""
    c = np.asarray(palm, np.float64)
    fwd = np.array([math.cos(towards), math.sin(towards)])
    side = np.array([-fwd[1], fwd[0]])
    palm_w, palm_l = 84 * scale, 96 * scale
    shapes: list[Vector] = []
    corners = [c - fwd * palm_l / 2 - side * palm_w / 2, c - fwd * palm_l / 2 + side * palm_w / 2,
               c + fwd * palm_l / 2 + side * palm_w / 2, c + fwd * palm_l / 2 - side * palm_w / 2]
    shapes.append(np.array(corners))
    spread = float(rng.uniform(0.0, 0.25))
    for k, length in enumerate((70, 80, 76, 62)):
        base = c + fwd * palm_l * 0.45 + side * palm_w * (-0.38 + 0.25 * k)
        direction = fwd * math.cos(spread * (k - 1.5)) + side * math.sin(spread * (k - 1.5))
        curl = float(rng.uniform(0.6, 1.0))
        shapes.append(_capsule(base, base + direction * length * scale * curl, 9 * scale))
    thumb_base = c + side * palm_w * 0.45 - fwd * palm_l * 0.1
    thumb_dir = fwd * 0.6 + side * 0.8
    shapes.append(_capsule(thumb_base, thumb_base + thumb_dir * 55 * scale, 11 * scale))
    wrist = c - fwd * palm_l * 0.45
    arm = [_capsule(wrist, np.asarray(edge, np.float64), 40 * scale)]
    return shapes, arm


def draw_reach(image: Image, ids: Image, hand: list[Vector], arm: list[Vector], object_id: int,
               skin: Colour, sleeve: Colour, shadow: Vector) -> None:
    """A hand and arm with their shadow on what lies below (moved by ``shadow`` pixels)."""
    h, w = image.shape[:2]
    # The soft shadow is drawn at a quarter of the size: it has no detail.
    dark = np.zeros(((h + 3) // 4, (w + 3) // 4), np.uint8)
    for p in [*hand, *arm]:
        cv2.fillPoly(dark, [np.round((p + shadow) / 4).astype(np.int32)], 255)
    dark = cv2.resize(cv2.GaussianBlur(dark, (0, 0), 1.5), (w, h),
                      interpolation=cv2.INTER_LINEAR)
    # Shaded only where the shadow falls: elsewhere its factor is exactly 1, which leaves a
    # pixel as it was (the whole frame in floating point cost 25 ms a hand).
    rows, cols = np.flatnonzero(dark.any(axis=1)), np.flatnonzero(dark.any(axis=0))
    if rows.size:
        box = (slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1))
        shade = 1 - 0.45 * dark[box].astype(np.float32)[:, :, None] / 255.0
        image[box] = (image[box].astype(np.float32) * shade).astype(np.uint8)
    for p in arm:
        fill(image, p, sleeve)
        mark(ids, p, object_id)
    for p in hand:
        fill(image, p, skin)
        mark(ids, p, object_id)
    # a little shading across the hand: darker along the fingers' edges
    for p in hand[1:]:
        polyline(image, p, tuple(int(v * 0.8) for v in skin), 1)  # type: ignore[arg-type]
