"""The ``ratingdb`` command line.

Errors in the user's input end with a one-line message on stderr naming the file and the
place (JSON path or line/column), exit code 2, no traceback and nothing on stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import click

from ratingdb import __version__
from ratingdb.io.errors import InputError
from ratingdb.io.evaluate_json import dump_results, load_json_text, parse_document
from ratingdb.queries.evaluation_display import render_text
from ratingdb.rules import FAMILIES, get_family
from ratingdb.rules.errors import RulesError

EXIT_INPUT = 2


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def read_source(source: str) -> tuple[str, str]:
    """Text of FILE or stdin ('-'), decoded as UTF-8; returns (display name, text)."""
    name = "<stdin>" if source == "-" else source
    try:
        if source == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as handle:
                raw = handle.read()
    except OSError as err:
        fail(f"{name}: cannot read: {err.strerror}")
    try:
        return name, raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        fail(f"{name}: byte {err.start}: not UTF-8 text ({err.reason})")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ratingdb")
def main() -> None:
    """ratingdb: chronological chess rating database (DWZ 2026 and other Rechenmodule)."""


@main.command()
@click.argument("source", metavar="FILE")
@click.option(
    "--precision",
    type=click.Choice(["table", "float"]),
    default=None,
    help="table: WO Anhang 2.1/2.2 values (default); float: unrounded normal distribution.",
)
@click.option(
    "--rules",
    "rules_name",
    type=click.Choice(sorted(FAMILIES)),
    default="dwz2026",
    show_default=True,
    help="Rule family (Rechenmodul family).",
)
@click.option("--trace", is_flag=True, help="Include the per-step iteration values.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "table"]),
    default="json",
    show_default=True,
    help="json: the DESIGN.md contract; table: the evaluation display of WO Anhang 3.1.11.",
)
def evaluate(
    source: str, precision: str | None, rules_name: str, trace: bool, output_format: str
) -> None:
    """Evaluate tournaments from FILE (a JSON object or array; '-' reads stdin)."""
    name, text = read_source(source)
    try:
        tournaments, was_array = parse_document(load_json_text(text))
    except InputError as err:
        fail(f"{name}: {err}")
    family = get_family(rules_name)
    params = family.default_parameters()
    if precision is not None:
        params = params.with_precision(precision)
    results = []
    for k, tournament in enumerate(tournaments):
        try:
            results.append(family.evaluate(tournament, params))
        except RulesError as err:
            where = f"$[{k}]" if was_array else "$"
            fail(f"{name}: {where}: tournament {tournament.tournament.id}: {err}")
    if output_format == "table":
        pages = [render_text(t, r) for t, r in zip(tournaments, results, strict=True)]
        click.echo("\n\n".join(pages))
    else:
        click.echo(dump_results([r.to_dict(trace=trace) for r in results], was_array))


# -- database ----------------------------------------------------------------------------------
@main.group()
def db() -> None:
    """The database: migrations (Alembic) and the embedded PostgreSQL server.

    DATABASE_URL selects any PostgreSQL; without it ratingdb uses an embedded server in
    $RATINGDB_HOME (default: the per-user data folder), started on demand.
    """


def _url():  # type: ignore[no-untyped-def]
    from sqlalchemy.exc import ArgumentError

    from ratingdb.db.connection import database_url

    try:
        return database_url()
    except (ValueError, ArgumentError) as err:
        fail(f"DATABASE_URL: {err}")


@contextmanager
def database_errors() -> Iterator[None]:
    """Connection problems end as one clear line, not a traceback."""
    from sqlalchemy.exc import OperationalError

    try:
        yield
    except OperationalError as err:
        reason = str(err.orig).strip().splitlines()[0] if err.orig else str(err)
        fail(f"cannot connect to the database: {reason}")


@db.command()
@click.argument("revision", default="head")
def upgrade(revision: str) -> None:
    """Migrate the database up to REVISION (default: head)."""
    from ratingdb.db import migrate

    url = _url()
    with database_errors():
        migrate.upgrade(url, revision)
        click.echo(f"database at revision {migrate.current(url)}")


@db.command(context_settings={"ignore_unknown_options": True})
@click.argument("revision")
def downgrade(revision: str) -> None:
    """Migrate the database down to REVISION (e.g. -1 or base)."""
    from ratingdb.db import migrate

    url = _url()
    with database_errors():
        migrate.downgrade(url, revision)
        click.echo(f"database at revision {migrate.current(url) or 'base'}")


@db.command()
def current() -> None:
    """Print the database's migration revision."""
    from ratingdb.db import migrate

    url = _url()
    with database_errors():
        click.echo(migrate.current(url) or "base (empty database)")


@db.command()
def url() -> None:
    """Print the database URL in use (password hidden)."""
    click.echo(_url().render_as_string(hide_password=True))


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


if __name__ == "__main__":  # pragma: no cover
    main()
