"""``ratingdb players``: the federation's member list (DSB spieler.csv) through
:mod:`ratingdb.services.imports`."""

from __future__ import annotations

from datetime import datetime

import click

from ratingdb.commands.common import progress_bar, read_bytes, source_name, writing
from ratingdb.i18n import _


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
@click.option(
    "--force",
    is_flag=True,
    help="End memberships even when the list ends more than the allowed share of them "
    "(RATINGDB_MAX_LEAVING_SHARE, default 5 %).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def players_import(
    source: str, list_date: datetime, encoding: str, partial: bool, force: bool, quiet: bool
) -> None:
    """Upsert players, clubs and memberships from FILE; take over the DWZ of players
    without history (docs/data-exchange.md)."""
    from ratingdb.services.imports import import_player_list, read_player_list

    name = source_name(source)
    rows = read_player_list(read_bytes(source), name, encoding)
    with writing(name) as session, progress_bar(_("importing players"), not quiet) as update:
        report = import_player_list(
            session,
            rows,
            list_date.date(),
            name,
            partial=partial,
            force=force,
            progress=update,
        )
    click.echo(report.summary())
    for pid, who, ours, listed in report.differences[:10]:
        click.echo(
            "  "
            + _("player %(id)s %(who)s: database %(ours)s, list %(listed)s")
            % {"id": pid, "who": who, "ours": ours, "listed": listed}
        )
    if len(report.differences) > 10:
        click.echo("  " + _("… and %(num)d more") % {"num": len(report.differences) - 10})
