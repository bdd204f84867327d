"""``ratingdb export``: every evaluation for diffing, and the printable reports (CSV/PDF)
of :mod:`ratingdb.services.reports`."""

from __future__ import annotations

import csv
import sys
from datetime import datetime

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, write_output
from ratingdb.io.player_files import FORMATS as PLAYER_FILES


@click.group()
def export() -> None:
    """Exports for checking and exchange."""


@export.command("evaluations")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv")
def export_evaluations(fmt: str) -> None:
    """Every snapshot in a stable order (tournament order, then player), for diffing."""
    from ratingdb.queries.export import COLUMNS, evaluation_rows

    with Session(engine()) as session:
        rows = evaluation_rows(session)
    if fmt == "json":
        echo_json(rows)
        return
    writer = csv.DictWriter(sys.stdout, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)


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
@click.option("--federation", help="A VKZ prefix: every club under it.")
@click.option("--age-class", help="youth, junior, adult or U<n> (e.g. U18).")
@click.option("--date", "day", type=click.DateTime(["%Y-%m-%d"]), help="Default: today.")
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
    fmt: str,
    output: str | None,
) -> None:
    """A rating list (WO 6.5.2.1 item 3) of a club or a federation, sorted by DWZ."""
    from ratingdb.queries.reports import rating_list
    from ratingdb.services.reports import player_file, render_document

    if fmt in PLAYER_FILES:
        write_output(
            player_file(
                engine(), fmt, club=club, federation=federation, age_class=age_class,
                day=day.date() if day else None,
            ),
            output,
        )  # fmt: skip
        return
    data = render_document(
        engine(),
        lambda s: rating_list(
            s, club=club, federation=federation, age_class=age_class,
            day=day.date() if day else None,
        ),
        fmt,
    )  # fmt: skip
    write_output(data, output)
