"""Vectorised hand evaluation with NumPy, for equity and simulation work (rules.md §1).

``evaluate_batch(hands)`` takes an integer array of shape ``(n, k)``, ``k`` in 5..7, holding
card indices (:attr:`table_controller.vocabulary.cards.Card.index`, 0..51) and returns the
``n`` scores as ``int32``, identical to :func:`table_controller.engine.evaluator.evaluate` (same
layout, same tables).

How: each card index maps to its integer code (see :mod:`table_controller.engine.evaluator_tables`);
a row's codes add up to its rank key (rank counts in base 5) and suit counts. A rank key is too
large to index an array, so it is split into the base-5 digits of ranks 2-8 (``low``) and of
ranks 9-A (``high``). The multisets of ``k`` ranks are numbered block by block (block ``j``
holds those with ``j`` low ranks), ``index = LOW_k[low] + HIGH[high]``, a dense numbering with
no gaps, so a table of exactly as many entries as multisets gives the non-flush score. Rows
with five cards of one suit are re-scored from the 13-bit rank mask of that suit; with at most
seven cards such a flush is always the best hand (no quads or full house can coexist).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from table_controller.engine.evaluator_tables import (
    CODES,
    FLUSH_SCORES,
    FLUSH_SUIT,
    RANK_KEY_BITS,
    RANK_KEY_MASK,
    RANK_SCORES,
)

__all__ = ["evaluate_batch"]

_LOW_RANKS = 7  # ranks 2..8 are the low base-5 digits, 9..A the high ones
_LOW_SPAN = 5**_LOW_RANKS
_HIGH_SPAN = 5 ** (13 - _LOW_RANKS)

Int32Array = npt.NDArray[np.int32]


@dataclass(frozen=True)
class _Tables:
    codes: npt.NDArray[np.int64]  # card index -> code
    flush_suit: npt.NDArray[np.int8]  # suit-count fields -> flush suit or -1
    flush_scores: Int32Array  # 13-bit rank mask -> score
    high_index: Int32Array  # high digits -> index among high multisets of its size
    low_index: dict[int, Int32Array]  # k -> low digits -> start of its slot for k cards
    scores: dict[int, Int32Array]  # k -> dense multiset number -> non-flush score


def _digit_sums(span: int, digits: int) -> npt.NDArray[np.int64]:
    keys = np.arange(span, dtype=np.int64)
    powers = 5 ** np.arange(digits, dtype=np.int64)
    sums: npt.NDArray[np.int64] = ((keys[:, None] // powers) % 5).sum(axis=1)
    return sums


def _index_within_size(sizes: npt.NDArray[np.int64]) -> tuple[Int32Array, npt.NDArray[np.int64]]:
    """For each key, its position among the keys of the same digit sum; and counts per sum."""
    order = np.argsort(sizes, kind="stable")
    counts = np.bincount(sizes, minlength=29)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    within = np.empty(len(sizes), dtype=np.int32)
    within[order] = np.arange(len(sizes), dtype=np.int32) - starts[sizes[order]]
    return within, counts


@cache
def _tables() -> _Tables:
    """Built on first use from the scalar tables, in a few tens of milliseconds."""
    low_size = _digit_sums(_LOW_SPAN, _LOW_RANKS)
    high_size = _digit_sums(_HIGH_SPAN, 13 - _LOW_RANKS)
    low_within, low_counts = _index_within_size(low_size)
    high_within, high_counts = _index_within_size(high_size)
    keys = np.fromiter(RANK_SCORES.keys(), dtype=np.int64, count=len(RANK_SCORES))
    values = np.fromiter(RANK_SCORES.values(), dtype=np.int32, count=len(RANK_SCORES))
    key_low, key_high = keys % _LOW_SPAN, keys // _LOW_SPAN
    key_size = low_size[key_low] + high_size[key_high]
    low_index: dict[int, Int32Array] = {}
    scores: dict[int, Int32Array] = {}
    for k in (5, 6, 7):
        blocks = np.array([low_counts[j] * high_counts[k - j] for j in range(k + 1)])
        base = np.concatenate(([0], np.cumsum(blocks)))
        fits = low_size <= k
        start = np.zeros(_LOW_SPAN, dtype=np.int32)
        start[fits] = base[low_size[fits]] + low_within[fits] * high_counts[k - low_size[fits]]
        mine = key_size == k
        slots = start[key_low[mine]] + high_within[key_high[mine]]
        table = np.full(int(base[-1]), -1, dtype=np.int32)
        table[slots] = values[mine]
        if (table < 0).any() or len(np.unique(slots)) != len(slots):
            raise AssertionError(f"batch table for {k} cards is not a dense numbering")
        low_index[k] = start
        scores[k] = table
    return _Tables(
        codes=np.array(CODES, dtype=np.int64),
        flush_suit=np.array(FLUSH_SUIT, dtype=np.int8),
        flush_scores=np.array(FLUSH_SCORES, dtype=np.int32),
        high_index=high_within,
        low_index=low_index,
        scores=scores,
    )


def evaluate_batch(hands: npt.ArrayLike, *, check: bool = True) -> Int32Array:
    """Scores of ``n`` hands given as an ``(n, k)`` array of card indices, ``k`` in 5..7.

    ``check`` (default) rejects, with a ``ValueError`` naming the first bad row, indices outside
    0..51 and rows repeating a card; pass ``check=False`` only for arrays known to be valid
    (e.g. dealt by this process), where a bad row would give a meaningless score.
    """
    arr = np.asarray(hands)
    if arr.ndim != 2 or not 5 <= arr.shape[1] <= 7:
        raise ValueError(f"hands must have shape (n, 5..7), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"hands must hold integer card indices, got dtype {arr.dtype}")
    idx = arr.astype(np.intp, copy=False)
    k = arr.shape[1]
    if check:
        _check(idx)
    t = _tables()
    codes = t.codes[idx]
    total = codes[:, 0].copy()
    for col in range(1, k):
        total += codes[:, col]
    rank_key = total & RANK_KEY_MASK
    slot = t.low_index[k][rank_key % _LOW_SPAN] + t.high_index[rank_key // _LOW_SPAN]
    scores: Int32Array = t.scores[k][slot]
    suit = t.flush_suit[total >> RANK_KEY_BITS]
    rows = np.flatnonzero(suit >= 0)
    if rows.size:
        sub = idx[rows]
        bits = np.where((sub & 3) == suit[rows, None], 1 << (sub >> 2), 0).sum(axis=1)
        scores[rows] = t.flush_scores[bits]
    return scores


_ONE_HOT = np.left_shift(np.int64(1), np.arange(52, dtype=np.int64))


def _check(idx: npt.NDArray[np.intp]) -> None:
    if idx.size == 0:
        return
    if idx.min() < 0 or idx.max() > 51:
        row = int(np.flatnonzero(((idx < 0) | (idx > 51)).any(axis=1))[0])
        raise ValueError(f"row {row}: card index outside 0..51 in {idx[row].tolist()}")
    # Adding distinct powers of two never carries; a repeated card carries, which lowers the
    # number of set bits below the number of cards.
    bits = _ONE_HOT[idx]
    mask = bits[:, 0].copy()
    for col in range(1, idx.shape[1]):
        mask += bits[:, col]
    dupes = np.flatnonzero(np.bitwise_count(mask) != idx.shape[1])
    if dupes.size:
        row = int(dupes[0])
        raise ValueError(f"row {row}: repeated card in {idx[row].tolist()}")
