"""``ratingdb adjustment``: dated rating conversions (WO Anhang 4) through
:mod:`ratingdb.services.rechenmodule`; each records a change point."""

from __future__ import annotations

from datetime import datetime

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import engine, writing
from ratingdb.i18n import _, date_text


@click.group()
def adjustment() -> None:
    """Dated rating conversions (WO Anhang 4), replayed like tournaments."""


@adjustment.command("add")
@click.option("--date", "when", required=True, type=click.DateTime(["%Y-%m-%d"]))
@click.option("--formula", default="dwz-2026-umstufung", show_default=True)
@click.option("--name", default="DWZ-Umstellung (WO Anhang 4)", show_default=True)
@click.option("--keep-index", is_flag=True, help="Do not raise the index by one.")
def adjustment_add(when: datetime, formula: str, name: str, keep_index: bool) -> None:
    """Convert every stored rating (and residual-game opponent rating) on DATE."""
    from ratingdb.services.rechenmodule import add_adjustment

    day = when.date()
    with writing() as session:
        add_adjustment(session, day=day, formula=formula, name=name, raises_index=not keep_index)
    click.echo(
        _("adjustment %(formula)s on %(day)s; change point recorded")
        % {"formula": formula, "day": date_text(day)}
    )


@adjustment.command("list")
def adjustment_list() -> None:
    from ratingdb.services.rechenmodule import adjustments

    with Session(engine()) as session:
        for r in adjustments(session):
            index = _("index +1") if r.raises_index else _("index kept")
            click.echo(f"{date_text(r.effective_on)}  {r.formula:22} {index:18} {r.name}")
