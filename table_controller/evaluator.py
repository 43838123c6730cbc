"""Poker hand evaluation: best five of 5, 6 or 7 cards (rules.md §1).

``evaluate(cards)`` returns a :class:`HandValue`; its ``score`` is an integer, higher is better,
equal exactly when the hands tie (suits never break ties, rules.md §1). The score layout and
the rules themselves are in :mod:`table_controller.evaluator_rules`.
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.cards import RANK_NAMES, RANK_PLURALS, SUITS, Card
from table_controller.evaluator_rules import (
    HandCategory,
    five_rank_pattern,
    rank_only_score,
    score_category,
    score_ranks,
    suited_score,
)

__all__ = ["HandCategory", "HandValue", "describe_score", "evaluate"]


class HandValue:
    """The value of a poker hand: compares by :attr:`score` only (rules.md §1)."""

    __slots__ = ("_cards", "score")

    def __init__(self, score: int, cards: Sequence[Card]) -> None:
        self.score = score
        self._cards = tuple(cards)

    @property
    def category(self) -> HandCategory:
        return score_category(self.score)

    @property
    def description(self) -> str:
        """Human wording such as ``"Full House, Kings over Sevens"``."""
        return describe_score(self.score)

    @property
    def best_five(self) -> tuple[Card, ...]:
        """The five cards making the hand (deterministic when several choices tie)."""
        return _best_five(self.score, self._cards)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score == other.score

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score != other.score

    def __lt__(self, other: HandValue) -> bool:
        return self.score < other.score

    def __le__(self, other: HandValue) -> bool:
        return self.score <= other.score

    def __gt__(self, other: HandValue) -> bool:
        return self.score > other.score

    def __ge__(self, other: HandValue) -> bool:
        return self.score >= other.score

    def __hash__(self) -> int:
        return hash(self.score)

    def __repr__(self) -> str:
        return f"HandValue({self.description!r}, score={self.score:#x})"


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Value of the best five of ``cards`` (5, 6 or 7 distinct cards), rules.md §1."""
    _check(cards)
    score = rank_only_score([c.rank for c in cards])
    for suit in SUITS:
        suited = [c.rank for c in cards if c.suit == suit]
        if len(suited) >= 5:
            score = max(score, suited_score(suited))
    return HandValue(score, cards)


def _check(cards: Sequence[Card]) -> None:
    if not 5 <= len(cards) <= 7:
        raise ValueError(f"need 5, 6 or 7 cards, got {len(cards)}")
    if len(set(cards)) != len(cards):
        dupes = sorted({str(c) for c in cards if cards.count(c) > 1})
        raise ValueError(f"duplicate card(s): {' '.join(dupes)}")


def describe_score(score: int) -> str:
    """Human wording of a score: ``"Two Pair, Kings and Sevens"``, ``"Royal Flush"``..."""
    category = score_category(score)
    r = score_ranks(score)
    name = RANK_NAMES
    if category == HandCategory.STRAIGHT_FLUSH:
        return "Royal Flush" if r[0] == 14 else f"Straight Flush, {name[r[0]]} high"
    if category == HandCategory.FOUR_OF_A_KIND:
        return f"Four of a Kind, {RANK_PLURALS[r[0]]}"
    if category == HandCategory.FULL_HOUSE:
        return f"Full House, {RANK_PLURALS[r[0]]} over {RANK_PLURALS[r[1]]}"
    if category == HandCategory.FLUSH:
        return f"Flush, {name[r[0]]} high"
    if category == HandCategory.STRAIGHT:
        return f"Straight, {name[r[0]]} high"
    if category == HandCategory.THREE_OF_A_KIND:
        return f"Three of a Kind, {RANK_PLURALS[r[0]]}"
    if category == HandCategory.TWO_PAIR:
        return f"Two Pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[1]]}"
    if category == HandCategory.PAIR:
        return f"Pair of {RANK_PLURALS[r[0]]}"
    return f"High Card, {name[r[0]]}"


def _best_five(score: int, cards: Sequence[Card]) -> tuple[Card, ...]:
    """Pick the five cards of ``cards`` that make ``score`` (highest suit order first on ties)."""
    pool = sorted(cards, key=lambda c: (-c.rank, SUITS.index(c.suit)))
    if score_category(score) in (HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH):
        suit = next(s for s in SUITS if sum(c.suit == s for c in cards) >= 5)
        pool = [c for c in pool if c.suit == suit]
    chosen: list[Card] = []
    for rank in five_rank_pattern(score):
        card = next(c for c in pool if c.rank == rank and c not in chosen)
        chosen.append(card)
    return tuple(chosen)
