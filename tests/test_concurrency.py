"""Runs and edits at the same time, on a real PostgreSQL (docs/database.md,
"Runs and edits at the same time"): edits and what-ifs made while a run computes never
break it and are never lost, a failed run is recorded, and concurrent writes on one
tournament give clear answers, never a 500."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db.bulk import load_federation
from ratingdb.db.locks import WRITE_KEY, hold_edits
from ratingdb.db.recalc import LOCK_KEY, SERVER_GONE, RecalcFailed, RunReport, run_recalc
from ratingdb.queries.export import evaluation_rows, residual_rows
from ratingdb.queries.tournament import submission_document
from ratingdb.services import tournaments
from ratingdb.services.database import write
from ratingdb.services.submissions import change_membership
from ratingdb.synth import generate
from tests.cli import run as cli
from tests.conftest import at_head
from tests.test_db_stream import consumers_as_stored

#: how long a test waits for the other thread before it fails instead of hanging
WAIT = 120


@pytest.fixture
def fed(scratch_db) -> Iterator[Engine]:
    """The synthetic federation of 300 players over three years, recalculated."""
    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        load_federation(session, generate(players=300, years=3, seed=7))
    run_recalc(engine)
    yield engine
    engine.dispose()


def export(engine: Engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with Session(engine) as session:
        return evaluation_rows(session), residual_rows(session)


def scalar(engine: Engine, sql: str, **params: Any) -> Any:
    with engine.connect() as conn:
        return conn.execute(text(sql), params).scalar()


def codes(engine: Engine, kinds: tuple[str, ...] = ("individual",)) -> list[str]:
    """Tournaments of ``kinds`` in evaluation order."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                text(
                    "SELECT code FROM tournaments WHERE kind = ANY(:k) "
                    "ORDER BY end_date, start_date, vkz, processed_at, id"
                ),
                {"k": list(kinds)},
            ).scalars()
        )


def document(engine: Engine, code: str) -> dict[str, Any]:
    with Session(engine) as session:
        return submission_document(session, code)


def new_tournament(engine: Engine, code: str, day: str) -> dict[str, Any]:
    """A late tournament of eight existing players, on ``day``."""
    with engine.connect() as conn:
        players = list(
            conn.execute(text("SELECT id FROM players ORDER BY id LIMIT 8 OFFSET 20")).scalars()
        )
    return {
        "tournament": {"id": code, "name": code, "start": day, "end": day, "vkz": "A00"},
        "players": [{"id": f"p{k}", "player_id": pid} for k, pid in enumerate(players)],
        "games": [
            {"round": r, "white": f"p{(r + k) % 8}", "black": f"p{(r + k + 4) % 8}",
             "result": ("1-0", "0-1", "1/2-1/2")[(r * k) % 3]}
            for r in range(1, 6) for k in range(4)
        ],
    }  # fmt: skip


class Paused:
    """A progress callback that stops the run at the first position ``at(done, total)``
    accepts, until the test has made its edits (:meth:`meanwhile`)."""

    def __init__(self, at: Callable[[int, int], bool]) -> None:
        self._at = at
        self.reached = threading.Event()
        self.resume = threading.Event()
        self.position: tuple[int, int] | None = None

    def __call__(self, evaluated: int, done: int, total: int) -> None:
        """``run_recalc``'s progress: tournaments re-evaluated, walked, to walk."""
        if self.position is None and self._at(done, total):
            self.position = (done, total)
            self.reached.set()
            assert self.resume.wait(WAIT), "the test never resumed the run"

    def meanwhile(self, run: Callable[[], RunReport], edits: Callable[[], None]) -> RunReport:
        """Start ``run`` in a thread, make ``edits`` while it is paused, return its report."""
        result: dict[str, Any] = {}

        def target() -> None:
            try:
                result["report"] = run()
            except BaseException as err:  # handed to the test below
                result["error"] = err

        thread = threading.Thread(target=target)
        thread.start()
        try:
            assert self.reached.wait(WAIT), "the run never reached the pause"
            edits()
        finally:
            self.resume.set()
            thread.join(WAIT)
        if "error" in result:
            raise result["error"]
        return result["report"]


def status(engine: Engine, code: str) -> tuple[str, int]:
    with engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT t.status, (SELECT count(*) FROM rating_snapshots s "
                "WHERE s.tournament_id = t.id) FROM tournaments t WHERE code = :c"
            ),
            {"c": code},
        ).one()
    return row[0], row[1]


def pending(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return sorted(
            conn.execute(text("SELECT kind FROM change_points WHERE run_id IS NULL")).scalars()
        )


def incremental_equals_full(engine: Engine) -> None:
    """The next run, then a full replay: the database state is the same."""
    run_recalc(engine)
    assert pending(engine) == []
    incremental = export(engine)
    run_recalc(engine, full=True)
    assert export(engine) == incremental
    assert (
        scalar(engine, "SELECT count(*) FROM tournaments WHERE status <> 'evaluated' AND rated")
        == 0
    )


# -- edits and what-ifs while a run computes ----------------------------------------------------
def test_edits_and_what_ifs_while_a_full_run_computes(fed):
    """The run has computed everything; then a correction, a deletion, a late insertion
    and a membership change are committed and a what-if is asked. The run still succeeds,
    writes nothing for the edited tournaments, leaves every edit pending; the next run gives
    what a full replay gives."""
    order = codes(fed)
    corrected, deleted, asked = order[1], order[6], order[-2]
    doc = document(fed, corrected)
    doc["games"] = doc["games"][1:]
    late = new_tournament(fed, "LATE-1", "2025-06-03")
    member = scalar(fed, "SELECT player_id FROM memberships WHERE valid_to IS NULL LIMIT 1")
    club = scalar(
        fed,
        "SELECT o.vkz FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
        "WHERE m.player_id = :p AND m.valid_to IS NULL",
        p=member,
    )
    what_ifs = []

    def edits() -> None:
        write(fed, partial(tournaments.correct_json, ident=corrected, doc=doc))
        write(fed, partial(tournaments.delete, ident=deleted))
        write(fed, partial(tournaments.add_json, doc=late))
        write(fed, partial(change_membership, player_id=member, vkz=club, left=date(2026, 1, 31)))
        what_if_doc = document(fed, asked)
        what_if_doc["games"] = what_if_doc["games"][2:]
        change = partial(tournaments.correct_json, ident=asked, doc=what_if_doc)
        what_ifs.append(tournaments.preview(fed, change))

    paused = Paused(lambda done, total: done == total)  # computed, not yet written
    report = paused.meanwhile(lambda: run_recalc(fed, full=True, progress=paused), edits)
    assert report.full and report.run_id is not None
    assert report.tournaments_evaluated == report.tournaments_total
    assert sorted(report.deferred) == sorted([corrected, deleted, "LATE-1"])
    written, moved = what_ifs[0]
    assert written.tournament == asked and moved.tournaments_evaluated > 0
    # every edit is still pending; the edited tournaments say so
    assert pending(fed) == ["correct", "delete", "insert", "player"]
    assert status(fed, corrected) == ("submitted", 0)
    assert status(fed, "LATE-1") == ("submitted", 0)
    # the evaluations the correction and deletion removed stay for the next run's report
    kept = "SELECT count(DISTINCT tournament_id) FROM removed_snapshots"
    assert scalar(fed, kept) == 2
    assert scalar(fed, "SELECT status FROM recalc_runs WHERE id = :i", i=report.run_id) == (
        "succeeded"
    )
    # the residual games are linked to the first ratings that list them, the edited
    # tournaments' left out (their snapshots are gone until the next run)
    assert consumers_as_stored(fed) == []
    incremental_equals_full(fed)
    assert consumers_as_stored(fed) == []
    assert status(fed, "LATE-1")[0] == "evaluated" and status(fed, "LATE-1")[1] == 8
    assert scalar(fed, kept) == 0


def test_a_first_rating_corrected_while_a_full_run_computes_consumes_nothing(fed):
    """A tournament whose first ratings consumed residual games is corrected while a full
    replay computes: the run leaves it out, and with it its links to those games (the
    streamed write links only what it wrote, ratingdb/db/stream.py); the next run links
    them again."""
    run_recalc(fed)
    consumer = scalar(
        fed,
        "SELECT t.code FROM residual_games r JOIN tournaments t ON t.id = r.consumed_by_id "
        "ORDER BY t.end_date, t.id LIMIT 1",
    )
    assert consumer is not None
    linked = "SELECT count(*) FROM residual_games r JOIN tournaments t ON t.id = r.consumed_by_id "
    linked += "WHERE t.code = :c"
    before = scalar(fed, linked, c=consumer)
    doc = document(fed, consumer)
    doc["tournament"]["name"] = f"{doc['tournament'].get('name') or consumer} (corrected)"

    def edits() -> None:
        write(fed, partial(tournaments.correct_json, ident=consumer, doc=doc))

    paused = Paused(lambda done, total: done == total)
    report = paused.meanwhile(lambda: run_recalc(fed, full=True, progress=paused), edits)
    assert report.deferred == [consumer]
    assert before > 0 and scalar(fed, linked, c=consumer) == 0
    assert consumers_as_stored(fed) == []
    incremental_equals_full(fed)
    assert scalar(fed, linked, c=consumer) == before
    assert consumers_as_stored(fed) == []


def test_edits_while_an_incremental_run_loads_lazily(fed):
    """An incremental run loads the tournaments its ripple reaches while it walks; edits
    committed half-way are not seen (one snapshot) and stay pending."""
    order = codes(fed)
    write(fed, partial(tournaments.add_json, doc=new_tournament(fed, "EARLY-1", "2024-02-03")))
    later = order[-6:]
    deleted, corrected = later[0], later[1]
    doc = document(fed, corrected)
    doc["games"] = doc["games"][:-1]

    def edits() -> None:
        write(fed, partial(tournaments.delete, ident=deleted))
        write(fed, partial(tournaments.correct_json, ident=corrected, doc=doc))

    paused = Paused(lambda done, total: done >= total // 3)
    report = paused.meanwhile(lambda: run_recalc(fed, progress=paused), edits)
    assert not report.full and report.tournaments_evaluated > 0
    assert set(report.deferred) <= {deleted, corrected}
    assert status(fed, "EARLY-1")[0] == "evaluated"
    assert pending(fed) == ["correct", "delete"]
    incremental_equals_full(fed)


# -- a failed run is recorded ----------------------------------------------------------------
def test_a_failed_run_is_recorded_and_changes_nothing(fed, scratch_db):
    order = codes(fed)
    write(fed, partial(tournaments.delete, ident=order[3]))
    before = export(fed)

    def boom(evaluated: int, done: int, total: int) -> None:
        if done >= total // 2:
            raise RuntimeError("boom")

    with pytest.raises(RecalcFailed) as failed:
        run_recalc(fed, full=True, progress=boom)
    message = str(failed.value)
    assert message.startswith("Lauf ") and " ist bei Turnier " in message  # German by default
    assert "RuntimeError: boom (" in message and "nichts wurde geändert" in message
    with fed.connect() as conn:
        run = conn.execute(
            text("SELECT status, message, failed_tournament FROM recalc_runs ORDER BY id DESC")
        ).first()
    everything = codes(fed, ("individual", "team", "match"))
    assert run is not None and run.status == "failed" and run.failed_tournament in everything
    assert run.message.startswith("RuntimeError: boom (tests/test_concurrency.py:")
    assert f"bei Turnier {run.failed_tournament} (Ende " in message
    assert export(fed) == before and pending(fed) == ["delete"]
    shown = cli(["runs"], scratch_db)
    assert shown.returncode == 0
    assert f"failed at {run.failed_tournament}: RuntimeError: boom" in shown.stdout
    incremental_equals_full(fed)


def test_a_run_that_died_is_marked_failed_by_the_next(fed):
    with fed.begin() as conn:
        conn.execute(text("INSERT INTO recalc_runs (status) VALUES ('running')"))
    run_recalc(fed)
    with fed.connect() as conn:
        died = conn.execute(
            text("SELECT status, message FROM recalc_runs ORDER BY id DESC OFFSET 1")
        ).first()
    assert died is not None and died.status == "failed"
    assert died.message.startswith("interrupted: ")


def test_an_edit_waits_for_a_run_only_while_it_writes(fed):
    """An edit holds the write lock shared: a run's write phase waits for it (and a
    what-if does); the run's compute phase does not."""
    write(fed, partial(tournaments.delete, ident=codes(fed)[2]))
    with Session(fed) as session, session.begin():
        hold_edits(session)  # an edit in flight
        done = threading.Event()
        thread = threading.Thread(target=lambda: (run_recalc(fed), done.set()))
        thread.start()
        assert not done.wait(2)  # computed, waiting to write
    thread.join(WAIT)
    assert done.is_set() and pending(fed) == []


# -- a killed run, a lost server ---------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]


def _advisory(key: int) -> dict[str, int]:
    return {"hi": key >> 32, "lo": key & 0xFFFF_FFFF}


def _lock_holders(engine: Engine, key: int, *, granted: bool) -> list[int]:
    """Backends holding (or waiting for) the advisory lock ``key``."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                text(
                    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 "
                    "AND classid::bigint = :hi AND objid::bigint = :lo AND granted = :g"
                ),
                {**_advisory(key), "g": granted},
            ).scalars()
        )


def _until(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _recalc_process(url: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "DATABASE_URL": url.render_as_string(hide_password=False)}
    env["RATINGDB_LANG"] = "en"
    return subprocess.Popen(
        [sys.executable, "-m", "ratingdb.cli", "recalc", "--quiet"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _runs(engine: Engine) -> list[tuple[str, str | None]]:
    with engine.connect() as conn:
        return [
            (r.status, r.message)
            for r in conn.execute(text("SELECT status, message FROM recalc_runs ORDER BY id"))
        ]


@pytest.mark.parametrize("phase", ["compute", "write"])
def test_kill_9_mid_run_then_the_next_run_equals_an_uninterrupted_one(fed, scratch_db, phase):
    """``kill -9`` of ``ratingdb recalc`` while it computes, or when it has computed and
    waits to write: nothing changed, the change points stay pending, the next run marks the
    killed one failed and gives what a full replay gives."""
    order = codes(fed)
    doc = document(fed, order[2])
    doc["games"] = doc["games"][1:]
    write(fed, partial(tournaments.correct_json, ident=order[2], doc=doc))
    write(fed, partial(tournaments.delete, ident=order[-3]))
    write(fed, partial(tournaments.add_json, doc=new_tournament(fed, "LATE-2", "2025-03-03")))
    before, runs_before = export(fed), len(_runs(fed))
    with Session(fed) as session, session.begin():
        hold_edits(session)  # an edit in flight: the run cannot reach its writes
        process = _recalc_process(scratch_db)
        _until(lambda: len(_runs(fed)) > runs_before, "the run to start")
        if phase == "compute":
            time.sleep(0.3)
        else:
            _until(lambda: _lock_holders(fed, WRITE_KEY, granted=False), "the write phase")
        assert _runs(fed)[-1][0] == "running"
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=WAIT)
    # the killed run's server process ends when it notices; then its run lock is free
    _until(lambda: not _lock_holders(fed, LOCK_KEY, granted=True), "the killed run's lock")
    assert export(fed) == before
    assert pending(fed) == ["correct", "delete", "insert"]
    assert status(fed, "LATE-2") == ("submitted", 0)
    out = cli(["recalc", "--quiet"], scratch_db)
    assert out.returncode == 0, out.stderr
    killed = _runs(fed)[-2]
    assert killed[0] == "failed" and (killed[1] or "").startswith("interrupted: ")
    incremental = export(fed)
    run_recalc(fed, full=True)
    assert export(fed) == incremental and pending(fed) == []


def test_the_server_going_away_during_a_run_is_one_line(fed, scratch_db):
    write(fed, partial(tournaments.delete, ident=codes(fed)[4]))
    before = export(fed)
    with Session(fed) as session, session.begin():
        hold_edits(session)
        process = _recalc_process(scratch_db)
        pid = _until(lambda: _lock_holders(fed, WRITE_KEY, granted=False), "the write phase")[0]
        with fed.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        _, stderr = process.communicate(timeout=WAIT)
    assert process.returncode == 1
    assert stderr == "error: the database server went away during the run; nothing was changed\n"
    assert _runs(fed)[-1] == ("failed", SERVER_GONE)
    assert export(fed) == before and pending(fed) == ["delete"]
    incremental_equals_full(fed)
