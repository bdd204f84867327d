"""Opening the configured database, for every front end (the command line, the web).

:func:`configured_url` reads ``DATABASE_URL`` (or starts the embedded server) and
:func:`require_head` checks that the database is migrated; both raise a typed error whose
message is the one line a user should see (both are :class:`ratingdb.errors.Unavailable`).
The command line prints it and exits with code 2, the web server refuses to start with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import URL

from ratingdb.errors import Unavailable


class DatabaseUnavailable(Unavailable):
    """The database cannot be reached, its URL is wrong, or a migration failed."""


class NotMigrated(Unavailable):
    """The database is not at the newest migration (run ``ratingdb db upgrade``)."""


def configured_url() -> URL:
    """``DATABASE_URL`` or the embedded server's URL; DatabaseUnavailable for a bad URL."""
    from sqlalchemy.exc import ArgumentError

    from ratingdb.db.connection import database_url

    try:
        return database_url()
    except (ValueError, ArgumentError) as err:
        raise DatabaseUnavailable(f"DATABASE_URL: {err}") from None


@contextmanager
def connection_errors() -> Iterator[None]:
    """Connection and migration failures as DatabaseUnavailable with one clear line."""
    from alembic.util import CommandError
    from sqlalchemy.exc import OperationalError

    try:
        yield
    except OperationalError as err:
        reason = str(err.orig).strip().splitlines()[0] if err.orig else str(err)
        raise DatabaseUnavailable(f"cannot connect to the database: {reason}") from None
    except CommandError as err:
        raise DatabaseUnavailable(f"migrations: {err}") from None


def require_head(url: URL) -> None:
    """NotMigrated unless the database at ``url`` is at the newest migration."""
    from ratingdb.db import migrate

    with connection_errors():
        current = migrate.current(url)
    if current != migrate.head():
        raise NotMigrated(
            f"the database is at revision {current or 'base'}, not {migrate.head()}: "
            "run `ratingdb db upgrade`"
        )
