"""The hand log: small frozen records appended in order, never changed (for PHH and journal).

Each record carries only what happened; the hand's state is derived from the actions, never
from the log, so the log is a faithful transcript that a hand history exporter can replay.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from table_controller.engine.actions import Action, ActionKind, Street
from table_controller.vocabulary.cards import Card


class PostKind(enum.Enum):
    """Forced chips put in before the deal (rules.md §2)."""

    ANTE = "ante"  # to the pot, not part of any bet [001]
    SMALL_BLIND = "small_blind"  # live [001]
    BIG_BLIND = "big_blind"  # live [001]
    STRADDLE = "straddle"  # 2 x BB, left of the BB, acts as a raise [000]
    MISSED_SMALL_BLIND = "missed_small_blind"  # dead: to the pot, not part of the bet [000, 003]
    MISSED_BIG_BLIND = "missed_big_blind"  # live: counts toward the preflop bet [000, 003]


@dataclass(frozen=True, slots=True)
class Posted:
    seat: int
    kind: PostKind
    amount: int
    live: bool  # counts toward the poster's preflop bet
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class HoleCardsDealt:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BoardDealt:
    street: Street
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ActionTaken:
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


@dataclass(frozen=True, slots=True)
class OutOfTurnHeld:
    """An action out of turn, held until the turn reaches the seat [002 #35]."""

    street: Street
    action: Action


@dataclass(frozen=True, slots=True)
class OutOfTurnReleased:
    """The action to the seat changed: the held action is void, its chips go back [002 #35]."""

    street: Street
    action: Action


@dataclass(frozen=True, slots=True)
class TimeExpired:
    """Time called and run out: the hand is dead [002 #24]."""

    street: Street
    seat: int


@dataclass(frozen=True, slots=True)
class BetReturned:
    """An uncalled bet (or the uncalled part of it) given back [002 #48]."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class RakeTaken:
    amount: int


@dataclass(frozen=True, slots=True)
class CardsShown:
    seat: int
    cards: tuple[Card, ...]
    description: str


@dataclass(frozen=True, slots=True)
class CardsMucked:
    seat: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """Pot ``index`` (0 = main pot) of ``amount`` chips paid as ``shares`` (seat, chips)."""

    index: int
    amount: int
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandVoided:
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
