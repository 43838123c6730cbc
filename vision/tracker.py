"""Per-zone card tracking: turns per-frame sightings into the observations the RFID reader gives.

A card counts only after it has been seen the same way (same zone, same face, same identity) in
``confirm_frames`` consecutive frames that show it; it is gone after ``drop_frames`` frames
without it. Each physical card is one track with a stable key (``cam1``, ``cam2``, ...), so the
dealing monitor receives, as from RFID:

- ``PLACED`` when a track is confirmed (``card`` None and ``face`` DOWN for a back; ``card``
  None, ``face`` UP and ``joker`` True for a face-up joker, rules.md §5, alert JOKER),
- ``FLIPPED`` when a confirmed card is seen another way for ``confirm_frames`` frames (turned
  over, or its identity corrected),
- ``REMOVED`` when it has gone.

A card that moves within its zone keeps its track, however far it moves in one frame, when
the frame shows no other way to account for it (the track seen in the frame before, a sighting
of the same look in the same zone that no track explains).

Occlusion is known, not guessed: a frame may say which zones something covers (a hand, an
arm, chips: :class:`vision.analyse.TableView`). In such a zone nothing is placed, flipped or
removed, and its cards' miss counts stand still, until the zone is clear again; what lay there
before is what lies there after, unless the clear frames show otherwise. A zone where a chip
or a protector lies on a card (``TableView.covered``) holds the cards it had: a card under
it is not turned over by a reading of its part in view, not removed when it is not found,
and no new card is placed over it; a card beside it is seen as anywhere.

A card can also lie under another card (a player squares his two cards, one on the other): a
confirmed card no longer seen whose place a card seen in its zone now covers (that card's
outline covers :data:`COVERED` of it) is *under* that card (:attr:`CardTracker.under`): not
missing, not removed, while the card over it is there and still covers it. When that card
goes (the pair picked up), the one under it counts its missing frames again and both are
removed together. A card whose place nothing covers is missing as before: a card taken away
from beside another is removed. When the lower card shows again, the upper one has come off it:
a sighting in the zone no track explains is that card, whatever its look (a squared pair spread
face up: both are turned over, no third card comes). Likewise a card held under another that
shows again beside it, of its own look, while the card over it is seen and no squared pile is
seen in the zone (one card of a squared pair peeked or slid off the other, further than a card
moves in a frame): it has come out from under, it is no card come.

A card slid onto another in one frame (squaring, seen between two frames) leaves its place
empty and lands on the other's: the sighting is nearer the card it covers. When a confirmed
card seen in the frame before is missing, and a sighting of its look in its zone covers
another confirmed card's place but is not that card lying still (it reads another way, or its
outline moved by more than :data:`STILL_PX`), the sighting is the card that moved and the
covered card lies under it. A card taken away while the other is left exactly where it lay is
removed.

Time is never read here: each frame's timestamp is passed in (ARCHITECTURE.md: time comes in).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from vision.analyse import SeenCard, TableView
from vision.arrays import Vector
from vision.templates import BACK, JOKER

COVERED = 0.6
"""A card lies under a card seen in its zone when that card's outline covers at least this
fraction of its own (its outline when last seen)."""

STILL_PX = 3.0
"""A sighting whose every corner lies within this many pixels of a card's outline is that card
lying still (a sighting's jitter on a still table is well under a pixel)."""


def _outline(corners: Vector) -> Vector:
    return np.asarray(corners, np.float32).reshape(-1, 1, 2)


def _covered(over: Vector, under: Vector) -> bool:
    """The outline ``over`` covers :data:`COVERED` of the outline ``under`` (or more)."""
    a, b = _outline(over), _outline(under)
    area = abs(float(cv2.contourArea(b)))
    if area <= 0.0:
        return False
    return float(cv2.intersectConvexConvex(a, b)[0]) >= COVERED * area


def _still(corners: Vector, place: Vector) -> bool:
    d = np.asarray(corners, np.float64) - np.asarray(place, np.float64)
    return float(np.hypot(d[:, 0], d[:, 1]).max()) <= STILL_PX


@dataclass(slots=True)
class _Track:
    key: str
    zone: str
    x: float
    y: float
    corners: Vector
    confirmed: str | None = None
    pending: str | None = None
    count: int = 0
    misses: int = 0
    under: str | None = None  # the key of the card this one lies under
    lay_under: str | None = None  # ... or lay under when last seen, until both are seen


class CardTracker:
    """Tracks cards across frames; ``max_jump`` is how far (pixels) a card may move between two
    frames and still be the same card."""

    def __init__(self, *, confirm_frames: int = 3, drop_frames: int = 5,
                 max_jump: float = 40.0, deck: str | None = None) -> None:
        if confirm_frames < 1 or drop_frames < 1:
            raise ValueError("confirm_frames and drop_frames must be at least 1")
        self.confirm_frames = confirm_frames
        self.drop_frames = drop_frames
        self.max_jump = max_jump
        self.deck = deck
        self._tracks: list[_Track] = []
        self._next = 1

    @property
    def cards(self) -> dict[str, tuple[str, str]]:
        """Confirmed cards now: key -> (zone, label)."""
        return {t.key: (t.zone, t.confirmed) for t in self._tracks if t.confirmed is not None}

    @property
    def under(self) -> dict[str, str]:
        """Confirmed cards lying under another card now: key -> the key of the card over it."""
        return {t.key: t.under for t in self._tracks if t.under is not None}

    def _observation(self, event: CardEvent, track: _Track, label: str, t: float
                     ) -> CardObservation:
        face = Face.DOWN if label == BACK else Face.UP
        card = None if label in (BACK, JOKER) else parse_card(label)
        return CardObservation(event=event, zone=track.zone, t=t, source=Source.CAMERA,
                               key=track.key, card=card, face=face, deck=self.deck,
                               joker=label == JOKER)

    def update(self, seen: Iterable[SeenCard] | TableView, t: float, *,
               occluded: frozenset[str] = frozenset()) -> list[CardObservation]:
        """Feed one frame's cards (taken at ``t``); returns the observations it completes.
        ``occluded``: zones covered by something else in this frame (a :class:`TableView`
        brings its own): their cards are left as they were."""
        covered: frozenset[str] = frozenset()
        if isinstance(seen, TableView):
            occluded = occluded | seen.occluded
            covered = seen.covered
            seen = seen.cards
        out: list[CardObservation] = []
        # The lower cards of a squared pile (SeenCard.squared) are not sightings of their
        # own: they hold a card of the zone under the pile's upper card (:meth:`_held`), as a
        # card squared onto another is held when only the upper one is seen. Matched as
        # sightings, a pile spread face up read as a card placed and one gone.
        in_view = [s for s in seen if s.zone is not None and s.zone not in occluded]
        piles = [s for s in in_view if s.squared]
        sightings = [s for s in in_view if not s.squared]
        centres = [s.centre for s in sightings]  # once each: a frame is matched every tick
        pairs: list[tuple[float, int, int]] = []
        for i, s in enumerate(sightings):
            cx, cy = centres[i]
            for j, tr in enumerate(self._tracks):
                if tr.zone == s.zone:
                    d = math.hypot(cx - tr.x, cy - tr.y)
                    if d <= self.max_jump:
                        pairs.append((d, i, j))
        pairs.sort()
        used_s: set[int] = set()
        used_t: set[int] = set()
        matches: dict[int, int] = {}  # sighting -> track
        for _, i, j in pairs:
            if i not in used_s and j not in used_t:
                used_s.add(i)
                used_t.add(j)
                matches[i] = j
        # A card moved within its zone further than max_jump in one frame (a player squaring
        # his cards slides one onto the other): a track seen in the last frame and missing
        # now, and a sighting of the same look in the same zone that no track explains, are
        # one card that moved, not one card gone and another come. A card that lay over one
        # seen again now has come off it, and may have been turned up as it was (a squared
        # pair spread face up): any look will do.
        spread = {self._tracks[j].under for j in used_t} - {None}
        seen_keys = {self._tracks[j].key for j in used_t}
        piled = {p.zone for p in piles}
        for i, s in enumerate(sightings):
            if i in used_s:
                continue
            for j, tr in enumerate(self._tracks):
                # A card held under another, whose upper card is seen with no squared pile
                # in the zone, that shows again of its own look beside it: it has come out
                # from under (a squared pair, one card peeked or slid off the other), not a
                # card come.
                free = tr.under is None or (tr.under in seen_keys and tr.pending == s.label
                                            and s.zone not in piled)
                if (j not in used_t and tr.zone == s.zone and tr.misses == 0
                        and free and (tr.pending == s.label or tr.key in spread)):
                    used_s.add(i)
                    used_t.add(j)
                    matches[i] = j
                    break
        self._slid_onto(sightings, matches, used_t)
        for i, j in matches.items():
            s, tr = sightings[i], self._tracks[j]
            tr.x, tr.y = centres[i]
            tr.corners = s.corners
            tr.misses = 0
            if tr.under is not None:  # seen: nothing lies over it now
                tr.lay_under, tr.under = tr.under, None
            if (s.covered or not s.sure) and tr.confirmed is not None \
                    and s.label != tr.confirmed:
                continue  # a chip on it, or a reading not sure: it does not turn it over
            if s.label == tr.pending:
                tr.count += 1
            else:
                tr.pending, tr.count = s.label, 1
            if tr.count >= self.confirm_frames and tr.pending != tr.confirmed:
                event = CardEvent.PLACED if tr.confirmed is None else CardEvent.FLIPPED
                tr.confirmed = tr.pending
                out.append(self._observation(event, tr, tr.pending, t))
        new: list[_Track] = []
        owner: dict[int, _Track] = {i: self._tracks[j] for i, j in matches.items()}
        for i, s in enumerate(sightings):
            if i in used_s:
                continue
            assert s.zone is not None
            if s.zone in covered and any(
                    tr.zone == s.zone and tr.confirmed is not None and _inside(s, tr.x, tr.y)
                    for tr in self._tracks):
                continue  # pieces of a held card and what lies on it: no new card
            cx, cy = centres[i]
            tr = _Track(key=f"cam{self._next}", zone=s.zone, x=cx, y=cy, corners=s.corners,
                        pending=s.label, count=1)
            self._next += 1
            new.append(tr)
            owner[i] = tr
        seen_now = {self._tracks[j].key for j in used_t}
        for j in used_t:
            tr = self._tracks[j]
            if tr.lay_under in seen_now:
                tr.lay_under = None  # both seen: neither lies under the other
        held = self._held(sightings, owner, used_t, occluded, piles)
        keep: list[_Track] = []
        for j, tr in enumerate(self._tracks):
            if j not in used_t and (tr.zone in occluded or (
                    tr.zone in covered and tr.confirmed is not None)):
                keep.append(tr)  # under a hand, a chip: as it was
                continue
            if j in held:
                keep.append(tr)  # under a card: as it was
                continue
            if j not in used_t:
                tr.misses += 1
                tr.count = 0
                if tr.misses >= self.drop_frames:
                    if tr.confirmed is not None:
                        out.append(self._observation(CardEvent.REMOVED, tr, tr.confirmed, t))
                    continue
            keep.append(tr)
        self._tracks = keep
        for tr in new:
            if self.confirm_frames <= 1:
                assert tr.pending is not None
                tr.confirmed = tr.pending
                out.append(self._observation(CardEvent.PLACED, tr, tr.pending, t))
            self._tracks.append(tr)
        return out

    def _slid_onto(self, sightings: list[SeenCard], matches: dict[int, int],
                   used_t: set[int]) -> None:
        """A confirmed card seen in the frame before and missing now, and a sighting of its look
        in its zone matched to another confirmed card whose place it covers but which it is not
        (it reads another way, or it is not lying still): the card slid onto the other, and the
        sighting is its own (the one under it is then held by :meth:`_held`)."""
        for j, gone in enumerate(self._tracks):
            if (j in used_t or gone.confirmed is None or gone.misses != 0
                    or gone.under is not None):
                continue
            for i, k in matches.items():
                s, lower = sightings[i], self._tracks[k]
                if (s.zone == gone.zone and s.label == gone.pending
                        and lower.confirmed is not None and lower.under is None
                        and (s.label != lower.pending or not _still(s.corners, lower.corners))
                        and _covered(s.corners, lower.corners)):
                    matches[i] = j
                    used_t.discard(k)
                    used_t.add(j)
                    break

    def _held(self, sightings: list[SeenCard], owner: dict[int, _Track], used_t: set[int],
              occluded: frozenset[str], piles: list[SeenCard]) -> set[int]:
        """The tracks not seen in this frame that lie under a card seen in their zone: one
        already under a card stays under it while that card is seen (or itself lies under
        another) and still covers its place; else a confirmed card whose place a sighting
        covers goes under that sighting's card, never under a card that lay under it (the
        pair turned up apart: the lower card is seen, the upper one's outline is stale); else
        a confirmed card of a zone where a squared pile's lower card is seen (``piles``) goes
        under the card seen over that lower card, one card for each."""
        held: set[int] = set()
        by_key = {tr.key: tr for tr in self._tracks}
        index = {tr.key: j for j, tr in enumerate(self._tracks)}
        # A chain (a card under a card under a card) is settled from the top down.
        order = sorted((j for j, tr in enumerate(self._tracks)
                        if j not in used_t and tr.zone not in occluded
                        and tr.confirmed is not None),
                       key=lambda j: self._depth(self._tracks[j], by_key))
        for j in order:
            tr = self._tracks[j]
            if tr.under is not None:
                top = by_key.get(tr.under)
                if top is not None and top.zone == tr.zone and (
                        index[top.key] in used_t or index[top.key] in held) and _covered(
                        top.corners, tr.corners):
                    held.add(j)
                    continue
                tr.under = None
            for i, s in enumerate(sightings):
                over = owner.get(i)  # None: a piece of a card under a chip (no track)
                if (over is not None and s.zone == tr.zone and over.lay_under != tr.key
                        and _covered(s.corners, tr.corners)):
                    tr.under = over.key
                    held.add(j)
                    break
            else:
                for pile in (p for p in piles if p.zone == tr.zone):
                    top = next((owner[i] for i, s in enumerate(sightings)
                                if i in owner and s.zone == tr.zone
                                and _covered(s.corners, pile.corners)), None)
                    if top is not None:
                        tr.under = top.key
                        held.add(j)
                        piles = [p for p in piles if p is not pile]
                        break
        return held

    @staticmethod
    def _depth(tr: _Track, by_key: dict[str, _Track]) -> int:
        depth = 0
        while tr.under is not None and depth < len(by_key):
            nxt = by_key.get(tr.under)
            if nxt is None:
                break
            tr, depth = nxt, depth + 1
        return depth


def _inside(seen: SeenCard, x: float, y: float) -> bool:
    """Whether the point lies within the sighting's outline (or on it)."""
    return cv2.pointPolygonTest(_outline(seen.corners), (x, y), False) >= 0
