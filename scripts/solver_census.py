#!/usr/bin/env python3
"""How the first ratings of a recalculated database were found, per Rechenmodul version.

For every tournament with first-rating players it re-evaluates the stored inputs with the
trace and counts: the table iteration ended by itself, the exact solver (float
precision), the exact fallback of a table iteration that did not end, and the groups
without a finite solution that needed the extreme rule (classic: R_c +- 677; DWZ 2026:
fictitious draws / R_1 = 1100). It also checks that the re-evaluation reproduces every
stored rating, and counts the tournaments with struck players (evaluation_problems).

    ratingdb synth --players 60000 --years 17 --seed 1 && ratingdb recalc --full
    python scripts/solver_census.py            # on the database ratingdb uses
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.commands.common import engine, progress_bar
from ratingdb.db.store import load_tournament
from ratingdb.queries.tournament import stored_evaluation


def main() -> int:
    started = time.perf_counter()
    with Session(engine()) as session:
        rows = session.execute(
            text(
                "SELECT t.code, r.version FROM tournaments t JOIN LATERAL ("
                "  SELECT s.rechenmodul_id FROM rating_snapshots s WHERE s.tournament_id = t.id"
                "  AND s.player_group IN ('first_stage', 'second_stage') LIMIT 1) s ON true "
                "JOIN rechenmodule r ON r.id = s.rechenmodul_id ORDER BY t.end_date, t.code"
            )
        ).all()
        totals = dict(
            session.execute(
                text(
                    "SELECT r.version, count(DISTINCT s.tournament_id) FROM rating_snapshots s "
                    "JOIN rechenmodule r ON r.id = s.rechenmodul_id GROUP BY r.version"
                )
            ).all()
        )
        problems = session.execute(text("SELECT count(*) FROM evaluation_problems")).scalar_one()
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        mismatches: list[str] = []
        with progress_bar("census", enabled=sys.stderr.isatty()) as update:
            for done, (code, version) in enumerate(rows, 1):
                tin, stored = stored_evaluation(session, code)
                _, modul = load_tournament(session, code)
                result = modul.rules.evaluate(tin, modul.parameters)
                first = (result.trace or {}).get("first_rating") or {}
                c = counts[version]
                c["with first ratings"] += 1
                c[f"method {first.get('method', 'iteration')}"] += 1
                unbounded = first.get("unbounded") or {}
                if unbounded.get("up"):
                    c["extreme rule: won every outside game"] += 1
                if unbounded.get("down"):
                    c["extreme rule: lost every outside game"] += 1
                again = [(p.rating_new, p.index_new) for p in result.players]
                before = [(p.rating_new, p.index_new) for p in stored.players]
                if again != before and len(mismatches) < 10:
                    mismatches.append(code)
                update(done, len(rows))
    print(f"{'version':12} {'tournaments':>11}  counts")
    for version in sorted(totals, key=lambda v: min((r[0] for r in rows if r[1] == v), default="")):
        detail = ", ".join(f"{k}: {n}" for k, n in sorted(counts[version].items()))
        print(f"{version:12} {totals[version]:>11}  {detail or '-'}")
    print(f"tournaments with struck players (evaluation_problems): {problems}")
    print(f"re-evaluations differing from the stored ratings: {len(mismatches)} {mismatches}")
    print(f"{time.perf_counter() - started:.1f} s")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
