"""The replay engine on a real PostgreSQL: full and incremental runs, the officer
workflows, run records and the advisory lock."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db.bulk import load_federation
from ratingdb.db.recalc import RecalcBusy, run_recalc
from ratingdb.db.store import load_history
from ratingdb.queries.export import evaluation_rows, residual_rows
from ratingdb.queries.tournament import submission_document
from ratingdb.services.submissions import add_tournament, correct_tournament, delete_tournament
from ratingdb.synth import generate
from tests.conftest import at_head


@pytest.fixture
def fed_engine(scratch_db):
    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        load_federation(session, generate(players=300, years=3, seed=7))
    yield engine
    engine.dispose()


def export(engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with Session(engine) as session:
        return evaluation_rows(session), residual_rows(session)


def in_memory_full_replay(engine) -> dict:
    with Session(engine) as session:
        history, _ = load_history(session)
    stored = {
        (tid, pid): (s.input, s.output)
        for tid, snaps in history.snapshots.items()
        for pid, s in snaps.items()
    }
    history.full_replay()
    fresh = {
        (tid, pid): (s.input, s.output)
        for tid, snaps in history.snapshots.items()
        for pid, s in snaps.items()
    }
    return {"stored": stored, "fresh": fresh}


def submission_of(engine, code: str) -> dict[str, Any]:
    with Session(engine) as session:
        return submission_document(session, code)


def test_full_run_matches_the_in_memory_replay(fed_engine):
    report = run_recalc(fed_engine)
    assert report.full and report.tournaments_evaluated == report.tournaments_total > 10
    replayed = in_memory_full_replay(fed_engine)
    assert replayed["stored"] == replayed["fresh"]
    assert run_recalc(fed_engine).tournaments_evaluated == 0  # nothing pending


def test_delete_then_add_back_restores_everything(fed_engine):
    run_recalc(fed_engine)
    original = export(fed_engine)
    with Session(fed_engine) as session:
        codes = [
            r.code
            for r in session.execute(
                text(
                    "SELECT code FROM tournaments t WHERE kind = 'individual' AND NOT EXISTS ("
                    " SELECT 1 FROM tournaments u WHERE u.id <> t.id AND u.end_date = t.end_date "
                    " AND u.start_date = t.start_date AND u.vkz = t.vkz) "
                    "ORDER BY end_date, start_date"
                )
            )
        ]
    code = codes[len(codes) // 2]
    doc = submission_of(fed_engine, code)
    with Session(fed_engine) as session, session.begin():
        delete_tournament(session, code)
    deleted = run_recalc(fed_engine)
    replayed = in_memory_full_replay(fed_engine)
    assert replayed["stored"] == replayed["fresh"]
    with Session(fed_engine) as session, session.begin():
        add_tournament(session, doc)
    added = run_recalc(fed_engine)
    assert export(fed_engine) == original
    with Session(fed_engine) as session:
        suffix = session.execute(
            text("SELECT count(*) FROM tournaments WHERE end_date >= :d"),
            {"d": date.fromisoformat(doc["tournament"]["end"])},
        ).scalar_one()
    assert added.tournaments_evaluated < suffix
    assert deleted.tournaments_evaluated < suffix


def test_late_insert_and_correction_equal_a_full_replay(fed_engine):
    run_recalc(fed_engine)
    with Session(fed_engine) as session:
        players = [r.id for r in session.execute(text("SELECT id FROM players ORDER BY id"))]
        code = session.execute(
            text(
                "SELECT code FROM tournaments WHERE kind = 'individual' ORDER BY end_date LIMIT 1 "
                "OFFSET 3"
            )
        ).scalar_one()
    late = {
        "tournament": {
            "id": "LATE-1",
            "name": "Late open",
            "start": "2025-06-01",
            "end": "2025-06-03",
            "vkz": "A00",
        },
        "players": [{"id": f"p{k}", "player_id": pid} for k, pid in enumerate(players[:8])]
        + [
            {
                "id": "new",
                "name": "Neu, Nina",
                "birth_year": 2012,
                "sex": "f",
                "club": "A0001",
                "member_since": "2025-01-01",
            },
            {
                "id": "guest",
                "name": "Gast",
                "member": False,
                "rating": 2050,
                "rating_source": "fide",
            },
        ],
        "games": [
            {
                "round": r,
                "white": f"p{(r + k) % 8}",
                "black": f"p{(r + k + 4) % 8}",
                "result": ("1-0", "0-1", "1/2-1/2")[(r * k) % 3],
            }
            for r in range(1, 6)
            for k in range(4)
        ]
        + [{"round": r, "white": "new", "black": f"p{r}", "result": "1/2-1/2"} for r in range(6)]
        + [{"round": 6, "white": "guest", "black": "p7", "result": "1-0"}],
    }
    corrected = submission_of(fed_engine, code)
    corrected["games"] = corrected["games"][1:]  # a game was entered wrongly
    with Session(fed_engine) as session, session.begin():
        add_tournament(session, late)
        correct_tournament(session, code, corrected)
    run_recalc(fed_engine)
    replayed = in_memory_full_replay(fed_engine)
    assert replayed["stored"] == replayed["fresh"]
    incremental = export(fed_engine)
    run_recalc(fed_engine, full=True)
    assert export(fed_engine) == incremental


def test_dry_run_writes_nothing(fed_engine):
    run_recalc(fed_engine)
    before = export(fed_engine)
    code = submission_of(fed_engine, evaluation_rows_first_code(fed_engine))["tournament"]["id"]
    with Session(fed_engine) as session, session.begin():
        delete_tournament(session, code)
    report = run_recalc(fed_engine, dry_run=True)
    assert report.dry_run and report.tournaments_evaluated > 0
    with Session(fed_engine) as session:
        pending = session.execute(
            text("SELECT count(*) FROM change_points WHERE run_id IS NULL")
        ).scalar_one()
    assert pending == 1
    assert export(fed_engine)[0] != before[0]  # the deleted tournament's rows are gone
    run_recalc(fed_engine)


def evaluation_rows_first_code(engine) -> str:
    with Session(engine) as session:
        return session.execute(
            text("SELECT code FROM tournaments ORDER BY end_date LIMIT 1")
        ).scalar_one()


def test_runs_are_serialised(fed_engine):
    with fed_engine.connect() as holder:
        holder.execute(
            text("SELECT pg_advisory_lock(:k)"),
            {"k": __import__("ratingdb.db.recalc").db.recalc.LOCK_KEY},
        )
        with pytest.raises(RecalcBusy):
            run_recalc(fed_engine)
        holder.execute(text("SELECT pg_advisory_unlock_all()"))
    assert run_recalc(fed_engine).tournaments_evaluated > 0


def test_runs_are_recorded(fed_engine):
    run_recalc(fed_engine)
    with Session(fed_engine) as session:
        run = session.execute(
            text('SELECT status, "full", tournaments_evaluated, ratings_changed FROM recalc_runs')
        ).one()
        pending = session.execute(
            text("SELECT count(*) FROM change_points WHERE run_id IS NULL")
        ).scalar_one()
    assert run.status == "succeeded" and run.full and run.tournaments_evaluated > 0
    assert run.ratings_changed > 0 and pending == 0


# -- regressions found in review ------------------------------------------------------------
@pytest.fixture
def club_engine(scratch_db):
    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        session.execute(
            text(
                "INSERT INTO organisations (vkz, name, kind) "
                "VALUES ('A0001', 'SK A', 'club'), ('A00', 'District A00', 'district')"
            )
        )
    yield engine
    engine.dispose()


def _doc(code: str, day: str, players: list[dict[str, Any]], games: list[tuple]) -> dict:
    return {
        "tournament": {"id": code, "name": code, "start": day, "end": day, "vkz": "A00"},
        "players": players,
        "games": [
            {"round": k + 1, "white": w, "black": b, "result": r}
            for k, (w, b, r) in enumerate(games)
        ],
    }


def _add(engine, doc: dict) -> None:
    with Session(engine) as session, session.begin():
        add_tournament(session, doc)


def test_consumed_residual_games_stay_consumed_when_their_creator_is_rewritten(club_engine):
    """A tournament that created a residual game is re-evaluated, the one that consumed it
    (by a first rating) is not: the game must stay consumed."""
    member = {"birth_year": 1980, "sex": "m", "club": "A0001", "member_since": "2000-01-01"}
    _add(
        club_engine,
        _doc(
            "SEED",
            "2024-01-01",
            [{"id": k, "name": f"{k.upper()}, {k}", **member} for k in "pqrs"],
            [],
        ),
    )
    with Session(club_engine) as session:
        ids = {r.surname: r.id for r in session.execute(text("SELECT id, surname FROM players"))}

    def ref(key: str, rating: int | None = None) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": key, "player_id": ids[key.upper()]}
        return entry | ({"rating": rating, "rating_source": "fide"} if rating else {})

    _add(
        club_engine,
        _doc(
            "C",
            "2024-03-01",
            [ref("p"), ref("q", 1800), ref("r", 1700), ref("s", 1600)],
            [
                ("p", "q", "1/2-1/2"),
                ("r", "s", "1-0"),
                ("s", "r", "1-0"),
                ("r", "s", "1/2-1/2"),
                ("s", "r", "1-0"),
                ("r", "s", "1-0"),
            ],
        ),
    )
    guests = [
        {
            "id": f"o{k}",
            "name": f"Guest {k}",
            "member": False,
            "rating": 1500 + 50 * k,
            "rating_source": "fide",
        }
        for k in range(5)
    ]
    _add(
        club_engine,
        _doc(
            "X",
            "2024-06-01",
            [ref("p"), *guests],
            [("p", f"o{k}", "1-0" if k % 2 else "1/2-1/2") for k in range(5)],
        ),
    )
    run_recalc(club_engine, full=True)
    _add(
        club_engine,
        _doc(
            "E",
            "2024-02-01",
            [ref("r", 1700), ref("s", 1600)],
            [("r", "s", "1-0"), ("s", "r", "1-0"), ("r", "s", "1-0")],
        ),
    )
    run_recalc(club_engine)
    incremental = export(club_engine)
    consumed = [r for r in incremental[1] if r["created_by"] == "C"]
    assert consumed and all(r["consumed_by"] == "X" for r in consumed)
    run_recalc(club_engine, full=True)
    assert export(club_engine) == incremental
