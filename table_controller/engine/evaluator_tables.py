"""Integer card codes and the lookup tables behind the fast evaluator.

Every table is derived from the plain rules in :mod:`table_controller.engine.evaluator_rules`
(rules.md §1) at import, in a few tenths of a second; nothing generated is stored in git.

Card code (a Python ``int`` below 2**43) of a card of rank ``r`` (2..14) and suit index ``s``
(0..3, order ``s h d c``)::

    code = 5 ** (r - 2) + (1 << (31 + 3 * s))

Adding the codes of up to seven distinct cards never carries between fields: the low 31 bits
hold the *rank key*, the rank counts written in base 5 (a count is at most 4), and each 3-bit
field above holds how many cards of that suit there are (at most 7). The rank key identifies
the rank multiset exactly, so one dict maps it to the best non-flush score; the suit fields
tell whether five cards share a suit. With at most seven cards a flush rules out four of a
kind and a full house: quads hold at most one card of the flush suit and a full house at most
two (one of the trips, one of the pair), so either would need 5 + 3 = 8 cards. So when a flush
exists the flush table alone decides the hand (rules.md §1 ranks flush below both).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from table_controller.engine.evaluator_rules import rank_only_score, suited_score

RANK_KEY_BITS = 31
RANK_KEY_MASK = (1 << RANK_KEY_BITS) - 1
SUIT_FIELD_BITS = 3
SUIT_COUNT = 4


def card_code(rank: int, suit_index: int) -> int:
    """The integer code of a card (rank 2..14, suit index 0..3 in ``s h d c`` order)."""
    return int(5 ** (rank - 2)) + (1 << (RANK_KEY_BITS + SUIT_FIELD_BITS * suit_index))


# Codes by Card.index (0..51, rank-major: 2s 2h 2d 2c 3s ... Ac).
CODES: tuple[int, ...] = tuple(card_code(i // 4 + 2, i % 4) for i in range(52))


def _flush_suits() -> list[int]:
    """Suit-fields value -> index of the suit holding five or more cards, or -1."""
    table = [-1] * (1 << (SUIT_FIELD_BITS * SUIT_COUNT))
    for fields in range(len(table)):
        for suit in range(SUIT_COUNT):
            if (fields >> (SUIT_FIELD_BITS * suit)) & 0b111 >= 5:
                table[fields] = suit
    return table


def _rank_scores() -> dict[int, int]:
    """Rank key -> best non-flush score, for every multiset of 5, 6 or 7 ranks.

    Five-rank multisets are scored by the rules. The best five of six or seven ranks is the
    best over the multisets one rank smaller (rules.md §1), so each smaller multiset pushes its
    score to every multiset that adds one rank to it (a rank may appear at most four times).
    """
    powers = [5**r for r in range(13)]
    current: dict[int, int] = {}
    for combo in combinations_with_replacement(range(13), 5):
        if combo[0] != combo[4]:  # five of one rank cannot happen
            current[sum(powers[r] for r in combo)] = rank_only_score([r + 2 for r in combo])
    table = dict(current)
    for _size in (6, 7):
        bigger: dict[int, int] = {}
        get = bigger.get
        for key, score in current.items():
            for power in powers:
                if key // power % 5 != 4:
                    grown = key + power
                    if get(grown, -1) < score:
                        bigger[grown] = score
        table.update(bigger)
        current = bigger
    return table


def _flush_scores() -> list[int]:
    """13-bit mask of the ranks held in one suit (bit r-2 for rank r) -> score, 0 below five.

    Masks of exactly five ranks are scored by the rules; a mask of six or seven scores the best
    of its five-rank subsets, found by pushing each mask's score to the masks one bit larger.
    """
    table = [0] * (1 << 13)
    current: list[int] = []
    for mask in range(len(table)):
        if mask.bit_count() == 5:
            table[mask] = suited_score([r + 2 for r in range(13) if mask >> r & 1])
            current.append(mask)
    for _size in range(6, 14):
        bigger: set[int] = set()
        for mask in current:
            score = table[mask]
            for r in range(13):
                grown = mask | 1 << r
                if grown != mask:
                    bigger.add(grown)
                    if table[grown] < score:
                        table[grown] = score
        current = sorted(bigger)
    return table


FLUSH_SUIT: list[int] = _flush_suits()
RANK_SCORES: dict[int, int] = _rank_scores()
FLUSH_SCORES: list[int] = _flush_scores()
# Per suit: card code -> rank bit, for collecting the ranks of the flush suit.
SUIT_RANK_BITS: tuple[dict[int, int], ...] = tuple(
    {CODES[i]: 1 << (i // 4) for i in range(52) if i % 4 == suit} for suit in range(SUIT_COUNT)
)
