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

Time is never read here: each frame's timestamp is passed in (ARCHITECTURE.md: time comes in).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from vision.analyse import SeenCard, TableView
from vision.templates import BACK, JOKER


@dataclass(slots=True)
class _Track:
    key: str
    zone: str
    x: float
    y: float
    confirmed: str | None = None
    pending: str | None = None
    count: int = 0
    misses: int = 0


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
        sightings = [s for s in seen if s.zone is not None and s.zone not in occluded]
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
        matches: list[tuple[int, int]] = []
        for _, i, j in pairs:
            if i not in used_s and j not in used_t:
                used_s.add(i)
                used_t.add(j)
                matches.append((i, j))
        # A card moved within its zone further than max_jump in one frame (a player squaring
        # his cards slides one onto the other): a track seen in the last frame and missing
        # now, and a sighting of the same look in the same zone that no track explains, are
        # one card that moved, not one card gone and another come.
        for i, s in enumerate(sightings):
            if i in used_s:
                continue
            for j, tr in enumerate(self._tracks):
                if (j not in used_t and tr.zone == s.zone and tr.misses == 0
                        and tr.pending == s.label):
                    used_s.add(i)
                    used_t.add(j)
                    matches.append((i, j))
                    break
        for i, j in matches:
            s, tr = sightings[i], self._tracks[j]
            tr.x, tr.y = centres[i]
            tr.misses = 0
            if s.covered and tr.confirmed is not None and s.label != tr.confirmed:
                continue  # a chip on it: its part in view does not turn it over
            if s.label == tr.pending:
                tr.count += 1
            else:
                tr.pending, tr.count = s.label, 1
            if tr.count >= self.confirm_frames and tr.pending != tr.confirmed:
                event = CardEvent.PLACED if tr.confirmed is None else CardEvent.FLIPPED
                tr.confirmed = tr.pending
                out.append(self._observation(event, tr, tr.pending, t))
        keep: list[_Track] = []
        for j, tr in enumerate(self._tracks):
            if j not in used_t and (tr.zone in occluded or (
                    tr.zone in covered and tr.confirmed is not None)):
                keep.append(tr)  # under a hand, a chip: as it was
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
        for i, s in enumerate(sightings):
            if i in used_s:
                continue
            assert s.zone is not None
            if s.zone in covered and any(
                    tr.zone == s.zone and tr.confirmed is not None and _inside(s, tr.x, tr.y)
                    for tr in self._tracks):
                continue  # pieces of a held card and what lies on it: no new card
            cx, cy = centres[i]
            tr = _Track(key=f"cam{self._next}", zone=s.zone, x=cx, y=cy, pending=s.label, count=1)
            self._next += 1
            if self.confirm_frames <= 1:
                tr.confirmed = s.label
                out.append(self._observation(CardEvent.PLACED, tr, s.label, t))
            self._tracks.append(tr)
        return out


def _inside(seen: SeenCard, x: float, y: float) -> bool:
    """Whether the point lies within the sighting's outline (a convex quadrilateral)."""
    c = [(float(px), float(py)) for px, py in seen.corners]
    signs: list[float] = []
    for k in range(4):
        (ax, ay), (bx, by) = c[k], c[(k + 1) % 4]
        signs.append((bx - ax) * (y - ay) - (by - ay) * (x - ax))
    return min(signs) >= 0 or max(signs) <= 0
