"""Hands replayed per second from PHH text: our engine vs pokerkit, on the same files.

Two sets, each timed on both sides:

- **real hands**: the hands of ``phh-real`` (Pluribus and WSOP, from phh-dataset): the folder
  named by ``PHH_REAL``, else ``../shared/data/phh-real`` next to the project when it exists,
  else the sample the project ships in ``tests/data/phh-real`` (the benchmark says which);
- **generated hands**: a few hundred varied hands (no limit 2-9 players with and without antes,
  a big-blind ante, a straddle, pot limit, fixed limit) played by our engine and exported to
  ``.phh`` files in a temporary folder.

Each side reads the TOML text itself and replays it to the finishing stacks, which must agree;
files pokerkit refuses by its own conventions (see docs/hand-histories.md) are left out of both
timings. The clock runs over parsing and replaying, not disk reads; our reader's memory of the
lines and actions it has read is cleared before each of our rounds, so every round is a first
reading, as ``phh replay`` does it.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from table_controller.engine import AnteFormat, GameConfig, Structure
from table_controller.phh import dumps, loads
from table_controller.phh.codec import clear_caches
from table_controller.phh.export import export_hand
from table_controller.phh.replay import replay
from table_controller.phh.simulate import play_random_hand, random_table

MIXES: list[tuple[str, GameConfig, tuple[int, ...], bool]] = [
    ("NT", GameConfig(small_blind=1, big_blind=2), (2, 3, 6, 9), False),
    ("NT antes", GameConfig(small_blind=5, big_blind=10, ante=1), (6, 9), False),
    ("NT straddle", GameConfig(small_blind=1, big_blind=2), (6,), True),
    ("NT bb-ante", GameConfig(small_blind=5, big_blind=10, ante=10,
                              ante_format=AnteFormat.BIG_BLIND), (5, 8), False),
    ("PT", GameConfig(structure=Structure.POT_LIMIT, small_blind=1, big_blind=2), (3, 6), False),
    ("FT", GameConfig(structure=Structure.FIXED_LIMIT, small_blind=1, big_blind=2), (2, 4, 6),
     False),
]


def generate(folder: Path, count: int, seed: int = 2026) -> list[tuple[Path, Any]]:
    """Write ``count`` PHH files of engine hands; returns (path, (hand, config)) pairs."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        name, config, sizes, straddle = MIXES[i % len(MIXES)]
        table = random_table(config, rng, players=rng.choice(sizes))
        straddler = None
        if straddle:
            seats = sorted(table.stacks)
            button = table.button or seats[-1]
            after = [s for s in seats if s > button] + [s for s in seats if s <= button]
            if table.stacks[after[2]] >= 2 * config.big_blind:
                straddler = after[2]
        hand = play_random_hand(table, rng, straddle=straddler)
        path = folder / f"{i:04d}-{name.replace(' ', '-')}.phh"
        path.write_text(dumps(export_hand(hand, config=config)))
        out.append((path, (hand, config)))
    return out


def _pokerkit_convention(hand: Any, config: GameConfig) -> str | None:
    from tests.phh_pokerkit import pokerkit_skip_reason

    reason: str | None = pokerkit_skip_reason(hand, config)
    return reason


def _pokerkit_replay(text: str) -> list[int]:
    from tests.phh_pokerkit import pokerkit_finishing_stacks

    return pokerkit_finishing_stacks(text)


ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "phh-real"


def real_folder() -> tuple[Path, str]:
    """The real hands to time and where they come from."""
    named = os.environ.get("PHH_REAL")
    if named:
        return Path(named), "PHH_REAL"
    shared = ROOT.parent / "shared" / "data" / "phh-real"
    if shared.is_dir():
        return shared, "../shared/data/phh-real"
    return SAMPLE, "the project's sample (no ../shared/data/phh-real here; PHH_REAL=folder)"


def _usable(texts: list[str]) -> list[str]:
    """The texts both sides replay, checked to give the same finishing stacks."""
    usable = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for text in texts:
            try:
                theirs = _pokerkit_replay(text)
            except ValueError:
                continue  # pokerkit's own conventions (pointless raise, heads-up FL cap...)
            ours = list(replay(loads(text)).finishing_stacks)
            if ours != theirs:
                raise AssertionError(f"replays differ: ours {ours}, pokerkit {theirs}\n{text}")
            usable.append(text)
    return usable


def _race(usable: list[str], repeats: int) -> tuple[float, float]:
    """Hands per second of each side, the best of ``repeats`` alternating rounds (the machine is
    shared: interleaving keeps a burst of someone else's load from landing on one side only)."""

    def rate(fn: Any) -> float:
        start = time.perf_counter()
        for text in usable:
            fn(text)
        return len(usable) / (time.perf_counter() - start)

    ours_rate = theirs_rate = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeats):
            clear_caches()  # each round reads every file as the first time (phh replay does)
            ours_rate = max(ours_rate, rate(lambda text: replay(loads(text))))
            theirs_rate = max(theirs_rate, rate(_pokerkit_replay))
    return ours_rate, theirs_rate


def _report(label: str, count: int, usable: int, ours: float, theirs: float) -> dict[str, Any]:
    ratio = ours / theirs
    print(f"{label}: {count} files, replayed by both: {usable}")
    print(f"  {'replayer':<10} {'hands/s':>10}")
    print(f"  {'ours':<10} {ours:>10.0f}")
    print(f"  {'pokerkit':<10} {theirs:>10.0f}")
    print(f"  ratio ours/pokerkit: {ratio:.1f}x (goal >= 10x)")
    return {"files": count, "replayed": usable, "ours_hands_per_s": round(ours, 1),
            "pokerkit_hands_per_s": round(theirs, 1), "ratio": round(ratio, 2)}


def main(quick: bool) -> dict[str, Any]:
    repeats = 1 if quick else 4
    folder, source = real_folder()
    paths = sorted(folder.rglob("*.phh"))
    if quick:
        paths = paths[:: max(1, len(paths) // 100)]
    figures: dict[str, Any] = {}
    if paths:
        real = [p.read_text() for p in paths]
        usable = _usable(real)
        print(f"real hands from {source}: {folder}")
        figures["real"] = {"folder": str(folder), "source": source,
                           **_report("real hands", len(real), len(usable),
                                     *_race(usable, repeats))}
    else:
        print(f"real hands: skipped, no .phh files in {folder} ({source})")
        figures["real"] = {"skipped": str(folder)}
    count = 60 if quick else 300
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(Path(tmp), count)
        # hands pokerkit pays by its own conventions (docs/hand-histories.md) are left out
        texts = [p.read_text() for p, (hand, config) in files
                 if _pokerkit_convention(hand, config) is None]
    usable = _usable(texts)
    figures["generated"] = _report("generated hands", count, len(usable),
                                   *_race(usable, repeats))
    load = os.getloadavg()[0]
    print(f"load average {load:.1f}")
    figures["load_average"] = round(load, 2)
    return figures
