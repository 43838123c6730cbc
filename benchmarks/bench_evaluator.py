"""Seven-card hand evaluation speed: ours (object, integer, NumPy) against treys and pokerkit.

Every evaluator gets the same seeded random seven-card hands, already converted to its own card
representation (conversion is not timed). Each timing is the best of a few repeats, to damp the
noise of a shared machine; both wall-clock and CPU rates are reported. pokerkit is much slower,
so it gets the first few thousand hands only and is reported per second like the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _hands(seed: int, n: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    out: list[list[int]] = []
    while len(out) < n:
        draw = rng.integers(0, 52, size=(2 * n, 7))
        keep = draw[(np.diff(np.sort(draw, axis=1), axis=1) != 0).all(axis=1)]
        out.extend(keep.tolist())
    return out[:n]


def _best_of(repeats: int, run: Callable[[], object]) -> tuple[float, float]:
    """Smallest (wall, cpu) seconds over ``repeats`` runs of ``run``."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def _build_times() -> dict[str, float]:
    from table_controller.engine import evaluator_batch, evaluator_tables

    figures: dict[str, float] = {}
    for name, build in (
        ("rank_table_s", evaluator_tables._rank_scores),
        ("flush_table_s", evaluator_tables._flush_scores),
        ("flush_suit_table_s", evaluator_tables._flush_suits),
        ("numpy_tables_s", evaluator_batch._tables.__wrapped__),
    ):
        start = time.perf_counter()
        build()
        figures[name] = round(time.perf_counter() - start, 4)
    return figures


def main(quick: bool) -> dict[str, Any]:
    start = time.perf_counter()
    from table_controller.engine.evaluator import CODES, evaluate, evaluate_codes, evaluate_many
    from table_controller.engine.evaluator_batch import evaluate_batch
    from table_controller.vocabulary.cards import DECK

    import_s = time.perf_counter() - start
    n = 20_000 if quick else 200_000
    n_batch = 100_000 if quick else 1_000_000
    n_pokerkit = 300 if quick else 3_000
    repeats = 1 if quick else 3
    hands = _hands(seed=20261130, n=max(n, n_batch))
    sample = hands[:n]

    cards = [[DECK[i] for i in h] for h in sample]
    codes = [tuple(CODES[i] for i in h) for h in sample]
    array = np.array(hands, dtype=np.int8)

    def object_path() -> None:
        for hand in cards:
            evaluate(hand)

    def codes_path() -> None:
        for hand in codes:
            evaluate_codes(*hand)

    runs: list[tuple[str, int, Callable[[], object]]] = [
        ("ours: evaluate(Card list) -> HandValue", n, object_path),
        ("ours: evaluate_codes(7 ints) per call", n, codes_path),
        ("ours: evaluate_many(code tuples)", n, lambda: evaluate_many(codes)),
        ("ours: evaluate_batch NumPy, checked", n_batch, lambda: evaluate_batch(array)),
        ("ours: evaluate_batch NumPy, check=False", n_batch,
         lambda: evaluate_batch(array, check=False)),
    ]
    same = evaluate_many(codes) == [evaluate(h).score for h in cards] == evaluate_batch(
        array[:n]
    ).tolist()

    try:
        import treys

        t_eval = treys.Evaluator()
        t_cards = [treys.Card.new(str(c)) for c in DECK]
        t_hands = [([t_cards[i] for i in h[:2]], [t_cards[i] for i in h[2:]]) for h in sample]

        def treys_path() -> None:
            for hole, board in t_hands:
                t_eval.evaluate(hole, board)

        runs.append(("treys: Evaluator.evaluate(hole, board)", n, treys_path))
    except ImportError:
        print("treys not installed: skipped")
    try:
        import pokerkit

        p_cards = [next(iter(pokerkit.Card.parse(str(c)))) for c in DECK]
        p_hands = [
            ([p_cards[i] for i in h[:2]], [p_cards[i] for i in h[2:]])
            for h in sample[:n_pokerkit]
        ]

        def pokerkit_path() -> None:
            for hole, board in p_hands:
                pokerkit.StandardHighHand.from_game(hole, board)

        runs.append(("pokerkit: StandardHighHand.from_game", len(p_hands), pokerkit_path))
    except ImportError:
        print("pokerkit not installed: skipped")

    rates: dict[str, dict[str, float]] = {}
    for label, count, run in runs:
        wall, cpu = _best_of(repeats, run)
        rates[label] = {"hands": count, "per_s_wall": count / wall, "per_s_cpu": count / cpu}

    reference = rates.get("treys: Evaluator.evaluate(hole, board)", {}).get("per_s_cpu")
    print(f"seven-card hands, best of {repeats} run(s); on a shared machine CPU rates are fairer")
    print(f"{'path':44} {'hands':>9} {'evals/s wall':>13} {'evals/s CPU':>13} {'x treys':>8}")
    for label, r in rates.items():
        ratio = f"{r['per_s_cpu'] / reference:8.2f}" if reference else "       -"
        print(f"{label:44} {r['hands']:>9,.0f} {r['per_s_wall']:>13,.0f} {r['per_s_cpu']:>13,.0f} "
              f"{ratio}")
    builds = _build_times()
    print(f"import of table_controller.engine.evaluator* (tables built): {import_s:.3f} s; "
          f"rebuild: {builds}")
    print(f"object, integer and NumPy paths agree on the sample: {same}")
    return {
        "rates": {k: {m: round(v, 1) for m, v in r.items()} for k, r in rates.items()},
        "ratio_to_treys_cpu": {
            k: round(r["per_s_cpu"] / reference, 3) for k, r in rates.items()
        } if reference else {},
        "import_s": round(import_s, 4),
        "table_build_s": builds,
        "paths_agree": same,
        "repeats": repeats,
    }
