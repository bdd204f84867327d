"""Alembic environment: ratingdb's metadata and database URL."""

from __future__ import annotations

from alembic import context

from ratingdb.db.connection import connect, database_url, normalise_url
from ratingdb.db.models import Base

config = context.config
target_metadata = Base.metadata


def _url():  # type: ignore[no-untyped-def]
    configured = config.get_main_option("sqlalchemy.url")
    return normalise_url(configured) if configured else database_url()


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = connect(_url())
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
