"""The default table layout seen by the overhead camera, and zone geometry.

A layout names each zone (``seat1``..``seat10``, ``board``, ``burn``, ``muck``; the shared
vocabulary of :mod:`table_controller.vocabulary.zones`) with a polygon in image pixels, and gives
the nominal card size in pixels and, for the simulator, the slot positions where cards lie in each
zone. The default is for a 1280x720 frame with the dealer at the bottom centre and seat 1 at the
dealer's left, seats numbered clockwise as the table is seen from above (rules.md §2: play goes
clockwise, to the left).

Pure geometry: no OpenCV, no I/O. Installers replace the polygons with their own through the
``[vision.zones]`` section of the table's configuration (see :mod:`vision.calibration`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from table_controller.vocabulary.zones import BOARD, BURN, MUCK, check_zone, seat_zone

Point = tuple[float, float]

CARD_ASPECT = 63.0 / 88.0
"""Width over height of a poker-size card (63 x 88 mm)."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Where a card lies in a zone: centre in pixels, rotation in degrees (counter-clockwise)."""

    x: float
    y: float
    angle: float = 0.0


@dataclass(frozen=True, slots=True)
class TableLayout:
    """Zones as polygons in image pixels, the nominal card height, and the simulator's slots."""

    width: int
    height: int
    card_height: float
    zones: Mapping[str, tuple[Point, ...]]
    slots: Mapping[str, tuple[Slot, ...]] = field(default_factory=dict)

    @property
    def card_width(self) -> float:
        return self.card_height * CARD_ASPECT

    def zone_at(self, x: float, y: float) -> str | None:
        """The zone whose polygon holds the point, or None (a card off every zone)."""
        return zone_finder(self.zones)(x, y)

    def slot(self, zone: str, index: int) -> Slot:
        """Slot ``index`` of ``zone``; raises ValueError naming the zone if it has no such slot."""
        slots = self.slots.get(zone, ())
        if not 0 <= index < len(slots):
            raise ValueError(f"zone {zone!r} has {len(slots)} slot(s); no slot {index}")
        return slots[index]

    def with_zones(self, zones: Mapping[str, Sequence[Sequence[float]]]) -> TableLayout:
        """A copy whose zone polygons are replaced by ``zones`` (validated)."""
        return TableLayout(
            width=self.width,
            height=self.height,
            card_height=self.card_height,
            zones=parse_zones(zones),
            slots=self.slots,
        )


def zone_finder(zones: Mapping[str, Sequence[Point]]) -> Callable[[float, float], str | None]:
    """:meth:`TableLayout.zone_at` for many points: each zone's extent across is worked out
    once. The zone whose polygon holds the point (the first, in the zones' order), or None."""
    extents = [(name, min(p[0] for p in polygon), max(p[0] for p in polygon), polygon)
               for name, polygon in zones.items()]

    def zone_at(x: float, y: float) -> str | None:
        for name, low, high, polygon in extents:
            if low <= x <= high and point_in_polygon((x, y), polygon):
                return name
        return None

    return zone_at


def point_in_polygon(point: Point, polygon: Sequence[Point]) -> bool:
    """Even-odd rule; a point on an edge may fall either way."""
    x, y = point
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            x_cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < x_cross:
                inside = not inside
    return inside


def parse_zones(zones: Mapping[str, Sequence[Sequence[float]]]) -> dict[str, tuple[Point, ...]]:
    """Validate zone polygons from a configuration; raises ValueError naming the bad zone."""
    out: dict[str, tuple[Point, ...]] = {}
    for name, polygon in zones.items():
        check_zone(name)
        points: list[Point] = []
        try:
            for p in polygon:
                if len(p) != 2:
                    raise ValueError
                points.append((float(p[0]), float(p[1])))
        except (TypeError, ValueError):
            raise ValueError(
                f"zone {name!r}: polygon must be a list of [x, y] pairs, got {polygon!r}"
            ) from None
        if len(points) < 3:
            raise ValueError(f"zone {name!r}: a polygon needs at least 3 points, got {len(points)}")
        out[name] = tuple(points)
    return out


def _box(cx: float, cy: float, w: float, h: float) -> tuple[Point, ...]:
    return ((cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2),
            (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2))


def _row(cx: float, cy: float, n: int, pitch: float) -> tuple[Slot, ...]:
    return tuple(Slot(cx + (i - (n - 1) / 2) * pitch, cy) for i in range(n))


def default_layout(*, width: int = 1280, height: int = 720, seats: int = 10) -> TableLayout:
    """The layout the simulator renders and a fresh installation starts from.

    Cards are 100 px tall at 1280x720 (scaled with the frame). Seats sit on an ellipse around the
    board; each seat zone holds two hole-card slots, the board five, burn two, muck two.
    """
    if not 2 <= seats <= 10:
        raise ValueError(f"seats must be 2..10, got {seats}")
    s = width / 1280.0
    card_h = 100.0 * s
    card_w = card_h * CARD_ASPECT
    pitch = card_w + 10 * s
    cx, cy = width / 2, height / 2 - 36 * s
    zones: dict[str, tuple[Point, ...]] = {}
    slots: dict[str, tuple[Slot, ...]] = {}
    # Board: five cards in a row (flop, turn, river), rules.md §2.
    zones[BOARD] = _box(cx, cy, 5 * pitch + 40 * s, card_h + 44 * s)
    slots[BOARD] = _row(cx, cy, 5, pitch)
    # Burn at the dealer's left of the board, muck at the dealer's right, both near the dealer.
    by = cy + card_h + 40 * s
    zones[BURN] = _box(cx - 1.5 * pitch, by, 2 * pitch + 24 * s, card_h + 24 * s)
    slots[BURN] = _row(cx - 1.5 * pitch, by, 2, pitch)
    zones[MUCK] = _box(cx + 1.5 * pitch, by, 2 * pitch + 24 * s, card_h + 24 * s)
    slots[MUCK] = _row(cx + 1.5 * pitch, by, 2, pitch)
    # Seats: on an ellipse, clockwise from the dealer's left (seen from above, dealer at bottom).
    rx, ry = 530.0 * s, 285.0 * s
    ecy = height / 2
    seat_w, seat_h = 2 * pitch + 24 * s, card_h + 24 * s
    for n in range(1, seats + 1):
        # Angle measured from the dealer (bottom centre, 90 degrees in image coordinates),
        # leaving a gap of one position for the dealer; clockwise on screen = increasing angle.
        theta = math.radians(90 + 360 * n / (seats + 1))
        sx, sy = width / 2 + rx * math.cos(theta), ecy + ry * math.sin(theta)
        zone = seat_zone(n)
        zones[zone] = _box(sx, sy, seat_w, seat_h)
        slots[zone] = _row(sx, sy, 2, pitch)
    return TableLayout(width=width, height=height, card_height=card_h, zones=zones, slots=slots)
