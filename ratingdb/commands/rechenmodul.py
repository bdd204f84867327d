"""``ratingdb rechenmodul``: the versioned rules (WO Anhang 1.2) through
:mod:`ratingdb.services.rechenmodule`. Adding a version records a change point so the next
recalculation run replays from its date."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import click
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, read_json, writing
from ratingdb.errors import InputError
from ratingdb.i18n import _, date_text


@click.group()
def rechenmodul() -> None:
    """Rechenmodule: rule family + parameters, valid from a date (WO Anhang 1.2)."""


@rechenmodul.command("list")
def rechenmodul_list() -> None:
    """The timeline: every version in order of its valid-from date, with the rating
    adjustments (WO Anhang 4) at their dates (an adjustment dated d runs after the
    tournaments ending on d, so it is listed before a version valid from d)."""
    from ratingdb.services.rechenmodule import timeline

    with Session(engine()) as session:
        entries = timeline(session)
    for entry in entries:
        click.echo(entry.line)


@rechenmodul.command("show")
@click.argument("version")
def rechenmodul_show(version: str) -> None:
    """The parameters of VERSION (as JSON)."""
    from ratingdb.services.rechenmodule import find_rechenmodul

    with Session(engine()) as session:
        row = find_rechenmodul(session, version)
        echo_json(
            {
                "family": row.family,
                "version": row.version,
                "valid_from": row.valid_from.isoformat(),
                "description": row.description,
                "parameters": row.parameters,
            }
        )


def parse_settings(settings: tuple[str, ...]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs; a VALUE that is JSON is read as JSON, else as a string (which
    the parameter schema then refuses for a number, naming NAME)."""
    out: dict[str, Any] = {}
    for item in settings:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set {item!r}", _("expected NAME=VALUE"))
        try:
            out[key] = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, too many digits, nested too deep
            out[key] = raw
    return out


@rechenmodul.command("add")
@click.option("--family", default="dwz2026", show_default=True)
@click.option("--version", "version", required=True)
@click.option("--valid-from", "valid_from", required=True, type=click.DateTime(["%Y-%m-%d"]))
@click.option(
    "--base",
    default=None,
    help="Start from this version's parameters (default: the version valid the day before).",
)
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="NAME=VALUE",
    help="Change one parameter, e.g. --set r=0.1 (repeatable).",
)
@click.option(
    "--parameters",
    "params_file",
    default=None,
    metavar="FILE",
    help="All parameters from a JSON file.",
)
@click.option("--description", default="")
def rechenmodul_add(
    family: str,
    version: str,
    valid_from: datetime,
    base: str | None,
    settings: tuple[str, ...],
    params_file: str | None,
    description: str,
) -> None:
    """Add a version; a past valid-from date recalculates from there on the next run."""
    from ratingdb.services.rechenmodule import add_rechenmodul

    start = valid_from.date()
    params: dict[str, Any] | None = None
    if params_file:
        params = read_json(params_file)
        if not isinstance(params, dict):
            raise InputError(params_file, _("expected a JSON object of parameters"))
    changes = parse_settings(settings)
    with writing() as session:
        add_rechenmodul(
            session,
            family=family,
            version=version,
            valid_from=start,
            parameters=params,
            base=base,
            changes=changes,
            description=description,
        )
    click.echo(
        _("Rechenmodul %(family)s %(version)s valid from %(day)s; change point recorded")
        % {"family": family, "version": version, "day": date_text(start)}
    )
