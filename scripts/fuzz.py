#!/usr/bin/env python3
"""The long fuzz run of every parser a user's file or request reaches.

Mutates the real seed files of ``tests/fuzz_targets.py`` (tests/data, tests/fixtures,
/work/shared/corpus, read in place) and feeds them to each target: TRF, SWT, SWI, DSB
TournamentReport XML, DeWIS XML, the DSB member/club lists, an officer's submission JSON,
``ratingdb evaluate`` JSON, and the format detection in front of them. Reports every
exception other than the project's input error (``InputError``; ``RulesError`` where a
document is evaluated), grouped by target, class and the line that raised it, with the
shortest input that raised it (``--save DIR`` writes those inputs as files).

    python scripts/fuzz.py                      # 100,000 inputs, seed 1
    python scripts/fuzz.py --inputs 300000 --seed 7 --targets trf,swt --save /tmp/finds

Exit code 0 when nothing else escaped, 1 otherwise. Bounded by ``--inputs`` and
``--max-seconds``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import fuzz_targets as F


@dataclass
class Finding:
    target: str
    kind: str
    where: str
    message: str
    count: int = 0
    example: bytes = b""
    cases: list[int] = field(default_factory=list)


def _where(err: BaseException) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    inside = [f for f in frames if "/ratingdb/" in f.filename] or frames
    last = inside[-1] if inside else None
    return f"{Path(last.filename).name}:{last.lineno} {last.name}" if last else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--targets", default=",".join(F.TARGETS), help="comma-separated")
    parser.add_argument("--max-seconds", type=float, default=3600.0)
    parser.add_argument("--save", type=Path, default=None, help="write one input per finding")
    args = parser.parse_args(argv)

    names = [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = [n for n in names if n not in F.TARGETS]
    if unknown:
        parser.error(f"unknown targets: {', '.join(unknown)} (known: {', '.join(F.TARGETS)})")
    rng = random.Random(args.seed)
    seeds = {n: F.seeds(n) for n in names}
    runs = dict.fromkeys(names, 0)
    found: dict[tuple[str, str, str], Finding] = {}
    started = time.monotonic()
    done = 0
    for done in range(1, args.inputs + 1):
        name = names[done % len(names)]
        data = F.mutate(rng.choice(seeds[name]), rng)
        runs[name] += 1
        err = F.check(name, data)
        if err is not None:
            key = (name, type(err).__name__, _where(err))
            f = found.setdefault(key, Finding(name, key[1], key[2], str(err)[:200]))
            f.count += 1
            if not f.example or len(data) < len(f.example):
                f.example = data
            if len(f.cases) < 5:
                f.cases.append(done)
        if done % 10_000 == 0:
            rate = done / (time.monotonic() - started)
            print(f"{done:>8} inputs, {len(found)} findings, {rate:.0f}/s", file=sys.stderr)
        if time.monotonic() - started > args.max_seconds:
            print(f"stopped after {args.max_seconds:.0f} s", file=sys.stderr)
            break
    seconds = time.monotonic() - started
    print(f"{done} inputs in {seconds:.0f} s (seed {args.seed}):")
    for name in names:
        print(f"  {name:16} {runs[name]:>8} inputs")
    if not found:
        print("no exception other than the project's input error")
        return 0
    print(f"{len(found)} findings:")
    for k, f in enumerate(sorted(found.values(), key=lambda f: -f.count), 1):
        print(f"  {f.target}: {f.kind} at {f.where} ({f.count}x, inputs {f.cases}): {f.message}")
        print(f"    shortest input ({len(f.example)} bytes): {f.example[:160]!r}")
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{k:02d}-{f.target}-{f.kind}.bin").write_bytes(f.example)
    return 1


if __name__ == "__main__":
    sys.exit(main())
