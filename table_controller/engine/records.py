"""The hand log: small immutable records appended in order, never changed (for PHH and journal).

Each record carries only what happened; the hand's state is derived from the actions, never
from the log, so the log is a faithful transcript that a hand history exporter can replay.

Records are named tuples (immutable, with named fields, matched by ``isinstance`` and class
patterns): a hand writes twenty or more of them, and a named tuple is built three times faster
than a frozen dataclass (docs/engine.md, Speed). A record equals only a record of its own type
with the same fields (``OutOfTurnHeld(s, a) != OutOfTurnReleased(s, a)``), as a dataclass would.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from table_controller.engine.actions import Action, ActionKind, Street
from table_controller.engine.slots import slot_setters
from table_controller.vocabulary.cards import Card


def _same(self: tuple[object, ...], other: object) -> bool:
    """Equality of records: same type and same fields (a plain tuple compares its items only)."""
    return type(self) is type(other) and tuple.__eq__(self, other)


def _differ(self: tuple[object, ...], other: object) -> bool:
    return not _same(self, other)


class PostKind(enum.Enum):
    """Forced chips put in before the deal (rules.md §2)."""

    ANTE = "ante"  # to the pot, not part of any bet [001]
    SMALL_BLIND = "small_blind"  # live [001]
    BIG_BLIND = "big_blind"  # live [001]
    STRADDLE = "straddle"  # 2 x BB, left of the BB, acts as a raise [000]
    MISSED_SMALL_BLIND = "missed_small_blind"  # dead: to the pot, not part of the bet [000, 003]
    MISSED_BIG_BLIND = "missed_big_blind"  # live: counts toward the preflop bet [000, 003]


class Posted(NamedTuple):
    seat: int
    kind: PostKind
    amount: int
    live: bool  # counts toward the poster's preflop bet
    all_in: bool = False


class HoleCardsDealt(NamedTuple):
    seat: int
    cards: tuple[Card, ...]


class BoardDealt(NamedTuple):
    street: Street
    cards: tuple[Card, ...]


class ActionTaken(NamedTuple):
    """An action applied to the state. ``kind`` is FOLD/CHECK/CALL/BET/RAISE (an ALL_IN is
    resolved into the call, bet or raise it amounts to, with ``all_in`` set). ``to`` is the
    player's total bet in the round afterwards, ``added`` the chips he put in now.
    ``full_raise`` tells whether a bet/raise reopened the betting (rules.md §3)."""

    street: Street
    seat: int
    kind: ActionKind
    to: int
    added: int
    all_in: bool
    full_raise: bool
    out_of_turn: bool = False


class OutOfTurnHeld(NamedTuple):
    """An action out of turn, held until the turn reaches the seat [002 #35]."""

    street: Street
    action: Action


class OutOfTurnReleased(NamedTuple):
    """The action to the seat changed: the held action is void, its chips go back [002 #35]."""

    street: Street
    action: Action


class TimeExpired(NamedTuple):
    """Time called and run out: the hand is dead [002 #24]."""

    street: Street
    seat: int


class BetReturned(NamedTuple):
    """An uncalled bet (or the uncalled part of it) given back [002 #48]."""

    seat: int
    amount: int


class RakeTaken(NamedTuple):
    amount: int


class CardsShown(NamedTuple):
    seat: int
    cards: tuple[Card, ...]
    description: str


class CardsMucked(NamedTuple):
    seat: int


@dataclass(frozen=True, slots=True)
class PotAwarded:  # a dataclass: a named tuple has a method ``index`` already
    """Pot ``index`` (0 = main pot) of ``amount`` chips paid as ``shares`` (seat, chips)."""

    index: int
    amount: int
    shares: tuple[tuple[int, int], ...]


class HandVoided(NamedTuple):
    """Misdeal or fouled deck: every chip returned (rules.md §5, TDA 2024 35-E)."""

    reason: str
    refunds: tuple[tuple[int, int], ...]


LogRecord = (
    Posted
    | HoleCardsDealt
    | BoardDealt
    | ActionTaken
    | OutOfTurnHeld
    | OutOfTurnReleased
    | TimeExpired
    | BetReturned
    | RakeTaken
    | CardsShown
    | CardsMucked
    | PotAwarded
    | HandVoided
)

for _record in (Posted, HoleCardsDealt, BoardDealt, ActionTaken, OutOfTurnHeld, OutOfTurnReleased,
                TimeExpired, BetReturned, RakeTaken, CardsShown, CardsMucked, HandVoided):
    # typed equality (see the module docstring); the hash stays the tuple's
    _record.__eq__ = _same  # type: ignore[method-assign]
    _record.__ne__ = _differ  # type: ignore[method-assign,assignment]
    _record.__hash__ = tuple.__hash__  # type: ignore[method-assign]


# The hand logs a PotAwarded at the end of every hand: built through its slots (.slots).
_SET_INDEX, _SET_AMOUNT, _SET_SHARES = slot_setters(PotAwarded, "index", "amount", "shares")


def pot_awarded(index: int, amount: int, shares: tuple[tuple[int, int], ...]) -> PotAwarded:
    """``PotAwarded(index, amount, shares)``, built through its slots."""
    record = object.__new__(PotAwarded)
    _SET_INDEX(record, index)
    _SET_AMOUNT(record, amount)
    _SET_SHARES(record, shares)
    return record
