"""Cards on a calibrated table: separated when they overlap, and what else lies over them.

Everything that differs from the empty cloth (:class:`vision.empty_table.EmptyTable`) is a blob;
each blob's outline is carried into the table plane, where every card is a rectangle of one
known shape (the deck's, one card height tall). A blob that is one such rectangle is one card,
unless it is a squared pile (a pair of hole cards squared, a burn pile: :mod:`vision.squared`).
Any other blob (a stacked or squared pair of hole cards, a touching board, a muck pile, a card
under a chip, a hand over the board) is *peeled*: every corner of its outline where two sides
meet square is the corner of a possible card (either way round), and so is every place inside
the blob where two straight edges of the picture meet square (:mod:`vision.junctions`: the top
card of a pile, whose corners lie over the cards under it); each possible card is kept only if
it lies within the blob, its sides are borne out (on the blob's outline, or along an edge in
the picture: the edge of a card lying on another), and it covers enough of the blob not yet
explained; the best is taken (judged on its sides still in view, not under a card taken
before), its area removed, and the rest of the blob peeled again, whose new corners (where the
card taken was cut away) start the next cards. What no card explains and is large (a hand, an
arm, a sleeve, a stack of chips over a card) is an *occluder*: the zones it covers are
reported occluded, and the tracker leaves their cards as they were until they are clear.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.arrays import Contour, Image, Quad, Vector
from vision.detect import fit_quad, order_corners
from vision.edges import snap
from vision.empty_table import SCALE, EmptyTable, half
from vision.junctions import junction_rects
from vision.plane_rects import NO_RECTS, card_area, corner_rects, to_plane
from vision.squared import split_squared


def _to_full(scale: int) -> Vector:
    """Pixel centres at ``scale`` times less resolution to full-resolution pixels."""
    return np.array([[scale, 0, (scale - 1) / 2], [0, scale, (scale - 1) / 2], [0, 0, 1]],
                    np.float64)


def _full(quad: Vector, scale: int) -> Quad:
    """Corners at ``scale`` times less resolution, ordered, in full-resolution pixels."""
    return order_corners(((np.asarray(quad, np.float64) + 0.5) * scale - 0.5).astype(
        np.float32))
_MIN_PIECE = 0.06  # card areas: smaller leftovers are a card's edge, not a card
_OCCLUDER = 0.45  # card areas: larger leftovers are a hand, an arm, a stack of chips
_BORNE_BY_OCCLUDER = 0.75
"""A card peeled from a blob that also holds an occluder (a hand, an arm), or that reaches the
frame's border (an arm reaching in: a forearm about a card wide peels into a row of card-sized
rectangles and leaves no occluder), must have this share of its sides borne out (elsewhere
half will do): a rectangle on a hand's or an arm's outline has two."""
_PROP_RADIUS = 0.5
"""Card heights: the largest round thing (chip, protector) a small unexplained piece is taken
for; a piece whose outline fits a larger circle is not drawn over the cards."""
_PROP_ROUND = 0.1
"""A prop's outline in view lies within this share of its radius of the circle (RMS)."""
_SEEN_SIDES = 0.2
_SEEN_BORNE = 0.5
_SEEN_INSIDE = 0.88
"""A card peeled under others must show at least this share of its sides' points in view,
have this share of those borne out, and this share of its part in view within the blob
(:func:`_in_view`)."""
_WHOLE_BORNE = 0.9
"""A card peeled from a blob with this share of its sides borne out, under none of the blob's
other cards, shows its whole outline, as a lone card does (two backs lying side by side and
touching, a pair laid apart whose gap closes at half resolution)."""
_SQUARED_AREA = (1.04, 1.6)
"""Card areas: a blob taken for one card, or about to be peeled, whose area lies in this range
may be a squared pile (:func:`vision.squared.split_squared`); a lone card's mask is within a
few percent of one card."""
_SQUARED_SIZE = 1.05
"""A blob within a lone card's tolerance is looked at as a squared pile only if its box in the
plane is this many times the card's size one way or the other (lone cards' boxes: 1.04 on
average on the development deck's scenes, squared pairs' 1.10 to 1.15)."""
_MIN_NEW = 0.12
"""A card peeled off a blob must show at least this much of itself not already explained by
the cards found before it (a squared card showing less is not told from its neighbour's
ragged edge)."""


_POOL_BORNE = 0.3
"""A possible card enters a blob's pool of candidates with at least this share of its sides
borne out (the top card of a muck pile shows a third of its sides on the blob's outline or
along an edge; the rest lies over the cards under it, whose edges run across its own)."""
_VIEW_BORNE = 0.6
_VIEW_POWER = 4
_VIEW_POINTS = 8
"""A candidate is worth what it newly explains times the share of its sides in view (not under
a card already taken) that is borne out, to this power: a rectangle straddling two cards of a
pile has some of its sides on neither and loses to the cards themselves. It is taken only with
at least that share borne out, of at least that many side points in view."""
_PILE_AREA = 1.3
"""Card areas: a blob this large or larger is looked at for cards whose corners lie inside it
(:mod:`vision.junctions`) from the start. A smaller one is two cards close together (a pair
squared or stacked) whose outline shows a corner of each; inside it, the two cards' sides run
a few pixels apart and meet the other card's sides square, making rectangles that straddle
both and cover more than either (on the development deck's scenes, at 1.3 every squared pair
counted before is still counted, and the muck's misses fall as with no bound)."""
_REPEAT = 0.9
"""A possible card with more than this share of itself within one card already taken from
its blob is that card again (two cards of a muck pile, one turned a quarter over the other
about the same centre, share 0.72 of a card; a squared pair's lower card showing a tenth of
itself lies nine tenths within the upper, and is still taken: the squared pairs' test)."""


@dataclass(frozen=True, slots=True)
class TableDetection:
    """``quads``: every card's corners (full-frame pixels, :func:`order_corners` order);
    ``peeled``: for each, whether it came out of a blob of several things (its outline is
    inferred, part of it may be hidden); ``occluders``: half-resolution mask of what lies over
    the table and is no card; ``props``: outlines (full-frame pixels) of the smaller things
    no card explains that lie on cards (a chip, a card protector), as far as their outline in
    view says they reach over the cards (:func:`_prop_outline`); ``whole``: for each, whether
    its whole outline is seen (a lone card, a card of a neat row, or a peeled card lying under
    none of its blob's other cards with :data:`_WHOLE_BORNE` of its sides borne out): its
    outline is then as certain as a lone card's. ``squared``: for each, whether it lies under
    another card of a squared pile (:func:`vision.squared.split_squared`): only a sliver of it
    is in view, too little to read."""

    quads: list[Quad]
    peeled: list[bool]
    occluders: Image
    props: list[Vector] = field(default_factory=list)
    whole: list[bool] = field(default_factory=list)
    squared: list[bool] = field(default_factory=list)


def plane_of(table: EmptyTable, card_height: float) -> Vector:
    """Full-resolution pixels to card heights: the calibrated plane, else a uniform scale."""
    if table.plane is not None:
        return table.plane
    return np.diag([1.0 / card_height, 1.0 / card_height, 1.0])


@dataclass(slots=True)
class _Blob:
    """One blob, in a local window of the half-resolution frame."""

    x0: int
    y0: int
    mask: Image  # uint8 0/1
    band: Image  # the outline, a pixel or two wide (bool)
    gx: Image  # the picture's gradient (float32, contiguous), x and y
    gy: Image
    grey: Image  # the picture (uint8)
    to_plane: Vector  # local half-resolution pixels -> plane
    from_plane: Vector


@dataclass(frozen=True, slots=True)
class _Peeled:
    """A card peeled from a blob: its plane rectangle, the share of its sides borne out, and
    what that was worked out from (local pixels): its side points (40, 2), whether each is
    borne out (on the blob's outline or along an edge), and its interior points (63, 2).
    :func:`_in_view` asks the same of the same points again."""

    rect: Vector
    borne: float
    sides: Vector
    on: Vector
    inner: Vector


_GRID_S, _GRID_T = (g.ravel()[None, :, None] for g in np.meshgrid(
    np.linspace(0.08, 0.92, 7), np.linspace(0.06, 0.94, 9)))
_ALONG = np.linspace(0.1, 0.9, 10)[None, :, None]


def _inner_points(rects: Vector) -> Vector:
    """Interior points (7 x 9 grid) of plane rectangles (K, 4, 2): (K, 63, 2)."""
    o = rects[:, 0:1]
    return np.asarray(o + _GRID_S * (rects[:, 1:2] - o) + _GRID_T * (rects[:, 3:4] - o))


def _side_points(rects: Vector) -> Vector:
    """Side points (10 per side, the sides in turn) of plane rectangles (K, 4, 2):
    (K, 40, 2)."""
    o = rects[:, 0:1]
    u = rects[:, 1:2] - o
    v = rects[:, 3:4] - o
    k = _ALONG
    return np.concatenate([o + k * u, o + u + k * v, o + v + k * u, o + k * v], axis=1)


def _look_up(mask: Image, pts: Vector) -> Vector:
    """``mask`` (contiguous) at points (local pixels, any shape (..., 2)); outside the window:
    False."""
    h, w = mask.shape[:2]
    r = np.rint(pts).astype(np.int64)
    x, y = r[..., 0], r[..., 1]
    # A negative coordinate seen unsigned is huge: one comparison each way tells the window.
    ok = (x.view(np.uint64) < w) & (y.view(np.uint64) < h)
    return np.asarray(ok & (np.take(mask.ravel(), y * w + x, mode="clip") > 0))


_STEPS = np.array([-1.0, 0.0, 1.0])[:, None, None]


def _along_edge(blob: _Blob, sides: Vector) -> Vector:
    """Whether each side point (K, 40, 2; four sides of 10) lies on an edge of the picture
    that runs along that side: the brightness changes across the side, not along it (the edge
    of a card lying on another; a back's own pattern runs every way and does not count)."""
    d = sides[:, 9::10] - sides[:, 0::10]  # (K, 4, 2): each side's direction
    dx, dy = d[..., 0], d[..., 1]
    size = np.maximum(np.sqrt(dx * dx + dy * dy), 1e-9)
    tx = np.repeat(dx / size, 10, axis=1)  # (K, 40): each point's side direction
    ty = np.repeat(dy / size, 10, axis=1)
    h, w = blob.gx.shape
    nx, ny = -ty, tx
    # At the point or a pixel to either side across the side (the edge may fall between):
    # the three steps at once, on a leading axis.
    xx = np.clip(np.rint(sides[..., 0] + _STEPS * nx).astype(np.int64), 0, w - 1)
    yy = np.clip(np.rint(sides[..., 1] + _STEPS * ny).astype(np.int64), 0, h - 1)
    at = yy * w + xx
    gx, gy = np.take(blob.gx.ravel(), at), np.take(blob.gy.ravel(), at)
    along = np.abs(gx * tx + gy * ty)
    across = np.abs(gx * nx + gy * ny)
    return np.asarray(((across > 48) & (across > 1.8 * along)).any(axis=0))


@dataclass(slots=True)
class _Pool:
    """The possible cards of a blob that could be cards: they lie within the blob and have
    their sides borne out, which does not change as cards are taken (``free``: not taken
    yet); their inner and side points (local pixels), which side points are borne out, and
    the share that is."""

    rects: Vector = field(default_factory=lambda: NO_RECTS)
    inner: Vector = field(default_factory=lambda: np.zeros((0, 63, 2)))
    sides: Vector = field(default_factory=lambda: np.zeros((0, 40, 2)))
    on: Image = field(default_factory=lambda: np.zeros((0, 40), bool))
    borne: Vector = field(default_factory=lambda: np.zeros(0))
    free: Image = field(default_factory=lambda: np.zeros(0, bool))

    def enter(self, blob: _Blob, rects: Vector) -> None:
        """Those of ``rects`` (plane) that could be cards of ``blob``."""
        if not len(rects):
            return
        inner_px = to_plane(blob.from_plane, _inner_points(rects).reshape(-1, 2)).reshape(
            len(rects), -1, 2)
        within = _look_up(blob.mask, inner_px).mean(axis=1) >= 0.88
        if not within.any():
            return
        rects, inner_px = rects[within], inner_px[within]
        side_px = to_plane(blob.from_plane, _side_points(rects).reshape(-1, 2)).reshape(
            len(rects), -1, 2)
        on = _look_up(blob.band, side_px) | _along_edge(blob, side_px)
        borne = on.mean(axis=1)
        ok = borne >= _POOL_BORNE
        self.rects = np.concatenate([self.rects, rects[ok]])
        self.inner = np.concatenate([self.inner, inner_px[ok]])
        self.sides = np.concatenate([self.sides, side_px[ok]])
        self.on = np.concatenate([self.on, on[ok]])
        self.borne = np.concatenate([self.borne, borne[ok]])
        self.free = np.concatenate([self.free, ok[ok]])

    def best(self, residual: Image, covered: Image, chosen: list[_Peeled]) -> int | None:
        """The free possible card worth most (what it newly explains of ``residual``, times
        its sides in view borne out: :data:`_VIEW_POWER`), or None if none is worth taking."""
        if not self.free.any():
            return None
        new = _look_up(residual, self.inner).mean(axis=1)
        if covered.any():
            seen = ~_look_up(cv2.dilate(covered, np.ones((3, 3), np.uint8)), self.sides)
            n_seen = seen.sum(axis=1)
            view = (self.on & seen).sum(axis=1) / np.maximum(n_seen, 1)
        else:
            n_seen = np.full(len(self.on), self.on.shape[1])
            view = self.borne
        value = new * view ** _VIEW_POWER
        value[~self.free | (new < _MIN_NEW) | (n_seen < _VIEW_POINTS)
              | (view < _VIEW_BORNE)] = -1
        best = int(np.argmax(value))
        while value[best] > 0 and _repeats(self.rects[best], chosen):
            self.free[best] = False
            value[best] = -1
            best = int(np.argmax(value))
        return best if value[best] > 0 else None


def _peel(blob: _Blob, aspect: float, limit: int) -> tuple[list[_Peeled], Image]:
    """The cards of one blob (plane rectangles, each with the share of its sides borne out)
    and what is left of it (local mask)."""
    card_px = card_area(blob.from_plane, aspect)
    covered = np.zeros_like(blob.mask)
    chosen: list[_Peeled] = []
    # Outline simplification: a few percent of a card, and no finer than the pixels allow.
    eps = max(0.04, 2.0 / math.sqrt(card_px / aspect))
    # Possible cards met so far (``met``), and of them the pool of those that could be cards.
    # Only how much of each is still unexplained is worked out again after each card taken.
    # (A possible card that could not be one is only remembered, so that meeting its corner
    # again costs nothing.) The corners inside the blob (:mod:`vision.junctions`) join the
    # pool before the first card is taken, in a blob large enough to be a pile.
    met = NO_RECTS
    pool = _Pool()
    while len(chosen) < limit:
        residual = cv2.bitwise_and(blob.mask, 1 - covered)
        residual = cv2.morphologyEx(residual, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        found, _ = cv2.findContours(residual, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        hyps: list[Vector] = []
        for c in found:
            if cv2.contourArea(c) < _MIN_PIECE * card_px:
                continue
            p = to_plane(blob.to_plane, c.reshape(-1, 2).astype(np.float64))
            poly = cv2.approxPolyDP(p.astype(np.float32).reshape(-1, 1, 2), eps, True)
            hyps.append(corner_rects(poly.reshape(-1, 2).astype(np.float64), aspect))
        rects = np.concatenate(hyps) if hyps else NO_RECTS
        if len(rects) and len(met):  # corners already met (the rest of the outline is unchanged)
            d = np.abs(rects[:, None, 0] - met[None, :, 0]).max(axis=2)
            e = np.abs(rects[:, None, 2] - met[None, :, 2]).max(axis=2)
            rects = rects[~((d < 0.02) & (e < 0.02)).any(axis=1)]
        met = np.concatenate([met, rects])
        pool.enter(blob, rects)
        if not len(chosen) and float(blob.mask.sum()) >= _PILE_AREA * card_px:
            pool.enter(blob, junction_rects(blob.grey, blob.mask, blob.to_plane, aspect))
        best = pool.best(residual, covered, chosen)
        if best is None:
            break
        chosen.append(_Peeled(pool.rects[best], float(pool.borne[best]), pool.sides[best],
                              pool.on[best], pool.inner[best]))
        pool.free[best] = False
        quad = to_plane(blob.from_plane, pool.rects[best])
        cv2.fillPoly(covered, [np.round(quad).astype(np.int32)], 1)
    left = cv2.bitwise_and(blob.mask, 1 - cv2.dilate(covered, np.ones((5, 5), np.uint8)))
    return chosen, left


def _repeats(rect: Vector, chosen: list[_Peeled]) -> bool:
    """Whether most of a possible card (plane rectangle) lies within one card already taken:
    the same card again, a little off (two cards of a pile lying as near as that show too
    little of the lower one to tell)."""
    pts = _inner_points(rect[None])[0]
    for card in chosen:
        o = card.rect[0]
        u, v = card.rect[1] - o, card.rect[3] - o
        s = (pts - o) @ u / float(u @ u)
        t = (pts - o) @ v / float(v @ v)
        if float(((s >= 0) & (s <= 1) & (t >= 0) & (t <= 1)).mean()) > _REPEAT:
            return True
    return False


def _in_view(blob: _Blob, cards: list[_Peeled]) -> tuple[list[_Peeled], Image]:
    """The peeled cards whose sides in view are borne out, and what is left of the blob.

    A card peeled after others lies under them: where its sides run under them (or along
    their edges) they are not seen, and the outline there is theirs, not its own. Of the
    points of its sides in view, half must be on the blob's outline or along an edge of the
    picture. A rectangle made of a card's corner and a chip or a protector lying half off it
    (two of its sides along the card's, under it, the others across the cloth or the chip's
    rim) is no card: what it covered stays unexplained (something no card explains)."""
    kept: list[_Peeled] = []
    above = np.zeros_like(blob.mask)
    k3 = np.ones((3, 3), np.uint8)
    for card in cards:
        quad = to_plane(blob.from_plane, card.rect)
        if kept:
            under = cv2.dilate(above, k3)
            seen = ~_look_up(under, card.sides)
            if not seen.all():  # else it lies under none of them: peeled as any card
                if int(seen.sum()) < _SEEN_SIDES * seen.size or float(
                        card.on[seen].mean()) < _SEEN_BORNE:
                    continue
                # Its part in view lies on the table's things, not on the cloth.
                open_ = ~_look_up(under, card.inner)
                if int(open_.sum()) >= 4 and float(
                        _look_up(blob.mask, card.inner)[open_].mean()) < _SEEN_INSIDE:
                    continue
        kept.append(card)
        cv2.fillPoly(above, [np.round(quad).astype(np.int32)], 1)
    left = cv2.bitwise_and(blob.mask, 1 - cv2.dilate(above, np.ones((5, 5), np.uint8)))
    return kept, left


def _pieces(left: Image, blob: _Blob) -> list[tuple[Image, list[Contour], float]]:
    """The parts of a blob no card explains (``left``, local half-resolution mask), each with
    its outlines and its area in the table plane (card heights squared); specks left out."""
    if cv2.countNonZero(left) < 20:  # specks at most (most blobs: every card explained)
        return []
    n, labels, stats, _ = cv2.connectedComponentsWithStats(left)
    out: list[tuple[Image, list[Contour], float]] = []
    for label in range(1, n):
        if stats[label, cv2.CC_STAT_AREA] < 20:
            continue
        piece = (labels == label).astype(np.uint8)
        cs, _ = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        area = sum(abs(float(cv2.contourArea(to_plane(
            blob.to_plane, c.reshape(-1, 2).astype(np.float64)).astype(np.float32))))
            for c in cs)
        out.append((piece, list(cs), area))
    return out


def _prop_outline(piece: Image, outlines: list[Contour], rects: list[_Peeled],
                  blob: _Blob) -> Vector | None:
    """Where a small thing no card explains (``piece``, local half-resolution mask, with its
    ``outlines``) lies, over the cards of its blob too: the circle of the table plane fitted
    to its outline away from the cards (a chip or a protector is round, and seen whole where
    it lies off them), at most half a card height in radius (local half-resolution pixels).
    None when too little of its outline is in view to fit, or it is not round (a piece of a
    card no other explains, in a pile)."""
    cards = np.zeros_like(piece)
    for rect in (card.rect for card in rects):
        cv2.fillPoly(cards, [np.round(to_plane(blob.from_plane, rect)).astype(np.int32)], 1)
    near = cv2.dilate(cards, np.ones((7, 7), np.uint8)) > 0
    pts = np.vstack([c.reshape(-1, 2) for c in outlines])
    free = pts[~near[pts[:, 1], pts[:, 0]]]
    if len(free) < 8:
        return None
    p = to_plane(blob.to_plane, free.astype(np.float64))
    # The circle x^2 + y^2 + d x + e y + f = 0 nearest the points (least squares).
    design = np.column_stack([p, np.ones(len(p))])
    (d, e, f), *_ = np.linalg.lstsq(design, -(p ** 2).sum(axis=1), rcond=None)
    cx, cy = -d / 2, -e / 2
    r2 = cx * cx + cy * cy - f
    if not math.isfinite(r2) or r2 <= 0 or r2 > _PROP_RADIUS ** 2:
        return None
    # Round, not the corner of a card (a pile's card no other explains).
    off = np.hypot(p[:, 0] - cx, p[:, 1] - cy) - math.sqrt(r2)
    if float(np.sqrt(np.mean(off * off))) > _PROP_ROUND * math.sqrt(r2):
        return None
    t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    circle = np.stack([cx + math.sqrt(r2) * np.cos(t), cy + math.sqrt(r2) * np.sin(t)], axis=1)
    return to_plane(blob.from_plane, circle)


def detect_on_table(frame: Image, table: EmptyTable, *, aspect: float, card_height: float,
                    max_candidates: int = 160) -> TableDetection:
    """Every card on the calibrated ``table`` in ``frame`` and the occluders over it."""
    scale = SCALE
    small = half(frame)
    gain = table.gain(small)
    mask = table.foreground(small, gain)
    plane = plane_of(table, card_height)
    to_plane_small = plane @ _to_full(scale)
    from_plane_small = np.linalg.inv(to_plane_small)
    grey8 = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    grey = grey8.astype(np.float32)
    grad_x = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    grad_y = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    # Blobs far smaller than the smallest card anywhere in the frame are skipped unexamined.
    hs, ws = mask.shape
    corners = np.array([(0, 0), (ws, 0), (ws, hs), (0, hs), (ws / 2, hs / 2)], np.float64)
    smallest = min(card_area(from_plane_small, aspect, c)
                   for c in to_plane(to_plane_small, corners))
    areas = [cv2.contourArea(c) for c in found]
    order = sorted((i for i, a in enumerate(areas) if a >= 0.2 * smallest),
                   key=lambda i: -areas[i])[:max_candidates]
    found = [found[i] for i in order]
    quads: list[Quad] = []
    peeled: list[bool] = []
    whole: list[bool] = []
    squared: list[bool] = []
    occluders = np.zeros_like(mask)
    props: list[Vector] = []
    # The cards fitted as one card although they may be several squared (their outline's
    # sides may be the lower card's): snapped to the nearest step of either sign.
    unsigned: set[int] = set()
    # The cards of squared piles, already on the picture's edges (:func:`split_squared`).
    settled: set[int] = set()

    def pile(box: tuple[int, int, int, int], area: float) -> bool:
        """A blob about one card in size, if it is a squared pile: its cards added (already
        on the picture's edges). False: one card after all."""
        if not _SQUARED_AREA[0] * aspect <= area <= _SQUARED_AREA[1] * aspect:
            return False
        cards = split_squared(frame, table, gain, box, plane, aspect)
        if cards is None:
            return False
        for k, quad in enumerate(cards):
            settled.add(len(quads))
            quads.append(quad)
            peeled.append(True)
            whole.append(k == 0)
            squared.append(k > 0)
        return True

    for contour in found:
        pts = contour.reshape(-1, 2).astype(np.float64)
        p = to_plane(to_plane_small, pts)
        p32 = p.astype(np.float32)  # the outline in the plane, as OpenCV takes it (once)
        area = abs(float(cv2.contourArea(p32)))
        if area < 0.25 * aspect:
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(p32)
        short, long = min(rw, rh), max(rw, rh)
        hull = abs(float(cv2.contourArea(cv2.convexHull(p32))))
        # An outline through pixel centres is a pixel short of the card each way: on a small
        # card that is several percent.
        px = math.sqrt(max(cv2.contourArea(contour), 1.0) / area)  # pixels per card height
        slack = 0.1 + 1.5 / px
        x, y, w, h = cv2.boundingRect(contour)
        x0, y0 = max(x - 3, 0), max(y - 3, 0)
        x1, y1 = min(x + w + 3, ws), min(y + h + 3, hs)
        if (abs(short - aspect) < slack * aspect and abs(long - 1) < slack
                and hull > 0.88 * short * long and area > 0.8 * short * long):
            # A squared pile sticks out of one card's box by its lower card's sliver.
            if max(short / aspect, long) >= _SQUARED_SIZE and pile((x0, y0, x1, y1), area):
                continue
            quads.append(_single(contour, p, from_plane_small, scale))
            peeled.append(False)
            whole.append(True)
            squared.append(False)
            continue
        if pile((x0, y0, x1, y1), area):
            continue
        row = _row(p, area, hull, aspect, slack)
        if row is not None:
            for rect in row:
                quad = to_plane(from_plane_small, rect)
                quads.append(_full(quad, scale))
                peeled.append(True)
                whole.append(True)  # a rectangle a whole number of cards long, cut up
                squared.append(False)
            continue
        local = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(local, [contour - np.array([x0, y0], np.int32)], -1, 1, -1)
        k5 = np.ones((5, 5), np.uint8)
        band = (cv2.dilate(local, k5) - cv2.erode(local, k5)) > 0
        # The picture's edge at the frame's border is no card's side.
        band[:, :1] = band[:, -1:] = False
        band[:1, :] = band[-1:, :] = False
        if x0 == 0:
            band[:, :3] = False
        if y0 == 0:
            band[:3, :] = False
        if x1 == ws:
            band[:, -3:] = False
        if y1 == hs:
            band[-3:, :] = False
        # The window's gradients, contiguous (looked up at many points).
        gx = np.ascontiguousarray(grad_x[y0:y1, x0:x1])
        gy = np.ascontiguousarray(grad_y[y0:y1, x0:x1])
        shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        blob = _Blob(x0, y0, local, band, gx, gy, grey8[y0:y1, x0:x1], to_plane_small @ shift,
                     _unshift(x0, y0) @ from_plane_small)
        limit = max(int(area / aspect * 1.6) + 2, 3)
        rects, left = _peel(blob, aspect, min(limit, 14))
        if len(rects) > 1:
            kept, kept_left = _in_view(blob, rects)
            # What a card left out leaves unexplained must be prop-sized (a chip, a protector):
            # a large leftover (cards of a muck pile, each under others) would be taken for a
            # hand over its zones, held occluded for as long as the pile lies there.
            if len(kept) == len(rects) or all(
                    a < _OCCLUDER * aspect for _, _, a in _pieces(kept_left, blob)):
                rects, left = kept, kept_left
        if not rects and 0.75 * aspect <= area <= 1.6 * aspect and hull > 0.8 * short * long:
            # About one card that peels into none (a squared burn pile, two cards merged at
            # half resolution): one card, its outline fitted, rather than nothing.
            quads.append(_single(contour, p, from_plane_small, scale))
            peeled.append(True)
            whole.append(False)
            squared.append(False)
            unsigned.add(len(quads) - 1)
            continue
        over = np.zeros_like(local)
        for piece, cs, piece_area in _pieces(left, blob):
            if piece_area >= _OCCLUDER * aspect:
                over |= piece
            elif rects:
                shape = _prop_outline(piece, cs, rects, blob)
                if shape is not None:
                    props.append((shape + np.array([x0, y0])) * scale + (scale - 1) / 2)
        outline = contour - np.array([x0, y0], np.int32)
        alone = _alone(rects, aspect)
        # A blob reaching the frame's border: an arm reaching in from outside the picture
        # (its hand over the cards), even where every part of it was taken for a card.
        edge_blob = x < 1 or y < 1 or x + w > ws - 1 or y + h > hs - 1
        for k, (rect, borne) in enumerate((card.rect, card.borne) for card in rects):
            rough = to_plane(blob.from_plane, rect).astype(np.float32)
            if (over.any() or edge_blob) and borne < _BORNE_BY_OCCLUDER:
                # Next to a hand or an arm a card needs most of its sides in view; else what
                # it covers is part of what lies over the table (the zone is held, not read).
                cv2.fillPoly(over, [np.round(rough).astype(np.int32)], 1)
                continue
            # Each side that lies on the blob's outline is fitted to it (sub-pixel corners).
            fitted = fit_quad(outline, rough)
            quad = (rough if fitted is None else fitted) + np.array([x0, y0])
            quads.append(_full(quad, scale))
            peeled.append(True)
            whole.append(alone[k] and borne >= _WHOLE_BORNE)
            squared.append(False)
        if over.any():
            occluders[y0:y1, x0:x1] |= (over & local) * 255
    unsnapped = [k for k in range(len(quads)) if k not in settled]
    if unsnapped:
        # Every outline (a lone card's too) onto the picture's edges: the mask's is a pixel
        # or so off, enough to cut a small index.
        grey_full = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
        for start in range(0, len(unsnapped), 500):  # remap's row limit
            part = unsnapped[start:start + 500]
            # A peeled card's side may run between it and a card touching it (a board, a
            # row, a pile): only a step of its own sign is its edge (:func:`snap`). A lone
            # card's outline may be a squared pair's: the nearest step, of either sign.
            signed = [peeled[k] and k not in unsigned for k in part]
            for k, q in zip(part, snap(grey_full, [quads[k] for k in part], signed),
                            strict=True):
                quads[k] = order_corners(q)
    return TableDetection(quads=quads, peeled=peeled, occluders=occluders, props=props,
                          whole=whole, squared=squared)


def _row(outline: Vector, area: float, hull: float, aspect: float, slack: float
         ) -> list[Vector] | None:
    """Cards lying side by side in a neat row (a touching board, a pair of hole cards laid
    square next to each other): in the plane the blob is a rectangle one card across and a
    whole number of cards long, give or take narrow gaps. The row is cut into cards of the
    deck's size, the gaps shared out. None: not such a row."""
    pts = outline.astype(np.float32)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
    short, long = min(rw, rh), max(rw, rh)
    if long <= 0 or hull < 0.93 * short * long or area < 0.9 * short * long:
        return None
    box = cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float64)
    # The box's corners with its long side first: b0 -> b1 along the row, b0 -> b3 across.
    sides = [float(np.linalg.norm(box[(i + 1) % 4] - box[i])) for i in range(4)]
    if sides[0] < sides[1]:
        box = np.roll(box, -1, axis=0)
    b0, b1, b3 = box[0], box[1], box[3]
    axis = (b1 - b0) / long
    across = (b3 - b0) / short
    for along_size, across_size in ((aspect, 1.0), (1.0, aspect)):
        if abs(short - across_size) > slack * across_size:
            continue
        k = round(long / along_size)
        if k < 2 or k > 8:
            continue
        gap = (long - k * along_size) / (k - 1)
        if not -0.04 <= gap <= 0.3 * along_size:
            continue
        step = along_size + max(gap, 0.0)
        size = along_size if gap >= 0 else long / k
        step = step if gap >= 0 else size
        out = []
        for j in range(k):
            a = b0 + axis * (j * step)
            out.append(np.array([a, a + axis * size, a + axis * size + across * short,
                                 a + across * short]))
        return out
    return None


def _alone(cards: list[_Peeled], aspect: float) -> list[bool]:
    """For each card peeled from a blob, whether it lies under none of the cards taken before
    it (they overlap by at most 2% of a card, in the plane): its sides are its own."""
    rects = [np.asarray(card.rect, np.float32).reshape(-1, 1, 2) for card in cards]
    return [all(cv2.intersectConvexConvex(rects[j], rect)[0] <= 0.02 * aspect
                for j in range(k)) for k, rect in enumerate(rects)]


def _unshift(x0: int, y0: int) -> Vector:
    """The inverse of the move by (x0, y0) (whole pixels: exactly)."""
    return np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)


def _single(contour: Contour, plane: Vector, from_plane: Vector, scale: int) -> Quad:
    """A lone card's corners from its outline (at ``scale`` times less resolution; ``plane``:
    the same in the table plane, ``from_plane``: plane to those pixels), each side fitted
    with a line. The sides are looked for along the smallest rectangle round the outline in
    the plane, where the card is a rectangle: in the picture a tilted camera makes it a
    trapezoid, whose box there runs along none of its sides."""
    box = cv2.boxPoints(cv2.minAreaRect(plane.astype(np.float32))).astype(np.float64)
    approx = to_plane(from_plane, box).astype(np.float32)
    quad = fit_quad(contour, approx)
    if quad is None:
        quad = approx
    return _full(quad, scale)
