"""Shared pieces of the command line: clear errors, the database engine, progress bars."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from sqlalchemy import Engine

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

EXIT_INPUT = 2


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def database_url() -> URL:
    from ratingdb.db.opening import DatabaseUnavailable, configured_url

    try:
        return configured_url()
    except DatabaseUnavailable as err:
        fail(str(err))


@contextmanager
def database_errors() -> Iterator[None]:
    """Connection problems end as one clear line, not a traceback."""
    from ratingdb.db.opening import DatabaseUnavailable, connection_errors

    try:
        with connection_errors():
            yield
    except DatabaseUnavailable as err:
        fail(str(err))


def engine() -> Engine:
    """An engine on the configured database, which must be migrated to head."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    from ratingdb.db.opening import DatabaseUnavailable, NotMigrated, require_head

    url = database_url()
    try:
        require_head(url)
    except (DatabaseUnavailable, NotMigrated) as err:
        fail(str(err))
    return create_engine(url, poolclass=NullPool)


def read_json(source: str) -> Any:
    """JSON from FILE or '-'; errors name the file and line/column."""
    from ratingdb.io.errors import InputError
    from ratingdb.io.evaluate_json import load_json_text

    name = "<stdin>" if source == "-" else source
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as err:
        fail(f"{name}: cannot read: {err.strerror}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        fail(f"{name}: byte {err.start}: not UTF-8 text ({err.reason})")
    try:
        return load_json_text(text)
    except InputError as err:
        fail(f"{name}: {err}")


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=1, ensure_ascii=False, default=str))


@contextmanager
def progress_bar(description: str, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr; yields ``update(done, total)``."""
    if not enabled:
        yield lambda _done, _total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    ) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
