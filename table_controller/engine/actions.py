"""Player actions and the answer to "what may this player do now" (rules.md §3)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Street(enum.Enum):
    """Where a hand stands. SHOWDOWN: betting is over, pots await :meth:`Hand.showdown`."""

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


class ActionKind(enum.Enum):
    """What a player does in turn (rules.md §3)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    ALL_IN = "all_in"


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    """One decision of the player in ``seat``.

    ``amount`` is the player's total bet in this betting round after the action ("raise to"),
    for BET and RAISE; None for FOLD, CHECK, CALL and ALL_IN (a CALL may also give its total).
    BET and RAISE are accepted for each other: "bet or raise to ``amount``".
    """

    seat: int
    kind: ActionKind
    amount: int | None = None

    def __str__(self) -> str:
        if self.amount is None:
            return f"seat {self.seat} {self.kind.value}"
        return f"seat {self.seat} {self.kind.value} to {self.amount}"


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalActions:
    """What ``seat`` may do now; amounts are totals for the round ("to").

    ``call_amount`` is the chips the player must add to call (capped by his stack); None when
    there is nothing to call. ``min_bet_to``/``max_bet_to`` are set when the player may open
    the betting, ``min_raise_to``/``max_raise_to`` when he may raise. ``all_in_to`` is the total
    the player reaches by pushing his whole stack when that is legal (None otherwise): below the
    minimum it is the only allowed bet or raise of that size. ``reason_no_raise`` says which rule
    forbids a raise when one is not allowed (e.g. a short all-in did not reopen the betting).
    """

    seat: int
    can_fold: bool
    can_check: bool
    call_amount: int | None
    min_bet_to: int | None = None
    max_bet_to: int | None = None
    min_raise_to: int | None = None
    max_raise_to: int | None = None
    all_in_to: int | None = None
    stack: int = 0
    bet: int = 0
    reason_no_raise: str | None = None

    @property
    def can_call(self) -> bool:
        return self.call_amount is not None

    @property
    def can_bet(self) -> bool:
        return self.min_bet_to is not None

    @property
    def can_raise(self) -> bool:
        return self.min_raise_to is not None

    @property
    def kinds(self) -> frozenset[ActionKind]:
        """The action kinds that are legal (with some amount) for this player now."""
        kinds: set[ActionKind] = set()
        if self.can_fold:
            kinds.add(ActionKind.FOLD)
        if self.can_check:
            kinds.add(ActionKind.CHECK)
        if self.can_call:
            kinds.add(ActionKind.CALL)
        if self.can_bet:
            kinds.add(ActionKind.BET)
        if self.can_raise:
            kinds.add(ActionKind.RAISE)
        if self.all_in_to is not None:
            kinds.add(ActionKind.ALL_IN)
        return frozenset(kinds)
