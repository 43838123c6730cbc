"""Zone names shared by every package (ARCHITECTURE.md: one vocabulary).

``seat1`` .. ``seat10``, ``board``, ``burn``, ``muck``, and ``shuffler`` (the shuffler's output
tray, where the stub lies, when an antenna or the camera covers it).
"""

from __future__ import annotations

MAX_SEATS = 10
BOARD = "board"
BURN = "burn"
MUCK = "muck"
SHUFFLER = "shuffler"
SEAT_ZONES: tuple[str, ...] = tuple(f"seat{n}" for n in range(1, MAX_SEATS + 1))
COMMON_ZONES: tuple[str, ...] = (BOARD, BURN, MUCK, SHUFFLER)
ALL_ZONES: tuple[str, ...] = SEAT_ZONES + COMMON_ZONES


class ZoneError(ValueError):
    """A zone name outside the vocabulary."""


def check_zone(name: str) -> str:
    """Return ``name`` if it is a zone, else raise :class:`ZoneError` naming it."""
    if name not in ALL_ZONES:
        raise ZoneError(
            f"unknown zone {name!r}: expected seat1..seat10, board, burn, muck or shuffler"
        )
    return name


def seat_zone(seat: int) -> str:
    """``seat3`` for 3."""
    if not 1 <= seat <= MAX_SEATS:
        raise ZoneError(f"seat {seat} out of range 1..{MAX_SEATS}")
    return f"seat{seat}"


def seat_of(zone: str) -> int | None:
    """3 for ``seat3``; None for a zone that is not a seat."""
    if zone.startswith("seat") and zone[4:].isdigit():
        n = int(zone[4:])
        if 1 <= n <= MAX_SEATS:
            return n
    return None
