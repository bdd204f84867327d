"""``ratingdb db``: migrations and the embedded PostgreSQL server."""

from __future__ import annotations

import click

from ratingdb.services import database


@click.group()
def db() -> None:
    """The database: migrations (Alembic) and the embedded PostgreSQL server.

    DATABASE_URL selects any PostgreSQL; without it ratingdb uses an embedded server in
    $RATINGDB_HOME (default: the per-user data folder), started on demand.
    """


@db.command()
@click.argument("revision", default="head")
def upgrade(revision: str) -> None:
    """Migrate the database up to REVISION (default: head)."""
    click.echo(f"database at revision {database.upgrade(revision)}")


@db.command(context_settings={"ignore_unknown_options": True})
@click.argument("revision")
def downgrade(revision: str) -> None:
    """Migrate the database down to REVISION (e.g. -1 or base)."""
    click.echo(f"database at revision {database.downgrade(revision) or 'base'}")


@db.command()
def current() -> None:
    """Print the database's migration revision."""
    click.echo(database.current_revision() or "base (empty database)")


@db.command()
def url() -> None:
    """Print the database URL in use (password hidden, socket folder readable)."""
    click.echo(database.shown_url())


@db.command()
def start() -> None:
    """Start the embedded server and keep it running until `ratingdb db stop`."""
    click.echo(f"embedded PostgreSQL {database.start_server()}")


@db.command()
def stop() -> None:
    """Stop the embedded server."""
    was_running = database.stop_server()
    click.echo(
        "embedded PostgreSQL stopped" if was_running else "embedded PostgreSQL was not running"
    )


@db.command()
def status() -> None:
    """Show whether the embedded server runs."""
    click.echo(f"embedded PostgreSQL {database.server_status()}")
