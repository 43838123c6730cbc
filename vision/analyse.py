"""One frame in, every card out: detection, zone, and recognition together.

On a calibrated table (``table``: :class:`vision.empty_table.EmptyTable`) cards are found
against the learned empty cloth and overlapping cards are separated
(:func:`vision.table_detect.detect_on_table`); :meth:`FrameAnalyser.view` also says which zones
a hand, an arm or a stack of chips covers. Without it, cards are told from the cloth by colour
(:func:`vision.detect.detect_cards`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.arrays import Image, Vector
from vision.detect import DetectorConfig, check_frame, detect_cards
from vision.empty_table import SCALE, EmptyTable
from vision.layout import TableLayout, zone_finder
from vision.recognise import CANON, Labelled, Recogniser, hidden_mask
from vision.table_detect import detect_on_table
from vision.templates import BACK, JOKER, warp_cards


@dataclass(frozen=True, slots=True)
class SeenCard(Labelled):
    """A card in one frame. ``label``: ``"As"`` style, ``"back"`` or ``"joker"`` (face up);
    ``corners``: (4, 2) frame pixels, clockwise from a corner of a short side; ``zone``: None
    when off every zone; ``covered``: something that is no card (a chip, a protector) lies on
    it, so its reading may be of less than the whole card; ``sure``: the reading is sure enough
    to turn over a card the tracker knows (:func:`sure_reading`); ``peeled``: its outline was
    inferred inside a blob of several cards (a pile, a stacked pair), not seen whole;
    ``squared``: it lies under another card of a squared pile, a sliver of it in view
    (:mod:`vision.squared`): a back, not read, never sure."""

    label: str
    corners: Vector
    zone: str | None
    score: float
    margin: float
    covered: bool = False
    sure: bool = True
    peeled: bool = False
    squared: bool = False
    _centre: tuple[float, float] | None = field(default=None, init=False, repr=False,
                                                compare=False)

    @property
    def centre(self) -> tuple[float, float]:
        """The corners' mean, worked out once (the tracker asks for it at every frame, and
        a still table's frames share their sightings)."""
        if self._centre is None:
            c = self.corners.mean(axis=0)
            object.__setattr__(self, "_centre", (float(c[0]), float(c[1])))
        assert self._centre is not None
        return self._centre

    def to_json(self) -> dict[str, object]:
        return {"card": self.label,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners]}


_PEELED_BACK = 0.05
_PEELED_FACE = 0.3
"""A card found inside a blob of several things (its outline inferred) is kept only if it
looks like a card: its back or face match scores at least this (a true card's median is 0.45
for a back and 1.6 for a face; a rectangle on a hand or between two cards scores about 0)."""


SURE_FACE = 2.5
"""A face read with a score below this is not sure: it may place a new card, but it does not
turn over a card the tracker knows (a back turned up, a face read as another). On the table
benchmark (72 scenes, 2026-12-02), faces read right score 4.0 or more in 99% of cases (median
8.8), below 2.5 in 0.3%; faces read wrong score a median of 3.8, 20% below 2.5; backs read as
faces and false cards score under 3, most under 2. In the camera soak a pile of backs in the
muck, one of them read as the board's ten at 0.54, turned a back in the muck face up as a
second ten of spades (a false DUPLICATE_CARD)."""

SURE_FACE_PEELED = 3.5
"""The same for a card whose outline was inferred inside a blob of several cards (a pile, a
stacked pair: :attr:`SeenCard.peeled`), whose reading is of the part the cut gave it. On the
table benchmark (240 scenes, 2026-12-02) such faces read right score below 3.5 in 3.1% of
cases (1.3% below 2.5), faces read wrong in 51%, backs read as faces in 97% and false cards in
all. In the camera soak a back in a muck pile of four, cut across two cards, read as a ten at
2.64 and was turned up: a false DUPLICATE_CARD when the real ten came on the flop."""


def sure_reading(label: str, score: float, *, peeled: bool) -> bool:
    """Whether a reading may turn over a card the tracker already knows: a back or a joker
    always; a face scoring at least :data:`SURE_FACE` (:data:`SURE_FACE_PEELED` on an
    inferred outline)."""
    if label in (BACK, JOKER):
        return True
    return score >= (SURE_FACE_PEELED if peeled else SURE_FACE)


_PEELED_BACK_EVIDENCE = 1.3
"""... or, for a back, its evidence of being the back (:attr:`Recognition.margin`: shape and
colour together) at least this: a back seen small or blurred has lost its pattern, and its
thumbnail correlates with nothing, but its colour still says back. (1.0 before the room's
light was undone: with it, a rectangle cut across two backs of a muck pile has the back's
colour too, and on the table benchmark's held-out deck a third more of them were kept as
false cards; at 1.3 as many as before.)"""


def _looks_like_a_card(label: str, score: float, margin: float) -> bool:
    if label == "back":
        return score >= _PEELED_BACK or margin >= _PEELED_BACK_EVIDENCE
    return score >= _PEELED_FACE


_PEELED_TEXTURE = 0.09
"""A card found inside a blob must show some pattern: the spread of its grey levels at least
this fraction of their mean (a card's are 0.11 or more, a sleeve's or a bare arm's less), or
read as the back by its colour (:data:`_PEELED_BACK_EVIDENCE`)."""


def _covers(quads: list[Vector], peeled: list[bool], on: list[list[Vector]]
            ) -> list[Image | None]:
    """For each card peeled out of a blob of several, the part of it that the cards found
    before it in that blob hide, and the chips and protectors lying on it (``on``: per card,
    :func:`_props_on`); None for a card that lies alone. A
    blob is peeled top card first: the card lying on top shows its whole outline and is
    taken first, the cards under it come after (:func:`vision.table_detect.detect_on_table`)."""
    out: list[Image | None] = [None] * len(quads)
    outlines = [np.asarray(q, np.float32).reshape(-1, 1, 2) for q in quads]
    # Two cards whose boxes do not overlap share no area: only the others are intersected.
    boxes: list[tuple[float, float, float, float]] = [
        (*o.min(axis=0)[0].tolist(), *o.max(axis=0)[0].tolist()) for o in outlines]

    def apart(j: int, i: int) -> bool:
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[j], boxes[i]
        return ax0 >= bx1 or bx0 >= ax1 or ay0 >= by1 or by0 >= ay1

    for i, quad in enumerate(quads):
        if not peeled[i]:
            continue
        area = abs(float(cv2.contourArea(outlines[i])))
        above = [quads[j] for j in range(i) if peeled[j] and not apart(j, i)
                 and cv2.intersectConvexConvex(outlines[j], outlines[i])[0] > 0.02 * area]
        above += on[i]
        if above:
            out[i] = hidden_mask(quad, above)
    return out


def _props_on(quads: list[Vector], props: list[Vector]) -> list[list[Vector]]:
    """For each card, the props (chips, protectors: their outlines) lying on at least 2% of
    it."""
    things = [np.asarray(cv2.convexHull(np.asarray(p, np.float32)), np.float32)
              for p in props]
    out: list[list[Vector]] = []
    for quad in quads:
        outline = np.asarray(quad, np.float32).reshape(-1, 1, 2)
        area = abs(float(cv2.contourArea(outline)))
        out.append([t.reshape(-1, 2) for t in things
                    if cv2.intersectConvexConvex(t, outline)[0] > 0.02 * area])
    return out


def _textured(halves: Image, inferred: list[bool]) -> list[int]:
    """Which of the cards found are not plain: all but those whose outline was inferred that
    show no pattern (a sleeve, an arm; or a back blurred or small, which its reading may still
    keep). ``halves``: the cards straightened at half of :data:`vision.recognise.CANON`,
    stacked."""
    which = [i for i, p in enumerate(inferred) if p]
    if not which:
        return list(range(len(inferred)))
    grey = cv2.cvtColor(halves.reshape(len(inferred), -1, halves.shape[1], 3)[which].reshape(
        -1, halves.shape[1], 3), cv2.COLOR_BGR2GRAY).reshape(len(which), -1).astype(np.float32)
    plain = {i for i, spread, mean in zip(which, grey.std(axis=1), grey.mean(axis=1),
                                          strict=True) if spread < _PEELED_TEXTURE * (mean + 1)}
    return [i for i in range(len(inferred)) if i not in plain]


@dataclass(frozen=True, slots=True)
class TableView:
    """One frame's cards and the zones something else covers (a hand, an arm, chips): the
    tracker leaves those zones' cards as they were until they are clear. ``covered``: the
    zones where a smaller thing that is no card (a chip, a protector) lies on a card: the
    tracker holds the cards it has there (not turned, not removed, nothing new on them)."""

    cards: list[SeenCard]
    occluded: frozenset[str]
    covered: frozenset[str] = frozenset()


@dataclass(slots=True)
class _Memory:
    corners: Vector
    look: Vector
    label: str
    score: float
    margin: float


class FrameAnalyser:
    """Finds and reads every card of a frame against one deck, placing each in a zone.

    With ``remember=True`` (for a video stream) a card that lies exactly where a card lay in
    the previous frame (every corner within ``still_px``) and looks the same there (its coarse
    grey thumbnail correlates above 0.9 with the one read then) keeps that reading instead of
    being read again: a dealt card lies still for most of a hand, so most frames cost little
    more than detection. A card turned over, replaced or moved is read afresh (a card cannot
    be swapped for another at the very same spot between two frames of a video).
    """

    def __init__(self, recogniser: Recogniser, *, layout: TableLayout | None = None,
                 detector: DetectorConfig | None = None, remember: bool = False,
                 still_px: float = 3.0, table: EmptyTable | None = None) -> None:
        self.recogniser = recogniser
        self.layout = layout
        # Cards are found at the enrolled deck's own shape (poker, bridge, narrow).
        self.detector = replace(detector or DetectorConfig(
            card_height=layout.card_height if layout is not None else None),
            aspect=recogniser.aspect)
        self.remember = remember
        self.still_px = still_px
        self.read_count = 0
        """Cards read in full so far (the rest came from memory)."""
        self._memory: list[_Memory] = []
        self.table = table
        self.light = recogniser.room_light(table.laid) if table is not None and (
            table.laid is not None) else None
        """The room's light on the deck's back, measured on the cards laid to calibrate the
        table (:meth:`Recogniser.room_light`), undone before face or back is decided; None:
        not known (face or back is decided on the colours as the camera gives them)."""
        self._zone_masks: list[tuple[str, Image]] | None = None
        self._zone_at = zone_finder(layout.zones) if layout is not None else None

    def _recall(self, quad: Vector, look: Vector) -> _Memory | None:
        for m in self._memory:
            if float(np.abs(m.corners - quad).max()) <= self.still_px and float(
                    m.look @ look) > 0.9:
                return m
        return None

    def _zone_of(self, quad: Vector) -> str | None:
        cx, cy = (float(v) for v in np.asarray(quad).mean(axis=0))
        return self._zone_at(cx, cy) if self._zone_at is not None else None

    def analyse(self, frame: Image) -> list[SeenCard]:
        """Every card of ``frame`` (:meth:`view` without the occlusion)."""
        return self.view(frame).cards

    def _occluded(self, occluders: Image) -> frozenset[str]:
        if self.layout is None or not occluders.any():
            return frozenset()
        h, w = occluders.shape
        if self._zone_masks is None:
            masks = []
            for name, polygon in self.layout.zones.items():
                m = np.zeros((h, w), np.uint8)
                pts = (np.array(polygon, np.float64) + 0.5) / SCALE - 0.5
                cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 1)
                masks.append((name, m.astype(bool)))
            self._zone_masks = masks
        near = cv2.dilate(occluders, np.ones((5, 5), np.uint8)) > 0
        return frozenset(name for name, m in self._zone_masks
                         if m.shape == near.shape and bool((m & near).any()))

    def view(self, frame: Image) -> TableView:
        """Every card of ``frame`` in its zone, and the zones covered by something else."""
        frame = check_frame(frame)
        occluded: frozenset[str] = frozenset()
        if self.table is not None:
            if (frame.shape[1], frame.shape[0]) != (self.table.width, self.table.height):
                raise ValueError(f"frame {frame.shape[1]}x{frame.shape[0]} is not the "
                                 f"calibrated table's {self.table.width}x{self.table.height}")
            card_height = self.detector.card_height or (
                self.layout.card_height if self.layout is not None else 100.0)
            found = detect_on_table(frame, self.table, aspect=self.recogniser.aspect,
                                    card_height=card_height,
                                    max_candidates=self.detector.max_candidates)
            # Every card found straightened once at half size: for the test of the peeled ones
            # below and for telling face from back.
            half = (CANON[0] // 2, CANON[1] // 2)
            straight = warp_cards(frame, found.quads, half).reshape(
                len(found.quads), half[1], half[0], 3)
            # Only an outline inferred inside a blob must also look like a card: a card whose
            # whole outline is seen (alone, in a neat row, or peeled with its sides borne out
            # and under no other) is a card however plain or faint it reads (a blurred back, a
            # back of a faint print under a tinted light), unless a prop lies on it (below).
            inferred = [p and not w for p, w in zip(found.peeled, found.whole, strict=True)]
            textured = set(_textured(straight.reshape(-1, half[0], 3), inferred))
            plain = [i not in textured for i in range(len(found.quads))]
            quads = found.quads
            peeled = found.peeled
            squared = found.squared
            halves: Image | None = straight
            occluded = self._occluded(found.occluders)
            props = found.props
        else:
            quads = detect_cards(frame, self.detector)
            peeled = [False] * len(quads)
            inferred = plain = peeled
            props = []
            halves = None
            squared = peeled
        readings: list[tuple[str, float, float] | None] = [None] * len(quads)
        looks: list[Vector | None] = [None] * len(quads)
        if self.remember:
            for i, (quad, look) in enumerate(zip(quads, self.recogniser.looks(frame, quads),
                                                 strict=True)):
                looks[i] = look
                known = self._recall(quad, look)
                if known is not None:
                    readings[i] = (known.label, known.score, known.margin)
        # The cards not remembered are read together (one batch of matrix products); the
        # lower cards of a squared pile are not read (below).
        fresh = [i for i, r in enumerate(readings) if r is None and not squared[i]]
        on = _props_on(quads, props) if props else [[] for _ in quads]
        hidden = _covers(quads, peeled, on)
        under = [bool(things) for things in on]
        chips = [hidden_mask(quads[i], on[i]) if on[i] else None for i in fresh]
        for i, rec in zip(fresh, self.recogniser.classify_many(
                frame, [quads[i] for i in fresh], [hidden[i] for i in fresh], chips,
                halves=None if halves is None else halves[fresh].reshape(-1, *halves.shape[2:]),
                light=self.light),
                strict=True):
            readings[i] = (rec.label, rec.score, rec.margin)
        self.read_count += len(fresh)
        out = []
        memory: list[_Memory] = []
        for k, (quad, reading, seen_look) in enumerate(zip(quads, readings, looks,
                                                           strict=True)):
            if squared[k]:
                # Under another card of a squared pile: there, but no more than a sliver of
                # it in view, which is not read (a sliver of a face reads as any card). A card
                # whose face is not seen, never sure: it turns over no card already known.
                out.append(SeenCard(label=BACK, corners=quad, zone=self._zone_of(quad),
                                    score=0.0, margin=0.0, covered=under[k], sure=False,
                                    peeled=True, squared=True))
                continue
            assert reading is not None
            label, score, margin = reading
            if (inferred[k] or (peeled[k] and under[k])) and not _looks_like_a_card(
                    label, score, margin):
                # An outline inferred inside a blob that looks like no card; or a card with a
                # chip or a protector on it, which its reading may have taken for its print.
                continue
            if plain[k] and not (label == BACK and margin >= _PEELED_BACK_EVIDENCE):
                # Plain like a sleeve or an arm, and not the deck's back by its colour (a back
                # blurred or small has lost its pattern, not its colour). An arm reaching in
                # from the frame's edge is held to the stricter rule of the detection.
                continue
            if peeled[k] and label == JOKER:
                # A joker has no index to bear it out, and its plain art is what a palm or a
                # forearm inside a blob resembles: from an inferred outline it is not read.
                continue
            if seen_look is not None:
                memory.append(_Memory(quad, seen_look, label, score, margin))
            zone = self._zone_of(quad)
            out.append(SeenCard(label=label, corners=quad, zone=zone, score=score,
                                margin=margin, covered=under[k],
                                sure=sure_reading(label, score, peeled=peeled[k]),
                                peeled=peeled[k]))
        self._memory = memory
        # A card under a chip that reads like no card (it is left out) is still held there.
        covered = frozenset(z for z in (self._zone_of(q) for q, u in zip(quads, under,
                                                                          strict=True) if u)
                            if z is not None)
        return TableView(cards=out, occluded=occluded, covered=covered)
