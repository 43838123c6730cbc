"""After a resume: the sensors' first full picture against the hand rebuilt from the journal.

While the controller was down the cards may have moved. The RFID reader, started afresh,
reports every tag its first inventory finds (a placement for each, docs/protocol.md §6) and
then says it is online; from then on :meth:`RfidPicture.rfid_picture` is the tags it holds
present, zone by zone. :class:`Reconcile` waits for that picture, then compares it with the
tags of the rebuilt picture:

- a tag in another zone has moved: the reader's placement already moved it in the monitor
  (whose checks judge the move like any other);
- a tag the reader does not find has vanished: the controller gives the monitor the removal
  the reader cannot report (it never knew the tag), journaled like an observation, so a second
  restart replays it too; like any removal it counts after the settle time, and a tag read
  again within it (one inventory can miss a tag) is nothing;
- a tag the rebuilt hand did not hold has appeared (the reader's placement brought it in).

Each of them is named in one CARDS_MOVED_WHILE_DOWN alert (alerts.md). The camera's track ids
do not survive a restart: its tracks are forgotten and the camera's next frames re-attach to
the tagged cards (docs/running.md "Restart after a crash"). A table without an RFID reader
has nothing to compare (the camera alone cannot tell a new track from a card of the hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from table_controller.daemon.lag import said_through
from table_controller.monitor import DealingMonitor
from table_controller.monitor.restart import DownChange, cards_moved_while_down
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import (
    CardEvent,
    CardObservation,
    Face,
    Observation,
    Source,
)


@runtime_checkable
class RfidPicture(Protocol):
    """A sensor that can say which tags it holds present (the RFID reader's chain)."""

    def rfid_picture(self) -> dict[str, set[str]] | None:
        """Zone -> tag keys held present now; None until the first full inventory is in."""


@dataclass(slots=True)
class Found:
    """One look: the removals to give the monitor now, the alert naming what changed (None:
    nothing did, or not yet known), and whether the comparison is over."""

    removals: list[Observation] = field(default_factory=list)
    alert: Alert | None = None
    done: bool = False


@dataclass(slots=True)
class Reconcile:
    """``before``: tag key -> (zone, card) in the rebuilt picture; ``hand``: its number;
    ``grace``: seconds a tag missing from the first picture may take to be read (a tag can miss
    a read, docs/protocol.md §6: the fusion's settle time)."""

    hand: int
    before: dict[str, tuple[str, Card | None]]
    grace: float
    missing_since: float | None = None
    changes: list[DownChange] = field(default_factory=list)
    missing: dict[str, tuple[str, Card | None]] = field(default_factory=dict)

    @classmethod
    def of(cls, monitor: DealingMonitor) -> Reconcile:
        before = {tc.rfid_key: (tc.zone, tc.card) for tc in monitor.fusion.picture
                  if tc.rfid_key is not None and not tc.pending}
        return cls(hand=monitor.hand_number, before=before,
                   grace=monitor.config.settle_time)

    def check(self, sensors: Sequence[Any], monitor: DealingMonitor, now: float) -> Found:
        """Compare once the RFID sensors have their full picture: moves and arrivals at once;
        a tag the picture lacks is given its removal then, and named as vanished if it is still
        not read ``grace`` seconds later."""
        readers = [s for s in sensors if isinstance(s, RfidPicture)]
        if not readers:
            return Found(done=True)
        pictures = [p for r in readers if (p := r.rfid_picture()) is not None]
        if len(pictures) < len(readers):
            return Found()
        present: dict[str, str] = {}
        for picture in pictures:
            for zone, keys in picture.items():
                for key in keys:
                    present[key] = zone
        if self.missing_since is None:
            return self._first(present, monitor, now)
        if now - self.missing_since < self.grace:
            return Found()
        gone = [DownChange(card=card, was=zone, now=None)
                for key, (zone, card) in self.missing.items() if key not in present]
        changes = self.changes + gone
        alert = cards_moved_while_down(self.hand, now, changes) if changes else None
        return Found(alert=alert, done=True)

    def _first(self, present: dict[str, str], monitor: DealingMonitor, now: float) -> Found:
        fusion = monitor.fusion.picture
        removals: list[Observation] = []
        for key, (zone, card) in sorted(self.before.items(), key=lambda kv: kv[1][0]):
            now_zone = present.get(key)
            if now_zone is None:
                tracked = fusion.by_rfid.get(key)
                if tracked is not None:
                    removals.append(CardObservation(
                        event=CardEvent.REMOVED, zone=tracked.zone, t=now, source=Source.RFID,
                        key=key, card=tracked.card, face=Face.UNKNOWN))
                self.missing[key] = (zone, card)
            elif now_zone != zone:
                self.changes.append(DownChange(card=card, was=zone, now=now_zone))
        for key, zone in sorted(present.items(), key=lambda kv: kv[1]):
            if key not in self.before:
                tracked = fusion.by_rfid.get(key)
                self.changes.append(DownChange(card=None if tracked is None else tracked.card,
                                               was=None, now=zone))
        self.missing_since = now
        if not self.missing:
            alert = cards_moved_while_down(self.hand, now, self.changes) if self.changes \
                else None
            return Found(removals=removals, alert=alert, done=True)
        return Found(removals=removals)


class ShiftedSensor:
    """A sensor run ``offset`` seconds ahead: polled with the devices' time, its
    observations carry the controller's (:meth:`Controller.shift_clock`)."""

    def __init__(self, sensor: Any, offset: float) -> None:
        self.sensor = sensor
        self.offset = offset
        self.name: str = sensor.name

    def poll(self, now: float) -> list[Observation]:
        return [replace(o, t=o.t + self.offset) for o in self.sensor.poll(now - self.offset)]

    def reported_through(self) -> float | None:
        through = said_through(self.sensor)
        return None if through is None else through + self.offset

    def close(self) -> None:
        self.sensor.close()

    def __getattr__(self, name: str) -> Any:
        """The rest is the sensor's (``rfid_picture`` included, when it has one)."""
        return getattr(self.sensor, name)
