"""The streamed full replay on PostgreSQL: it writes exactly what
the in-memory full replay writes, reads and writes in chunks in threads, and a failure in
a thread fails the run cleanly."""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db import stream
from ratingdb.db.bulk import load_federation
from ratingdb.db.recalc import RecalcFailed, run_recalc
from ratingdb.db.snapshot_text import SNAPSHOT_COLUMNS
from ratingdb.db.store import RESIDUAL_COLUMNS, load_history, write_outcome
from ratingdb.engine import collector
from ratingdb.queries.export import evaluation_rows, residual_rows
from ratingdb.synth import generate
from tests.conftest import at_head


@pytest.fixture
def fed(scratch_db) -> Engine:
    """800 players over six years: the DSB timeline's dwz-2016, the Umstufung of
    2026-06-07 and WO 2026; FIDE-rated newcomers, residual games, first ratings."""
    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        load_federation(session, generate(players=800, years=6, seed=11))
    yield engine
    engine.dispose()


def tables(session: Session) -> dict[str, list[Any]]:
    """Every row a replay writes, without the serial ids."""
    return {
        "snapshots": session.execute(
            text(
                f"SELECT {SNAPSHOT_COLUMNS} FROM rating_snapshots "
                "ORDER BY tournament_id, participant_id"
            )
        ).all(),
        "residual": session.execute(
            text(
                f"SELECT {RESIDUAL_COLUMNS}, consumed_by_id FROM residual_games "
                "ORDER BY owner_id, created_by_id, seq"
            )
        ).all(),
        "problems": session.execute(
            text("SELECT tournament_id, participant_ids, message FROM evaluation_problems")
        ).all(),
    }


#: each replay-made residual game's consumer as the stored snapshots say: the stored first
#: rating (first or second stage) that lists it in its ``residual_in`` (None: none does)
AS_STORED = (
    "SELECT r.owner_id, r.created_by_id, r.seq, r.consumed_by_id, "
    "(SELECT s.tournament_id FROM rating_snapshots s "
    "CROSS JOIN LATERAL jsonb_array_elements(s.residual_in) e "
    "WHERE s.player_id = r.owner_id AND s.stored "
    "AND s.player_group IN ('first_stage', 'second_stage') "
    "AND (e ->> 'created_by')::bigint = r.created_by_id AND (e ->> 'seq')::int = r.seq) "
    "FROM residual_games r WHERE r.created_by_id IS NOT NULL"
)


def consumers_as_stored(engine: Engine) -> list[Any]:
    """The residual games whose ``consumed_by_id`` is not what the stored snapshots say,
    and how many are consumed (a replay's write must leave none of the first)."""
    with engine.connect() as conn:
        rows = conn.execute(text(AS_STORED)).all()
    return [r for r in rows if r[3] != r[4]]


def in_memory_full_replay(engine: Engine) -> dict[str, list[Any]]:
    """The full replay without the stream: the whole history loaded, replayed in
    memory and written at once (rolled back afterwards)."""
    with Session(engine) as session, session.begin():
        history, modul_ids = load_history(session)
        outcome = history.full_replay()
        write_outcome(session, history, outcome, modul_ids, clear_all=True)
        written = tables(session)
        session.rollback()
    return written


def test_a_streamed_full_replay_writes_what_the_in_memory_replay_writes(fed, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK", 7)  # many chunks: boundaries between equal end dates
    monkeypatch.setattr(collector, "EVERY", 2)  # collections (and freezes) during the stream
    report = run_recalc(fed)
    assert report.full and report.tournaments_evaluated == report.tournaments_total > 30
    with Session(fed) as session:
        streamed = tables(session)
    assert report.snapshots_written == len(streamed["snapshots"])
    assert streamed == in_memory_full_replay(fed)
    # what the history holds: both rule sets, the Umstufung, FIDE start ratings, first
    # ratings that consumed residual games
    rows = streamed["snapshots"]
    with Session(fed) as session:
        moduls = dict(session.execute(text("SELECT id, version FROM rechenmodule")).all())
    used = {moduls[r.rechenmodul_id] for r in rows}
    assert {"dwz-2016", "2026.1"} <= used
    assert any(r.rating_source == "fide" for r in rows)
    assert any(r.player_group in ("first_stage", "second_stage") and r.stored for r in rows)
    assert any(r.consumed_by_id is not None for r in streamed["residual"])
    assert any(r.created_by_id is not None for r in streamed["residual"])
    # linked from what the replay staged: what the stored first ratings list
    assert consumers_as_stored(fed) == []


def test_the_players_records_load_with_the_collector_paused(fed, monkeypatch):
    """Loading the players' records (many long-lived objects) started full collections of
    everything; the replay loads them with the cyclic collector paused."""
    import gc

    enabled: list[bool] = []
    load = stream.load_players

    def watched(session):
        enabled.append(gc.isenabled())
        return load(session)

    monkeypatch.setattr(stream, "load_players", watched)
    assert gc.isenabled()
    run_recalc(fed)
    assert enabled == [False] and gc.isenabled()


def test_a_full_replay_with_a_worker_process_writes_the_same(fed, monkeypatch):
    """The worker process of ratingdb/engine/parallel.py (forced on for this small
    history): every row as the in-memory replay writes it."""
    monkeypatch.setattr(stream, "MIN_TOURNAMENTS", 0)
    monkeypatch.setattr(stream, "worker_count", lambda configured: 1)
    report = run_recalc(fed)
    assert report.full and report.tournaments_evaluated > 30
    with Session(fed) as session:
        assert tables(session) == in_memory_full_replay(fed)


def test_a_second_full_run_changes_nothing(fed):
    run_recalc(fed)
    before = _exported(fed)
    again = run_recalc(fed, full=True)
    assert again.full and again.ratings_changed == [] and again.deferred == []
    assert _exported(fed) == before


def test_a_dry_full_run_writes_nothing(fed):
    report = run_recalc(fed, full=True, dry_run=True)
    assert report.full and report.snapshots_written > 0 and report.ratings_changed
    with Session(fed) as session:
        assert session.execute(text("SELECT count(*) FROM rating_snapshots")).scalar() == 0


def _exported(engine: Engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with Session(engine) as session:
        return evaluation_rows(session), residual_rows(session)


def test_a_writer_thread_that_fails_fails_the_run(fed, monkeypatch):
    run_recalc(fed)
    before = _exported(fed)
    real = stream._stage
    calls = []

    def broken(raw, batch, modul_ids, timeline):
        calls.append(gc.isenabled())  # off while the replay streams
        if len(calls) == 3:
            raise RuntimeError("disk full")
        real(raw, batch, modul_ids, timeline)

    monkeypatch.setattr(stream, "CHUNK", 5)
    monkeypatch.setattr(stream, "_stage", broken)
    with pytest.raises(RecalcFailed) as failed:
        run_recalc(fed, full=True)
    assert calls == [False, False, False]
    assert "RuntimeError: disk full" in str(failed.value)
    assert " ist bei Turnier " in str(failed.value)
    assert _exported(fed) == before
    assert not [t for t in threading.enumerate() if t.name.startswith("ratingdb-")]
    assert gc.isenabled() and gc.get_freeze_count() == 0  # ratingdb/engine/collector.py
    monkeypatch.setattr(stream, "_stage", real)
    assert run_recalc(fed, full=True).ratings_changed == []
    assert _exported(fed) == before


def test_a_reader_thread_that_fails_fails_the_run(fed, monkeypatch):
    real = stream.tournament_chunks

    def broken(raw, size):
        for k, chunk in enumerate(real(raw, size)):
            if k == 2:
                raise RuntimeError("connection reset")
            yield chunk

    monkeypatch.setattr(stream, "CHUNK", 5)
    monkeypatch.setattr(stream, "tournament_chunks", broken)
    with pytest.raises(RecalcFailed) as failed:
        run_recalc(fed)
    assert "RuntimeError: connection reset" in str(failed.value)
    assert not [t for t in threading.enumerate() if t.name.startswith("ratingdb-")]
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with Session(fed) as session:
        assert session.execute(text("SELECT count(*) FROM rating_snapshots")).scalar() == 0
        pending = session.execute(
            text("SELECT kind FROM change_points WHERE run_id IS NULL")
        ).scalars()
        assert list(pending) == ["full"]
    monkeypatch.setattr(stream, "tournament_chunks", real)
    assert run_recalc(fed).full
