"""The database for every front end (the command line, the web): opening it
(:mod:`ratingdb.db.connection` is the one place that connects), migrating it, the embedded
server, transactions on it, and reading documents (docs/DESIGN.md, "Service layer")."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.db.connection import (
    DatabaseUnavailable,
    NotMigrated,
    configured_url,
    connect,
    connection_errors,
    display_url,
    require_head,
)
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.services.outcomes import as_error, is_refusal

__all__ = [
    "DatabaseUnavailable",
    "NotMigrated",
    "configured_url",
    "connect",
    "connection_errors",
    "current_revision",
    "decode_utf8",
    "downgrade",
    "fresh_database",
    "json_document",
    "open_engine",
    "refusals_named",
    "server_status",
    "shown_url",
    "start_server",
    "stop_server",
    "upgrade",
    "write",
]

T = TypeVar("T")


def open_engine(url: str | URL | None = None, **options: Any) -> Engine:
    """An engine on ``url`` (default: the configured database), which must be migrated to
    head: :class:`DatabaseUnavailable` or :class:`NotMigrated` otherwise. Without
    ``options`` the engine keeps no connection pool (one command, one connection)."""
    engine = connect(configured_url() if url is None else url, **options)
    require_head(engine.url)
    return engine


def fresh_database(name: str) -> URL:
    """A new, empty database ``name`` on the configured server, migrated to head (one of the
    same name is dropped first: the demo's); :class:`Unavailable` if the server refuses."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import ProgrammingError
    from sqlalchemy.pool import NullPool

    from ratingdb.db import migrate
    from ratingdb.errors import Unavailable

    server = configured_url(selected=False)
    with connection_errors():
        admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
        try:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        except ProgrammingError as err:
            reason = str(err.orig).strip()
            raise Unavailable(f"cannot create the demo database {name!r}: {reason}") from None
        finally:
            admin.dispose()
    url = server.set(database=name)
    migrate.upgrade(url)
    return url


def upgrade(revision: str = "head") -> str | None:
    """Migrate the configured database up to ``revision``; returns the revision it is at."""
    from ratingdb.db import migrate

    url = configured_url()
    with connection_errors():
        migrate.upgrade(url, revision)
        return migrate.current(url)


def downgrade(revision: str) -> str | None:
    """Migrate the configured database down to ``revision`` (``-1``, ``base``, …); returns
    the revision it is at (None: base)."""
    from ratingdb.db import migrate

    url = configured_url()
    with connection_errors():
        migrate.downgrade(url, revision)
        return migrate.current(url)


def current_revision() -> str | None:
    """The configured database's migration revision (None: an empty database)."""
    from ratingdb.db import migrate

    url = configured_url()
    with connection_errors():
        return migrate.current(url)


def shown_url() -> str:
    """The configured database's URL to read and copy (password hidden)."""
    return display_url(configured_url())


def start_server() -> str:
    """Start the embedded server (kept running until :func:`stop_server`); its status."""
    from ratingdb.db import embedded

    embedded.start()
    return server_status()


def stop_server() -> bool:
    """Stop the embedded server; whether it was running."""
    from ratingdb.db import embedded

    return embedded.stop()


def server_status() -> str:
    """``running (pid N)``/``stopped``/``not initialised`` and the embedded server's data
    folder, in the language in force."""
    from ratingdb.db import embedded

    state = embedded.status()
    if state.startswith("running (pid "):
        words = _("running (pid %(pid)s)") % {"pid": state.removeprefix("running (pid ")[:-1]}
    else:
        words = {"stopped": _("stopped"), "not initialised": _("not initialised")}.get(state, state)
    return _("%(state)s in %(folder)s") % {"state": words, "folder": embedded.data_dir()}


def write(engine: Engine, change: Callable[[Session], T]) -> T:
    """Run ``change`` in one transaction on ``engine`` and commit it: all or nothing."""
    with Session(engine) as session, session.begin():
        out = change(session)
        session.flush()
        return out


@contextmanager
def refusals_named(where: str) -> Iterator[None]:
    """A database constraint violation inside as :class:`ratingdb.errors.Refused` naming
    ``where`` (the file or tournament), so the user sees which input the database refused."""
    try:
        yield
    except Exception as err:
        if not is_refusal(err):
            raise
        refused = as_error(err)
        assert refused is not None
        raise refused.with_context(where) from None


def decode_utf8(raw: bytes, name: str) -> str:
    """UTF-8 text (a byte-order mark is dropped); an InputError at ``name`` otherwise."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            name,
            _("byte %(at)d: not UTF-8 text (%(reason)s)") % {"at": err.start, "reason": err.reason},
        ) from None


def json_document(raw: bytes, name: str, *, named: bool = True) -> Any:
    """The JSON value of ``raw`` (:func:`ratingdb.io.json_input.load_json`: size, depth,
    duplicate keys, NUL and surrogates checked); errors name the line/column or JSON path,
    after ``name`` if ``named`` (a file; the web's body keeps the bare place, its error
    items split it up)."""
    from ratingdb.io.json_input import load_json

    text = decode_utf8(raw, name)
    try:
        return load_json(text)
    except InputError as err:
        if not named:
            raise
        raise err.with_context(name) from None
