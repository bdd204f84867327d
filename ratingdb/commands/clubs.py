"""``ratingdb clubs``: the DSB's club and federation lists (vereine.csv, verbaende.csv)
through :mod:`ratingdb.services.imports`, and listing clubs."""

from __future__ import annotations

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import engine, read_bytes, source_name, writing


@click.group()
def clubs() -> None:
    """Clubs and federation levels: names, kinds and hierarchy (DSB vereine.csv)."""


@clubs.command("import")
@click.argument("clubs_file", metavar="VEREINE.CSV")
@click.argument("levels_file", metavar="[VERBAENDE.CSV]", required=False)
@click.option("--encoding", default="cp1252", show_default=True)
def clubs_import(clubs_file: str, levels_file: str | None, encoding: str) -> None:
    """Store club names and their place in the hierarchy (Landesverband → Bezirk → club)
    from the DSB's vereine.csv and, optionally, verbaende.csv (every published layout, with
    or without a header row; docs/data-exchange.md). All or nothing."""
    from ratingdb.services.imports import import_club_lists, read_club_lists

    name = source_name(clubs_file)
    levels = (read_bytes(levels_file), source_name(levels_file)) if levels_file else None
    club_rows, level_rows = read_club_lists((read_bytes(clubs_file), name), levels, encoding)
    with writing(name) as session:
        report = import_club_lists(
            session, club_rows, level_rows, name, levels_name=levels[1] if levels else None
        )
    click.echo(report.summary())


@clubs.command("list")
@click.option("--federation", "prefix", default="", help="Only VKZ starting with PREFIX.")
def clubs_list(prefix: str) -> None:
    """VKZ and name of every club and federation level (by VKZ)."""
    from ratingdb.queries.clubs import club_list

    with Session(engine()) as session:
        for c in club_list(session, prefix):
            click.echo(f"{c.vkz:6} {c.name}")
