"""Data exchange commands: TRF import/export, the DSB member list, CSV/PDF reports."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
import psycopg
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.orm import Session

from ratingdb.commands.common import engine, fail, progress_bar
from ratingdb.io.errors import InputError

if TYPE_CHECKING:
    from ratingdb.queries.documents import Document

FORMATS = click.Choice(["csv", "pdf"])


def read_bytes(source: str) -> bytes:
    import sys

    try:
        return sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as err:
        fail(f"{source}: cannot read: {err.strerror}")


def write_output(data: bytes, output: str | None) -> None:
    if output is None or output == "-":
        click.get_binary_stream("stdout").write(data)
        return
    try:
        Path(output).write_bytes(data)
    except OSError as err:
        fail(f"{output}: cannot write: {err.strerror}")
    click.echo(f"wrote {output} ({len(data)} bytes)", err=True)


def _refused(where: str, err: Exception) -> None:
    """A rule only the database checks (a constraint; COPY raises psycopg's own errors)."""
    orig = getattr(err, "orig", None) or err
    reason = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    fail(f"{where}: refused by the database, nothing written: {reason}")


# -- TRF -----------------------------------------------------------------------------------


def trf_import(
    source: str,
    code: str | None,
    vkz: str | None,
    kind: str | None,
    encoding: str,
    now: bool,
) -> None:
    from ratingdb.db.trf_import import import_trf
    from ratingdb.io.trf import decode, parse

    name = "<stdin>" if source == "-" else source
    try:
        parsed = parse(decode(read_bytes(source), name, encoding), name)
    except InputError as err:
        fail(str(err))
    for warning in parsed.warnings:
        click.echo(f"warning: {name}: {warning}", err=True)
    eng = engine()
    try:
        with Session(eng) as session, session.begin():
            stored, matches = import_trf(session, parsed, code=code, vkz=vkz, kind=kind)
            tcode, end = stored.code, stored.end_date
    except InputError as err:
        fail(str(err))
    except (IntegrityError, DataError, psycopg.IntegrityError, psycopg.DataError) as err:
        _refused(name, err)
    for m in matches:
        who = f"player {m.player_id}" if m.player_id is not None else "textual participant"
        click.echo(f"  {m.start_rank:4d}  {m.name[:33]:33}  {m.how:18} {who}")
    new = sum(1 for m in matches if m.how == "new player")
    textual = sum(1 for m in matches if m.player_id is None)
    click.echo(
        f"imported tournament {tcode} (ends {end}): {len(matches)} players "
        f"({len(matches) - new - textual} matched, {new} new players, {textual} textual), "
        f"{len(parsed.games)} games; change point recorded"
    )
    if now:
        from ratingdb.commands.recalc_report import recalc_and_report

        recalc_and_report(eng, full=False, dry_run=False, quiet=False)


def trf_export(ident: str) -> str:
    from ratingdb.db.trf_import import export_trf
    from ratingdb.io.trf import write

    with Session(engine()) as session:
        try:
            return write(export_trf(session, ident))
        except LookupError as err:
            fail(str(err))


# -- DSB member list -----------------------------------------------------------------------


@click.group()
def players() -> None:
    """The federation's member list (DSB spieler.csv)."""


@players.command("import")
@click.argument("source", metavar="FILE")
@click.option(
    "--date",
    "list_date",
    required=True,
    type=click.DateTime(["%Y-%m-%d"]),
    help="The list's date: memberships begin/end and ratings are taken over on it.",
)
@click.option("--encoding", default="cp1252", show_default=True)
@click.option(
    "--partial",
    is_flag=True,
    help="A regional list: end memberships only in the clubs it contains.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def players_import(
    source: str, list_date: datetime, encoding: str, partial: bool, quiet: bool
) -> None:
    """Upsert players, clubs and memberships from FILE; take over the DWZ of players
    without history (docs/data-exchange.md)."""
    from ratingdb.db.players_import import import_list
    from ratingdb.io.dsb_list import parse_list

    name = "<stdin>" if source == "-" else source
    try:
        rows = parse_list(read_bytes(source), name, encoding)
    except InputError as err:
        fail(str(err))
    try:
        with (
            Session(engine()) as session,
            session.begin(),
            progress_bar("importing players", not quiet) as update,
        ):
            report = import_list(
                session, rows, list_date.date(), Path(name).name, partial=partial, progress=update
            )
    except InputError as err:
        fail(str(err))
    except (IntegrityError, DataError, psycopg.IntegrityError, psycopg.DataError) as err:
        _refused(name, err)
    click.echo(report.summary())
    for pid, who, ours, listed in report.differences[:10]:
        click.echo(f"  player {pid} {who}: database {ours}, list {listed}")
    if len(report.differences) > 10:
        click.echo(f"  ... and {len(report.differences) - 10} more")


# -- reports -------------------------------------------------------------------------------


def document_export(build: Callable[[Session], Document], fmt: str, output: str | None) -> None:
    """Build a report on the configured database and write it as CSV or PDF; a missing
    tournament or player, or a bad selection, is one error line."""
    from ratingdb.queries.documents import render

    with Session(engine()) as session:
        try:
            doc = build(session)
        except (LookupError, ValueError) as err:
            fail(str(err))
    write_output(render(doc, fmt), output)


def evaluation_export(ident: str, fmt: str, output: str | None) -> None:
    from ratingdb.queries.reports import evaluation_document

    document_export(lambda session: evaluation_document(session, ident), fmt, output)


def list_export(
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: date | None,
    fmt: str,
    output: str | None,
) -> None:
    from ratingdb.queries.reports import rating_list

    document_export(
        lambda session: rating_list(
            session, club=club, federation=federation, age_class=age_class, day=day
        ),
        fmt,
        output,
    )


def card_export(player_id: int, fmt: str, output: str | None) -> None:
    from ratingdb.queries.reports import card_document

    document_export(lambda session: card_document(session, player_id), fmt, output)
