"""Which database to use and how to connect.

``DATABASE_URL`` (any PostgreSQL URL; ``postgresql://`` is read with the psycopg 3 driver)
wins; without it ratingdb starts the embedded server (:mod:`ratingdb.db.embedded`).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import URL, make_url

DRIVER = "postgresql+psycopg"


def normalise_url(raw: str | URL) -> URL:
    """A SQLAlchemy URL with the psycopg 3 driver (libpq URIs and Unix sockets included)."""
    url = make_url(raw) if isinstance(raw, str) else raw
    if url.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        url = url.set(drivername=DRIVER)
    if url.drivername != DRIVER:
        raise ValueError(f"unsupported database driver {url.drivername!r}: use PostgreSQL")
    return url


def database_url() -> URL:
    """``DATABASE_URL`` if set, else the embedded server's URL (started on demand)."""
    from ratingdb.settings import Settings

    configured = Settings.from_env().database_url
    if configured:
        return normalise_url(configured)
    from ratingdb.db.embedded import embedded_uri

    return normalise_url(embedded_uri())


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


@contextlib.contextmanager
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
