#!/usr/bin/env python3
"""Benchmark of the recalculation engine on a synthetic federation.

One size: wall time and peak memory of loading the federation, a full replay, and a late
tournament inserted one year back, recalculated incrementally versus a naive replay of the
whole suffix after the change point (every later tournament re-evaluated).

    python scripts/bench_recalc.py --players 250000 --years 17

Several sizes: for each, a fresh database, the federation
loaded, and the full replay's time, CPU seconds and peak memory, as a table:

    python scripts/bench_recalc.py --players 60000 125000 250000 500000 --years 17

Generating and loading run in one child process, the full replay in another: the peak
memory reported is the replay's own (the resident set of a process that does nothing
else; the interpreter and libraries take about 100 MB of it). Without DATABASE_URL each
size gets a private embedded PostgreSQL in a temporary folder. The ratingdb imported is the
one on the path: with PYTHONPATH pointing at another checkout the same script measures it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import date
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.connection import connect

T = TypeVar("T")


def peak_mb() -> float:
    """This process's peak resident memory so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def in_child(task: Callable[..., T], *args: Any) -> T:
    """Run ``task(*args)`` in a fresh process (its peak memory is its own)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(task, *args).result()


def load(url: str, players: int, years: int, seed: int) -> dict[str, Any]:
    """Migrate, generate and load the federation (in a child process)."""
    from ratingdb.db import migrate
    from ratingdb.db.bulk import load_federation
    from ratingdb.db.connection import normalise_url
    from ratingdb.synth import generate

    migrate.upgrade(normalise_url(url))
    engine = connect(url)
    t0 = time.perf_counter()
    fed = generate(players, years, seed)
    t1 = time.perf_counter()
    with Session(engine) as session, session.begin():
        load_federation(session, fed)
    t2 = time.perf_counter()
    engine.dispose()
    return {
        "tournaments": len(fed.tournaments),
        "games": sum(len(t.games) for t in fed.tournaments),
        "generated": t1 - t0,
        "loaded": t2 - t1,
    }


def full_replay(url: str) -> dict[str, Any]:
    """The pending full replay a bulk load leaves (in a child process)."""
    from ratingdb.db.recalc import run_recalc

    engine = connect(url)
    c0, t0 = cpu_seconds(), time.perf_counter()
    report = run_recalc(engine)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    engine.dispose()
    assert report.full, "the bulk load left no full change point"
    return {
        "seconds": wall,
        "cpu": cpu,
        "evaluated": report.tournaments_evaluated,
        "snapshots": report.snapshots_written,
        "peak_mb": peak_mb(),
    }


def late_insert(url: str) -> dict[str, Any]:
    """A late tournament one year back: the incremental run, then a naive replay of the
    whole suffix (in a child process)."""
    from ratingdb.db.recalc import run_recalc
    from ratingdb.services.samples import late_tournament
    from ratingdb.services.submissions import add_tournament

    engine = connect(url)
    with Session(engine) as session:
        last_end = session.execute(text("SELECT max(end_date) FROM tournaments")).scalar_one()
    end = date(last_end.year - 1, last_end.month, min(last_end.day, 28))
    with Session(engine) as session, session.begin():
        t0 = time.perf_counter()
        add_tournament(session, late_tournament(session, end), actor="bench")
        added = time.perf_counter() - t0
    late = run_recalc(engine)
    with Session(engine) as session:
        suffix = session.execute(
            text("SELECT count(*) FROM tournaments WHERE end_date >= :d"), {"d": end}
        ).scalar_one()
        # naive: re-evaluate every tournament after the change point
        session.execute(
            text("INSERT INTO change_points (kind, from_date) VALUES ('rechenmodul', :d)"),
            {"d": end},
        )
        session.commit()
    naive = run_recalc(engine)
    engine.dispose()
    return {
        "end": end,
        "added": added,
        "late": late.seconds,
        "late_evaluated": late.tournaments_evaluated,
        "suffix": suffix,
        "changed": len(late.ratings_changed),
        "naive": naive.seconds,
        "naive_evaluated": naive.tournaments_evaluated,
        "peak_mb": peak_mb(),
    }


def measure(players: int, years: int, seed: int, database_url: str | None, *, late: bool) -> dict:
    from ratingdb.db.connection import scratch_server

    with scratch_server(database_url) as url:
        address = url.render_as_string(hide_password=False)
        fed = in_child(load, address, players, years, seed)
        print(
            f"federation: {players} players, {years} years, {fed['tournaments']} tournaments, "
            f"{fed['games']} games (generated {fed['generated']:.1f} s, loaded with COPY "
            f"{fed['loaded']:.1f} s)",
            flush=True,
        )
        full = in_child(full_replay, address)
        print(
            f"full replay: {full['seconds']:.1f} s ({full['cpu']:.1f} s CPU in the replaying "
            f"process), {full['evaluated']} tournaments, {full['snapshots']} snapshots, peak "
            f"memory {full['peak_mb']:.0f} MB",
            flush=True,
        )
        result = {"players": players, "years": years, **fed, **full}
        if late:
            inc = in_child(late_insert, address)
            print(
                f"late insert one year back ({inc['end']}): add {inc['added']:.2f} s, "
                f"incremental run {inc['late']:.2f} s re-evaluating {inc['late_evaluated']} "
                f"of {inc['suffix']} tournaments, {inc['changed']} ratings changed"
            )
            print(
                f"naive suffix replay: {inc['naive']:.2f} s re-evaluating "
                f"{inc['naive_evaluated']} tournaments; incremental is "
                f"{inc['naive'] / inc['late']:.1f}x faster (peak memory {inc['peak_mb']:.0f} MB)",
                flush=True,
            )
        return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--players", type=int, nargs="+", default=[20000], help="one size, or several: a curve"
    )
    parser.add_argument("--years", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    parser.add_argument(
        "--full-only", action="store_true", help="one size: leave out the late insertion"
    )
    args = parser.parse_args()
    if len(args.players) > 1 and args.database_url:
        parser.error("a curve needs a fresh database per size: leave out --database-url")
    curve = len(args.players) > 1
    late = not curve and not args.full_only
    rows = []
    for players in args.players:
        rows.append(measure(players, args.years, args.seed, args.database_url, late=late))
    if not late:
        print(f"\nload: {os.getloadavg()[0]:.2f} (1-minute average at the end)")
        print(
            "| players | years | tournaments | games | snapshots | full replay | CPU "
            "| peak memory |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(
                f"| {r['players']:,} | {r['years']} | {r['tournaments']:,} | {r['games']:,} | "
                f"{r['snapshots']:,} | {r['seconds']:.1f} s | {r['cpu']:.1f} s | "
                f"{r['peak_mb']:,.0f} MB |"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
