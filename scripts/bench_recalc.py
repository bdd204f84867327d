#!/usr/bin/env python3
"""Benchmark of the recalculation engine on a synthetic federation.

Prints wall time and peak memory of: loading the federation, a full replay, and a late
tournament inserted one year back, recalculated incrementally versus a naive replay of
the whole suffix after the change point (every later tournament re-evaluated).

    python scripts/bench_recalc.py --players 250000 --years 17

Without DATABASE_URL it starts a private embedded PostgreSQL in a temporary folder.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from datetime import date

from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db import migrate
from ratingdb.db.bulk import load_federation
from ratingdb.db.connection import scratch_server
from ratingdb.db.recalc import run_recalc
from ratingdb.db.samples import late_tournament
from ratingdb.db.submissions import add_tournament
from ratingdb.synth import generate


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--players", type=int, default=20000)
    parser.add_argument("--years", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    args = parser.parse_args()

    with scratch_server(args.database_url) as url:
        migrate.upgrade(url)
        engine = create_engine(url, poolclass=NullPool)

        t0 = time.perf_counter()
        fed = generate(args.players, args.years, args.seed)
        games = sum(len(t.games) for t in fed.tournaments)
        t1 = time.perf_counter()
        with Session(engine) as session, session.begin():
            load_federation(session, fed)
        t2 = time.perf_counter()
        print(
            f"federation: {args.players} players, {args.years} years, "
            f"{len(fed.tournaments)} tournaments, {games} games "
            f"(generated {t1 - t0:.1f} s, loaded with COPY {t2 - t1:.1f} s)"
        )
        del fed

        full = run_recalc(engine)
        print(
            f"full replay: {full.seconds:.1f} s, {full.tournaments_evaluated} tournaments, "
            f"{full.snapshots_written} snapshots, peak memory {peak_mb():.0f} MB"
        )

        with Session(engine) as session:
            last_end = session.execute(text("SELECT max(end_date) FROM tournaments")).scalar_one()
        end = date(last_end.year - 1, last_end.month, min(last_end.day, 28))
        with Session(engine) as session, session.begin():
            t3 = time.perf_counter()
            add_tournament(session, late_tournament(session, end), actor="bench")
            t4 = time.perf_counter()
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
        print(
            f"late insert one year back ({end}): add {t4 - t3:.2f} s, incremental run "
            f"{late.seconds:.2f} s re-evaluating {late.tournaments_evaluated} of {suffix} "
            f"tournaments, {len(late.ratings_changed)} ratings changed"
        )
        print(
            f"naive suffix replay: {naive.seconds:.2f} s re-evaluating "
            f"{naive.tournaments_evaluated} tournaments; incremental is "
            f"{naive.seconds / late.seconds:.1f}x faster"
        )
        print(f"peak memory {peak_mb():.0f} MB")
        engine.dispose()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
