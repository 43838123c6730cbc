"""The hand-ranking rules, written plainly: the reference every fast path is built from.

Rules (rules.md §1, sources [000, 001]): best five of the cards; high to low: straight flush
(the ace-high one is the royal flush), four of a kind, full house, flush, straight, three of a
kind, two pair, pair, high card. The ace plays high or low in a straight and A-2-3-4-5 (the
wheel) is the lowest straight. Ties are broken by the standard kicker comparisons (full house:
trips then pair; two pair: high pair, low pair, kicker; flush and high card: card by card).
Suits never break ties.

A hand's value is one integer, the *score*::

    score = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

where ``category`` is the :class:`HandCategory` (0..8) and ``r1..r5`` are the ranks (2..14)
that decide ties, most significant first, zero-padded (a full house of kings over sevens is
``r1=13, r2=7``; a straight is its top card, 5 for the wheel). Two hands tie exactly when their
scores are equal, and the higher score wins. The functions here work from ranks only, so suits
can never enter a tie-break.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

CATEGORY_SHIFT = 20


class HandCategory(IntEnum):
    """Hand categories, weakest first (rules.md §1)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


def make_score(category: HandCategory, ranks: Sequence[int]) -> int:
    """Pack a category and up to five tie-break ranks (most significant first) into a score."""
    if len(ranks) > 5:
        raise ValueError(f"at most five tie-break ranks, got {list(ranks)}")
    score = int(category)
    for i in range(5):
        score = (score << 4) | (ranks[i] if i < len(ranks) else 0)
    return score


def score_category(score: int) -> HandCategory:
    """The category packed in ``score``."""
    return HandCategory(score >> CATEGORY_SHIFT)


def score_ranks(score: int) -> list[int]:
    """The non-zero tie-break ranks packed in ``score``, most significant first."""
    nibbles = [(score >> shift) & 0xF for shift in (16, 12, 8, 4, 0)]
    return [r for r in nibbles if r]


def straight_high(ranks: Iterable[int]) -> int:
    """Top card of the best straight in ``ranks`` (2..14), 5 for the wheel, 0 if none.

    The ace plays high or low (rules.md §1): A-2-3-4-5 counts, topped by the five.
    """
    bits = 0
    for r in ranks:
        bits |= 1 << r
    if bits >> 14 & 1:
        bits |= 1 << 1  # the ace also plays low
    for high in range(14, 4, -1):
        run = 0b11111 << (high - 4)
        if bits & run == run:
            return high
    return 0


def rank_only_score(ranks: Sequence[int]) -> int:
    """Score of the best five of ``ranks`` (5 to 7 ranks 2..14) ignoring suits (no flush).

    Each rank may appear at most four times. Implements rules.md §1 tie-breaks: quads then
    kicker, full house trips then pair, two pair high pair, low pair, kicker, and so on.
    """
    if not 5 <= len(ranks) <= 7:
        raise ValueError(f"need 5 to 7 ranks, got {len(ranks)}")
    counts = [0] * 15
    for r in ranks:
        if not 2 <= r <= 14:
            raise ValueError(f"not a rank: {r!r}")
        counts[r] += 1
        if counts[r] > 4:
            raise ValueError(f"rank {r} appears more than four times")
    desc = [r for r in range(14, 1, -1) if counts[r]]
    quads = [r for r in desc if counts[r] == 4]
    trips = [r for r in desc if counts[r] == 3]
    pairs = [r for r in desc if counts[r] == 2]
    if quads:
        q = quads[0]
        return make_score(HandCategory.FOUR_OF_A_KIND, [q, max(r for r in desc if r != q)])
    if trips and (len(trips) > 1 or pairs):
        t = trips[0]
        return make_score(HandCategory.FULL_HOUSE, [t, max(trips[1:] + pairs)])
    high = straight_high(desc)
    if high:
        return make_score(HandCategory.STRAIGHT, [high])
    if trips:
        t = trips[0]
        return make_score(HandCategory.THREE_OF_A_KIND, [t, *[r for r in desc if r != t][:2]])
    if len(pairs) > 1:
        p1, p2 = pairs[0], pairs[1]
        kicker = max(r for r in desc if r not in (p1, p2))
        return make_score(HandCategory.TWO_PAIR, [p1, p2, kicker])
    if pairs:
        p = pairs[0]
        return make_score(HandCategory.PAIR, [p, *[r for r in desc if r != p][:3]])
    return make_score(HandCategory.HIGH_CARD, desc[:5])


def suited_score(ranks: Iterable[int]) -> int:
    """Score of the best five among distinct ``ranks`` all of one suit (at least five).

    A straight among them is a straight flush (rules.md §1), otherwise a flush decided card by
    card over its top five.
    """
    desc = sorted(set(ranks), reverse=True)
    if len(desc) < 5:
        raise ValueError(f"a flush needs five distinct ranks, got {desc}")
    high = straight_high(desc)
    if high:
        return make_score(HandCategory.STRAIGHT_FLUSH, [high])
    return make_score(HandCategory.FLUSH, desc[:5])


def five_rank_pattern(score: int) -> list[int]:
    """The five ranks of the best hand with value ``score``, in hand order (ace as 14).

    E.g. kings full of sevens gives ``[13, 13, 13, 7, 7]``; the wheel ``[5, 4, 3, 2, 14]``.
    """
    category = score_category(score)
    r = score_ranks(score)
    if category in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH):
        return [14 if x == 1 else x for x in range(r[0], r[0] - 5, -1)]
    if category in (HandCategory.HIGH_CARD, HandCategory.FLUSH):
        return r
    if category == HandCategory.PAIR:
        return [r[0], r[0], *r[1:]]
    if category == HandCategory.TWO_PAIR:
        return [r[0], r[0], r[1], r[1], r[2]]
    if category == HandCategory.THREE_OF_A_KIND:
        return [r[0]] * 3 + r[1:]
    if category == HandCategory.FULL_HOUSE:
        return [r[0]] * 3 + [r[1]] * 2
    return [r[0]] * 4 + [r[1]]
