"""Cards squared on each other: a pile of nearly coincident cards told apart at full resolution.

A player squares his two hole cards, or the dealer burns a card onto the last one: the lower
card shows a sliver a few millimetres wide along one or two sides of the upper card. At half
resolution (:mod:`vision.table_detect`) the pile is one blob about one card in size, and its
outline is taken for one card. This module looks at such a blob again, at full resolution:

1. The window's mask of what is not cloth (:meth:`vision.empty_table.EmptyTable.fine_mask`),
   whose outline is carried into the table plane and its square corners made into card
   rectangles (:func:`vision.plane_rects.corner_rects`).
2. The rectangle that best explains the mask is the first card; its sides are moved onto the
   picture's edges (:func:`vision.edges.snap`), where the card really ends.
3. A pile differs from one card on one side only: the lower card sticks out on the side it was
   pushed to, and not on the opposite one. Blur, a drop shadow or the plane's error widen the
   mask beyond a lone card by about as much on opposite sides. So the mask's reach beyond the
   first card's sides must differ between opposite sides by :data:`ASYMMETRY` of a card height,
   and the first card's outline must lie on sharp edges (a blurred edge is a ramp).
4. Then cards are added one at a time while one explains :data:`GAIN` of a card more of the
   mask for each card taken, lies at least :data:`APART` from every card taken (a rectangle a
   pixel off the first is the same card), shows a sliver of its own at least three pixels
   wide, and lies over or under each card taken as the picture bears out: the upper card's
   side where it crosses the lower card is an edge of the picture (the lower card's sides in
   view are too).

The upper card comes first (its outline is whole); the cards under it show a sliver only, and
their identity is not read from it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.arrays import Image, Quad, Vector
from vision.detect import order_corners
from vision.edges import snap
from vision.empty_table import EmptyTable
from vision.plane_rects import card_area, corner_rects, to_plane

GAIN = 0.03
"""Card areas of the mask one more card must explain for each card already taken (the mask
over the cloth counts against it twice): a pair's fringe made a third card at a flat 3%."""
APART = 0.03
"""Card heights (and at least :data:`APART_PX` pixels) by which a card added lies off every
card taken: its farthest corner from theirs."""
APART_PX = 2.5
ASYMMETRY = 0.05
"""Card heights (and at least :data:`APART_PX` pixels) by which the mask's reach beyond one
side of the first card exceeds its reach beyond the opposite side. On the development deck's
table scenes the lone cards under blur reach 0.052 at most; squared pairs 0.046 to 0.22."""
SLIVER = 0.4
"""Share of a card's own sliver (the mask it explains that no card taken does) left after
thinning it by a pixel each way: a sliver at least three pixels wide, not the fringe of a
card taken."""
BORNE = 0.5
"""Share of the upper card's side points over the lower card, and of the lower card's side
points in view, that lie on an edge of the picture."""
EDGE = 48.0
"""Gradient across a side (3x3 Sobel, grey levels) for a point on it to lie on an edge."""
SHARP = 1.5
"""An edge is sharp where the gradient across it is this many times the gradient
:data:`_FLANK` pixels to either side."""
_FLANK = 3.0
MOST = 4
"""Cards in one squared pile, at most (a burn pile of three, and one more)."""

_ALONG = np.linspace(0.08, 0.92, 16)
_REACH = np.arange(0, 21)


def _side_points(quad: Vector) -> tuple[Vector, Vector, Vector]:
    """Points along the four sides of ``quad`` (16 each, side after side), the unit normal
    and the unit direction of the side at each."""
    a, b = quad, np.roll(quad, -1, axis=0)
    pts = a[:, None] + _ALONG[None, :, None] * (b - a)[:, None]
    t = (b - a) / np.maximum(np.linalg.norm(b - a, axis=1, keepdims=True), 1e-9)
    n = np.stack([-t[:, 1], t[:, 0]], axis=1)
    return (pts.reshape(-1, 2), np.repeat(n, len(_ALONG), axis=0),
            np.repeat(t, len(_ALONG), axis=0))


def _on_edge(gx: Image, gy: Image, quad: Vector) -> tuple[Vector, Vector]:
    """Side points of ``quad`` and whether each lies on a sharp edge running along its side:
    at the point or a pixel to either side of it the brightness changes across the side (not
    along it), and more steeply than three pixels further either way. A blurred card's edge
    is a ramp several pixels wide, steep all across: a side laid anywhere on it is on an
    edge, but not on a sharp one."""
    pts, n, t = _side_points(quad)
    h, w = gx.shape

    def across(step: float) -> tuple[Vector, Vector]:
        p = np.rint(pts + step * n).astype(np.int64)
        x, y = np.clip(p[:, 0], 0, w - 1), np.clip(p[:, 1], 0, h - 1)
        return (np.abs(gx[y, x] * n[:, 0] + gy[y, x] * n[:, 1]),
                np.abs(gx[y, x] * t[:, 0] + gy[y, x] * t[:, 1]))

    on = np.zeros(len(pts), bool)
    for step in (-1.0, 0.0, 1.0):
        g, along = across(step)
        flank = np.maximum(across(step - _FLANK)[0], across(step + _FLANK)[0])
        on |= (g > EDGE) & (g > 1.8 * along) & (g > SHARP * flank)
    return pts, on


def _inside(quad: Vector, pts: Vector, margin: float) -> Vector:
    """Whether each point lies at least ``margin`` pixels inside ``quad`` (negative: within
    that distance outside it)."""
    outline = np.asarray(quad, np.float32).reshape(-1, 1, 2)
    return np.array([cv2.pointPolygonTest(outline, (float(x), float(y)), True) >= margin
                     for x, y in pts.tolist()], bool)


def _reach(mask: Image, quad: Vector) -> tuple[list[float], Vector]:
    """How far (pixels) the mask reaches beyond each side of ``quad``, outwards: at each of 16
    points along the side, the first pixel out that is not in the mask; of those, the 70th
    percentile (a turned lower card sticks out along part of a side). And each side's outward
    normal (4, 2)."""
    pts, n, _ = _side_points(quad)
    centre = quad.mean(axis=0)
    # Outward normals: the side's normal pointing away from the card's centre.
    flip = np.sum((pts - centre) * n, axis=1) < 0
    n = np.where(flip[:, None], -n, n)
    probe = np.rint(pts[:, None, :] + _REACH[None, :, None] * n[:, None, :]).astype(np.int64)
    h, w = mask.shape
    x, y = probe[..., 0], probe[..., 1]
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    filled = np.zeros(probe.shape[:2], bool)
    filled[inside] = mask[y[inside], x[inside]] > 0
    first = np.where((~filled).any(axis=1), np.argmax(~filled, axis=1), len(_REACH))
    k = len(_ALONG)
    return (np.percentile(first.reshape(4, k), 70, axis=1).tolist(), n[::k].copy())


def _apart(a: Vector, b: Vector) -> float:
    """The largest distance between corresponding corners of two quads, corners matched the
    way round that makes it least."""
    return min(float(np.hypot(*(np.roll(a, r, axis=0) - b).T).max()) for r in range(4))


def split_squared(frame: Image, table: EmptyTable, gain: float, box: tuple[int, int, int, int],
                  plane: Vector, aspect: float) -> list[Quad] | None:
    """The cards of a squared pile in ``box`` (x0, y0, x1, y1: half-resolution pixels round
    one blob of ``frame``), upper card first, as full-frame corners; None when the blob is one
    card (or cannot be told apart). ``gain``: the frame's (:meth:`EmptyTable.gain`);
    ``plane``: full-resolution pixels to card heights."""
    x0, y0, x1, y1 = box
    fine = table.fine_mask(frame, box, gain)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fine)
    if n < 2:
        return None
    mask = (labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
    ox, oy = 2 * x0, 2 * y0
    to_window = np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]], np.float64)
    from_plane = to_window @ np.linalg.inv(plane)
    into_plane = np.linalg.inv(from_plane)
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(found, key=cv2.contourArea)
    card_px = card_area(from_plane, aspect)
    height_px = math.sqrt(card_px / aspect)
    # Finer than the half-resolution peel's: a squared card's step is a few millimetres.
    eps = max(0.012, 0.7 / height_px)
    p = to_plane(into_plane, outline.reshape(-1, 2).astype(np.float64)).astype(np.float32)
    poly = cv2.approxPolyDP(p.reshape(-1, 1, 2), eps, True).reshape(-1, 2).astype(np.float64)
    rects = corner_rects(poly, aspect)
    if not len(rects):
        # An outline whose corners are all rounded or cut starts none: one card where its
        # smallest rectangle lies, its way round.
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(p)
        size = (aspect, 1.0) if (rw < rh) == (aspect < 1.0) else (1.0, aspect)
        rects = cv2.boxPoints(((cx, cy), size, angle)).astype(np.float64)[None]
    # One rectangle for each card the corners start (either way round, either corner first).
    turned = np.roll(rects, 2, axis=1)
    same = np.minimum(np.abs(rects[:, None] - rects[None]).max(axis=(2, 3)),
                      np.abs(turned[:, None] - rects[None]).max(axis=(2, 3))) < 0.01
    distinct = [r for k, r in enumerate(rects) if not same[k, :k].any()]
    quads = [to_plane(from_plane, r) for r in distinct]
    cover = np.zeros((len(quads), mask.size), bool)
    for k, quad in enumerate(quads):
        raster = np.zeros_like(mask)
        cv2.fillPoly(raster, [np.round(quad * 4).astype(np.int32)], 1, shift=2)
        cover[k] = raster.ravel() > 0
    seen = mask.ravel() > 0

    def explained(union: Vector) -> int:
        return int((union & seen).sum()) - 2 * int((union & ~seen).sum())

    grey = cv2.cvtColor(frame[oy:2 * y1, ox:2 * x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    snapped: dict[int, Vector] = {}

    def fitted(k: int) -> Vector:
        if k not in snapped:
            snapped[k] = np.asarray(snap(grey, [quads[k].astype(np.float32)])[0], np.float64)
        return snapped[k]

    first = int(np.argmax([explained(c) for c in cover]))
    top = fitted(first)
    reach, outward = _reach(mask, top)
    least = max(APART_PX, APART * height_px)
    if max(abs(reach[0] - reach[2]), abs(reach[1] - reach[3])) < max(
            APART_PX, ASYMMETRY * height_px):
        return None
    # The lower card as the first moved out by what sticks out beyond it, along either axis
    # or both: its corners may lie hidden under the first card's, and start no rectangle.
    moves = [(reach[k] - reach[k + 2]) * outward[k] for k in (0, 1)]
    for move in (moves[0], moves[1], moves[0] + moves[1]):
        if float(np.hypot(*move)) < least:
            continue
        quad = top + move
        snapped[len(quads)] = quad
        quads.append(quad)
        raster = np.zeros_like(mask)
        cv2.fillPoly(raster, [np.round(quad * 4).astype(np.int32)], 1, shift=2)
        cover = np.vstack([cover, raster.ravel()[None] > 0])
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    edges: dict[int, tuple[Vector, Vector]] = {}

    def on_edge(k: int) -> tuple[Vector, Vector]:
        if k not in edges:
            edges[k] = _on_edge(gx, gy, fitted(k))
        return edges[k]

    if float(on_edge(first)[1].mean()) < BORNE:
        # The first card's own outline is no sharp edge: blurred (a hand moving, the camera
        # out of focus), and a blurred card's fringe is not told from a sliver.
        return None

    def relation(i: int, j: int) -> tuple[float, bool]:
        """How well the picture bears out one of cards i, j lying over the other, and
        whether j is the upper one."""
        best, j_up = 0.0, False
        for up, low in ((i, j), (j, i)):
            pts, on = on_edge(up)
            over = _inside(fitted(low), pts, 2.0)
            low_pts, low_on = on_edge(low)
            in_view = ~_inside(fitted(up), low_pts, -1.5)
            if over.sum() < 4 or in_view.sum() < 4:
                continue
            share = min(float(on[over].mean()), float(low_on[in_view].mean()))
            if share > best:
                best, j_up = share, up == j
        return best, j_up

    chosen = [first]
    union = cover[first].copy()
    score = explained(union)
    above = {first: 0}  # how many of the cards taken each lies over
    while len(chosen) < MOST:
        gains = sorted(((explained(union | cover[j]) - score, j)
                        for j in range(len(quads)) if j not in chosen), reverse=True)
        took = None
        for more, j in gains:
            if more < GAIN * len(chosen) * card_px:
                break
            if min(_apart(fitted(i), fitted(j)) for i in chosen) < least:
                continue
            sliver = (cover[j] & ~union & seen).reshape(mask.shape).astype(np.uint8)
            if cv2.countNonZero(cv2.erode(sliver, np.ones((3, 3), np.uint8))) < SLIVER * (
                    cv2.countNonZero(sliver)):
                continue
            relations = [relation(i, j) for i in chosen]
            if min(share for share, _ in relations) < BORNE:
                continue
            took = j, more, relations
            break
        if took is None:
            break
        j, more, relations = took
        above[j] = sum(j_up for _, j_up in relations)
        for i, (_, j_up) in zip(chosen, relations, strict=True):
            above[i] += not j_up
        chosen.append(j)
        union |= cover[j]
        score += more
    if len(chosen) < 2:
        return None
    shift = np.array([ox, oy], np.float64)
    ordered = sorted(chosen, key=lambda k: (-above[k], -float(on_edge(k)[1].mean())))
    return [order_corners((fitted(k) + shift).astype(np.float32)) for k in ordered]
