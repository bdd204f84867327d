"""``ratingdb export``: every evaluation for diffing, and the printable reports (CSV/PDF)
of :mod:`ratingdb.services.reports`."""

from __future__ import annotations

import csv
import sys
from datetime import date, datetime

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, write_output
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.services.reports import PLAYER_FILE_FORMATS as PLAYER_FILES


@click.group()
def export() -> None:
    """Exports for checking and exchange."""


@export.command("evaluations")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv")
def export_evaluations(fmt: str) -> None:
    """Every snapshot in a stable order (tournament order, then player), for diffing."""
    from ratingdb.csv_cells import neutral
    from ratingdb.queries.export import COLUMNS, evaluation_rows

    with Session(engine()) as session:
        rows = evaluation_rows(session)
    if fmt == "json":
        echo_json(rows)
        return
    writer = csv.DictWriter(sys.stdout, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: neutral(v) for k, v in row.items()})


@export.command("evaluation")
@click.argument("ident", metavar="ID")
@click.option("--format", "fmt", type=click.Choice(["csv", "pdf"]), default="csv")
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def export_evaluation(ident: str, fmt: str, output: str | None) -> None:
    """The evaluation display (WO Anhang 3.1.11) of tournament ID as CSV or PDF."""
    from ratingdb.queries.reports import evaluation_document
    from ratingdb.services.reports import render_document

    data = render_document(engine(), lambda s: evaluation_document(s, ident), fmt)
    write_output(data, output)


@export.command("list")
@click.option("--club", help="A club's VKZ.")
@click.option("--federation", help="A VKZ prefix: every club under it (000: all).")
@click.option("--age-class", help="youth, junior, adult, U<n> (age up to n) or Ü<n> (n or more).")
@click.option("--date", "day", type=click.DateTime(["%Y-%m-%d"]), help="Default: today.")
@click.option(
    "--top",
    type=click.IntRange(1, 1000),
    help="A top list (Bestenliste): the best N members with a DWZ, of the club or of the "
    "federation level (its clubs in the club lists' hierarchy and by VKZ prefix).",
)
@click.option("--born-from", type=int, help="Top list: born in this year or later.")
@click.option("--born-to", type=int, help="Top list: born in this year or earlier.")
@click.option("--sex", type=click.Choice(["f", "m", "d"]), help="Top list: f, m or d.")
@click.option(
    "--status", type=click.Choice(["active", "passive"]), help="Top list: membership status."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "pdf", *PLAYER_FILES]),
    default="csv",
    help="csv/pdf: the printable list; the others are player files for pairing programs, "
    "one row per membership (docs/data-exchange.md).",
)
@click.option("-o", "--output", help="Write to this file (default: stdout).")
def export_list(
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: datetime | None,
    top: int | None,
    born_from: int | None,
    born_to: int | None,
    sex: str | None,
    status: str | None,
    fmt: str,
    output: str | None,
) -> None:
    """A rating list (WO 6.5.2.1 item 3) of a club or a federation, sorted by DWZ; with
    --top a top list (Bestenliste)."""
    from ratingdb.queries.reports import rating_list
    from ratingdb.queries.top_lists import top_list_report
    from ratingdb.services.reports import player_file, render_document

    on = day.date() if day else None
    top_only = {"--born-from": born_from, "--born-to": born_to, "--sex": sex, "--status": status}
    if top is None and any(v is not None for v in top_only.values()):
        named = ", ".join(k for k, v in top_only.items() if v is not None)
        raise InputError(named, _("these options select a top list: give --top N too"))
    if top is not None:
        if fmt not in ("csv", "pdf"):
            raise InputError("--format", _("a top list is written as csv or pdf"))
        if (club is None) == (federation is None):
            raise InputError("--club", _("give either a club VKZ or a federation prefix"))
        data = render_document(
            engine(),
            lambda s: top_list_report(
                s, organisation=club or federation or "", on=on or date.today(), limit=top,
                birth_year_from=born_from, birth_year_to=born_to, age=age_class, sex=sex,
                status=status,
            ),
            fmt,
        )  # fmt: skip
        write_output(data, output)
        return
    if fmt in PLAYER_FILES:
        write_output(
            player_file(
                engine(), fmt, club=club, federation=federation, age_class=age_class, day=on,
            ),
            output,
        )  # fmt: skip
        return
    data = render_document(
        engine(),
        lambda s: rating_list(s, club=club, federation=federation, age_class=age_class, day=on),
        fmt,
    )
    write_output(data, output)
