"""The card-location picture: every physical card the sensors see, where it lies, which way up.

A :class:`TrackedCard` is one piece of cardboard as the monitor knows it after fusion: the RFID
tag that names it (identity) and/or the camera track that sees it (face, and identity when it is
face up). The picture answers the questions the checks ask: which cards lie in a zone, in the
order they arrived; which are settled (not in the middle of a flicker).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import Face


@dataclass(slots=True, eq=False)
class TrackedCard:
    """One physical card. ``pid`` is the monitor's own id, stable while the card is tracked.

    ``rfid_seen``/``camera_seen``: what each sensor currently says about its presence in
    ``zone``. ``gone_since``: every active sensor lost it at that time (removal not yet settled:
    a flicker if it comes back within the settle time). ``pending``: the camera saw it, the RFID
    reader not yet (both-sensor mode): the game does not see it until fusion promotes it.
    ``disagree_since``: the two sensors have disagreed about it since then (SENSOR_CONFLICT after
    the settle time). ``seq`` orders arrivals on the felt.
    """

    pid: int
    zone: str
    seq: int
    placed_t: float
    card: Card | None = None
    face: Face = Face.UNKNOWN
    foreign: bool = False
    joker: bool = False
    rfid_key: str | None = None
    camera_key: str | None = None
    rfid_seen: bool = False
    camera_seen: bool = False
    gone_since: float | None = None
    pending: bool = False
    disagree_since: float | None = None
    conflict_raised: bool = False
    camera_card: Card | None = None

    def label(self) -> str:
        """How alerts name the card: its identity, or where it lies when unknown."""
        if self.joker:
            return "the joker"
        if self.card is not None:
            return str(self.card)
        return f"the face-down card in {self.zone}"


class CardPicture:
    """Every tracked card, indexed by pid, RFID key and camera key."""

    def __init__(self) -> None:
        self._cards: dict[int, TrackedCard] = {}
        self.by_rfid: dict[str, TrackedCard] = {}
        self.by_camera: dict[str, TrackedCard] = {}
        self._next_pid = 1
        self._next_seq = 1

    def new(self, *, zone: str, t: float) -> TrackedCard:
        tc = TrackedCard(pid=self._next_pid, zone=zone, seq=self._next_seq, placed_t=t)
        self._next_pid += 1
        self._next_seq += 1
        self._cards[tc.pid] = tc
        return tc

    def move(self, tc: TrackedCard, zone: str, t: float) -> None:
        tc.zone = zone
        tc.seq = self._next_seq
        tc.placed_t = t
        self._next_seq += 1

    def forget(self, tc: TrackedCard) -> None:
        self._cards.pop(tc.pid, None)
        if tc.rfid_key is not None and self.by_rfid.get(tc.rfid_key) is tc:
            del self.by_rfid[tc.rfid_key]
        if tc.camera_key is not None and self.by_camera.get(tc.camera_key) is tc:
            del self.by_camera[tc.camera_key]

    def get(self, pid: int) -> TrackedCard | None:
        return self._cards.get(pid)

    def __iter__(self) -> Iterator[TrackedCard]:
        return iter(list(self._cards.values()))

    def in_zone(self, zone: str, *, settled: bool = False) -> list[TrackedCard]:
        """Cards the game sees in ``zone``, oldest first. ``settled``: leave out cards every
        sensor has lost (a removal still inside the settle time), for checking a remedy."""
        out = [tc for tc in self._cards.values()
               if tc.zone == zone and not tc.pending
               and not (settled and tc.gone_since is not None)]
        out.sort(key=lambda tc: tc.seq)
        return out
