#!/usr/bin/env python3
"""Differential test of the fast DWZ core against the frozen reference.

Draws random tournaments (tests/dwz_random.py: every group, residual games, Sonderwertung,
matches, forfeits, computers, groups without a finite solution) and evaluates each with the
fast core and with the reference implementation (tests/reference_dwz), in one table and one
float parameter set taken in turn from every DWZ version (``--all-sets``: every set).
Every output, trace value and error must be identical; the first difference is printed with
its seed and the exit code is 1.

Usage: python scripts/diff_rules.py [--tournaments 10000] [--seed 0] [--all-sets]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.dwz_random import PARAMETER_SETS, compare, random_tournament


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tournaments", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--all-sets", action="store_true")
    args = parser.parse_args()
    table = sorted(n for n, p in PARAMETER_SETS.items() if p.precision == "table")
    floats = sorted(n for n, p in PARAMETER_SETS.items() if p.precision == "float")
    counts: Counter[str] = Counter()
    start = time.perf_counter()
    for k in range(args.tournaments):
        seed = args.seed + k
        t = random_tournament(random.Random(seed), f"T{seed}")
        names = (
            sorted(PARAMETER_SETS)
            if args.all_sets
            else [table[k % len(table)], floats[k % len(floats)]]
        )
        for name in names:
            difference = compare(t, PARAMETER_SETS[name])
            if difference is not None:
                print(f"seed {seed}, {name}: {difference}")
                return 1
            counts[name] += 1
        if (k + 1) % 1000 == 0:
            print(f"{k + 1} tournaments, {time.perf_counter() - start:.0f} s", flush=True)
    total = sum(counts.values())
    print(
        f"identical: {args.tournaments} tournaments, {total} evaluations "
        f"({', '.join(f'{n} {c}' for n, c in sorted(counts.items()))})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
