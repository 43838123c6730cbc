"""A card's outline moved onto the picture's edges: sub-pixel sides for a card found in a mask.

A mask's outline runs through the pixels at the card's border, which blur, a drop shadow and
JPEG make a pixel or two wider than the card; on a card 45 pixels tall that is several percent,
too much for its small index to be read, or for a card to be told from two cards squared on top
of each other. :func:`snap` refits each side to where the brightness steps across it.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.arrays import Image, Quad

_SNAP_T = np.linspace(0.12, 0.88, 14, dtype=np.float32)
_SNAP_D = np.arange(-6, 6.5, 0.5, dtype=np.float32)
_NEARBY = 1.0 / (1.0 + (_SNAP_D[1:-1] / 2.5) ** 2)
"""How much an edge counts by how far it lies from the side as found: the nearest clear edge
is the card's own, not a stronger one a few pixels off (the outline of the card under it in
a squared pair or a burn pile, where the top card's own edge is faint: a back on a back)."""
_INSIDE = 6
"""Probes (the innermost, three pixels and more inside the side as found) that give the
card's own level, for :func:`snap`'s ``signed``."""
_CONTRAST = 24.0
"""Grey levels between the card's own level and the level beyond for the sign of its edge's
step to count."""
_BEYOND = int(np.searchsorted(_SNAP_D, -1.0))
"""Probes from a pixel inside the side as found outwards: where what lies beyond the card is
looked for (not the card's own print further in)."""


def snap(grey: Image, quads: list[Quad], signed: Sequence[bool] | None = None
         ) -> list[Quad]:
    """Each card's sides moved onto the picture's edges nearby (full resolution, within six
    pixels): a side is refitted to the points along it where the brightness changes most
    steeply across it; a side with too few such points, or a corner that would move too far,
    stays. An outline inferred from a blob at half resolution is a few pixels off, too much
    for a small index.

    ``signed``: for each card, whether only a step of the card's own sign counts, from its own
    level towards the level beyond the side (for cards lying side by side, touching: between
    two of them the side steps down into the dark gap or shadow line, and the next card's edge
    steps back up as strongly; a side of the middle card of a touching board went to its
    neighbour's edge). Not for a card that may lie on another (a squared pair: the lower
    card's outline is a step of the same sign a few pixels out)."""
    if not quads:
        return quads
    q = np.stack([np.asarray(x, np.float32).reshape(4, 2) for x in quads])  # (K, 4, 2)
    a, b = q, np.roll(q, -1, axis=1)
    along = b - a
    length = np.maximum(np.linalg.norm(along, axis=2, keepdims=True), 1e-6)
    t = along / length
    centre = q.mean(axis=1, keepdims=True)
    normal = np.stack([-t[..., 1], t[..., 0]], axis=2)
    mid = (a + b) / 2
    flip = np.sum((mid - centre) * normal, axis=2, keepdims=True) < 0
    normal = np.where(flip, -normal, normal)  # outward
    pts = a[:, :, None, :] + _SNAP_T[None, None, :, None] * along[:, :, None, :]  # (K,4,14,2)
    # The probes across each side point, x and y apart (K, 4, 14, D): one map row per side
    # point (remap takes fewer than 32,767 rows: at most 585 cards).
    probe_x = pts[..., 0, None] + _SNAP_D * normal[:, :, None, None, 0]
    probe_y = pts[..., 1, None] + _SNAP_D * normal[:, :, None, None, 1]
    shape = probe_x.shape
    values = np.asarray(cv2.remap(grey, probe_x.reshape(-1, len(_SNAP_D)),
                                  probe_y.reshape(-1, len(_SNAP_D)), cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE), np.float32).reshape(shape)
    rise = values[..., 2:] - values[..., :-2]  # outward, across the side, two half-steps
    step = np.abs(rise)
    if signed is not None and any(signed):
        which = np.flatnonzero(np.asarray(signed, bool))
        v = values[which]
        # The card's own edge steps from the card's level towards what lies beyond it: the
        # level beyond the side farthest from the card's own. Where the two differ little (a
        # back on cloth of about its brightness) the sign says nothing: a step either way.
        own = v[..., :_INSIDE].mean(axis=-1, keepdims=True)
        beyond = v[..., _BEYOND:]
        far = np.take_along_axis(beyond, np.argmax(np.abs(beyond - own), axis=-1)[..., None],
                                 axis=-1)
        sign = np.where(np.abs(far - own) >= _CONTRAST, np.sign(far - own), 0.0)
        step[which] = np.where(sign == 0.0, step[which], np.maximum(rise[which] * sign, 0.0))
    best = np.argmax(step * _NEARBY, axis=-1)
    flat_step = step.reshape(-1, step.shape[-1])
    strength = flat_step[np.arange(len(flat_step)), best.ravel()].reshape(best.shape)
    offset = _SNAP_D[1:-1][best]  # (K, 4, 14)
    snapped = pts + offset[..., None] * normal[:, :, None, :]
    # Each side as a line (a point on it and its direction): refitted where enough points
    # along it have a clear edge, else as it was.
    good = strength > 18
    lines = np.concatenate([a, t], axis=2).astype(np.float64)  # (K, 4, 4): x, y, dx, dy
    counts = good.sum(axis=2).ravel()
    fit = np.flatnonzero(counts >= 6)
    if len(fit):
        # Every side's clear points in one array, side after side: each side's are a slice.
        chosen = np.ascontiguousarray(snapped[good], np.float32)
        ends = np.cumsum(counts).tolist()
        sizes = counts.tolist()
        found = np.array([cv2.fitLine(chosen[ends[i] - sizes[i]:ends[i]], cv2.DIST_HUBER, 0,
                                      0.01, 0.01).ravel() for i in fit.tolist()], np.float64)
        lines.reshape(-1, 4)[fit] = found[:, [2, 3, 0, 1]]  # (vx, vy, x0, y0) to (x, y, dx, dy)
    # Corner i is where side i-1 meets side i.
    px, py, dx, dy = np.moveaxis(lines, 2, 0)
    qx, qy, ex, ey = np.moveaxis(np.roll(lines, 1, axis=1), 2, 0)
    den = ex * dy - ey * dx
    parallel = np.abs(den) < 1e-3
    u = ((px - qx) * dy - (py - qy) * dx) / np.where(parallel, 1.0, den)
    corners = np.stack([qx + u * ex, qy + u * ey], axis=2).astype(np.float32)
    corners[parallel] = q[parallel]
    moved = np.abs(corners - q).max(axis=(1, 2))
    return [corners[k] if moved[k] <= 8 else np.asarray(quads[k]) for k in range(len(quads))]
