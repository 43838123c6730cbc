"""Typed observations that the sensor packages deliver to the controller.

Both the RFID reader (firmware_bridge) and the camera tracker (vision) produce the same records,
so the dealing monitor does not care which sensor saw a card. Times are ``time.monotonic()``
seconds (a Pi has no clock battery); the daemon adds wall-clock time only when it publishes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from table_controller.vocabulary.cards import Card


class Source(StrEnum):
    RFID = "rfid"
    CAMERA = "camera"


class Face(StrEnum):
    UP = "up"
    DOWN = "down"
    UNKNOWN = "unknown"


class CardEvent(StrEnum):
    PLACED = "placed"
    REMOVED = "removed"
    FLIPPED = "flipped"


@dataclass(frozen=True, slots=True)
class CardObservation:
    """A card placed in, removed from, or turned over in a zone.

    ``key`` names the physical card for the sensor that saw it: the tag UID (hex) for RFID, a
    track id for the camera. ``card`` is None when the identity is not known (an unknown tag, a
    face-down card seen only by the camera). ``deck`` is the enrolled deck the tag belongs to
    (None: no deck); ``foreign`` is true when that is not the active deck or no deck at all.
    """

    event: CardEvent
    zone: str
    t: float
    source: Source
    key: str
    card: Card | None = None
    face: Face = Face.UNKNOWN
    deck: str | None = None
    foreign: bool = False
    joker: bool = False


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """The shuffler's green button, after debouncing: a new hand starts (rules.md §2, TDA 23)."""

    t: float


@dataclass(frozen=True, slots=True)
class SensorStatus:
    """A reader, camera or link stopped or started answering."""

    source: Source
    online: bool
    t: float
    detail: str = ""


Observation = CardObservation | ButtonPressed | SensorStatus
