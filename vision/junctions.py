"""Possible cards from the picture's straight edges inside a blob, where they meet square.

A blob's outline shows the corners of the cards at its rim only. In a pile (a muck of backs,
cards pushed together) the top card often has none of its corners on the rim: they lie inside
the blob, on the cards under it. They still show in the picture, as two straight edges meeting
square (the card's border against what lies beneath it). Such a meeting, an L whose two
strokes end near the corner, is the corner of a possible card, either way round, which
:func:`vision.table_detect._peel` then tests like those of the outline's corners.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.arrays import Image, Vector
from vision.plane_rects import NO_RECTS, to_plane

_LONG = 0.15
"""Card heights: shorter straight edges are a back's pattern or print, not a card's side."""
_SQUARE = 0.12
"""The two strokes of a corner meet square within this cosine (about 7 degrees)."""
_NEAR = 0.1
"""Card heights: each stroke ends this near the corner its lines meet at (a card's corner is
rounded: its sides stop short of where their lines meet)."""
_MOST = 120
"""The longest straight edges looked at in one blob (the pairs grow as their square)."""

_detector: cv2.LineSegmentDetector | None = None


def _segments(grey: Image) -> Vector:
    """The straight edges of a grey window (uint8): (N, 4) x0, y0, x1, y1 in its pixels."""
    global _detector
    if grey.size == 0:
        return np.zeros((0, 4))
    if _detector is None:
        _detector = cv2.createLineSegmentDetector()
    found = _detector.detect(grey)[0]
    if found is None:
        return np.zeros((0, 4))
    return np.asarray(found, np.float64).reshape(-1, 4)


def junction_rects(grey: Image, mask: Image, to_plane_h: Vector, aspect: float) -> Vector:
    """Card rectangles (plane, (K, 4, 2)) at each square meeting of two straight edges of
    ``grey`` (a blob's window, uint8) lying on the blob (``mask``, the same window, 0/1).
    ``to_plane_h``: the window's pixels to the table plane (card heights)."""
    segs = _segments(grey)
    if len(segs) < 2:
        return NO_RECTS
    h, w = mask.shape
    mid = np.rint((segs[:, :2] + segs[:, 2:]) / 2).astype(np.int64)
    inside = (mid[:, 0] >= 0) & (mid[:, 0] < w) & (mid[:, 1] >= 0) & (mid[:, 1] < h)
    segs, mid = segs[inside], mid[inside]
    segs = segs[mask[mid[:, 1], mid[:, 0]] > 0]
    if len(segs) < 2:
        return NO_RECTS
    ends = to_plane(to_plane_h, segs.reshape(-1, 2)).reshape(-1, 2, 2)
    d = ends[:, 1] - ends[:, 0]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = (length >= _LONG) & (length <= max(aspect, 1.0) + _NEAR)
    ends, d, length = ends[keep], d[keep], length[keep]
    if len(ends) > _MOST:
        top = np.argsort(-length)[:_MOST]
        ends, d, length = ends[top], d[top], length[top]
    if len(ends) < 2:
        return NO_RECTS
    u = d / length[:, None]
    i, j = np.triu_indices(len(ends), 1)
    cos = np.abs((u[i] * u[j]).sum(axis=1))
    sq = cos < _SQUARE
    i, j = i[sq], j[sq]
    if not len(i):
        return NO_RECTS
    # Where the two lines meet: p_i + s u_i = p_j + t u_j.
    pi, pj, ui, uj = ends[i, 0], ends[j, 0], u[i], u[j]
    den = ui[:, 0] * uj[:, 1] - ui[:, 1] * uj[:, 0]
    diff = pj - pi
    s = (diff[:, 0] * uj[:, 1] - diff[:, 1] * uj[:, 0]) / den
    corner = pi + s[:, None] * ui
    # Each stroke ends near the corner; it runs away from it towards its other end.
    out: list[Vector] = []
    ai = _away(ends[i], corner)
    aj = _away(ends[j], corner)
    ok = (ai[0] <= _NEAR) & (aj[0] <= _NEAR)
    if not ok.any():
        return NO_RECTS
    corner, va, vb = corner[ok], ai[1][ok], aj[1][ok]
    # The two directions made exactly square, splitting the difference.
    hx, hy = va[:, 0] + vb[:, 0], va[:, 1] + vb[:, 1]
    size = np.maximum(np.hypot(hx, hy), 1e-9)
    hx, hy = hx / size, hy / size
    px, py = -hy, hx
    sign = np.where(px * va[:, 0] + py * va[:, 1] > 0, 1.0, -1.0)
    root2 = math.sqrt(2)
    da = np.stack([(hx + sign * px) / root2, (hy + sign * py) / root2], axis=1)
    db = np.stack([(hx - sign * px) / root2, (hy - sign * py) / root2], axis=1)
    for wa, wb in ((aspect, 1.0), (1.0, aspect)):
        out.append(np.stack([corner, corner + da * wa, corner + da * wa + db * wb,
                             corner + db * wb], axis=1))
    return np.concatenate(out)


def _away(ends: Vector, corner: Vector) -> tuple[Vector, Vector]:
    """For segments (K, 2, 2) meeting at ``corner`` (K, 2): how far the nearer end lies from
    the corner, and the unit direction from the corner along the segment to its far end."""
    d0 = np.hypot(*(ends[:, 0] - corner).T)
    d1 = np.hypot(*(ends[:, 1] - corner).T)
    near = np.minimum(d0, d1)
    far = np.where((d0 > d1)[:, None], ends[:, 0], ends[:, 1])
    v = far - corner
    v = v / np.maximum(np.hypot(v[:, 0], v[:, 1]), 1e-9)[:, None]
    return near, v
