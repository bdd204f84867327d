"""``ratingdb db``: migrations and the embedded PostgreSQL server."""

from __future__ import annotations

import click

from ratingdb.services.database import configured_url, connection_errors


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
    from ratingdb.db import migrate

    url = configured_url()
    with connection_errors():
        migrate.upgrade(url, revision)
        click.echo(f"database at revision {migrate.current(url)}")


@db.command(context_settings={"ignore_unknown_options": True})
@click.argument("revision")
def downgrade(revision: str) -> None:
    """Migrate the database down to REVISION (e.g. -1 or base)."""
    from ratingdb.db import migrate

    url = configured_url()
    with connection_errors():
        migrate.downgrade(url, revision)
        click.echo(f"database at revision {migrate.current(url) or 'base'}")


@db.command()
def current() -> None:
    """Print the database's migration revision."""
    from ratingdb.db import migrate

    url = configured_url()
    with connection_errors():
        click.echo(migrate.current(url) or "base (empty database)")


@db.command()
def url() -> None:
    """Print the database URL in use (password hidden, socket folder readable)."""
    from ratingdb.db.connection import display_url

    click.echo(display_url(configured_url()))


@db.command()
def start() -> None:
    """Start the embedded server and keep it running until `ratingdb db stop`."""
    from ratingdb.db import embedded

    embedded.start()
    click.echo(f"embedded PostgreSQL {embedded.status()} in {embedded.data_dir()}")


@db.command()
def stop() -> None:
    """Stop the embedded server."""
    from ratingdb.db import embedded

    was_running = embedded.stop()
    click.echo(
        "embedded PostgreSQL stopped" if was_running else "embedded PostgreSQL was not running"
    )


@db.command()
def status() -> None:
    """Show whether the embedded server runs."""
    from ratingdb.db import embedded

    click.echo(f"embedded PostgreSQL {embedded.status()} in {embedded.data_dir()}")
