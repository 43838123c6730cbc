"""Cards as rectangles of the table plane: points carried into it, and the rectangles that the
square corners of an outline start.

In the plane (:func:`vision.empty_table.plane_from_cards`, card heights) every card of the deck
is an ``aspect`` x 1 rectangle, wherever it lies in the frame; an outline's corner where two
long sides meet square is then the corner of a possible card, either way round.
"""

from __future__ import annotations

import math
from itertools import accumulate

import cv2
import numpy as np

from vision.arrays import Vector

NO_RECTS = np.zeros((0, 4, 2))


def to_plane(h: Vector, points: Vector) -> Vector:
    """``points`` (any shape (..., 2) that reshapes to (N, 2)) through the homography ``h``:
    (N, 2) float64."""
    return np.asarray(cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2),
                                               h).reshape(-1, 2), np.float64)


def card_area(from_plane: Vector, aspect: float, at: Vector | None = None) -> float:
    """The area in pixels of a card lying square in the plane (with its corner ``at``, plane
    coordinates; the origin if None), through ``from_plane`` (plane to pixels)."""
    card = np.array([(0, 0), (aspect, 0), (aspect, 1), (0, 1)], np.float64)
    if at is not None:
        card = card + at
    return abs(float(cv2.contourArea(to_plane(from_plane, card).astype(np.float32))))


def corner_rects(poly: Vector, aspect: float) -> Vector:
    """Card rectangles (plane, (K, 4, 2)) anchored at each square corner of ``poly``. A corner
    is where two long sides meet (the short sides between them, a rounded card corner cut into
    a chamfer or two, are skipped): the two sides' lines meet at the card's true corner.

    The outline has a handful of sides: they are gone through as Python floats (cheaper than
    tiny arrays; the same arithmetic), the lengths left to NumPy's ``hypot``."""
    n = len(poly)
    if n < 3:
        return NO_RECTS
    starts = poly.tolist()
    stops = starts[1:] + starts[:1]
    area2 = 0.0  # twice the signed area: which way round the outline runs
    for (x0, y0), (x1, y1) in zip(starts, stops, strict=True):
        area2 += x0 * y1 - x1 * y0
    orient = 1.0 if area2 > 0 else -1.0
    lengths: list[float] = np.hypot([e[0] - s[0] for s, e in zip(starts, stops, strict=True)],
                                    [e[1] - s[1] for s, e in zip(starts, stops, strict=True)]
                                    ).tolist()
    long_sides = [i for i, length in enumerate(lengths) if length >= 0.14]
    if len(long_sides) < 2:
        return NO_RECTS
    # Running lengths round the outline twice: the short sides between two long ones.
    run = list(accumulate(lengths + lengths, initial=0.0))
    # Per corner: the direction back along the side before it (a) and forward along the side
    # after it (b), where their lines meet, and how far that is from the side's end (x, y).
    found: list[tuple[float, ...]] = []
    for j, k in enumerate(long_sides):
        m = long_sides[(j + 1) % len(long_sides)]
        between = run[m if m > k else m + n] - run[k + 1]
        if between > 0.25:
            continue
        (sx, sy), (ex, ey) = starts[k], stops[k]
        ax, ay = (sx - ex) / lengths[k], (sy - ey) / lengths[k]
        (tx, ty), (fx, fy) = starts[m], stops[m]
        bx, by = (fx - tx) / lengths[m], (fy - ty) / lengths[m]
        cos = ax * bx + ay * by
        den = (-ax) * by - (-ay) * bx
        if abs(cos) > 0.3 or not orient * (bx * ay - by * ax) > 0 or abs(den) < 1e-6:
            continue
        u = ((tx - ex) * by - (ty - ey) * bx) / den
        cx, cy = ex + u * -ax, ey + u * -ay
        found.append((ax, ay, bx, by, cx, cy, cx - ex, cy - ey))
    if not found:
        return NO_RECTS
    # The corner near the side's end; then the two directions made exactly square, splitting
    # the difference (along their bisector h; p is a quarter turn from it).
    near = np.hypot([f[6] for f in found], [f[7] for f in found]).tolist()
    found = [f for f, d in zip(found, near, strict=True) if d <= 0.2]
    if not found:
        return NO_RECTS
    sums = [(f[0] + f[2], f[1] + f[3]) for f in found]
    norms = np.hypot([x for x, _ in sums], [y for _, y in sums]).tolist()
    root2 = math.sqrt(2)
    rows = []
    for (ax, ay, _, _, cx, cy, _, _), (x, y), size in zip(found, sums, norms, strict=True):
        size = max(size, 1e-9)
        rows.append((ax, ay, cx, cy, x / size, y / size))
    out: list[tuple[tuple[float, float], ...]] = []
    for wa, wb in ((aspect, 1.0), (1.0, aspect)):
        for ax, ay, cx, cy, hx, hy in rows:
            px, py = -hy, hx
            sign = 1.0 if px * ax + py * ay > 0 else -1.0
            dax, day = (hx + sign * px) / root2, (hy + sign * py) / root2
            dbx, dby = (hx - sign * px) / root2, (hy - sign * py) / root2
            out.append(((cx, cy), (cx + dax * wa, cy + day * wa),
                        (cx + dax * wa + dbx * wb, cy + day * wa + dby * wb),
                        (cx + dbx * wb, cy + dby * wb)))
    return np.array(out, np.float64)
