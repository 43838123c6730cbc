"""Face or back, and for a face its rank and suit, against an enrolled deck.

Each detected card is straightened to an upright picture of :data:`CANON` pixels (its corners
come in the order of :func:`vision.detect.order_corners`, so the picture is upright or upside
down, never mirrored).

1. Face or back: the whole card, shrunk to a coarse grey thumbnail, is correlated with the
   enrolled back and faces in both orientations, and its coarse colour picture (balanced by
   the card's own colours, so the room's white balance does not count) is compared with
   theirs; the two kinds of evidence are added (a fine lattice back seen small has lost its
   pattern, not its colour). A face is then balanced so that its paper is the enrolled
   paper's (a cool or warm light, a dim room undone) and short-listed by its thumbnail.
2. Rank and suit from the corner index. At enrolment the index is found as the outermost band
   of columns of the top-left corner that differ between cards, and within it the first two
   bands of rows: the rank sign and the suit sign. Each sign is matched on its own (so the
   small suit sign weighs as much as the rank), allowing a shift of a couple of pixels, against
   each short-listed card's, in both corners (the top-left one and the bottom-right one turned
   half a turn), so an upside-down card or glare on one corner does not matter. The
   whole-card scores are added with a smaller weight as support.

Jokers (rules.md §5: a joker is discarded and replaced; alert JOKER). When the deck was enrolled
with its joker designs, a card whose thumbnail is the joker's, or comes close to it
(:data:`_JOKER_SLACK`), is compared with the joker designs and with its best-matching faces on a
finer grey picture of the whole card (both orientations, at the blur that fits); the label
``"joker"`` wins only when a joker design fits better than every face. A joker has no index to
read, so this finer whole-card comparison, not the index match, is what tells it from a card.

Templates are kept at three degrees of blur; each card is compared at the degree that fits it
best, so a defocused spade is compared with defocused spades and clubs, not with sharp ones
(a blurred spade looks more like a sharp club than like a sharp spade).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from table_controller.vocabulary.cards import Card, parse_card
from vision.arrays import Image, Vector
from vision.templates import BACK, JOKER, DeckTemplates, warp_card, warp_cards

CANON = (72, 100)
"""Width, height of the straightened card picture."""
_THUMB = (18, 25)
_SHIFT = 2
_SHORTLIST = 4
_BODY_WEIGHT = 0.5
_DETAIL = (36, 50)
_DETAIL_WEIGHT = 8.0
_BLURS = (0.0, 0.9, 1.5)
_PART_WEIGHTS = (1.0, 1.0)  # rank sign, suit sign
_JOKER_SLACK = 0.25
"""How far below the best face's thumbnail score a joker's may be and still be compared."""


class Labelled:
    """What a reading's ``label`` (``"As"`` style, ``"back"`` or ``"joker"``) says of the card;
    shared by :class:`Recognition` and the analyser's ``SeenCard``."""

    __slots__ = ()
    label: str

    @property
    def face_up(self) -> bool:
        return self.label != BACK

    @property
    def joker(self) -> bool:
        return self.label == JOKER

    @property
    def card(self) -> Card | None:
        """The card read; None for a back or a joker."""
        return None if self.label in (BACK, JOKER) else parse_card(self.label)


@dataclass(frozen=True, slots=True)
class Recognition(Labelled):
    """``label`` is ``"As"`` style, ``"back"`` or ``"joker"``; ``score`` the winning match
    (about 0..1.5), ``margin`` its lead over the runner-up (small: unsure)."""

    label: str
    score: float
    margin: float


def _unit(v: Vector) -> Vector:
    """Zero mean, unit length (so a dot product of two is their normalised correlation)."""
    v = v.astype(np.float32).ravel()
    v -= v.mean()
    n = float(np.sqrt(v @ v))
    return v / n if n > 1e-6 else v


def _thumb(card: Image) -> Vector:
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    return _unit(cv2.resize(grey, _THUMB, interpolation=cv2.INTER_AREA))


def _detail(card: Image) -> Vector:
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    return _unit(cv2.resize(grey, _DETAIL, interpolation=cv2.INTER_AREA))


def _units(rows: Vector) -> Vector:
    """:func:`_unit` of each row of a matrix."""
    v = rows.astype(np.float32)
    v -= v.mean(axis=1, keepdims=True)
    n = np.sqrt(np.einsum("ij,ij->i", v, v))
    return np.asarray(v / np.where(n > 1e-6, n, 1.0)[:, None], np.float32)


def _products(rows: Vector, templates: Vector) -> Vector:
    """``rows @ templates.T`` computed row by row (a stack of one-row products). A frame's
    cards at once make a product big enough for OpenBLAS to spread over every core, whose
    threads then busy-wait between products: on the Pi's few cores, shared with the rest of
    the controller, that doubles the CPU time for no gain in wall time. One-row products stay
    on the calling thread."""
    return np.asarray(np.matmul(rows[:, None, :], templates.T)[:, 0], np.float32)


def _shrunk_units(grey: Image, count: int, size: tuple[int, int]) -> Vector:
    """:func:`_unit` of each of ``count`` grey cards stacked top to bottom in ``grey``, shrunk
    to ``size``, one row per card, all in one go. The cards' size being a whole multiple of
    ``size``, each pixel of the result averages a block of one card only, so the rows are what
    shrinking each card on its own gives."""
    small = cv2.resize(grey, (size[0], size[1] * count), interpolation=cv2.INTER_AREA)
    return _units(small.reshape(count, -1))


def _by_channel(pixels: Image) -> Image:
    """Each card's pixels (N, P, 3) channel by channel: (N, 3, P), each row contiguous (a
    partition along a short last axis is slow)."""
    return np.ascontiguousarray(np.asarray(pixels).transpose(0, 2, 1))


def _kth(pixels: Image, k: int) -> Vector:
    """The ``k``-th smallest value (from 0) of each card's pixels (N, P, 3), channel by
    channel, as float32: (N, 3)."""
    return np.partition(_by_channel(pixels), k, axis=2)[:, :, k].astype(np.float32)


def _median(pixels: Image) -> Vector:
    """:func:`numpy.median` of each card's pixels (N, P, 3) over P, channel by channel, as
    float32 (for whole-number pixels, the same values): (N, 3)."""
    n = pixels.shape[1]
    mid = n // 2
    if n % 2:
        return _kth(pixels, mid)
    both = np.partition(_by_channel(pixels), [mid - 1, mid], axis=2)[:, :, mid - 1:mid + 1]
    b = both.astype(np.float32)
    return np.asarray((b[:, :, 0] + b[:, :, 1]) / 2, np.float32)


def _prep(card: Image) -> Image:
    return np.asarray(cv2.GaussianBlur(card, (3, 3), 0.8), np.uint8)


Box = tuple[int, int, int, int]
_INK_WEIGHT = 6.0
"""Weight of the index ink's colour (red against black, in the card's own white balance)."""


def _relative(cards: Image) -> Vector:
    """Each pixel of a stack of cards (N, H, W, 3), every other row and column, as a
    fraction of its card's paper (the brightest tenth, channel by channel): (N, P, 3)."""
    grid = cards[:, ::2, ::2]
    n = len(grid)
    some = grid[:, 1:-1:2, 1:-1:2].reshape(n, -1, 3)
    paper = _kth(some, int(0.9 * (some.shape[1] - 1))) + 1.0  # (n, 3)
    return np.asarray(grid.reshape(n, -1, 3).astype(np.float32) / paper[:, None, :],
                      np.float32)


def _ink_mask(card: Image, index: Box) -> Vector:
    """Where ``card`` (a template, upright at CANON) has the ink of its suit's colour, on the
    grid of :func:`_relative`, as weights summing to 1: the pixels darker than 70% of the
    paper whose colour is the index's (the index is in the suit's colour; a court card's
    coloured panel is not). Both ways up, so the seen card's orientation does not matter."""
    rel = _relative(np.stack([card, cv2.rotate(card, cv2.ROTATE_180)]))
    level = rel.mean(axis=2)
    chroma = rel - level[:, :, None]
    h, w = card.shape[0] // 2 + card.shape[0] % 2, card.shape[1] // 2 + card.shape[1] % 2
    x0, y0, x1, y1 = (v // 2 for v in index)
    in_box = np.zeros((h, w), bool)
    in_box[y0:y1 + 1, x0:x1 + 1] = True
    ink = level < 0.7
    sign = ink[0] & in_box.ravel()
    suit = chroma[0][sign].mean(axis=0) if sign.any() else np.zeros(3, np.float32)
    tol = 0.4 * float(np.linalg.norm(suit)) + 0.08
    near = ink & (np.linalg.norm(chroma - suit, axis=2) < tol)
    mask = (near[0] | near[1]).astype(np.float32)
    if mask.sum() < 3:
        mask = (ink[0] | ink[1]).astype(np.float32)
    return np.asarray(mask / max(float(mask.sum()), 1.0), np.float32)


def _ink_colours(rel: Vector, masks: Vector) -> Vector:
    """The ink colour of each card (``rel``: :func:`_relative`, (N, P, 3)) where each of its
    candidates has its suit-coloured ink (``masks``: (N, K, P)): the mean chroma there, each
    channel a fraction of the card's paper, so a white balance or a dim room leaves red ink
    red and black ink black. Each pixel counts by its darkness: where blur or JPEG has mixed
    the ink with the paper, the paper's colour has bled into it. (N, K, 3)."""
    # The mean of the three channels, in the order of a reduction over them (which is slow).
    level = ((rel[:, :, 0:1] + rel[:, :, 1:2]) + rel[:, :, 2:3]) / 3
    dark = np.clip(1.0 - level[:, :, 0], 0.0, 1.0)  # (N, P)
    weights = masks * (dark * dark)[:, None, :]
    weights /= np.maximum(weights.sum(axis=2, keepdims=True), 1e-6)
    chroma = rel - level
    return np.asarray(np.matmul(weights, chroma), np.float32)


_CELLS = (9, 12)
"""The coarse colour picture of a card for face or back: columns, rows."""
_COLOUR_WEIGHT = 1.0
_COLOUR_FLOOR = 0.01
"""Face or back: weight of the colour evidence (log of the distance ratio) against the
thumbnail correlation's, and the distance under which two colour pictures are alike."""


def _inner(halves: Image, count: int) -> Image:
    """Each of ``count`` half-size cards stacked in ``halves`` without its outer three pixels
    (where a blurred card takes the cloth's colour): (count, h - 6, w - 6, 3)."""
    m = 3
    return np.asarray(halves.reshape(count, halves.shape[0] // count, -1, 3)[:, m:-m, m:-m])


def _colour_cells(halves: Image, count: int) -> Vector:
    """The coarse colour picture of each of ``count`` half-size cards stacked in ``halves``,
    its outer three pixels left out (where a blurred card takes the cloth's colour): the log
    of each cell's colour over the card's median colour, channel by channel (a white balance
    or a dimmer light, a gain per channel, changes none of it), then the card's median colour
    itself, its brightness left out (log chroma: a white balance moves it a little, a red or
    blue back far from white paper). (count, cells * 3 + 3)."""
    inner = np.ascontiguousarray(_inner(halves, count))
    median = _median(inner[:, ::2, ::2].reshape(count, -1, 3)) + 4.0
    small = cv2.resize(inner.reshape(-1, inner.shape[2], 3), (_CELLS[0], _CELLS[1] * count),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    cells = np.log((small.reshape(count, -1, 3) + 4.0) / median[:, None, :])
    tint = np.log(median)
    tint -= tint.mean(axis=1, keepdims=True)
    # The tint weighs as much as all the cells together.
    weight = math.sqrt(_CELLS[0] * _CELLS[1])
    return np.asarray(np.hstack([cells.reshape(count, -1), weight * tint]), np.float32)


def _interior_means(halves: Image, count: int) -> Vector:
    """The mean colour (B, G, R) of each of ``count`` half-size cards stacked in ``halves``,
    its outer three pixels left out (as :func:`_colour_cells`): (count, 3)."""
    inner = _inner(halves, count).astype(np.float32)
    return np.asarray(inner.reshape(count, -1, 3).mean(axis=1), np.float32)


_LIGHT_LIMIT = 3.0
"""The room's light is undone by at most this factor in any channel (a colour cast beyond it
is no white balance: the cards laid were not the deck's backs)."""


def _in_light(halves: Image, light: Vector) -> Image:
    """``halves`` with each channel scaled by ``light`` (B, G, R gains)."""
    return np.asarray(np.clip(halves.astype(np.float32) * light, 0, 255), np.uint8)


def _masked_cells(half: Image, hidden: Image) -> tuple[Vector, Vector, int] | None:
    """:func:`_colour_cells` of one half-size card over the part in view (``hidden``: CANON
    mask, 1 hidden): its colour picture (the median taken over the pixels in view), the
    columns of the cells in view (and the tint's), and how many cells those are; None when
    fewer than a third of the cells are in view."""
    m = 3
    h, w = half.shape[:2]
    vis = cv2.resize(1.0 - hidden.astype(np.float32), (w, h), interpolation=cv2.INTER_AREA)
    inner = half[m:-m, m:-m]
    seen = vis[m:-m, m:-m] > 0.5
    cells_seen = cv2.resize(vis[m:-m, m:-m], _CELLS, interpolation=cv2.INTER_AREA).ravel() > 0.9
    n = int(cells_seen.sum())
    if n < _CELLS[0] * _CELLS[1] // 3 or not seen.any():
        return None
    median = np.median(inner[seen].astype(np.float32), axis=0) + 4.0
    small = cv2.resize(inner, _CELLS, interpolation=cv2.INTER_AREA).astype(np.float32)
    cells = np.log((small.reshape(-1, 3) + 4.0) / median[None, :])
    tint = np.log(median)
    tint -= tint.mean()
    weight = math.sqrt(_CELLS[0] * _CELLS[1])
    own = np.concatenate([cells.ravel(), weight * tint]).astype(np.float32)
    columns = np.concatenate([np.repeat(np.flatnonzero(cells_seen) * 3, 3)
                              + np.tile(np.arange(3), n),
                              np.arange(3) + 3 * _CELLS[0] * _CELLS[1]])
    return own, columns, n


def _masked_distances(own: Vector, templates: Vector, columns: Vector, n: int) -> Vector:
    """:func:`_distances` of one card's colour picture over the cells in view (``columns``,
    ``n`` cells), per cell as over the whole card, with each template's."""
    d = templates[:, columns] - own[columns][None, :]
    return np.asarray(np.einsum("ij,ij->i", d, d) / n, np.float32)


def _distances(cells: Vector, templates: Vector) -> Vector:
    """Mean squared difference per cell of each card's colour picture with each template's:
    (cards, templates)."""
    cross = _products(cells, templates)
    own = np.einsum("ij,ij->i", cells, cells)
    theirs = np.einsum("ij,ij->i", templates, templates)
    d = own[:, None] + theirs[None, :] - 2.0 * cross
    return np.asarray(np.maximum(d, 0.0) / (_CELLS[0] * _CELLS[1]), np.float32)


_FOREIGN = 0.3
"""Face or back: a colour cell this far (squared log ratios, three channels) from both the
nearest back's and the nearest face's is neither: a chip or a card protector lying within the
card's outline (unseen by the detection, which sees the card's outline only)."""
_MOST_FOREIGN = 0.3
"""At most this share of a card's colour cells are left out as foreign."""


def _without_foreign(cells: Vector, back: Vector, face: Vector) -> tuple[Vector, Vector]:
    """:func:`_distances` of each card's colour picture (``cells``, (cards, C)) with its
    nearest back (``back``, (cards, C)) and its nearest face (``face``), both over the same
    cells: those unlike either (:data:`_FOREIGN`; at most :data:`_MOST_FOREIGN` of them, the
    most unlike) left out, the tint in full. (cards,), (cards,)."""
    n_cells = _CELLS[0] * _CELLS[1]
    db = (back - cells) ** 2
    df = (face - cells) ** 2
    eb = db[:, :3 * n_cells].reshape(len(cells), n_cells, 3).sum(axis=2)
    ef = df[:, :3 * n_cells].reshape(len(cells), n_cells, 3).sum(axis=2)
    unlike = np.minimum(eb, ef)
    limit = int(_MOST_FOREIGN * n_cells)
    # Of the ``limit`` most unlike cells, those unlike both.
    most = np.zeros(unlike.shape, bool)
    np.put_along_axis(most, np.argsort(-unlike, axis=1)[:, :limit], True, axis=1)
    keep = ~((unlike > _FOREIGN) & most)
    kept = np.maximum(keep.sum(axis=1), 1)
    near_back = (eb * keep).sum(axis=1) / kept + db[:, 3 * n_cells:].sum(axis=1) / n_cells
    near_face = (ef * keep).sum(axis=1) / kept + df[:, 3 * n_cells:].sum(axis=1) / n_cells
    return np.asarray(near_back, np.float32), np.asarray(near_face, np.float32)


def hidden_mask(quad: Vector, covers: Sequence[Vector]) -> Image:
    """Which pixels of the card inside ``quad`` (ordered corners, frame pixels) the outlines
    ``covers`` (frame pixels: cards or anything else lying over it) hide, as a CANON-sized
    picture of the straightened card (1: hidden)."""
    w, h = CANON
    to_card = cv2.getPerspectiveTransform(
        np.asarray(quad, np.float32).reshape(4, 2),
        np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32))
    mask = np.zeros((h, w), np.uint8)
    for cover in covers:
        pts = cv2.perspectiveTransform(np.asarray(cover, np.float32).reshape(-1, 1, 2),
                                       to_card).reshape(-1, 2)
        cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
    return mask


def _masked_scores(seen: Vector, templates: Vector, visible: Vector) -> Vector:
    """Normalised correlation of ``seen`` (P,) with each row of ``templates`` (K, P) over the
    ``visible`` pixels only (a normalised correlation is unchanged by the templates being
    unit vectors over all pixels: each is centred and scaled again over the visible ones)."""
    x = _unit(seen[visible])
    t = _units(templates[:, visible])
    return np.asarray(t @ x, np.float32)


_HIDDEN_CORNER = 0.3
"""An index corner more hidden than this (by a card lying over it) is not read."""


def _runs(profile: Vector, threshold: float) -> list[tuple[int, int]]:
    """(start, end) of each run of values above ``threshold`` (end exclusive)."""
    above = np.concatenate([[False], profile > threshold, [False]])
    edges = np.flatnonzero(above[1:] != above[:-1])
    return [(int(edges[i]), int(edges[i + 1])) for i in range(0, len(edges), 2)]


def _index_layout(faces: list[Image]) -> list[Box]:
    """The corner index in CANON pixels as [rank box, suit box] (or one box for both).

    Where the top-left corners of the faces differ from each other is the index, and further
    in, the pips and pictures. The index is the first band of such columns from the edge;
    within it, the first band of rows is the rank sign and the second the suit sign. Scoring
    the two apart makes the suit sign, small beside the rank, weigh as much as the rank.
    """
    w, h = CANON
    cw, ch = int(w * 0.36), int(h * 0.40)
    stack = np.stack([cv2.cvtColor(f[:ch, :cw], cv2.COLOR_BGR2GRAY) for f in faces]).astype(
        np.float32)
    spread = stack.std(axis=0)
    fallback: list[Box] = [(0, 0, int(w * 0.22), int(h * 0.31))]
    if float(spread.max()) <= 0:
        return fallback
    columns = spread.mean(axis=0)
    # The index lies within the outer half of this corner region; the pips further in may
    # differ between cards more than the index does.
    near = float(columns[: cw // 2].max())
    col_runs = [r for r in _runs(columns, 0.35 * near) if r[1] - r[0] >= 2]
    if not col_runs:
        return fallback
    x0, x1 = max(col_runs[0][0] - 1, 0), min(col_runs[0][1] + 1, cw)
    rows = spread[:, x0:x1].mean(axis=1)
    row_runs = [r for r in _runs(rows, 0.3 * float(rows.max())) if r[1] - r[0] >= 2]
    if not row_runs:
        return fallback
    y0 = max(row_runs[0][0] - 1, 0)
    if len(row_runs) == 1:
        return [(x0, y0, x1, min(row_runs[0][1] + 1, ch))]
    r1, (s0, s1) = row_runs[0][1], row_runs[1]
    cut = r1 + int(np.argmin(rows[r1:s0])) if s0 > r1 else r1
    return [(x0, y0, x1, cut + 1), (x0, cut, x1, min(s1 + 1, ch))]


class Recogniser:
    """Classifies straightened cards against one enrolled deck."""

    def __init__(self, deck: DeckTemplates) -> None:
        if not deck.faces:
            raise ValueError(f"deck {deck.name!r} has no faces enrolled")
        self.deck_name = deck.name
        self.aspect = deck.aspect
        self.labels: list[str] = list(deck.faces)
        canon = {k: np.asarray(cv2.resize(v, CANON, interpolation=cv2.INTER_AREA), np.uint8)
                 for k, v in deck.faces.items()}
        back = np.asarray(cv2.resize(deck.back, CANON, interpolation=cv2.INTER_AREA), np.uint8)
        self.parts = _index_layout(list(canon.values()))
        self.box = (min(p[0] for p in self.parts), min(p[1] for p in self.parts),
                    max(p[2] for p in self.parts), max(p[3] for p in self.parts))
        # Row 2i: face i upright; row 2i+1: face i upside down. Corner signs and details are
        # kept at several degrees of blur (_BLURS): a defocused card is compared with
        # templates defocused as much, or a blurred spade looks more like a sharp club.
        thumbs = []
        corners: list[list[list[Vector]]] = [[[] for _ in self.parts] for _ in _BLURS]
        details: list[list[Vector]] = [[] for _ in _BLURS]
        for label in self.labels:
            for pic in (canon[label], cv2.rotate(canon[label], cv2.ROTATE_180)):
                thumbs.append(_thumb(pic))
                for b, sigma in enumerate(_BLURS):
                    soft = pic if sigma == 0 else np.asarray(
                        cv2.GaussianBlur(pic, (0, 0), sigma), np.uint8)
                    prepared = _prep(soft)
                    for k, (x0, y0, x1, y1) in enumerate(self.parts):
                        corners[b][k].append(_unit(prepared[y0:y1, x0:x1]))
                    details[b].append(_detail(soft))
        self._face_thumbs = np.stack(thumbs)
        # Per index part: (blur, template row, pixels), to gather each card's own blur level.
        self._corner_stacks = [np.stack([np.stack(per_blur[k]) for per_blur in corners])
                               for k in range(len(self.parts))]
        self._details = [np.stack(d) for d in details]
        # The ink colour of each face, one row per face (both orientations share it).
        # Where each face has the ink of its suit's colour, and that ink's colour.
        self._ink_masks = np.stack([_ink_mask(canon[label], self.box)
                                    for label in self.labels])
        rel = _relative(np.stack([canon[label] for label in self.labels]))
        self._inks = _ink_colours(rel, self._ink_masks[:, None, :])[:, 0]
        # The deck's paper colour: what each card seen is brought back to before reading.
        self._paper = np.median(np.stack([np.percentile(
            v[3:-3:3, 3:-3:3].reshape(-1, 3), 90, axis=0) for v in canon.values()]),
            axis=0).astype(np.float32) + 1.0
        self._back_thumbs = np.stack([_thumb(back), _thumb(cv2.rotate(back, cv2.ROTATE_180))])
        # Coarse colour pictures for face or back: the back, and every face and joker design,
        # both ways up.
        half = (CANON[0] // 2, CANON[1] // 2)

        def colours(pics: list[Image]) -> Vector:
            both = [p for pic in pics for p in (pic, cv2.rotate(pic, cv2.ROTATE_180))]
            halves = [cv2.resize(p, half, interpolation=cv2.INTER_AREA) for p in both]
            return _colour_cells(np.vstack(halves), len(halves))

        self._back_cells = colours([back])
        self._back_colour = _interior_means(
            cv2.resize(back, half, interpolation=cv2.INTER_AREA), 1)[0]
        self._face_cells = colours([canon[label] for label in self.labels] + [
            np.asarray(cv2.resize(v, CANON, interpolation=cv2.INTER_AREA), np.uint8)
            for v in deck.jokers.values()])
        # Jokers: thumbnails and details of every design in both orientations, per blur.
        jokers = [np.asarray(cv2.resize(v, CANON, interpolation=cv2.INTER_AREA), np.uint8)
                  for v in deck.jokers.values()]
        joker_thumbs: list[Vector] = []
        joker_details: list[list[Vector]] = [[] for _ in _BLURS]
        for pic in jokers:
            for turned in (pic, cv2.rotate(pic, cv2.ROTATE_180)):
                joker_thumbs.append(_thumb(turned))
                for b, sigma in enumerate(_BLURS):
                    soft = turned if sigma == 0 else np.asarray(
                        cv2.GaussianBlur(turned, (0, 0), sigma), np.uint8)
                    joker_details[b].append(_detail(soft))
        self.has_jokers = bool(jokers)
        self._joker_thumbs = (np.stack(joker_thumbs) if jokers
                              else np.zeros((0, _THUMB[0] * _THUMB[1]), np.float32))
        self._joker_details = [np.stack(d) for d in joker_details] if jokers else []

    def room_light(self, laid: Image) -> Vector | None:
        """The gains (B, G, R) that undo the room's light and the camera's white balance on
        the deck's back, from pictures of backs laid on the table under that light (``laid``:
        straightened at half of :data:`CANON`, stacked top to bottom, as a table calibration
        keeps them: :data:`vision.empty_table.LAID`): each channel of the enrolled back's mean
        colour over the laid backs' (the median over the cards), its overall level left out
        (a dimmer room changes neither the thumbnails nor the colour pictures). A red back
        under a cool light looks grey: only with the light undone is its colour the back's
        again.

        None when ``laid`` holds no such pictures, the cast is beyond :data:`_LIGHT_LIMIT` in
        a channel, or with the light undone fewer than half the laid cards read as backs (the
        cards laid were not this deck's backs)."""
        half = (CANON[0] // 2, CANON[1] // 2)
        count = laid.shape[0] // half[1]
        if laid.shape[1:] != (half[0], 3) or count < 1 or laid.shape[0] != count * half[1]:
            return None
        seen = _interior_means(laid, count)
        gains = np.median(self._back_colour[None, :] / np.maximum(seen, 1.0), axis=0)
        light = gains / float(np.exp(np.log(np.maximum(gains, 1e-6)).mean()))
        if not (np.all(np.isfinite(light)) and float(light.max()) <= _LIGHT_LIMIT
                and float(light.min()) >= 1.0 / _LIGHT_LIMIT):
            return None
        backs, _, _ = self._backs(_in_light(laid, light), count)
        if float(backs.mean()) < 0.5:
            return None
        return np.asarray(light, np.float32)

    def _balanced(self, stack: Image, count: int) -> Image:
        """Each of ``count`` stacked cards with its colours scaled so that its paper is the
        enrolled deck's: the room's white balance and brightness undone, card by card."""
        f = stack.reshape(count, -1, stack.shape[1], 3)
        some = f[:, 3:-3:3, 3:-3:3].reshape(count, -1, 3)
        paper = _kth(some, int(0.9 * (some.shape[1] - 1))) + 1.0
        gain = np.clip(self._paper[None, :] / paper, 0.5, 4.0)
        if f.dtype != np.uint8:
            out = f.astype(np.float32) * gain[:, None, None, :]
            return np.asarray(np.clip(out, 0, 255), np.uint8).reshape(stack.shape)
        # The same scaling of each card's 256 levels per channel, worked out once and looked up.
        levels = np.arange(256, dtype=np.float32)[None, :, None]
        tables = np.clip(levels * gain[:, None, :], 0, 255).astype(np.uint8)  # (count, 256, 3)
        return np.vstack([cv2.LUT(f[i], tables[i][:, None, :]) for i in range(count)]).reshape(
            stack.shape)

    def _joker_check(self, card: Image, face_scores: Vector, best_joker: float
                     ) -> Recognition | None:
        """``"joker"`` when a joker design fits ``card`` better than its best faces on the
        finer picture (whole card at :data:`_DETAIL`, at the blur that fits best), else None."""
        per_card = face_scores.reshape(-1, 2).max(axis=1)
        short = np.argsort(-per_card)[:_SHORTLIST]
        rows = np.stack([2 * short, 2 * short + 1], axis=1).ravel()
        seen = _detail(card)
        best: tuple[float, float] | None = None
        for b in range(len(_BLURS)):
            joker = float((self._joker_details[b] @ seen).max())
            face = float((self._details[b][rows] @ seen).max())
            if best is None or max(joker, face) > max(best):
                best = (joker, face)
        assert best is not None
        joker_detail, face_detail = best
        best_face = float(per_card[short[0]])
        joker_score = _BODY_WEIGHT * best_joker + _DETAIL_WEIGHT * joker_detail
        face_score = _BODY_WEIGHT * best_face + _DETAIL_WEIGHT * face_detail
        if joker_score > face_score:
            return Recognition(JOKER, joker_score, joker_score - face_score)
        return None

    def classify_warped(self, card: Image) -> Recognition:
        """Classify an upright-or-upside-down card picture of :data:`CANON` size."""
        return self.classify_cards([card])[0]

    def classify_cards(self, cards: list[Image]) -> list[Recognition]:
        """:meth:`classify_warped` of several cards at once (the same answers): the cards'
        thumbnails, details and index corners are compared with the templates in a few
        matrix products for all of them rather than card by card."""
        if not cards:
            return []
        stack = np.vstack(cards)
        halves = cv2.resize(stack, (CANON[0] // 2, CANON[1] // 2 * len(cards)),
                            interpolation=cv2.INTER_AREA)
        backs, evidence, back_scores = self._backs(halves, len(cards))
        out: list[Recognition | None] = [None] * len(cards)
        faces = []
        for i in range(len(cards)):
            if backs[i]:
                out[i] = Recognition(BACK, float(back_scores[i]), float(evidence[i]))
            else:
                faces.append(i)
        if faces:
            read = self._classify_stack(np.vstack([cards[i] for i in faces]), len(faces))
            for i, rec in zip(faces, read, strict=True):
                out[i] = rec
        return [r for r in out if r is not None]

    def _backs(self, halves: Image, count: int, hidden: Sequence[Image | None] | None = None
               ) -> tuple[Vector, Vector, Vector]:
        """Face or back of ``count`` half-size cards stacked in ``halves``: whether each is a
        back, the evidence for it (above 0: back), and its likeness to the back (thumbnail
        correlation, the reading's score for a back).

        Two kinds of evidence are added. The grey thumbnail's correlation with the back's
        against the best face's or joker's tells shapes apart. The coarse colour picture
        (:func:`_colour_cells`) is nearer the back's than any face's, on a log scale: a fine
        lattice back blurs or aliases into a plain tint at a small size, where the thumbnail
        correlates with nothing, but its colour against the faces' paper still says back.
        Both pictures are balanced by the card's own colours, so the room's white balance
        and brightness do not count. ``hidden``: as ``covered`` of :meth:`classify_many`."""
        grey = cv2.cvtColor(halves, cv2.COLOR_BGR2GRAY)
        thumbs = _shrunk_units(grey, count, _THUMB)
        back_scores = _products(thumbs, self._back_thumbs).max(axis=1)
        rivals = _products(thumbs, self._face_thumbs).max(axis=1)
        if self.has_jokers:
            rivals = np.maximum(rivals, _products(thumbs, self._joker_thumbs).max(axis=1))
        cells = _colour_cells(halves, count)
        to_back = _distances(cells, self._back_cells)
        to_face = _distances(cells, self._face_cells)
        # A chip or a protector wholly within the card: its cells are like neither.
        near_back, near_face = _without_foreign(
            cells, self._back_cells[to_back.argmin(axis=1)],
            self._face_cells[to_face.argmin(axis=1)])
        near_back = np.minimum(near_back, to_back.min(axis=1))
        near_face = np.minimum(near_face, to_face.min(axis=1))
        for i, given in enumerate(hidden or []):
            if given is None or not given.any():
                continue
            # What lies over the card (a chip, a protector, another card) is no evidence of
            # its face or back: both pictures are compared over the part in view.
            seen = cv2.resize(1.0 - given.astype(np.float32), _THUMB,
                              interpolation=cv2.INTER_AREA).ravel() > 0.5
            card = halves[i * (halves.shape[0] // count):(i + 1) * (halves.shape[0] // count)]
            if int(seen.sum()) >= 20:
                small = cv2.resize(grey[i * card.shape[0]:(i + 1) * card.shape[0]], _THUMB,
                                   interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
                back_scores[i] = _masked_scores(small, self._back_thumbs, seen).max()
                rivals[i] = _masked_scores(small, self._face_thumbs, seen).max()
                if self.has_jokers:
                    rivals[i] = max(rivals[i], _masked_scores(small, self._joker_thumbs,
                                                              seen).max())
            masked = _masked_cells(card, given)
            if masked is not None:
                own, columns, n = masked
                near_back[i] = _masked_distances(own, self._back_cells, columns, n).min()
                near_face[i] = _masked_distances(own, self._face_cells, columns, n).min()
        evidence = (back_scores - rivals) + _COLOUR_WEIGHT * np.log(
            (near_face + _COLOUR_FLOOR) / (near_back + _COLOUR_FLOOR))
        return evidence >= 0, np.asarray(evidence, np.float32), back_scores

    def _classify_stack(self, stack: Image, count: int,
                        hidden: Sequence[Image | None] | None = None) -> list[Recognition]:
        """Rank and suit (or joker) of ``count`` face-up cards stacked top to bottom in
        ``stack`` (face or back already decided; ``hidden``: as for :meth:`classify_many`)."""
        stack = self._balanced(stack, count)
        cards = np.split(stack, count)
        grey = cv2.cvtColor(stack, cv2.COLOR_BGR2GRAY)
        thumbs = _shrunk_units(grey, count, _THUMB)
        details = _shrunk_units(grey, count, _DETAIL)
        face_scores = _products(thumbs, self._face_thumbs)
        masks: list[Image | None] = [None] * count
        for i, given in enumerate(hidden or []):
            if given is not None and given.any():
                masks[i] = np.asarray(given, np.uint8)
        for i, mask in enumerate(masks):
            if mask is not None:  # the thumbnail likeness from what is in view
                small = cv2.resize(grey[i * CANON[1]:(i + 1) * CANON[1]], _THUMB,
                                   interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
                seen = cv2.resize(1.0 - mask.astype(np.float32), _THUMB,
                                  interpolation=cv2.INTER_AREA).ravel() > 0.5
                if int(seen.sum()) >= 20:
                    face_scores[i] = _masked_scores(small, self._face_thumbs, seen)
        best_faces = face_scores.max(axis=1)
        best_jokers = (_products(thumbs, self._joker_thumbs).max(axis=1) if self.has_jokers
                       else np.full(len(cards), -1.0, np.float32))
        out: list[Recognition | None] = [None] * len(cards)
        to_read: list[int] = []
        for i, card in enumerate(cards):
            best_face, best_joker = float(best_faces[i]), float(best_jokers[i])
            if self.has_jokers and best_joker >= best_face - _JOKER_SLACK:
                out[i] = self._joker_check(card, face_scores[i], best_joker)
                if out[i] is not None:
                    continue
            to_read.append(i)
        if to_read:
            read = self._read_indices([cards[i] for i in to_read], face_scores[to_read],
                                      details[to_read], [masks[i] for i in to_read],
                                      [grey[i * CANON[1]:(i + 1) * CANON[1]] for i in to_read])
            for i, rec in zip(to_read, read, strict=True):
                out[i] = rec
        return [r for r in out if r is not None]

    def _read_indices(self, cards: list[Image], face_scores: Vector, seen_details: Vector,
                      masks: Sequence[Image | None], greys: Sequence[Image]
                      ) -> list[Recognition]:
        """Rank and suit of face-up cards from their index corners, among each card's short
        list of faces by whole-card likeness (``face_scores``: thumbnail scores, one row per
        card; ``seen_details``: the cards' detail vectors; ``masks``: each card's hidden part
        or None; ``greys``: the cards in grey, for a likeness of the part in view)."""
        count = len(cards)
        every = np.arange(count)[:, None]
        # The two index corners (top-left, and bottom-right turned half a turn), with room for
        # the shifts and the blur, blurred and in float: nothing else of the card is needed.
        # The crops are blurred stacked in one picture: the blur reaches one pixel, and the
        # outer ring of each crop, where crops meet, is dropped.
        x0, y0, x1, y1 = self.box
        m = _SHIFT + 1
        # Every card's edge repeated m pixels out (as cv2.BORDER_REPLICATE), all at once; per
        # card its corner upright, then the opposite corner turned, one above the other.
        padded = np.pad(np.stack(cards), ((0, 0), (m, m), (m, m), (0, 0)), mode="edge")
        crops = np.stack([padded[:, y0:y1 + 2 * m, x0:x1 + 2 * m],
                          padded[:, ::-1, ::-1][:, y0:y1 + 2 * m, x0:x1 + 2 * m]], axis=1)
        stacked = _prep(crops.reshape(-1, *crops.shape[3:])).astype(np.float32)
        ch, cw = y1 - y0 + 2 * m, x1 - x0 + 2 * m
        regions = stacked.reshape(count, 2, ch, cw, 3)[:, :, 1:-1, 1:-1]
        prepared = np.ascontiguousarray(regions[:, 0])
        turned = np.ascontiguousarray(regions[:, 1])
        # Short list by whole-card likeness, per card (best of its two orientations).
        per_card = face_scores.reshape(count, -1, 2).max(axis=2)
        short = np.argsort(-per_card, axis=1)[:, :_SHORTLIST]
        rows = np.stack([2 * short, 2 * short + 1], axis=2).reshape(count, -1)
        others = rows ^ 1
        # How blurred is each card? The blur level whose details fit its short list best.
        fits = np.stack([np.einsum("mkd,md->mk", d[rows], seen_details)
                         for d in self._details])  # (blurs, cards, short list)
        x0, y0, x1, y1 = self.box
        # A hidden card's details are compared on the part in view; an index corner that is
        # hidden is not read (weights of the top-left and bottom-right corners).
        corner_use = np.ones((count, 2), np.float32)
        for i, mask in enumerate(masks):
            if mask is None:
                continue
            small = cv2.resize(greys[i], _DETAIL, interpolation=cv2.INTER_AREA).astype(
                np.float32).ravel()
            seen = cv2.resize(1.0 - mask.astype(np.float32), _DETAIL,
                              interpolation=cv2.INTER_AREA).ravel() > 0.5
            if int(seen.sum()) >= 50:
                for level, d in enumerate(self._details):
                    fits[level, i] = _masked_scores(small, d[rows[i]], seen)
            top_left = float(mask[y0:y1, x0:x1].mean())
            bottom_right = float(mask[::-1, ::-1][y0:y1, x0:x1].mean())
            if top_left > _HIDDEN_CORNER and bottom_right <= _HIDDEN_CORNER:
                corner_use[i] = (0.0, 1.0)
            elif bottom_right > _HIDDEN_CORNER and top_left <= _HIDDEN_CORNER:
                corner_use[i] = (1.0, 0.0)
        blur = np.argmax(fits.max(axis=2), axis=0)
        detail = fits[blur, np.arange(count)]
        scores = _BODY_WEIGHT * face_scores[every, rows] + _DETAIL_WEIGHT * detail
        for k, part in enumerate(self.parts):
            templates = self._corner_stacks[k]
            a = self._match(prepared, templates[blur[:, None], rows], part)
            b = self._match(turned, templates[blur[:, None], others], part)
            weight = _PART_WEIGHTS[min(k, len(_PART_WEIGHTS) - 1)]
            both = np.maximum(a, b) * 0.4 + np.minimum(a, b) * 0.6
            one = np.where(corner_use[:, :1] > 0, a, b)
            scores = scores + weight * np.where((corner_use.min(axis=1) > 0)[:, None], both, one)
        per_short = scores.reshape(count, -1, 2).max(axis=2)
        # Red ink is not black ink whatever the shapes say (small indices, blur, odd light).
        # Blur and JPEG wash a small index's colour out: a template's ink colour is matched at
        # 30% to 100% of its strength.
        ref = self._inks[short]  # (cards, short list, 3)
        in_view = np.ones((count, 1, self._ink_masks.shape[1]), np.float32)
        for i, mask in enumerate(masks):
            if mask is not None:
                in_view[i, 0] = 1.0 - mask[::2, ::2].ravel()
        inks = _ink_colours(_relative(np.stack(cards)), self._ink_masks[short] * in_view)
        power = np.einsum("ijk,ijk->ij", ref, ref) + 1e-6
        alpha = np.clip(np.einsum("ijk,ijk->ij", ref, np.broadcast_to(inks, ref.shape)) / power,
                        0.3, 1.0)
        gap = np.linalg.norm(inks - alpha[:, :, None] * ref, axis=2)
        per_short = per_short - _INK_WEIGHT * gap
        order = np.argsort(-per_short, axis=1)
        out = []
        for i in range(count):
            top_score = float(per_short[i, order[i, 0]])
            runner = float(per_short[i, order[i, 1]]) if order.shape[1] > 1 else top_score - 1.0
            out.append(Recognition(self.labels[int(short[i, order[i, 0]])], top_score,
                                   top_score - runner))
        return out

    def _match(self, regions: Vector, templates: Vector,
               box: tuple[int, int, int, int]) -> Vector:
        """Best normalised correlation of each card's templates (``templates[i]``: zero-mean
        unit rows for card i) with ``box`` of that card's index corner ``regions[i]`` (which
        starts _SHIFT pixels above and left of the index box), shifted by up to ±_SHIFT
        pixels; one row per card. The templates having zero mean, the windows need no
        centring for the numerator; their spread is taken from two sums."""
        x0, y0, x1, y1 = box
        bx, by = self.box[0], self.box[1]
        s = _SHIFT
        sub = regions[:, y0 - by:y1 - by + 2 * s, x0 - bx:x1 - bx + 2 * s]
        size = (y1 - y0) * (x1 - x0) * 3
        n = 2 * s + 1
        sm, sy, sx, sc = sub.strides
        win = np.lib.stride_tricks.as_strided(
            sub, shape=(len(sub), n, n, y1 - y0, x1 - x0, 3),
            strides=(sm, sy, sx, sy, sx, sc), writeable=False)
        flat = win.reshape(len(sub), n * n, size)
        sums = flat.sum(axis=2)
        squares = np.einsum("mij,mij->mi", flat, flat)
        # A flat window (under one grey level of spread) matches nothing.
        spread = np.sqrt(np.maximum(squares - sums * sums / size, float(size)))
        scores = (flat @ templates.transpose(0, 2, 1)) / spread[:, :, None]
        return np.asarray(scores.max(axis=1), np.float32)

    def look(self, frame: Image, quad: Vector) -> Vector:
        """The card's coarse grey thumbnail (unit vector), to tell whether it changed."""
        return _thumb(warp_card(frame, quad, (CANON[0] // 2, CANON[1] // 2)))

    def looks(self, frame: Image, quads: list[Vector]) -> Vector:
        """:meth:`look` of several cards, one row each, straightened together."""
        half = (CANON[0] // 2, CANON[1] // 2)
        grey = cv2.cvtColor(warp_cards(frame, quads, half), cv2.COLOR_BGR2GRAY)
        return _shrunk_units(grey, len(quads), _THUMB) if quads else np.zeros(
            (0, _THUMB[0] * _THUMB[1]), np.float32)

    def classify(self, frame: Image, quad: Vector) -> Recognition:
        """Classify the card whose corners (ordered, frame pixels) are ``quad``."""
        return self.classify_many(frame, [quad])[0]

    def classify_many(self, frame: Image, quads: list[Vector],
                      hidden: Sequence[Image | None] | None = None,
                      covered: Sequence[Image | None] | None = None, *,
                      halves: Image | None = None, light: Vector | None = None
                      ) -> list[Recognition]:
        """Classify the cards whose corners (ordered, frame pixels) are ``quads``.

        ``hidden``: for each card, None or the part of it something lies over
        (:func:`hidden_mask`); that part is not evidence: the whole-card likeness and the ink
        are taken from the rest, and a hidden index corner is not read (the other one is).
        ``covered``: for each card, None or the part of it a thing that is no card (a chip,
        a protector) lies over: hidden from the face-or-back decision too (a card's part under
        another card is not: an inferred outline over it may be a few pixels off).
        Face or back is decided first on a half-size straightening (a quarter of the pixels);
        only faces are straightened at full size to read their index. ``halves``: that
        straightening if the caller has it already (:func:`vision.templates.warp_cards` of
        ``frame`` and ``quads`` at half of :data:`CANON`), else it is made here. ``light``:
        the room's light on the deck's back (:meth:`room_light`), undone before face or back
        is decided (a face's index is read against its own paper, whatever the light)."""
        if not quads:
            return []
        half = (CANON[0] // 2, CANON[1] // 2)
        if halves is None:
            halves = warp_cards(frame, quads, half)
        elif halves.shape != (len(quads) * half[1], half[0], 3):
            raise ValueError(f"halves of shape {halves.shape} are not {len(quads)} cards "
                             f"of {half[0]}x{half[1]}")
        if light is not None:
            halves = _in_light(halves, light)
        backs, evidence, back_scores = self._backs(halves, len(quads), covered)
        out: list[Recognition | None] = [None] * len(quads)
        faces: list[int] = []
        for i in range(len(quads)):
            if backs[i]:
                out[i] = Recognition(BACK, float(back_scores[i]), float(evidence[i]))
            else:
                faces.append(i)
        masks = [hidden[i] if hidden is not None else None for i in faces]
        read = self._classify_stack(warp_cards(frame, [quads[i] for i in faces], CANON),
                                    len(faces), masks) if faces else []
        for i, rec in zip(faces, read, strict=True):
            out[i] = rec
        return [r for r in out if r is not None]
