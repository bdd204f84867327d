"""Shared pieces of the command line: the error line, the database, files, progress bars.

Commands catch nothing: an error of :mod:`ratingdb.errors` escaping a command becomes
:class:`Failure` in :class:`ratingdb.cli.Main` (one line ``error: ...`` on stderr, the exit
code of :mod:`ratingdb.services.outcomes`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

import click
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.services.outcomes import EXIT_INPUT


class Failure(click.ClickException):
    """The one error line of a command (``error: MESSAGE``) and its exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        # in the call's language: click shows the error after the call's context (and its
        # language, ratingdb/cli.py) has ended
        self.line = _("error: %(message)s")

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(self.line % {"message": self.format_message()}, err=True, file=file)


#: the variable ``ratingdb --database NAME`` sets for the commands of one call (and the
#: processes they start), read by every command through :mod:`ratingdb.settings`
DATABASE_SETTING = "RATINGDB_DATABASE"


def select_database(name: str) -> None:
    """Every command of this call (and ``serve``'s worker processes) uses database ``name``
    of the configured server: the one setting :data:`DATABASE_SETTING` that all commands
    read (``ratingdb --database ratingdb_demo user add …`` acts on the demo's database)."""
    import os

    from ratingdb.settings import SettingsError, check_database_name

    try:
        check_database_name(name, "--database")
    except SettingsError as err:
        raise Failure(str(err)) from None
    before = os.environ.get(DATABASE_SETTING)
    os.environ[DATABASE_SETTING] = name
    ctx = click.get_current_context(silent=True)
    if ctx is not None:  # for this call only (an in-process caller keeps its own)

        def restore() -> None:
            if before is None:
                os.environ.pop(DATABASE_SETTING, None)
            else:
                os.environ[DATABASE_SETTING] = before

        ctx.find_root().call_on_close(restore)


def engine() -> Engine:
    """An engine on the configured database, which must be migrated to head."""
    from ratingdb.services.database import open_engine

    return open_engine()


@contextmanager
def writing(where: str | None = None, eng: Engine | None = None) -> Iterator[Session]:
    """A session in one transaction on the configured database (or ``eng``), committed at
    the end; a constraint the database enforces is a Refused naming ``where``."""
    from ratingdb.services.database import refusals_named

    with ExitStack() as stack:
        if where:
            stack.enter_context(refusals_named(where))
        session = stack.enter_context(Session(eng if eng is not None else engine()))
        stack.enter_context(session.begin())
        yield session


def source_name(source: str) -> str:
    return "<stdin>" if source == "-" else source


#: the largest input file read (a member list of 250,000 players has about 30 MB): more is
#: not one of the files ratingdb reads (``/dev/zero``, a disk image), refused before memory
#: runs out
MAX_FILE_BYTES = 256 * 1024 * 1024


def read_bytes(source: str, limit: int | None = None) -> bytes:
    """The bytes of FILE or stdin ('-'), at most ``limit`` (:data:`MAX_FILE_BYTES`) of
    them; an InputError naming the file otherwise."""
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        if source == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with Path(source).open("rb") as f:
                data = f.read(limit + 1)
    except OSError as err:
        raise InputError(
            source_name(source), _("cannot read: %(reason)s") % {"reason": err.strerror}
        ) from None
    if len(data) > limit:
        raise InputError(
            source_name(source),
            _("the file has more than %(n)d bytes, the most read") % {"n": limit},
        )
    return data


def read_json(source: str) -> Any:
    """JSON from FILE or '-'; errors name the file and line/column."""
    from ratingdb.services.database import json_document

    return json_document(read_bytes(source), source_name(source))


def write_output(data: bytes, output: str | None) -> None:
    """``data`` to the file ``output`` (then a note on stderr) or stdout."""
    if output is None or output == "-":
        click.get_binary_stream("stdout").write(data)
        return
    try:
        Path(output).write_bytes(data)
    except OSError as err:
        raise InputError(output, _("cannot write: %(reason)s") % {"reason": err.strerror}) from None
    click.echo(_("wrote %(file)s (%(size)d bytes)") % {"file": output, "size": len(data)}, err=True)


def json_text(data: Any) -> str:
    """How the command line prints JSON: one-space indent, UTF-8 as it is."""
    return json.dumps(data, indent=1, ensure_ascii=False, default=str)


def echo_json(data: Any) -> None:
    click.echo(json_text(data))


@contextmanager
def _lazy_progress(columns: tuple[Any, ...], enabled: bool) -> Iterator[Callable[..., None]]:
    """A rich progress display on stderr that appears with the first update (a command
    with nothing to do shows none, not ``0/?``); yields ``update(**task fields)``."""
    if not enabled:
        yield lambda **_fields: None
        return
    from rich.console import Console
    from rich.progress import Progress, TaskID

    with ExitStack() as stack:
        shown: list[tuple[Progress, TaskID]] = []

        def update(**fields: Any) -> None:
            if not shown:
                bar = stack.enter_context(
                    Progress(*columns, console=Console(stderr=True), transient=False)
                )
                shown.append((bar, bar.add_task("", **fields)))
            bar, task = shown[0]
            bar.update(task, **fields)

        yield update


@contextmanager
def progress_bar(description: str, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr; yields ``update(done, total)``."""
    from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn

    columns = (description, BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with _lazy_progress(columns, enabled) as update:
        yield lambda done, total: update(completed=done, total=total)


@contextmanager
def recalc_progress(enabled: bool = True) -> Iterator[Callable[[int, int, int], None]]:
    """The bar of a recalculation run on stderr: it fills as the replay walks from the
    change point and counts the tournaments re-evaluated (most after a change point are
    only looked at); yields ``update(re-evaluated, walked, to walk)``."""
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

    counts = _("%(evaluated)s re-evaluated, %(checked)s checked") % {
        "evaluated": "{task.fields[evaluated]}",
        "checked": "{task.completed}/{task.total}",
    }
    columns = (_("recalculating"), BarColumn(), TextColumn(counts), TimeElapsedColumn())
    with _lazy_progress(columns, enabled) as update:
        yield lambda evaluated, walked, walk: update(
            completed=walked, total=walk, evaluated=evaluated
        )
