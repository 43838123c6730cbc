"""The expected deal order and the dealing state machine (rules.md §2 and §5).

Hole cards go one at a time clockwise from the first seat to be dealt (the small blind; heads-up
the big blind), two rounds, the button last [000] [002 #30] (TDA 2024 34-B). The engine's
``hand.deal_order`` lists the seats dealt in, in that order: a newcomer who must wait for the
button (rules.md §2, [000] [003]) is not in it, so a card to his seat is a card to a seat not
entitled to one.

The button may receive two cards in a row without a misdeal [002 #31] (TDA 2024 35): the dealer
who skipped the button in the first round may go on with the second round and give the button
both cards at the end. Everything else out of sequence is a misdeal (MISDEAL_OUT_OF_ORDER), the
first card to any other seat than the first one is MISDEAL_WRONG_FIRST_SEAT, and a card to an
empty or waiting seat MISDEAL_EMPTY_SEAT [002 #31] [000] [003].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

CARDS_EACH = 2


class Placement(StrEnum):
    """How a hole card placed during the deal fits the procedure."""

    OK = "ok"
    WRONG_FIRST_SEAT = "MISDEAL_WRONG_FIRST_SEAT"
    EMPTY_SEAT = "MISDEAL_EMPTY_SEAT"
    OUT_OF_ORDER = "MISDEAL_OUT_OF_ORDER"
    EXTRA = "extra"  # the deal was complete: one card too many


@dataclass(slots=True)
class DealTracker:
    """Where the deal of hole cards stands. ``order``: seats in dealing order, button last."""

    order: tuple[int, ...]
    button: int | None
    counts: dict[int, int] = field(default_factory=dict)
    dealt: list[tuple[int, int]] = field(default_factory=list)  # (seat, card pid) in deal order
    extras: int = 0

    def __post_init__(self) -> None:
        self.counts = {s: 0 for s in self.order}

    @property
    def started(self) -> bool:
        return bool(self.dealt)

    @property
    def complete(self) -> bool:
        return all(n >= CARDS_EACH for n in self.counts.values())

    def _button_deferred(self) -> bool:
        """The button was skipped in the first round: it gets its two cards last [002 #31]."""
        b = self.button
        if b is None or b not in self.counts or len(self.order) < 2 or self.counts[b] != 0:
            return False
        return any(self.counts[s] == CARDS_EACH for s in self.order if s != b)

    def expected(self) -> tuple[int, ...]:
        """The seats the next card may go to (empty when the deal is complete)."""
        if self.complete:
            return ()
        b = self.button
        if self._button_deferred():
            rest = [s for s in self.order if s != b and self.counts[s] < CARDS_EACH]
            return (rest[0],) if rest else (b,) if b is not None else ()
        low = min(self.counts.values())
        nxt = next(s for s in self.order if self.counts[s] == low)
        allowed = [nxt]
        # The button's first card may be skipped and given with his second [002 #31].
        if (nxt == b and low == 0 and len(self.order) >= 2
                and all(self.counts[s] == 1 for s in self.order if s != b)):
            allowed.append(self.order[0])
        return tuple(allowed)

    def judge(self, seat: int) -> Placement:
        """How a card arriving at ``seat`` now fits the procedure (does not record it)."""
        if seat not in self.counts:
            return Placement.EMPTY_SEAT
        if self.complete:
            return Placement.EXTRA
        if not self.dealt and seat != self.order[0]:
            return Placement.WRONG_FIRST_SEAT
        if seat not in self.expected():
            return Placement.OUT_OF_ORDER
        return Placement.OK

    def record(self, seat: int, pid: int) -> int:
        """Record a dealt card; returns its position in the deal (0 = the first card)."""
        self.dealt.append((seat, pid))
        if seat in self.counts:
            self.counts[seat] += 1
        return len(self.dealt) - 1

    def position(self, pid: int) -> int | None:
        for i, (_seat, p) in enumerate(self.dealt):
            if p == pid:
                return i
        return None

    def forget(self, pid: int) -> None:
        """A dealt card was taken back (replaced by a remedy): its seat is owed one card."""
        for i, (seat, p) in enumerate(self.dealt):
            if p == pid:
                self.dealt[i] = (seat, -1)
                if seat in self.counts and self.counts[seat] > 0:
                    self.counts[seat] -= 1
                return


def is_substantial(voluntary: list[bool]) -> bool:
    """Substantial action [002 #32] (TDA 2024 36): two actions in turn of which at least one puts
    chips in the pot, or any three actions in turn. ``voluntary`` lists, for each action in turn
    since the deal, whether it put chips in."""
    return len(voluntary) >= 3 or (len(voluntary) >= 2 and any(voluntary))
