"""The one place that opens a database: which one, how to connect, whether it is usable.

``DATABASE_URL`` (any PostgreSQL URL; ``postgresql://`` is read with the psycopg 3 driver)
wins; without it ratingdb starts the embedded server (:mod:`ratingdb.db.embedded`).
:func:`connect` makes every SQLAlchemy engine of ratingdb (the application's, the
migrations', the web's workers'). :func:`configured_url` and :func:`require_head` raise a
typed error whose message is the one line a user should see (both are
:class:`ratingdb.errors.Unavailable`): the command line prints it and exits with code 2,
the web server refuses to start with it.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import URL, make_url

from ratingdb.errors import Unavailable

DRIVER = "postgresql+psycopg"


class DatabaseUnavailable(Unavailable):
    """The database cannot be reached, its URL is wrong, or a migration failed."""


class NotMigrated(Unavailable):
    """The database is not at the newest migration (run ``ratingdb db upgrade``)."""


def normalise_url(raw: str | URL) -> URL:
    """A SQLAlchemy URL with the psycopg 3 driver (libpq URIs and Unix sockets included)."""
    url = make_url(raw) if isinstance(raw, str) else raw
    if url.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        url = url.set(drivername=DRIVER)
    if url.drivername != DRIVER:
        raise ValueError(f"unsupported database driver {url.drivername!r}: use PostgreSQL")
    return url


def database_url(*, selected: bool = True) -> URL:
    """``DATABASE_URL`` if set, else the embedded server's URL (started on demand); with
    ``selected``, at the database ``RATINGDB_DATABASE`` names (``ratingdb --database``)."""
    from ratingdb.settings import Settings

    settings = Settings.from_env()
    if settings.database_url:
        url = normalise_url(settings.database_url)
    else:
        from ratingdb.db.embedded import embedded_uri

        url = normalise_url(embedded_uri())
    return url.set(database=settings.database) if selected and settings.database else url


#: query values that read the same unencoded in a URL (a Unix-socket folder, a port, a mode)
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9/._~:@!$'()*+,;-]*")


def display_url(url: URL) -> str:
    """``url`` to read and to copy: password hidden, and query values such as the embedded
    server's socket folder (``host=/home/me/.local/share/ratingdb/pgdata``) not
    percent-encoded when they need no encoding to stay one value; the result parses back to
    the same URL.

    >>> display_url(make_url("postgresql+psycopg://postgres@/postgres?host=%2Ftmp%2Fpg"))
    'postgresql+psycopg://postgres@/postgres?host=/tmp/pg'
    >>> display_url(make_url("postgresql+psycopg://u:secret@/db?host=%2Fa+b"))
    'postgresql+psycopg://u:***@/db?host=%2Fa+b'
    """
    text = url.render_as_string(hide_password=True)
    if not url.query:
        return text
    base = text.split("?", 1)[0]
    pairs = []
    for key, values in url.query.items():
        for value in (values,) if isinstance(values, str) else values:
            if not _PLAIN_VALUE.fullmatch(key + value):
                return text
            pairs.append(f"{key}={value}")
    readable = f"{base}?{'&'.join(pairs)}"
    return readable if make_url(readable).query == url.query else text


@contextmanager
def scratch_server(database_url: str | None = None) -> Iterator[URL]:
    """A database for a benchmark: ``database_url`` as given, or a private embedded
    server in a temporary folder, deleted afterwards."""
    from ratingdb.db.embedded import server

    if database_url:
        yield normalise_url(database_url)
        return
    tmp = Path(tempfile.mkdtemp(prefix="ratingdb-bench-"))
    server_ = None
    try:
        server_ = server(tmp, cleanup_mode="delete")
        yield normalise_url(server_.get_uri())
    finally:
        if server_ is not None:
            server_.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def connect(url: str | URL, **options: Any) -> Engine:
    """An engine on ``url`` (the psycopg 3 driver); without ``options`` it keeps no
    connection pool (one command, one connection)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    return create_engine(normalise_url(url), **(options or {"poolclass": NullPool}))


def configured_url(*, selected: bool = True) -> URL:
    """``DATABASE_URL`` or the embedded server's URL, at the database ``RATINGDB_DATABASE``
    names unless not ``selected``; DatabaseUnavailable for a bad URL."""
    from sqlalchemy.exc import ArgumentError

    try:
        return database_url(selected=selected)
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
