"""Opening the configured database, transactions on it, and reading documents: the same
for the command line and the web (docs/DESIGN.md, "Service layer")."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.db.opening import (
    DatabaseUnavailable,
    NotMigrated,
    configured_url,
    connection_errors,
    require_head,
)
from ratingdb.errors import InputError
from ratingdb.services.outcomes import as_error, is_refusal

__all__ = [
    "DatabaseUnavailable",
    "NotMigrated",
    "configured_url",
    "connection_errors",
    "decode_utf8",
    "json_document",
    "open_engine",
    "refusals_named",
    "write",
]

T = TypeVar("T")


def open_engine(url: URL | None = None, **options: Any) -> Engine:
    """An engine on ``url`` (default: the configured database), which must be migrated to
    head: :class:`DatabaseUnavailable` or :class:`NotMigrated` otherwise. Without
    ``options`` the engine keeps no connection pool (one command, one connection)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    url = configured_url() if url is None else url
    require_head(url)
    if not options:
        options = {"poolclass": NullPool}
    return create_engine(url, **options)


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
        raise InputError(name, f"byte {err.start}: not UTF-8 text ({err.reason})") from None


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
