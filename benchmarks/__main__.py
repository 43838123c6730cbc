"""Run the benchmarks: ``python -m benchmarks [NAME...] [--quick]``.

Each ``benchmarks/bench_NAME.py`` defines ``main(quick: bool) -> dict``; it prints its own table
and returns its figures, which are written together to ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def available() -> list[str]:
    return sorted(p.stem[len("bench_"):] for p in HERE.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default all): {available()}")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--out", default=str(HERE / "results.json"))
    args = parser.parse_args(argv)
    names = args.names or available()
    unknown = [n for n in names if n not in available()]
    if unknown:
        known = ", ".join(available())
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {known}", file=sys.stderr)
        return 2
    results: dict[str, object] = {"machine": platform.platform(), "python": sys.version.split()[0]}
    for name in names:
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"benchmarks.bench_{name}")
        results[name] = module.main(quick=args.quick)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"figures written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
