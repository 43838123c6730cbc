"""RFID + camera fusion: sensor observations in, one card-location picture and its changes out.

Rules of fusion (docs/monitor.md, "Fusion and settle time"):

- The RFID reader names a card (its tag's identity) but cannot see its face; the camera sees the
  face of every card and the identity of a face-up one; a face-down card is to the camera only a
  back at a place (its key is a track id). With both sensors, the camera gives the face and the
  RFID tag the identity; a camera card and an RFID card in the same zone with compatible
  identities are the same physical card.
- A placement counts at once (an alert must come the moment a card goes wrong). A removal counts
  only after ``settle_time`` without the card coming back: a card lifted and put down again in
  the same zone, a tag that misses a few reads, is nothing (sensor flicker never makes a game
  alert). A card that shows up in another zone has moved.
- With both sensors online, a card the camera sees but the reader does not waits up to
  ``settle_time`` for its tag before the game sees it; two sensors that still disagree about a
  card after ``settle_time + sensor_lag`` make one SENSOR_CONFLICT (presence, or identity of a
  face-up card). ``sensor_lag`` is how much later one sensor may legitimately report what the
  other already did (:func:`sensor_lag`).
  Stacked zones (burn, muck, shuffler) are exempt from presence conflicts: a camera sees only the
  top card of a pile. A card on a seat that the reader lost while the camera still has it is
  a player holding his cards up to look at them (a peek: off the antenna, in the camera's view
  or under his hand): that disagreement counts only after ``peek_time`` more.
- A sensor that is offline is left out: the other one drives the picture alone, and nothing it
  said before going offline counts as a disagreement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from table_controller.monitor.cards_in_play import CardPicture, TrackedCard
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from table_controller.vocabulary.zones import BURN, MUCK, SHUFFLER, seat_of

STACKED_ZONES = frozenset({BURN, MUCK, SHUFFLER})


class Change(StrEnum):
    ENTERED = "entered"    # a card the game has not seen in this zone arrived (placed or moved)
    LEFT = "left"          # a card left the felt (removal settled)
    FACE = "face"          # its face became known or changed (``flipped``: turned over in place)
    IDENTITY = "identity"  # its identity (or joker / foreign status) became known
    CONFLICT = "conflict"  # the sensors disagree about it beyond the settle time


@dataclass(frozen=True, slots=True)
class Fused:
    change: Change
    card: TrackedCard
    zone: str
    t: float
    from_zone: str | None = None
    flipped: bool = False
    detail: str = ""


def sensor_lag(*, hold_time: float, confirm_frames: int, drop_frames: int,
               frame_rate: float) -> float:
    """How much later one sensor may report a change the other already reported, so that normal
    dealing and collecting make no SENSOR_CONFLICT (docs/monitor.md, "Fusion and settle time").

    - A card picked up: the camera reports it gone after ``drop_frames`` frames without it, the
      reader after ``hold_time`` without a read (it holds a tag that misses reads,
      docs/protocol.md §6). Whichever comes first, the other follows within
      ``max(hold_time, drop_frames / frame_rate)``.
    - A card put down: the reader reports it at its next scan, the camera after
      ``confirm_frames`` frames that show it: ``confirm_frames / frame_rate`` later.

    ``frame_rate``: frames per second the camera's frames are analysed at (the slowest rate the
    table runs at). The settle time comes on top for the reader's scan period and jitter."""
    if hold_time < 0 or confirm_frames < 1 or drop_frames < 1 or not frame_rate > 0:
        raise ValueError("sensor_lag: hold_time >= 0, confirm_frames and drop_frames >= 1, "
                         "frame_rate > 0")
    return max(hold_time, max(confirm_frames, drop_frames) / frame_rate)


def _compatible(a: Card | None, b: Card | None) -> bool:
    return a is None or b is None or a == b


class SensorFusion:
    """Turns :class:`CardObservation` records into :class:`Fused` picture changes."""

    def __init__(self, *, sensors: frozenset[str], settle_time: float,
                 sensor_lag: float = 0.0, peek_time: float = 0.0) -> None:
        self.picture = CardPicture()
        self.settle_time = settle_time
        self.conflict_time = settle_time + sensor_lag  # RFID against camera (:func:`sensor_lag`)
        self.peek_time = peek_time
        self._configured = {Source(s) for s in sensors}
        self._online = {Source.RFID: True, Source.CAMERA: True}
        self._both = self._both_now()  # asked for every card at every tick: kept up to date
        self._retired: set[str] = set()  # camera tracks of cards the reader saw move away
        # After forget_camera, new camera tracks meet cards the reader already holds: a track
        # that found no card of its identity took a guess, which a later face may correct.
        self._guessing = False
        self._guessed: set[str] = set()

    # ----------------------------------------------------------------- sensors
    def active(self, source: Source) -> bool:
        return source in self._configured and self._online[source]

    def _both_now(self) -> bool:
        return self.active(Source.RFID) and self.active(Source.CAMERA)

    @property
    def both_active(self) -> bool:
        return self._both

    def set_online(self, source: Source, online: bool, t: float) -> list[Fused]:
        """A sensor went offline or came back. Returns picture changes (promotions)."""
        self._online[source] = online
        self._both = self._both_now()
        out: list[Fused] = []
        for tc in self.picture:
            if tc.pending and not self.active(Source.RFID):
                tc.pending = False
                out.append(Fused(Change.ENTERED, tc, tc.zone, t))
            if online:
                tc.disagree_since = None
            self._refresh(tc, t)
        return out

    def forget_camera(self) -> None:
        """The camera started afresh (the controller restarted): its track ids name nothing
        any more. Its cards waiting for a tag are dropped; the tagged cards wait for its next
        frames to re-attach (a new track meets the tagged card in its zone)."""
        for tc in self.picture:
            if tc.pending:
                self.picture.forget(tc)
                continue
            tc.camera_key, tc.camera_seen, tc.camera_card = None, False, None
            tc.disagree_since, tc.conflict_raised = None, False
        self.picture.by_camera.clear()
        self._retired.clear()
        self._guessing = True

    def _seen(self, tc: TrackedCard) -> bool:
        rfid, cam = self.active(Source.RFID), self.active(Source.CAMERA)
        if not rfid and not cam:
            return True  # nobody can tell: keep the picture as it was
        return (rfid and tc.rfid_seen) or (cam and tc.camera_seen)

    def _disagrees(self, tc: TrackedCard) -> bool:
        if not self._both:
            return False
        if (tc.card is not None and tc.camera_card is not None and tc.rfid_key is not None
                and tc.card != tc.camera_card):
            return True
        if tc.zone in STACKED_ZONES:
            return False
        return tc.rfid_seen != tc.camera_seen

    def _refresh(self, tc: TrackedCard, t: float) -> None:
        if not self._both:
            # one sensor is silent: its disagreements do not count, but the two have not agreed
            # either, so a conflict already raised is not raised again when it is back (one
            # disagreement, one alert: alerts.md "One error, one alert")
            tc.disagree_since = None
            return
        if self._disagrees(tc):
            if tc.disagree_since is None:
                tc.disagree_since = t
        else:
            tc.disagree_since = None
            tc.conflict_raised = False

    # ------------------------------------------------------------ observations
    def observe(self, obs: CardObservation) -> list[Fused]:
        if obs.source not in self._configured:
            return []
        if obs.source is Source.RFID:
            if obs.event is CardEvent.PLACED:
                return self._rfid_placed(obs)
            if obs.event is CardEvent.REMOVED:
                return self._removed(obs, self.picture.by_rfid.get(obs.key))
            return []  # RFID cannot see a card turn over
        if obs.event is CardEvent.PLACED:
            return self._camera_placed(obs)
        if obs.event is CardEvent.REMOVED:
            if obs.key in self._retired:
                self._retired.discard(obs.key)
                return []
            return self._removed(obs, self.picture.by_camera.get(obs.key))
        return self._camera_flipped(obs)

    def _rfid_placed(self, obs: CardObservation) -> list[Fused]:
        pic, t = self.picture, obs.t
        tc = pic.by_rfid.get(obs.key)
        out: list[Fused] = []
        if tc is not None:
            tc.rfid_seen = True
            tc.gone_since = None
            out += self._learn(tc, obs.card, obs.foreign, obs.joker, t)
            if tc.zone != obs.zone:
                old = tc.zone
                pic.move(tc, obs.zone, t)
                if obs.zone == SHUFFLER:
                    # back into the stub (a remedy, the gather): the reader cannot tell which
                    # way up it went in; only the camera can, if it sees the stub's top
                    tc.face = Face.UNKNOWN
                if tc.camera_key is not None:
                    if pic.by_camera.get(tc.camera_key) is tc:
                        del pic.by_camera[tc.camera_key]
                    self._retired.add(tc.camera_key)
                    tc.camera_key, tc.camera_seen, tc.camera_card = None, False, None
                out = [Fused(Change.ENTERED, tc, obs.zone, t, from_zone=old)]
                cam = self._camera_candidate(obs.zone, tc.card)
                if cam is not None:
                    out += self._absorb(tc, cam, t)
            self._refresh(tc, t)
            return out
        cam = self._camera_candidate(obs.zone, obs.card)
        if cam is not None:
            cam.rfid_key = obs.key
            cam.rfid_seen = True
            pic.by_rfid[obs.key] = cam
            if cam.pending:
                cam.pending = False
                self._learn(cam, obs.card, obs.foreign, obs.joker, t)
                out.append(Fused(Change.ENTERED, cam, cam.zone, t))
            else:
                out += self._learn(cam, obs.card, obs.foreign, obs.joker, t)
            self._refresh(cam, t)
            return out
        tc = pic.new(zone=obs.zone, t=t)
        tc.rfid_key, tc.rfid_seen = obs.key, True
        tc.card, tc.foreign, tc.joker = obs.card, obs.foreign, obs.joker
        pic.by_rfid[obs.key] = tc
        self._refresh(tc, t)
        return [Fused(Change.ENTERED, tc, obs.zone, t)]

    def _absorb(self, tc: TrackedCard, cam: TrackedCard, t: float) -> list[Fused]:
        """The camera card ``cam`` (no tag) is the tagged card ``tc`` just moved in: merge."""
        assert cam.camera_key is not None
        out: list[Fused] = []
        was_pending = cam.pending
        key = cam.camera_key
        self.picture.forget(cam)
        if not was_pending:
            out.append(Fused(Change.LEFT, cam, cam.zone, t, detail="merged"))
        tc.camera_key, tc.camera_seen, tc.camera_card = key, True, cam.camera_card
        self.picture.by_camera[key] = tc
        if cam.face is not Face.UNKNOWN and cam.face is not tc.face:
            tc.face = cam.face
            out.append(Fused(Change.FACE, tc, tc.zone, t))
        return out

    def _release_named(self, obs: CardObservation) -> None:
        """A new camera track names a face whose tag lies in the same zone under another
        camera track: it is that card (the camera lost it under a chip, a protector or the
        other card and found it again a little further on). The old track is let go (its
        removal, when it comes, is nothing)."""
        if obs.card is None:
            return
        pic = self.picture
        for tc in pic:
            if (tc.zone == obs.zone and tc.rfid_key is not None and tc.card == obs.card
                    and not tc.pending and tc.camera_key not in (None, obs.key)):
                old = tc.camera_key
                assert old is not None
                if pic.by_camera.get(old) is tc:
                    del pic.by_camera[old]
                self._retired.add(old)
                tc.camera_key, tc.camera_seen = None, False
                return

    def _found_again(self, tc: TrackedCard) -> list[Fused] | None:
        """The camera lost the tagged card ``tc`` while a card it has just started to track
        waits for a tag in the same zone: that is ``tc`` seen again a little further on (a chip
        or a protector laid on it or taken off moved its outline). The waiting track becomes
        ``tc``'s; None when there is none."""
        if tc.rfid_key is None or not tc.rfid_seen:
            return None
        pic = self.picture
        waiting = [c for c in pic if c.zone == tc.zone and c.pending and c.rfid_key is None
                   and c.camera_key is not None and _compatible(c.camera_card, tc.card)]
        if not waiting:
            return None
        cam = min(waiting, key=lambda c: c.seq)
        key = cam.camera_key
        assert key is not None
        pic.forget(cam)
        if tc.camera_key is not None and pic.by_camera.get(tc.camera_key) is tc:
            del pic.by_camera[tc.camera_key]
        tc.camera_key, tc.camera_seen, tc.camera_card = key, True, cam.camera_card
        pic.by_camera[key] = tc
        out: list[Fused] = []
        if cam.face is not Face.UNKNOWN and cam.face is not tc.face:
            tc.face = cam.face
            out.append(Fused(Change.FACE, tc, tc.zone, cam.placed_t, flipped=True))
        self._refresh(tc, cam.placed_t)
        return out

    def _camera_candidate(self, zone: str, card: Card | None) -> TrackedCard | None:
        """A card in ``zone`` the camera sees and no tag names yet."""
        found = [c for c in self.picture if c.zone == zone and c.rfid_key is None
                 and c.camera_seen]
        return self._best(found, card, lambda c: c.camera_card)

    def _tag_candidate(self, zone: str, card: Card | None) -> TrackedCard | None:
        """A card in ``zone`` the reader sees and no camera track covers: none yet, or one the
        camera lost (a card hidden under the other of a squared pair, seen again once they are
        spread)."""
        found = [c for c in self.picture if c.zone == zone and c.rfid_seen and not c.pending
                 and (c.camera_key is None or not c.camera_seen)]
        return self._best(found, card, lambda c: c.card)

    @staticmethod
    def _best(found: list[TrackedCard], card: Card | None,
              ident: Callable[[TrackedCard], Card | None]) -> TrackedCard | None:
        """The candidate whose identity matches ``card``, else the oldest compatible one,
        else the oldest at all (the two sensors then disagree about its identity: a
        SENSOR_CONFLICT once the settle time has passed)."""
        for pool in ([c for c in found if card is not None and ident(c) == card],
                     [c for c in found if _compatible(ident(c), card)], found):
            if pool:
                return min(pool, key=lambda c: c.seq)
        return None

    def _learn(self, tc: TrackedCard, card: Card | None, foreign: bool, joker: bool,
               t: float) -> list[Fused]:
        """RFID knowledge about ``tc``: identity, foreign deck, joker."""
        news = False
        if card is not None and tc.card != card:
            news = tc.card is None
            tc.card = card
        if foreign and not tc.foreign:
            tc.foreign, news = True, True
        if joker and not tc.joker:
            tc.joker, news = True, True
        if news and not tc.pending:
            return [Fused(Change.IDENTITY, tc, tc.zone, t)]
        return []

    def _camera_placed(self, obs: CardObservation) -> list[Fused]:
        pic, t = self.picture, obs.t
        tc = pic.by_camera.get(obs.key)
        if tc is not None and tc.zone == obs.zone:
            tc = self._pile_top(tc, obs)
            tc.camera_seen = True
            tc.gone_since = None
            out = self._camera_sees(tc, obs, flipped=tc.face is not Face.UNKNOWN)
            self._refresh(tc, t)
            return out
        if tc is not None:  # the track jumped zones: treat it as a new track
            del pic.by_camera[obs.key]
            tc.camera_key, tc.camera_seen = None, False
            self._refresh(tc, t)
        self._retired.discard(obs.key)
        self._release_named(obs)
        tag = self._tag_candidate(obs.zone, obs.card)
        if tag is not None:
            if self._guessing and (obs.card is None or tag.card != obs.card):
                self._guessed.add(obs.key)
            if tag.camera_key is not None and pic.by_camera.get(tag.camera_key) is tag:
                del pic.by_camera[tag.camera_key]  # the track the camera lost
            tag.camera_key, tag.camera_seen = obs.key, True
            pic.by_camera[obs.key] = tag
            out = self._camera_sees(tag, obs, flipped=False)
            self._refresh(tag, t)
            return out
        moved = self._camera_retrack(obs)
        if moved is not None:
            old = moved.zone
            pic.move(moved, obs.zone, t)
            if moved.camera_key is not None and pic.by_camera.get(moved.camera_key) is moved:
                del pic.by_camera[moved.camera_key]
            moved.camera_key, moved.camera_seen, moved.gone_since = obs.key, True, None
            moved.face = obs.face
            pic.by_camera[obs.key] = moved
            self._refresh(moved, t)
            return [Fused(Change.ENTERED, moved, obs.zone, t, from_zone=old)]
        tc = pic.new(zone=obs.zone, t=t)
        tc.camera_key, tc.camera_seen = obs.key, True
        tc.card = tc.camera_card = obs.card
        tc.face, tc.joker, tc.foreign = obs.face, obs.joker, obs.foreign
        pic.by_camera[obs.key] = tc
        if self.active(Source.RFID):
            tc.pending = True
            self._refresh(tc, t)
            return []
        return [Fused(Change.ENTERED, tc, obs.zone, t)]

    def _pile_top(self, tc: TrackedCard, obs: CardObservation) -> TrackedCard:
        """In a pile (burn, muck, the stub) the camera sees only the top card, and the card on
        top changes under one camera track. When the camera names a card that another tag in
        the pile carries, the track shows that card now: it moves over to it (no conflict)."""
        if ((tc.zone not in STACKED_ZONES and obs.key not in self._guessed)
                or obs.card is None or tc.rfid_key is None or tc.card == obs.card):
            return tc
        other = next((c for c in self.picture if c is not tc and c.zone == tc.zone
                      and c.rfid_key is not None and c.card == obs.card), None)
        if other is None:
            return tc
        self._guessed.discard(obs.key)
        if other.camera_key is not None and other.camera_key in self._guessed:
            # two guesses in one zone, each the other's card: they swap
            other_key = other.camera_key
            self._guessed.discard(other_key)
            tc.camera_key, tc.camera_seen = other_key, other.camera_seen
            tc.camera_card = other.camera_card
            self.picture.by_camera[other_key] = tc
            other.camera_key, other.camera_seen, other.camera_card = obs.key, True, None
            self.picture.by_camera[obs.key] = other
            self._refresh(tc, obs.t)
            return other
        pic = self.picture
        tc.camera_key, tc.camera_seen, tc.camera_card = None, False, None
        if other.camera_key is not None and pic.by_camera.get(other.camera_key) is other:
            del pic.by_camera[other.camera_key]
        other.camera_key, other.camera_seen = obs.key, True
        pic.by_camera[obs.key] = other
        self._refresh(tc, obs.t)
        return other

    def _camera_retrack(self, obs: CardObservation) -> TrackedCard | None:
        """Camera only: a recognised card the camera lost elsewhere a moment ago has moved."""
        if obs.card is None:
            return None
        for tc in self.picture:
            if (tc.card == obs.card and tc.gone_since is not None and not tc.pending
                    and not (self.active(Source.RFID) and tc.rfid_key is not None)):
                return tc
        return None

    def _camera_sees(self, tc: TrackedCard, obs: CardObservation, *, flipped: bool) -> list[Fused]:
        out: list[Fused] = []
        if obs.card is not None:
            tc.camera_card = obs.card
            if tc.card is None:
                tc.card = obs.card
                if not tc.pending:
                    out.append(Fused(Change.IDENTITY, tc, tc.zone, obs.t))
        if obs.joker and not tc.joker:
            tc.joker = True
            if not tc.pending:
                out.append(Fused(Change.IDENTITY, tc, tc.zone, obs.t))
        if obs.face is not Face.UNKNOWN and obs.face is not tc.face:
            tc.face = obs.face
            if not tc.pending:
                out.append(Fused(Change.FACE, tc, tc.zone, obs.t, flipped=flipped))
        return out

    def _camera_flipped(self, obs: CardObservation) -> list[Fused]:
        tc = self.picture.by_camera.get(obs.key)
        if tc is None or tc.zone != obs.zone:
            return self._camera_placed(obs)
        tc = self._pile_top(tc, obs)
        out = self._camera_sees(tc, obs, flipped=True)
        self._refresh(tc, obs.t)
        return out

    def _removed(self, obs: CardObservation, tc: TrackedCard | None) -> list[Fused]:
        if tc is None or tc.zone != obs.zone:
            return []  # stale: the card already moved on in the picture
        if obs.source is Source.RFID:
            tc.rfid_seen = False
        else:
            tc.camera_seen = False
            if tc.pending:
                self.picture.forget(tc)  # never reached the game
                return []
            found = self._found_again(tc)
            if found is not None:
                return found
        if not self._seen(tc) and tc.gone_since is None:
            tc.gone_since = obs.t
        self._refresh(tc, obs.t)
        return []

    # -------------------------------------------------------------------- time
    def tick(self, now: float) -> list[Fused]:
        out: list[Fused] = []
        for tc in self.picture:
            if tc.gone_since is not None and not self._seen(tc):
                if now - tc.gone_since >= self.settle_time:
                    self.picture.forget(tc)
                    if tc.camera_key is not None:
                        self._retired.discard(tc.camera_key)
                    if not tc.pending:
                        out.append(Fused(Change.LEFT, tc, tc.zone, now))
                continue
            if tc.gone_since is not None:
                tc.gone_since = None
            if tc.pending and now - tc.placed_t >= self.settle_time:
                tc.pending = False
                out.append(Fused(Change.ENTERED, tc, tc.zone, now))
            self._refresh(tc, now)
            if (tc.disagree_since is not None and not tc.conflict_raised
                    and now - tc.disagree_since >= self._conflict_after(tc)):
                tc.conflict_raised = True
                out.append(Fused(Change.CONFLICT, tc, tc.zone, now, detail=self._why(tc)))
        return out

    def _conflict_after(self, tc: TrackedCard) -> float:
        """How long ``tc``'s sensors may disagree: a hole card the reader lost and the camera
        still has may be held up by its player (a peek) for ``peek_time`` more."""
        if (tc.rfid_key is not None and not tc.rfid_seen and tc.camera_seen
                and seat_of(tc.zone) is not None
                and (tc.card is None or tc.camera_card is None or tc.card == tc.camera_card)):
            return self.conflict_time + self.peek_time
        return self.conflict_time

    def _why(self, tc: TrackedCard) -> str:
        if tc.card is not None and tc.camera_card is not None and tc.card != tc.camera_card:
            return f"the tag says {tc.card}, the camera sees {tc.camera_card}"
        if tc.rfid_seen:
            return f"the reader sees {tc.label()} in {tc.zone}, the camera does not"
        return f"the camera sees {tc.label()} in {tc.zone}, the reader does not"
