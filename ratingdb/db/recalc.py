"""Recalculation runs (Berechnungslauf, WO 3.7): atomic, serialised, recorded.

A run takes every pending change point, replays the history from the earliest one (see
:mod:`ratingdb.engine.replay`) and writes what changed, all in one transaction. A
PostgreSQL advisory lock serialises runs: a second run exits with a clear message
instead of interleaving. Each run is recorded in ``recalc_runs`` with its change point,
the tournaments it re-evaluated and every player it changed (the one definition of
:mod:`ratingdb.db.change_report`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from ratingdb.db import change_report
from ratingdb.db.change_report import RatingChange
from ratingdb.db.store import (
    earlier_players,
    load_history,
    load_order,
    write_outcome,
)
from ratingdb.engine.changes import Change, plan
from ratingdb.engine.order import OrderKey
from ratingdb.errors import Busy
from ratingdb.rules.errors import RulesError

#: advisory lock key of the recalculation ("ratingdb" in ASCII, as a bigint)
LOCK_KEY = 0x7261_7469_6E67_6462 & 0x7FFF_FFFF_FFFF_FFFF


class RecalcBusy(Busy):
    """Another recalculation run holds the lock."""


@dataclass
class RunReport:
    run_id: int | None
    change_point: date | None
    full: bool
    tournaments_total: int
    tournaments_evaluated: int
    snapshots_written: int
    ratings_changed: list[RatingChange] = field(default_factory=list)
    seconds: float = 0.0
    dry_run: bool = False
    change_ids: list[int] = field(default_factory=list)
    started_at: datetime | None = None
    #: tournaments of this run whose players had to be struck (ratingdb/engine/problems.py)
    problems: list[str] = field(default_factory=list)


def pending_changes(session: Session) -> list[tuple[int, Change]]:
    rows = session.execute(
        text(
            "SELECT id, kind, from_date, tournament_id, player_ids, hold_key "
            "FROM change_points WHERE run_id IS NULL ORDER BY id"
        )
    ).all()
    return [
        (
            r.id,
            Change(
                r.kind,
                r.from_date,
                r.tournament_id,
                frozenset(r.player_ids or ()),
                OrderKey.from_json(r.hold_key) if r.hold_key else None,
            ),
        )
        for r in rows
    ]


def run_recalc(
    engine: Engine,
    *,
    full: bool = False,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunReport:
    """One recalculation run; raises :class:`RecalcBusy` if another one is running."""
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    with engine.connect() as conn:
        tx = conn.begin()
        session = Session(bind=conn)
        try:
            locked = conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
            if not locked.scalar():
                raise RecalcBusy("another recalculation run is in progress; try again later")
            report = _run(session, full=full, dry_run=dry_run, progress=progress)
            report.started_at = started_at
            report.seconds = time.perf_counter() - started
            if dry_run:
                tx.rollback()
            else:
                _finish_run(session, report)
                tx.commit()
            return report
        except RulesError as err:
            if tx.is_active:
                tx.rollback()
            _record_failure(engine, started_at, str(err))
            raise
        except BaseException:
            if tx.is_active:
                tx.rollback()
            raise
        finally:
            session.close()


def dry_run(session: Session) -> RunReport:
    """What the next run would change, computed inside the caller's transaction (for a
    what-if: apply an edit, ask, roll back). Takes no lock and records nothing."""
    return _run(session, full=False, dry_run=True, progress=None)


def _run(
    session: Session,
    *,
    full: bool,
    dry_run: bool,
    progress: Callable[[int, int], None] | None,
) -> RunReport:
    changes = pending_changes(session)
    plan_changes = [Change("full", date.min)] if full else [c for _, c in changes]
    # only tournaments ending on or after the earliest change can move
    since = None if full or not plan_changes else min(c.from_date for c in plan_changes)
    stubs = load_order(session, since=since)
    total = session.execute(text("SELECT count(*) FROM tournaments WHERE rated")).scalar_one()
    replay_plan = plan(plan_changes, stubs)
    change_ids = [cid for cid, _ in changes]
    if replay_plan is None:
        return RunReport(None, None, False, total, 0, 0, dry_run=dry_run)
    earlier: set[int] = set()
    if replay_plan.full:
        history, modul_ids = load_history(session)
        offset = 0  # a full replay walks every tournament
    elif replay_plan.start >= len(stubs):  # e.g. the last tournament was deleted
        published = change_report.before_run(session, (), ())
        return RunReport(
            None,
            min(c.from_date for c in plan_changes),
            False,
            total,
            0,
            0,
            change_report.after_run(session, published),
            dry_run=dry_run,
            change_ids=change_ids,
        )
    else:
        start_key = stubs[replay_plan.start].order_key
        # forcing everything after the change point (a new Rechenmodul) reads it all
        # anyway: load in bulk; otherwise load lazily what the ripple touches
        everything = replay_plan.force >= {t.id for t in stubs[replay_plan.start :]}
        earlier = earlier_players(session, start_key) if replay_plan.everyone_dirty else set()
        history, modul_ids = load_history(
            session,
            from_key=start_key,
            lazy=not everything,
            prior_players=replay_plan.players | earlier,
        )
        # the walk counts from the change point; before it: the tournaments not loaded
        # (ending before ``since``) and those loaded but before the start
        offset = total - len(stubs) + replay_plan.start
    step = None if progress is None else (lambda pos: progress(offset + pos, total))
    outcome = history.apply(plan_changes, progress=step, earlier_players=earlier)
    if progress is not None:
        progress(total, total)
    touched = {s.player_id for snaps in outcome.written.values() for s in snaps if s.player_id}
    published = change_report.before_run(
        session, None if replay_plan.full else outcome.written, touched
    )
    written = write_outcome(session, history, outcome, modul_ids, clear_all=replay_plan.full)
    changed = change_report.after_run(session, published)
    return RunReport(
        None,
        None if replay_plan.full else min(c.from_date for c in plan_changes),
        replay_plan.full,
        total,
        outcome.evaluated,
        written,
        changed,
        dry_run=dry_run,
        change_ids=change_ids,
        problems=[f"{p.code}: {p.message}" for p in outcome.problems.values()],
    )


def _record_failure(engine: Engine, started_at: datetime, message: str) -> None:
    """A failed run changes nothing but is recorded (its change points stay pending)."""
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO recalc_runs (started_at, finished_at, status, message) "
                "VALUES (:s, clock_timestamp(), 'failed', :m)"
            ),
            {"s": started_at, "m": message[:2000]},
        )


def _finish_run(session: Session, report: RunReport) -> None:
    conn = session.connection()
    run_id = conn.execute(
        text(
            'INSERT INTO recalc_runs (started_at, finished_at, change_point, "full", '
            "status, tournaments_evaluated, ratings_changed, changes, message) "
            "VALUES (:started, clock_timestamp(), :cp, :full, 'succeeded', :te, :rc, "
            "CAST(:changes AS jsonb), :msg) "
            "RETURNING id"
        ),
        {
            "started": report.started_at,
            "cp": report.change_point,
            "full": report.full,
            "te": report.tournaments_evaluated,
            "rc": len(report.ratings_changed),
            "changes": json.dumps([c.record() for c in report.ratings_changed]),
            "msg": f"{report.snapshots_written} snapshots written in {report.seconds:.2f} s"
            + (
                f"; {len(report.problems)} tournament(s) with struck players "
                "(see evaluation problems)"
                if report.problems
                else ""
            ),
        },
    ).scalar_one()
    report.run_id = run_id
    if report.change_ids:
        conn.execute(
            text("UPDATE change_points SET run_id = :run WHERE id = ANY(:ids)"),
            {"run": run_id, "ids": report.change_ids},
        )
    conn.execute(
        text("UPDATE tournaments SET status = 'evaluated' WHERE status = 'submitted' AND rated")
    )
