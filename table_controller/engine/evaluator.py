"""Poker hand evaluation: best five of 5, 6 or 7 cards (rules.md §1).

``evaluate(cards)`` returns a :class:`HandValue`; its ``score`` is an integer, higher is better,
equal exactly when the hands tie (suits never break ties, rules.md §1). The score layout and
the rules themselves are in :mod:`table_controller.engine.evaluator_rules`; the lookup tables built
from them at import (about a quarter of a second) are in
:mod:`table_controller.engine.evaluator_tables`.

Three ways in, all giving the same scores:

* ``evaluate(cards)``: :class:`~table_controller.vocabulary.cards.Card` objects in, a
  :class:`HandValue` out (category, description, best five). Checks its input.
* ``evaluate_codes(c1, ..., c7)`` / ``score_codes(codes)`` / ``evaluate_many(hands)``: integer
  card codes (:func:`encode`, :data:`CODES`) in, scores out. No checks: the caller guarantees
  distinct valid codes. For loops such as equity or showdown simulation.
* :func:`table_controller.engine.evaluator_batch.evaluate_batch`: a NumPy array of card indices in,
  an array of scores out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from table_controller.engine.evaluator_rules import (
    CATEGORY_SHIFT,
    HandCategory,
    five_rank_pattern,
    score_category,
)
from table_controller.engine.evaluator_tables import (
    CODES,
    FLUSH_SCORES,
    FLUSH_SUIT,
    RANK_KEY_BITS,
    RANK_KEY_MASK,
    RANK_SCORES,
    SUIT_RANK_BITS,
)
from table_controller.vocabulary.cards import RANK_NAMES, RANK_PLURALS, SUITS, Card

__all__ = [
    "CODES",
    "HandCategory",
    "HandValue",
    "describe_score",
    "encode",
    "evaluate",
    "evaluate_codes",
    "evaluate_many",
    "score_codes",
]

# suit letter -> rank (2..14) -> code, so encoding a Card needs no hashing of the Card itself.
_CODE_BY_SUIT: dict[str, list[int]] = {
    suit: [0, 0, *(CODES[(rank - 2) * 4 + s] for rank in range(2, 15))]
    for s, suit in enumerate(SUITS)
}


class HandValue:
    """The value of a poker hand: compares by :attr:`score` only (rules.md §1). Immutable.

    Made by :func:`evaluate`; ``category``, ``description`` and ``best_five`` are derived from the
    score (and the cards) on demand, so evaluating stays cheap.
    """

    __slots__ = ("_cards", "_score")

    def __init__(self, score: int, cards: Sequence[Card]) -> None:
        self._score = score
        self._cards = tuple(cards)

    @property
    def score(self) -> int:
        """Higher is better; equal exactly when the hands tie (layout: ``evaluator_rules``)."""
        return self._score

    @property
    def cards(self) -> tuple[Card, ...]:
        """The 5 to 7 cards that were evaluated, in the order given."""
        return self._cards

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
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score < other.score

    def __le__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score <= other.score

    def __gt__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score > other.score

    def __ge__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score >= other.score

    def __hash__(self) -> int:
        return hash(self.score)

    def __repr__(self) -> str:
        return f"HandValue({self.description!r}, score={self.score:#x})"


def encode(card: Card) -> int:
    """The integer code of ``card`` for :func:`evaluate_codes` (same as ``CODES[card.index]``)."""
    return _CODE_BY_SUIT[card.suit][card.rank]


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Value of the best five of ``cards`` (5, 6 or 7 distinct cards), rules.md §1.

    Raises ``ValueError`` naming the problem for a wrong count or a duplicated card.
    """
    n = len(cards)
    if not 5 <= n <= 7:
        raise ValueError(f"need 5, 6 or 7 cards, got {n}")
    by_suit = _CODE_BY_SUIT
    codes = [by_suit[c.suit][c.rank] for c in cards]
    if len(set(codes)) != n:
        dupes = sorted({str(c) for c in cards if cards.count(c) > 1})
        raise ValueError(f"duplicate card(s): {' '.join(dupes)}")
    total = sum(codes)
    suit = FLUSH_SUIT[total >> RANK_KEY_BITS]
    if suit < 0:
        return HandValue(RANK_SCORES[total & RANK_KEY_MASK], cards)
    return HandValue(_flush_score(suit, codes), cards)


def evaluate_codes(
    c1: int, c2: int, c3: int, c4: int, c5: int, c6: int, c7: int
) -> int:
    """Score of the best five of seven card codes (rules.md §1). Unchecked: codes must be
    distinct values from :data:`CODES`."""
    total = c1 + c2 + c3 + c4 + c5 + c6 + c7
    suit = FLUSH_SUIT[total >> RANK_KEY_BITS]
    if suit < 0:
        return RANK_SCORES[total & RANK_KEY_MASK]
    return _flush_score(suit, (c1, c2, c3, c4, c5, c6, c7))


def score_codes(codes: Sequence[int]) -> int:
    """Score of the best five of 5, 6 or 7 card codes (rules.md §1). Unchecked, like
    :func:`evaluate_codes`."""
    total = sum(codes)
    suit = FLUSH_SUIT[total >> RANK_KEY_BITS]
    if suit < 0:
        return RANK_SCORES[total & RANK_KEY_MASK]
    return _flush_score(suit, codes)


def evaluate_many(hands: Iterable[Sequence[int]]) -> list[int]:
    """Scores of many hands of 5, 6 or 7 card codes each, in order. Unchecked, like
    :func:`evaluate_codes`; the fastest pure-Python path."""
    ranks = RANK_SCORES
    flush_suit = FLUSH_SUIT
    shift = RANK_KEY_BITS
    mask = RANK_KEY_MASK
    out: list[int] = []
    append = out.append
    for hand in hands:
        total = sum(hand)
        suit = flush_suit[total >> shift]
        append(ranks[total & mask] if suit < 0 else _flush_score(suit, hand))
    return out


def _flush_score(suit: int, codes: Iterable[int]) -> int:
    """Five or more cards share ``suit``: with at most seven cards that rules out quads and a
    full house, so the best flush or straight flush in that suit is the hand (rules.md §1)."""
    bits = SUIT_RANK_BITS[suit]
    mask = 0
    for code in codes:
        mask |= bits.get(code, 0)
    return FLUSH_SCORES[mask]


def describe_score(score: int) -> str:
    """Human wording of a score: ``"Two Pair, Kings and Sevens"``, ``"Royal Flush"``..."""
    # the category and the first two ranks read from the score's fields directly (every
    # packed rank is 2..14, so the first two fields are the first two ranks)
    return _WORDING[score >> CATEGORY_SHIFT]((score >> 16) & 0xF, (score >> 12) & 0xF)


_WORDS: dict[HandCategory, Callable[[int, int], str]] = {
    # each category's wording from the score's first two ranks
    HandCategory.HIGH_CARD: lambda a, b: f"High Card, {RANK_NAMES[a]}",
    HandCategory.PAIR: lambda a, b: f"Pair of {RANK_PLURALS[a]}",
    HandCategory.TWO_PAIR: lambda a, b: f"Two Pair, {RANK_PLURALS[a]} and {RANK_PLURALS[b]}",
    HandCategory.THREE_OF_A_KIND: lambda a, b: f"Three of a Kind, {RANK_PLURALS[a]}",
    HandCategory.STRAIGHT: lambda a, b: f"Straight, {RANK_NAMES[a]} high",
    HandCategory.FLUSH: lambda a, b: f"Flush, {RANK_NAMES[a]} high",
    HandCategory.FULL_HOUSE: lambda a, b: f"Full House, {RANK_PLURALS[a]} over {RANK_PLURALS[b]}",
    HandCategory.FOUR_OF_A_KIND: lambda a, b: f"Four of a Kind, {RANK_PLURALS[a]}",
    HandCategory.STRAIGHT_FLUSH: lambda a, b: ("Royal Flush" if a == 14
                                               else f"Straight Flush, {RANK_NAMES[a]} high"),
}
_WORDING = tuple(_WORDS[category] for category in HandCategory)  # indexed by the category


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
