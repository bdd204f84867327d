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
