"""The hand history record: what one PHH file says, as typed values.

PHH is the open Poker Hand History format (TOML text, ``.phh``) defined by the ``phh-std``
specification and read by pokerkit. This module holds only the data: :mod:`.codec` turns text into
these records and back, :mod:`.export` builds one from a hand our engine played, :mod:`.replay`
plays one through our engine.

Players are numbered as in PHH: ``p1`` is the first player to the left of the button (the small
blind) and the last player is the button; heads-up, ``p1`` is the big blind and ``p2`` the button,
which is why PHH writes heads-up blinds and antes in reverse ("reverse-assigned", phh-std
"Required fields"). Player numbers in the action records below are 1-based like the text.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, NamedTuple

from table_controller.vocabulary.cards import Card

# Variant codes of the Texas hold'em games our engine plays (phh-std "Required fields"). PHH has
# no official pot-limit Texas hold'em code; "PT" follows the pattern of its other codes ("PO" is
# pot-limit Omaha) and is what this product writes for pot-limit hands.
VARIANTS: Mapping[str, str] = {
    "NT": "no-limit Texas hold'em",
    "PT": "pot-limit Texas hold'em",
    "FT": "fixed-limit Texas hold'em",
}

# Card in a PHH action: None is an unknown card, written "??".
MaybeCard = Card | None


class PhhError(ValueError):
    """A PHH text that cannot be read, or a hand that cannot be replayed.

    The message names what was wrong: the field (``field 'antes': ...``) or the action
    (``action 7 'p3 cc': ...``); readers that know the file name prefix it.
    """


class DealHole(NamedTuple):
    """``d dh pN cards``: hole cards dealt to player ``player`` (some may be unknown)."""

    player: int
    cards: tuple[MaybeCard, ...]
    commentary: str | None = None


class DealBoard(NamedTuple):
    """``d db cards``: community cards (3 for the flop, then 1 and 1)."""

    cards: tuple[Card, ...]
    commentary: str | None = None


class Fold(NamedTuple):
    """``pN f``."""

    player: int
    commentary: str | None = None


class CheckOrCall(NamedTuple):
    """``pN cc``: check when nothing is to be called, else call (all-in for less included)."""

    player: int
    commentary: str | None = None


class BetOrRaiseTo(NamedTuple):
    """``pN cbr amount``: bet, or raise, to ``amount`` chips in this betting round."""

    player: int
    amount: int
    commentary: str | None = None


class ShowOrMuck(NamedTuple):
    """``pN sm [cards]``: show (``shown``) or muck the hole cards at showdown.

    ``cards`` is empty for a muck, and for ``pN sm -`` (show the cards already dealt, phh-std
    "Card notation"); otherwise the cards shown, some possibly unknown.
    """

    player: int
    shown: bool
    cards: tuple[MaybeCard, ...] = ()
    commentary: str | None = None


class NoOp(NamedTuple):
    """An empty action or a standalone ``# commentary``."""

    commentary: str | None = None


PhhAction = DealHole | DealBoard | Fold | CheckOrCall | BetOrRaiseTo | ShowOrMuck | NoOp


def _same(self: tuple[object, ...], other: object) -> bool:
    """Equality of actions: same kind and same fields (``Fold(1) != CheckOrCall(1)``, which
    plain tuples of the same items would be)."""
    return type(self) is type(other) and tuple.__eq__(self, other)


def _differ(self: tuple[object, ...], other: object) -> bool:
    return not _same(self, other)


for _action in (DealHole, DealBoard, Fold, CheckOrCall, BetOrRaiseTo, ShowOrMuck, NoOp):
    # Actions are named tuples (immutable, named fields, class patterns), built about three
    # times faster than frozen dataclasses: a file holds a dozen or more and most hole-card
    # texts are new in every file. Typed equality as above; the hash stays the tuple's.
    _action.__eq__ = _same  # type: ignore[method-assign]
    _action.__ne__ = _differ  # type: ignore[method-assign,assignment]
    _action.__hash__ = tuple.__hash__  # type: ignore[method-assign]


@dataclass(frozen=True, kw_only=True)  # no slots: see checked_history below
class HandHistory:
    """One hand of Texas hold'em in the PHH model.

    Required fields (phh-std): ``variant``, ``antes``, ``blinds_or_straddles``, ``starting_stacks``,
    ``actions``, plus ``min_bet`` (NT, PT) or ``small_bet`` and ``big_bet`` (FT). Per-player lists
    are in player order (p1 first). The optional fields carry the table's context; any field whose
    name starts with ``_`` is a user-defined field (phh-std) and is kept in ``user_fields``.
    ``unread``: descriptive optional fields whose value does not fit their phh-std type (such as
    ``finishing_stacks`` with half a chip), kept as written; the replay does not use them.
    """

    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    starting_stacks: tuple[int, ...]
    actions: tuple[PhhAction, ...]
    min_bet: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    ante_trimming_status: bool = False
    author: str | None = None
    event: str | None = None
    url: str | None = None
    venue: str | None = None
    address: str | None = None
    city: str | None = None
    region: str | None = None
    postal_code: str | None = None
    country: str | None = None
    time: datetime.time | None = None
    time_zone: str | None = None
    time_zone_abbreviation: str | None = None
    day: int | None = None
    month: int | None = None
    year: int | None = None
    hand: int | str | None = None
    level: int | None = None
    seats: tuple[int, ...] | None = None
    seat_count: int | None = None
    table: int | str | None = None
    players: tuple[str, ...] | None = None
    finishing_stacks: tuple[int, ...] | None = None
    winnings: tuple[int, ...] | None = None
    currency: str | None = None
    currency_symbol: str | None = None
    time_limit: int | None = None
    time_banks: tuple[int, ...] | None = None
    user_fields: Mapping[str, Any] = field(default_factory=dict)
    unread: Mapping[str, Any] = field(default_factory=dict)

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)

    def player_name(self, player: int) -> str:
        """The name of player ``player`` (1-based), or ``pN`` when the file names nobody."""
        if self.players is not None and 1 <= player <= len(self.players) and self.players[
            player - 1
        ]:
            return self.players[player - 1]
        return f"p{player}"


# The reader builds a history without the generated ``__init__``, whose forty frozen
# assignments were a tenth of reading a file: the fields read go into the instance dictionary
# at once (hence no ``__slots__``); the others are not stored, the dataclass keeps each default
# as a class attribute, which attribute access falls back to (the two fields made by a default
# factory, ``user_fields`` and ``unread``, are always given). Every value has been checked by
# the reader; ``HandHistory`` has no ``__post_init__`` to skip.
assert not hasattr(HandHistory, "__post_init__")
assert all(getattr(HandHistory, f.name) is f.default for f in fields(HandHistory)
           if f.default is not MISSING)


def checked_history(values: Mapping[str, Any]) -> HandHistory:
    """The :class:`HandHistory` of checked ``values`` (field name -> value, ``user_fields`` and
    ``unread`` included), equal to what ``HandHistory(**values)`` builds, and many times
    cheaper; for the reader (:mod:`.codec`), which checks every field first."""
    history = object.__new__(HandHistory)
    history.__dict__.update(values)
    return history
