"""Recalculation runs (Berechnungslauf, WO 3.7): atomic, serialised, recorded, and
never broken by an edit made while they run (docs/database.md, "Runs and edits at the same
time").

A run has two phases on one connection:

1. **compute**, in one ``REPEATABLE READ`` read-only transaction: the run takes the change
   points pending at its start (its snapshot), loads the history and replays it from the
   earliest one (:mod:`ratingdb.engine.replay`). Edits go on meanwhile; the run does not
   see them.
2. **write**, in one short transaction holding the write lock exclusively
   (:mod:`ratingdb.db.locks`: edits in flight finish first, new ones wait): tournaments
   inserted, corrected or deleted since the snapshot (a change point the run did not take,
   or gone) are *deferred*: the run writes nothing for them, their change points stay
   pending and their status ``submitted``, so the next run replays them. Everything else
   is written as computed, which is what a run finished just before those edits would have
   written. Then the run marks the change points it took and commits.

The run lock (an advisory lock held on the run's connection) serialises runs: a second run
exits with a clear message. Each run is recorded in ``recalc_runs``: ``running`` when it
starts, then ``succeeded`` with its change point, the tournaments it re-evaluated and every
player it changed (the one definition of :mod:`ratingdb.db.change_report`), or ``failed``
with the reason and the tournament it was evaluating (its change points stay pending). A
run that died (killed, the server gone) is marked ``failed`` by the next run.
"""

from __future__ import annotations

import contextlib
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from ratingdb.db import change_report
from ratingdb.db.change_report import RatingChange
from ratingdb.db.locks import RUN_KEY, exclude_edits
from ratingdb.db.store import (
    earlier_players,
    load_history,
    load_order,
    write_outcome,
)
from ratingdb.db.stream import (
    FEW_PLAYERS,
    STAGE_TOURNAMENTS,
    Staged,
    create_stage,
    drop_stage,
    stage_changes,
    staged_codes,
    stream_to_stage,
    write_staged,
)
from ratingdb.engine.changes import Change, plan
from ratingdb.engine.history import History
from ratingdb.engine.model import EngineTournament
from ratingdb.engine.order import OrderKey
from ratingdb.engine.replay import ReplayOutcome
from ratingdb.errors import Busy, Failed, RatingdbError
from ratingdb.i18n import N_, _, date_text

#: advisory lock key of the recalculation (:data:`ratingdb.db.locks.RUN_KEY`)
LOCK_KEY = RUN_KEY
#: the one line of a run whose database server went away
SERVER_GONE = N_("the database server went away during the run; nothing was changed")
#: what a run that died leaves in ``recalc_runs``, as the next run records it
INTERRUPTED = (
    "interrupted: the run ended without finishing (the process was killed or lost its "
    "database connection); nothing was changed, its change points stayed pending"
)


class RecalcBusy(Busy):
    """Another recalculation run holds the lock."""


class RecalcFailed(Failed):
    """A run failed for a reason other than the rules (a bug, bad stored parameters, the
    database server gone); it changed nothing and its change points stay pending."""


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
    #: codes of the tournaments inserted, corrected or deleted while the run computed: not
    #: written, left pending for the next run
    deferred: list[str] = field(default_factory=list)
    #: ``ratings_changed`` as the run record's JSON where it was made beside the write (the
    #: first replay of a history); None: made when the run is recorded
    changes_json: str | None = None


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
    progress: Callable[[int, int, int], None] | None = None,
    wait: float = 0,
) -> RunReport:
    """One recalculation run; raises :class:`RecalcBusy` if another one is running (after
    waiting up to ``wait`` seconds for it to end), the :class:`RulesError` or
    :class:`RecalcFailed` of a failed run (recorded, nothing changed). A dry run records
    nothing and writes nothing.
    ``progress(re-evaluated, walked, to walk)`` follows the replay from the change point
    (never called when there is nothing to replay)."""
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        if not _take_run_lock(conn, wait):
            conn.rollback()
            raise RecalcBusy("another recalculation run is in progress; try again later")
        conn.commit()
        started = time.perf_counter()
        started_at = datetime.now(UTC)
        run_id: int | None = None
        at = _Position()
        staging = False
        try:
            if not dry_run:
                run_id = _start_run(conn, started_at)
            if full or _full_pending(conn):
                create_stage(conn)  # a full replay streams (ratingdb/db/stream.py)
                staging = True
            computed = _compute_phase(conn, full=full, progress=progress, at=at, stream=staging)
            at.tournament = None
            report = _write_phase(conn, computed, run_id=run_id, dry_run=dry_run, started=started)
            report.started_at = started_at
            return report
        except BaseException as err:
            if conn.in_transaction():
                _quietly(conn.rollback)
            raise _failed(engine, err, run_id, at, gone=_gone(raw, err)) from err
        finally:
            if staging and not _gone(raw, None):
                _quietly(lambda: drop_stage(conn))
            _unlock(conn, raw)


def _take_run_lock(conn: Connection, wait: float) -> bool:
    """The run lock, at once or within ``wait`` seconds (a run started by an officer's
    submission waits for the nightly one, then goes)."""
    if wait <= 0:
        return bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK_KEY}).scalar())
    conn.execute(text(f"SET LOCAL lock_timeout = '{int(wait * 1000)}ms'"))
    try:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": LOCK_KEY})
    except DBAPIError:  # lock_timeout: the other run is still going
        conn.rollback()
        return False
    return True


def _full_pending(conn: Connection) -> bool:
    """A ``full`` change point is pending (a bulk load leaves one)."""
    found = conn.execute(
        text("SELECT EXISTS (SELECT 1 FROM change_points WHERE run_id IS NULL AND kind = 'full')")
    ).scalar()
    conn.commit()
    return bool(found)


def dry_run(session: Session) -> RunReport:
    """What the next run would change, computed inside the caller's transaction (for a
    what-if: apply an edit, ask, roll back). Records nothing; the caller holds the write
    lock (:func:`ratingdb.db.locks.exclude_edits`), so nothing changes meanwhile."""
    return _write(session, _compute(session, full=False, progress=None, at=_Position()), True)


@dataclass
class _Position:
    """The tournament the replay is evaluating (named when a run fails)."""

    tournament: EngineTournament | None = None


@dataclass
class _Computed:
    """The compute phase's result: the report so far, and what to write (None: nothing)."""

    report: RunReport
    history: History | None = None
    outcome: ReplayOutcome | None = None
    modul_ids: dict[str, int] = field(default_factory=dict)
    clear_all: bool = False
    #: a streamed full replay: its snapshots wait in the run's temporary tables
    staged: Staged | None = None


def _start_run(conn: Connection, started_at: datetime) -> int:
    """Record the run as ``running`` (committed at once); a run still ``running`` from
    before died without finishing (this run holds the lock): it is marked failed."""
    conn.execute(
        text(
            "UPDATE recalc_runs SET status = 'failed', message = :m, "
            "finished_at = greatest(started_at, clock_timestamp()) WHERE status = 'running'"
        ),
        {"m": INTERRUPTED},
    )
    run_id = conn.execute(
        text("INSERT INTO recalc_runs (started_at, status) VALUES (:s, 'running') RETURNING id"),
        {"s": started_at},
    ).scalar_one()
    conn.commit()
    return int(run_id)


def _compute_phase(
    conn: Connection,
    *,
    full: bool,
    progress: Callable[[int, int, int], None] | None,
    at: _Position,
    stream: bool = False,
) -> _Computed:
    """Phase 1: replay on one consistent snapshot of the database (REPEATABLE READ, read
    only); nothing is locked, edits go on. ``stream``: a full replay streams into the
    temporary tables of :func:`create_stage` (committed: the transaction writes nothing
    else)."""
    tx = conn.begin()
    session = Session(bind=conn)
    try:
        conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"))
        computed = _compute(session, full=full, progress=progress, at=at, stream=stream)
        tx.commit()
        return computed
    finally:
        session.close()
        if tx.is_active:
            _quietly(tx.rollback)  # on a lost connection the error to report is the first


def _write_phase(
    conn: Connection, computed: _Computed, *, run_id: int | None, dry_run: bool, started: float
) -> RunReport:
    """Phase 2: with edits excluded, write what is still current, record the run, commit
    (a dry run rolls back)."""
    tx = conn.begin()
    session = Session(bind=conn)
    try:
        exclude_edits(session)
        if computed.clear_all:  # a full run rewrites every page (migration 0018)
            # the run's rows skip the row triggers that name each scope (migration 0018)
            session.execute(text("SELECT set_config('ratingdb.scopes', 'all', true)"))
        report = _write(session, computed, dry_run)
        report.run_id = run_id
        report.seconds = time.perf_counter() - started
        if dry_run:
            tx.rollback()
        else:
            _finish_run(session, report, staged=computed.staged is not None)
            tx.commit()
        return report
    finally:
        session.close()


def _compute(
    session: Session,
    *,
    full: bool,
    progress: Callable[[int, int, int], None] | None,
    at: _Position,
    stream: bool = False,
) -> _Computed:
    changes = pending_changes(session)
    plan_changes = [Change("full", date.min)] if full else [c for _, c in changes]
    if stream and any(c.kind == "full" for c in plan_changes):
        return _stream(session, [cid for cid, _ in changes], progress, at)
    # only tournaments ending on or after the earliest change can move
    since = None if full or not plan_changes else min(c.from_date for c in plan_changes)
    stubs = load_order(session, since=since)
    total = session.execute(text("SELECT count(*) FROM tournaments WHERE rated")).scalar_one()
    replay_plan = plan(plan_changes, stubs)
    change_ids = [cid for cid, _ in changes]
    if replay_plan is None:
        return _Computed(RunReport(None, None, False, total, 0, 0))
    earlier: set[int] = set()
    if replay_plan.full:
        history, modul_ids = load_history(session)
        offset = 0  # a full replay walks every tournament
    elif replay_plan.start >= len(stubs):  # e.g. the last tournament was deleted
        point = min(c.from_date for c in plan_changes)
        return _Computed(RunReport(None, point, False, total, 0, 0, change_ids=change_ids))
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
    ordered = history.ordered()  # the order the replay walks (and names a failure by)
    # progress: tournaments re-evaluated so far, tournaments walked from the change point
    # (the loaded history starts there; a full replay: at the beginning), how many there are
    walk = total - offset

    def step(pos: int, evaluated: int) -> None:
        at.tournament = ordered[pos]
        if progress is not None:
            progress(evaluated, pos, walk)

    outcome = history.apply(plan_changes, progress=step, earlier_players=earlier)
    at.tournament = None
    if progress is not None:
        progress(outcome.evaluated, walk, walk)
    report = RunReport(
        None,
        None if replay_plan.full else min(c.from_date for c in plan_changes),
        replay_plan.full,
        total,
        outcome.evaluated,
        0,
        change_ids=change_ids,
    )
    return _Computed(report, history, outcome, modul_ids, clear_all=replay_plan.full)


def _stream(
    session: Session,
    change_ids: list[int],
    progress: Callable[[int, int, int], None] | None,
    at: _Position,
) -> _Computed:
    """A full replay streamed in bounded memory (ratingdb/db/stream.py)."""
    total = session.execute(text("SELECT count(*) FROM tournaments WHERE rated")).scalar_one()

    def step(t: EngineTournament, evaluated: int) -> None:
        at.tournament = t
        if progress is not None:
            progress(evaluated, evaluated, total)

    staged = stream_to_stage(session, step)
    at.tournament = None
    if progress is not None:
        progress(staged.evaluated, total, total)
    report = RunReport(None, None, True, total, staged.evaluated, 0, change_ids=change_ids)
    return _Computed(report, clear_all=True, staged=staged)


def _deferred(
    session: Session, taken: list[int], written: list[int] | None
) -> dict[int, str | None]:
    """Tournaments edited since the run's snapshot, by id, with their code if they still
    exist: a change point the run did not take names them, or they are gone (of those the
    run wrote: ``written``, or None: those it staged)."""
    source = (
        "unnest(CAST(:written AS bigint[])) AS w(id)"
        if written is not None
        else f"{STAGE_TOURNAMENTS} w"
    )
    rows = session.execute(
        text(
            "SELECT c.tournament_id AS id, t.code FROM change_points c "
            "LEFT JOIN tournaments t ON t.id = c.tournament_id "
            "WHERE c.run_id IS NULL AND c.tournament_id IS NOT NULL AND c.id <> ALL(:taken) "
            f"UNION SELECT w.id, NULL FROM {source} "
            "WHERE NOT EXISTS (SELECT 1 FROM tournaments t WHERE t.id = w.id)"
        ),
        {"taken": taken, "written": written or []},
    ).all()
    return {r.id: r.code for r in rows}


def _write(session: Session, computed: _Computed, dry_run: bool) -> RunReport:
    report, history, outcome = computed.report, computed.history, computed.outcome
    report.dry_run = dry_run
    if report.change_point is None and not report.full:  # nothing pending
        return report
    if computed.staged is not None:
        return _write_staged(session, report, computed.staged)
    if history is None or outcome is None:  # nothing to replay (the last tournament deleted)
        deferred = _deferred(session, report.change_ids, [])
        published = change_report.before_run(session, (), (), deferred=deferred)
        report.ratings_changed = change_report.after_run(session, published)
        return report
    deferred = _deferred(session, report.change_ids, list(outcome.written))
    for tid in deferred:  # edited while the run computed: the next run replays them
        outcome.written.pop(tid, None)
        outcome.problems.pop(tid, None)
    known = {t.id: t.code for t in history.tournaments}  # a deleted one's code
    report.deferred = sorted(
        {code or known.get(tid) or f"#{tid}" for tid, code in deferred.items()}
    )
    touched = {s.player_id for snaps in outcome.written.values() for s in snaps if s.player_id}
    published = change_report.before_run(
        session, None if computed.clear_all else outcome.written, touched, deferred=deferred
    )
    written = write_outcome(
        session, history, outcome, computed.modul_ids, clear_all=computed.clear_all
    )
    changed = change_report.after_run(session, published)
    report.snapshots_written = written
    report.ratings_changed = changed
    report.problems = [f"{p.code}: {p.message}" for p in outcome.problems.values()]
    return report


def _write_staged(session: Session, report: RunReport, staged: Staged) -> RunReport:
    """The write of a streamed full replay: everything staged but the tournaments edited
    while the run computed."""
    deferred = _deferred(session, report.change_ids, None)
    problems = [p for tid, p in staged.problems.items() if tid not in deferred]
    gone = staged_codes(session, [tid for tid, code in deferred.items() if code is None])
    report.deferred = sorted({code or gone.get(tid) or f"#{tid}" for tid, code in deferred.items()})
    # only players with a changed snapshot can change (ratingdb/db/stream.py)
    changed = stage_changes(session, deferred)
    if changed is not None and len(changed) <= FEW_PLAYERS:
        published = change_report.before_run(session, (), changed, deferred=deferred)
    else:  # many players, or the first replay (None: everyone)
        published = change_report.before_run(session, None, (), deferred=deferred)
    # the first replay: what it wrote is what it staged, unless tournaments were left out
    latest = None if deferred else staged.latest
    make = change_report.first_run_beside(session, published, latest)
    if make is not None:
        # its report needs nothing the write changes but the names: a thread makes it
        # (and its JSON) while the server inserts and indexes the rows (at 250,000 players
        # 209,173 changes, about 1.5 s of the interpreter's time)
        with ThreadPoolExecutor(1) as beside:
            made = beside.submit(_first_report, make)
            report.snapshots_written = write_staged(session, problems, deferred)
        report.ratings_changed, report.changes_json = made.result()
    else:
        report.snapshots_written = write_staged(session, problems, deferred)
        report.ratings_changed = change_report.after_run(session, published, latest)
    report.problems = [f"{p.code}: {p.message}" for p in problems]
    return report


def _first_report(make: Callable[[], list[RatingChange]]) -> tuple[list[RatingChange], str]:
    changes = make()
    return changes, change_report.records_json(changes)


def _unlock(conn: Connection, raw: Any) -> None:
    """Release the run lock; a connection that is gone (or fails now) is invalidated, never
    returned to a pool: the server released the lock with it."""
    if not _gone(raw, None):
        try:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
            conn.commit()
            return
        except Exception:  # the run's outcome stands; the server drops the lock with us
            pass
    _quietly(conn.invalidate)


def _gone(raw: Any, err: BaseException | None) -> bool:
    """The run's connection to the database server is lost."""
    if isinstance(err, DBAPIError) and err.connection_invalidated:
        return True
    return raw is None or bool(raw.closed) or bool(getattr(raw, "broken", False))


def _quietly(action: Callable[[], Any]) -> None:
    """Clean up after a failure without hiding it (the connection may be gone)."""
    with contextlib.suppress(Exception):  # the original error is the one to report
        action()


def _reason(err: BaseException) -> str:
    """One line: the error's class and message, and where it was raised (a bug's place)."""
    if isinstance(err, RatingdbError):
        return str(err)
    if isinstance(err, KeyboardInterrupt | SystemExit):
        return "interrupted"
    first = (str(err).strip().splitlines() or [""])[0]
    where = ""
    tb = traceback.extract_tb(err.__traceback__)
    if tb:
        frame = tb[-1]
        path = Path(frame.filename)
        with contextlib.suppress(ValueError):  # inside the checkout: relative to it
            path = path.resolve().relative_to(Path(__file__).resolve().parents[2])
        where = f" ({path}:{frame.lineno})"
    return f"{type(err).__name__}: {first}{where}" if first else f"{type(err).__name__}{where}"


def _failed(
    engine: Engine, err: BaseException, run_id: int | None, at: _Position, *, gone: bool
) -> BaseException:
    """Record the failed run (if it was recorded as running) and the error to raise."""
    if isinstance(err, RecalcBusy):
        return err
    t = at.tournament
    reason = SERVER_GONE if gone else _reason(err)
    if run_id is not None:
        _record_failure(engine, run_id, reason, t.code if t else None)
    if gone:
        return RecalcFailed(_(SERVER_GONE))
    if isinstance(err, RatingdbError | KeyboardInterrupt | SystemExit):
        return err
    values = {"run": run_id, "reason": reason}
    if t is not None:
        values |= {"code": t.code, "end": date_text(t.end)}
    if run_id is None:
        message = (
            _("the dry run failed at tournament %(code)s (ends %(end)s): %(reason)s")
            if t is not None
            else _("the dry run failed: %(reason)s")
        )
    elif t is not None:
        message = _(
            "run %(run)d failed at tournament %(code)s (ends %(end)s): %(reason)s; nothing was "
            "changed, the change points stay pending (`ratingdb runs`)"
        )
    else:
        message = _(
            "run %(run)d failed: %(reason)s; nothing was changed, the change points stay "
            "pending (`ratingdb runs`)"
        )
    return RecalcFailed(message % values)


def _record_failure(engine: Engine, run_id: int, message: str, tournament: str | None) -> None:
    """A failed run changes nothing but is recorded (its change points stay pending). On a
    fresh connection; if the server is gone the next run records it as interrupted."""

    def record() -> None:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE recalc_runs SET status = 'failed', message = :m, "
                    "failed_tournament = :t, finished_at = greatest(started_at, "
                    "clock_timestamp()) WHERE id = :id"
                ),
                {"id": run_id, "m": message[:2000], "t": tournament},
            )

    _quietly(record)


def _finish_run(session: Session, report: RunReport, *, staged: bool = False) -> None:
    """Record the succeeded run, mark the change points it took, and set ``evaluated`` on
    the submitted tournaments that have snapshots and no pending change point (one edited
    during the run stays ``submitted`` until the next run evaluates it). ``staged``: a
    streamed full replay wrote the run (ratingdb/db/stream.py): its staged tournaments are
    the ones with snapshots now (a tournament left out, edited during the run, has a
    pending change point), so their list is joined instead of probing the snapshots of
    every tournament (0.35 s at 250,000 players)."""
    conn = session.connection()
    run_id = report.run_id
    assert run_id is not None
    conn.execute(
        text(
            "UPDATE recalc_runs SET finished_at = greatest(started_at, clock_timestamp()), "
            "change_point = :cp, \"full\" = :full, status = 'succeeded', "
            "tournaments_evaluated = :te, ratings_changed = :rc, "
            "changes = CAST(:changes AS jsonb), message = :msg WHERE id = :id"
        ),
        {
            "id": run_id,
            "cp": report.change_point,
            "full": report.full,
            "te": report.tournaments_evaluated,
            "rc": len(report.ratings_changed),
            "changes": report.changes_json
            if report.changes_json is not None
            else change_report.records_json(report.ratings_changed),
            "msg": f"{report.snapshots_written} snapshots written in {report.seconds:.2f} s"
            + (
                f"; {len(report.problems)} tournament(s) with struck players "
                "(see evaluation problems)"
                if report.problems
                else ""
            )
            + (
                f"; {len(report.deferred)} tournament(s) edited during the run left pending: "
                + ", ".join(report.deferred[:20])
                if report.deferred
                else ""
            ),
        },
    )
    if report.change_ids:
        conn.execute(
            text("UPDATE change_points SET run_id = :run WHERE id = ANY(:ids)"),
            {"run": run_id, "ids": report.change_ids},
        )
    has_snapshots = (
        f"AND EXISTS (SELECT 1 FROM {STAGE_TOURNAMENTS} r WHERE r.id = t.id)"
        if staged
        # a scalar subquery, not EXISTS: the planner turned EXISTS into a hash join
        # over every snapshot (0.3 s at 250,000 players); this probes the index
        else "AND (SELECT true FROM rating_snapshots s WHERE s.tournament_id = t.id LIMIT 1)"
    )
    conn.execute(
        text(
            "UPDATE tournaments t SET status = 'evaluated' WHERE status = 'submitted' AND rated "
            "AND NOT EXISTS (SELECT 1 FROM change_points c WHERE c.run_id IS NULL "
            "AND c.tournament_id = t.id) " + has_snapshots
        )
    )
