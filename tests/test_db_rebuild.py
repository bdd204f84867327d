"""The first full replay of a loaded history builds ``rating_snapshots``' indexes and
foreign keys after its insert (``ratingdb/db/rebuild.py``): the same rows as the
row-by-row insert, the same constraints and indexes afterwards (names, definitions,
validated), a row that breaks one refused with everything rolled back, and nothing dropped
where another table refers to the table."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ratingdb.db import stream
from ratingdb.db.bulk import load_federation
from ratingdb.db.rebuild import built_after
from ratingdb.db.recalc import run_recalc
from ratingdb.synth import generate
from tests.conftest import at_head
from tests.test_db_stream import tables

CATALOG = (
    "SELECT conname, contype, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
    "WHERE conrelid = 'rating_snapshots'::regclass "
    "UNION ALL SELECT indexname, 'i', indexdef, true FROM pg_indexes "
    "WHERE tablename = 'rating_snapshots' ORDER BY 1, 2"
)
#: the same of the two other tables the first replay fills with keys checked after the rows
OTHERS = (
    "SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid), convalidated "
    "FROM pg_constraint WHERE conrelid IN "
    "('tournament_calculations'::regclass, 'residual_games'::regclass) "
    "UNION ALL SELECT tablename, indexname, 'i', indexdef, true FROM pg_indexes "
    "WHERE tablename IN ('tournament_calculations', 'residual_games') ORDER BY 1, 2, 3"
)


@pytest.fixture
def fed(scratch_db) -> Engine:
    at_head(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        load_federation(session, generate(players=300, years=4, seed=5))
    yield engine
    engine.dispose()


def catalog(engine: Engine, query: str = CATALOG) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(text(query)).all())


def test_the_first_replay_builds_the_constraints_after_its_rows(fed, monkeypatch):
    before, others = catalog(fed), catalog(fed, OTHERS)
    assert sum(row[1] == "f" for row in before) == 4 and sum(row[1] == "i" for row in before) == 3
    assert sum(row[2] == "f" for row in others) == 4 and sum(row[2] == "i" for row in others) == 6
    built: list[str] = []
    real = stream.built_after

    def counting(conn: Any, table: str, **keys: bool) -> Any:
        built.append(table)
        return real(conn, table, **keys)

    monkeypatch.setattr(stream, "built_after", counting)
    monkeypatch.setattr(stream, "BUILT_AFTER_ROWS", 1)
    run_recalc(fed, full=True)
    assert built == ["rating_snapshots", "tournament_calculations", "residual_games"]
    assert catalog(fed) == before
    assert catalog(fed, OTHERS) == others
    # the calculation-date trigger, off for the insert, is on again; every replayed
    # tournament was stamped once all the same (WO 6.5.2.1 item 4)
    assert stamp_trigger(fed) == "O"
    stamped = calculated(fed)
    with Session(fed) as session:
        fast = tables(session)
        rated = session.execute(text("SELECT count(*) FROM tournaments WHERE rated")).scalar()
    assert len(stamped) == rated > 0
    # the same replay again from empty, row by row: the same rows
    with Session(fed) as session, session.begin():
        session.execute(text("DELETE FROM rating_snapshots"))
    monkeypatch.setattr(stream, "BUILT_AFTER_ROWS", 10**9)
    run_recalc(fed, full=True)
    assert len(built) == 3
    with Session(fed) as session:
        assert tables(session) == fast
    assert len(fast["snapshots"]) > 300 and len(fast["residual"]) > 0
    assert stamp_trigger(fed) == "O"
    again = calculated(fed)
    assert again.keys() == stamped.keys()
    assert all(again[t][0] == stamped[t][0] < again[t][1] for t in again)  # re-stamped


def stamp_trigger(engine: Engine) -> str:
    """``tgenabled`` of the trigger that stamps calculation dates (O: on)."""
    with engine.connect() as conn:
        return str(
            conn.execute(
                text("SELECT tgenabled FROM pg_trigger WHERE tgname = :n"),
                {"n": stream.STAMP_TRIGGER},
            ).scalar_one()
        )


def calculated(engine: Engine) -> dict[int, tuple[Any, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT tournament_id, evaluated_at, calculated_at FROM tournament_calculations")
        )
        return {r[0]: (r[1], r[2]) for r in rows}


def test_a_row_that_breaks_a_foreign_key_is_refused_and_nothing_stays_dropped(fed):
    run_recalc(fed, full=True)
    before = catalog(fed)
    with fed.connect() as conn:
        rows = conn.execute(text("SELECT count(*) FROM rating_snapshots")).scalar_one()
    broken = pytest.raises(IntegrityError, match="fk_rating_snapshots_player_id_players")
    with broken, fed.begin() as conn:
        conn.execute(text("CREATE TEMP TABLE one AS SELECT * FROM rating_snapshots LIMIT 1"))
        conn.execute(text("UPDATE one SET player_id = 999999999"))
        conn.execute(text("DELETE FROM rating_snapshots"))
        with built_after(conn, "rating_snapshots", primary_key=True) as dropped:
            assert dropped
            assert len(catalog_of(conn)) == len(before) - 9  # 4 + 1 + 1 constraints, 3 indexes
            conn.execute(text("INSERT INTO rating_snapshots SELECT * FROM one"))
    assert catalog(fed) == before
    with fed.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM rating_snapshots")).scalar_one() == rows


def catalog_of(conn: Any) -> list[Any]:
    return list(conn.execute(text(CATALOG)).all())


def test_a_table_another_refers_to_is_left_alone(fed):
    with fed.begin() as conn:
        conn.execute(
            text("CREATE TABLE snapshot_notes (snapshot_id bigint REFERENCES rating_snapshots(id))")
        )
        before = catalog_of(conn)
        with built_after(conn, "rating_snapshots") as dropped:
            assert not dropped
            assert catalog_of(conn) == before
        conn.execute(text("DROP TABLE snapshot_notes"))


def test_a_reader_holding_a_referenced_table_makes_it_insert_row_by_row(fed, monkeypatch):
    """Dropping a foreign key locks the table it refers to; with a reader inside
    ``players`` the locks are not free within the wait, nothing is dropped (no deadlock
    with the reader), and the transaction's lock timeout is what it was."""
    from ratingdb.db import rebuild

    monkeypatch.setattr(rebuild, "LOCK_WAIT", "200ms")
    before = catalog(fed)
    with fed.connect() as reader:
        reader.execute(text("SELECT count(*) FROM players")).scalar_one()  # holds its lock
        with fed.begin() as conn:
            conn.execute(text("SET LOCAL lock_timeout = '7s'"))
            with built_after(conn, "rating_snapshots") as dropped:
                assert not dropped
                assert catalog_of(conn) == before
            assert conn.execute(text("SHOW lock_timeout")).scalar_one() == "7s"
        reader.rollback()
    assert catalog(fed) == before


def test_the_autovacuum_wait_is_shortened_for_the_lock_only(fed):
    """While the run takes its locks it waits ``AUTOVACUUM_WAIT`` (not ``deadlock_timeout``)
    before PostgreSQL cancels an autovacuum worker in its way; afterwards the setting is
    what it was, after a refused attempt too."""
    from ratingdb.db import rebuild

    seen: list[str] = []
    with fed.begin() as conn:
        conn.execute(text("SET LOCAL deadlock_timeout = '3s'"))
        real = conn.execute

        def watching(statement: Any, *args: Any, **kwargs: Any) -> Any:
            if str(statement).startswith("LOCK TABLE"):
                seen.append(real(text("SHOW deadlock_timeout")).scalar_one())
            return real(statement, *args, **kwargs)

        conn.execute = watching  # type: ignore[method-assign]
        assert rebuild._locked(conn, ["rating_snapshots", "players"])
        conn.execute = real  # type: ignore[method-assign]
        assert seen == ["50ms"]
        assert conn.execute(text("SHOW deadlock_timeout")).scalar_one() == "3s"


def test_a_refused_lock_leaves_the_autovacuum_wait_as_it_was(fed, monkeypatch):
    """A reader holds a table: the attempt is rolled back, and with it the shortened
    wait."""
    from ratingdb.db import rebuild

    monkeypatch.setattr(rebuild, "LOCK_WAIT", "200ms")
    with fed.connect() as reader:
        reader.execute(text("SELECT count(*) FROM players")).scalar_one()  # holds its lock
        with fed.begin() as conn:
            conn.execute(text("SET LOCAL deadlock_timeout = '3s'"))
            assert not rebuild._locked(conn, ["rating_snapshots", "players"])
            assert conn.execute(text("SHOW deadlock_timeout")).scalar_one() == "3s"
        reader.rollback()


def test_a_role_that_may_not_shorten_the_wait_still_locks(fed):
    """Only a superuser may set ``deadlock_timeout``: for another role the refusal is
    rolled back to a savepoint and the locks are taken as before."""
    from ratingdb.db import rebuild

    with fed.begin() as conn:
        conn.execute(text("DROP ROLE IF EXISTS rebuild_plain"))
        conn.execute(text("CREATE ROLE rebuild_plain"))
        conn.execute(text("GRANT ALL ON ALL TABLES IN SCHEMA public TO rebuild_plain"))
        conn.execute(text("SET LOCAL ROLE rebuild_plain"))
        assert not rebuild._setting(conn, "deadlock_timeout", "50ms")
        assert rebuild._locked(conn, ["rating_snapshots", "players"])
        assert conn.execute(text("SELECT count(*) FROM players")).scalar_one() > 0
        conn.execute(text("RESET ROLE"))
        conn.execute(text("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM rebuild_plain"))
        conn.execute(text("DROP ROLE rebuild_plain"))


def pages(engine: Engine) -> dict[int, tuple[int, str]]:
    """Each tournament's page in the table (the block of its row's current version) and
    status."""
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT id, (ctid::text::point)[0]::int AS page, status FROM tournaments")
        ).all()
    return {r.id: (r.page, r.status) for r in rows}


def test_the_first_replays_status_update_stays_on_each_page(scratch_db):
    """Migration 0020 keeps half of each page of ``tournaments`` free: the run's
    ``status = 'evaluated'`` of every tournament (the whole table at the first replay of a
    loaded history) writes each row's new version on its own page, so no index gets an
    entry for it (a heap-only tuple). Loaded full, every row after the first few moved."""
    at_head(scratch_db)
    fed = create_engine(scratch_db, poolclass=NullPool)
    with Session(fed) as session, session.begin():
        load_federation(session, generate(players=1000, years=3, seed=5))  # 59 tournaments
    before = pages(fed)
    assert {status for _, status in before.values()} == {"submitted"}
    assert len({page for page, _ in before.values()}) > 1  # more than one page to fill
    run_recalc(fed, full=True)
    after = pages(fed)
    assert {status for _, status in after.values()} == {"evaluated"}
    assert {tid: page for tid, (page, _) in after.items()} == {
        tid: page for tid, (page, _) in before.items()
    }
    with fed.connect() as conn:
        options = conn.execute(
            text("SELECT reloptions FROM pg_class WHERE oid = 'tournaments'::regclass")
        ).scalar_one()
    assert options == ["fillfactor=50"]
    fed.dispose()
