"""Alembic: upgrade on an empty database, no drift, downgrade to base and up again."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect
from sqlalchemy.pool import NullPool

from ratingdb.db import migrate
from ratingdb.db.models import Base


def tables(url) -> set[str]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_check_downgrade_upgrade(scratch_db):
    assert migrate.current(scratch_db) is None
    migrate.upgrade(scratch_db)
    assert migrate.current(scratch_db) == migrate.head()
    assert tables(scratch_db) == set(Base.metadata.tables)
    command.check(migrate.alembic_config(scratch_db))  # raises on drift
    migrate.downgrade(scratch_db, "base")
    assert migrate.current(scratch_db) is None
    assert tables(scratch_db) == set()
    migrate.upgrade(scratch_db)
    assert migrate.current(scratch_db) == migrate.head()


def test_0007_gives_an_existing_database_the_dsb_timeline(scratch_db):
    """A database at 0006 with a user's own version and a tournament: 0007 adds the DSB
    timeline around them, moves the seeded 2026.1 to 2026-06-08, adds the Umstufung and a
    change point from the beginning (the next run replays the history)."""
    from datetime import date

    from sqlalchemy import text

    migrate.upgrade(scratch_db, "0006")
    engine = create_engine(scratch_db, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO rechenmodule (family, version, valid_from, parameters) "
                "VALUES ('dwz2026', 'mine', DATE '2016-08-01', '{}')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO tournaments (code, name, vkz, start_date, end_date) "
                "VALUES ('T1', 'Herbstturnier 2025', '000', DATE '2025-10-01', DATE '2025-10-05')"
            )
        )
    migrate.upgrade(scratch_db)
    with engine.connect() as conn:
        versions = conn.execute(
            text("SELECT version, valid_from FROM rechenmodule ORDER BY valid_from")
        ).all()
        adjustments = conn.execute(
            text("SELECT effective_on, formula, raises_index FROM rating_adjustments")
        ).all()
        changes = conn.execute(text("SELECT kind, from_date FROM change_points")).all()
    engine.dispose()
    assert [tuple(v) for v in versions] == [
        ("dwz-elobase", date(1993, 1, 1)),
        ("dwz-wo2002", date(2002, 5, 9)),
        ("dwz-2014", date(2011, 1, 1)),
        ("mine", date(2016, 8, 1)),  # the federation's own version wins over dwz-2016
        ("2026.1", date(2026, 6, 8)),
    ]
    assert [tuple(a) for a in adjustments] == [(date(2026, 6, 7), "dwz-2026-umstufung", True)]
    assert [tuple(c) for c in changes] == [("rechenmodul", date(1, 1, 1))]
    migrate.downgrade(scratch_db, "0006")
    engine = create_engine(scratch_db, poolclass=NullPool)
    with engine.connect() as conn:
        left = conn.execute(text("SELECT version, valid_from FROM rechenmodule")).all()
    engine.dispose()
    assert sorted(tuple(v) for v in left) == [
        ("2026.1", date(2026, 7, 1)),
        ("mine", date(2016, 8, 1)),
    ]


def test_0023_gives_the_oldest_version_elobases_probabilities(scratch_db):
    """A database seeded with the classic text's two-digit tables (``dwz-classic`` from 1993,
    as 0007 seeded it before) gets ``dwz-elobase`` in the same row, with a change point from
    the beginning when it has tournaments; the downgrade gives the classic text back."""
    from datetime import date

    from sqlalchemy import text

    from ratingdb.rules.dwz_classic.versions import CLASSIC, ELOBASE

    migrate.upgrade(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)

    def oldest() -> tuple[str, dict]:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT version, parameters FROM rechenmodule WHERE valid_from = :d"),
                {"d": date(1993, 1, 1)},
            ).one()
        return row.version, row.parameters

    assert oldest() == ("dwz-elobase", ELOBASE.to_dict())
    migrate.downgrade(scratch_db, "0022")
    assert oldest() == ("dwz-classic", CLASSIC.to_dict())
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO tournaments (code, name, vkz, start_date, end_date) "
                "VALUES ('T1', 'Pokal 1998', '000', DATE '1998-03-01', DATE '1998-03-08')"
            )
        )
        conn.execute(text("DELETE FROM change_points"))
    migrate.upgrade(scratch_db)
    assert oldest() == ("dwz-elobase", ELOBASE.to_dict())
    with engine.connect() as conn:
        changes = conn.execute(text("SELECT kind, from_date FROM change_points")).all()
    engine.dispose()
    assert [tuple(c) for c in changes] == [("rechenmodul", date(1, 1, 1))]


def test_0009_replays_a_database_with_snapshots(scratch_db):
    """Snapshots written before 0009 have no per-game expectations: the upgrade records a
    full replay for the next run, which fills them in for the scoresheet."""
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    from ratingdb.db.bulk import load_federation
    from ratingdb.db.recalc import run_recalc
    from ratingdb.synth import generate

    migrate.upgrade(scratch_db)
    engine = create_engine(scratch_db, poolclass=NullPool)
    with Session(engine) as session, session.begin():
        load_federation(session, generate(60, 1, 3))
    run_recalc(engine)
    migrate.downgrade(scratch_db, "0008")
    migrate.upgrade(scratch_db)
    with engine.connect() as conn:
        pending = (
            conn.execute(text("SELECT kind FROM change_points WHERE run_id IS NULL"))
            .scalars()
            .all()
        )
        empty = conn.execute(
            text("SELECT count(*) FROM rating_snapshots WHERE expected_games = '[]'")
        ).scalar_one()
    assert "full" in pending and empty > 0  # (0023 adds its own, for the Rechenmodul)
    run_recalc(engine)
    with engine.connect() as conn:
        filled = conn.execute(
            text(
                "SELECT count(*) FROM rating_snapshots WHERE jsonb_array_length(expected_games) > 0"
            )
        ).scalar_one()
    engine.dispose()
    assert filled > 0
