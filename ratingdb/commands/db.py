"""``ratingdb db``: migrations and the embedded PostgreSQL server."""

from __future__ import annotations

import click

from ratingdb.i18n import _
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
    click.echo(_("database at revision %(revision)s") % {"revision": database.upgrade(revision)})


@db.command(context_settings={"ignore_unknown_options": True})
@click.argument("revision")
def downgrade(revision: str) -> None:
    """Migrate the database down to REVISION (e.g. -1 or base)."""
    done = database.downgrade(revision) or "base"
    click.echo(_("database at revision %(revision)s") % {"revision": done})


@db.command()
def current() -> None:
    """Print the database's migration revision."""
    click.echo(database.current_revision() or _("base (empty database)"))


@db.command()
def url() -> None:
    """Print the database URL in use (password hidden, socket folder readable)."""
    click.echo(database.shown_url())


@db.command()
def start() -> None:
    """Start the embedded server and keep it running until `ratingdb db stop`."""
    click.echo(_("embedded PostgreSQL %(state)s") % {"state": database.start_server()})


@db.command()
def stop() -> None:
    """Stop the embedded server."""
    was_running = database.stop_server()
    stopped = _("embedded PostgreSQL stopped")
    click.echo(stopped if was_running else _("embedded PostgreSQL was not running"))


@db.command()
def status() -> None:
    """Show whether the embedded server runs."""
    click.echo(_("embedded PostgreSQL %(state)s") % {"state": database.server_status()})
