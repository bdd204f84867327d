"""``ratingdb rechenmodul`` and ``ratingdb adjustment``: the versioned rules (WO Anhang 1.2)
and dated rating conversions (WO Anhang 4). Each addition records a change point so the
next recalculation run replays from its date."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import click
from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, fail, read_json


def _record(session: Session, kind: str, when: date, what: str) -> None:
    session.execute(
        text("INSERT INTO change_points (kind, from_date) VALUES (:k, :d)"), {"k": kind, "d": when}
    )
    session.execute(
        text(
            "INSERT INTO audit_log (actor, action, entity, entity_id, change_point, details) "
            "VALUES ('cli', 'add', :entity, :id, :d, '{}')"
        ),
        {"entity": kind, "id": what, "d": when},
    )


@click.group()
def rechenmodul() -> None:
    """Rechenmodule: rule family + parameters, valid from a date (WO Anhang 1.2)."""


@rechenmodul.command("list")
def rechenmodul_list() -> None:
    """The timeline: every version in order of its valid-from date, with the rating
    adjustments (WO Anhang 4) at their dates (an adjustment dated d runs after the
    tournaments ending on d, so it is listed before a version valid from d)."""
    with Session(engine()) as session:
        versions = session.execute(
            text("SELECT family, version, valid_from, description FROM rechenmodule")
        ).all()
        adjustments = session.execute(
            text("SELECT effective_on, formula, raises_index, name FROM rating_adjustments")
        ).all()
    lines = [
        (r.valid_from, 1, f"{r.valid_from}  {r.family:11} {r.version:11} {r.description}")
        for r in versions
    ]
    lines += [
        (
            a.effective_on,
            0,
            f"{a.effective_on}  {'adjustment':11} {a.formula} "
            f"({'index +1' if a.raises_index else 'index kept'}) {a.name}",
        )
        for a in adjustments
    ]
    for _, _, line in sorted(lines, key=lambda x: (x[0], x[1])):
        click.echo(line)


@rechenmodul.command("show")
@click.argument("version")
def rechenmodul_show(version: str) -> None:
    """The parameters of VERSION (as JSON)."""
    with Session(engine()) as session:
        row = session.execute(
            text(
                "SELECT family, version, valid_from, parameters, description FROM rechenmodule "
                "WHERE version = :v"
            ),
            {"v": version},
        ).first()
    if row is None:
        fail(f"no Rechenmodul version {version!r}")
    echo_json(
        {
            "family": row.family,
            "version": row.version,
            "valid_from": row.valid_from.isoformat(),
            "description": row.description,
            "parameters": row.parameters,
        }
    )


def _parse_settings(settings: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in settings:
        key, sep, raw = item.partition("=")
        if not sep:
            fail(f"--set {item!r}: expected NAME=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
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
    valid_from: Any,
    base: str | None,
    settings: tuple[str, ...],
    params_file: str | None,
    description: str,
) -> None:
    """Add a version; a past valid-from date recalculates from there on the next run."""
    from ratingdb.rules import get_family

    start = valid_from.date()
    try:
        rules = get_family(family)
    except KeyError as err:
        fail(str(err.args[0]))
    if not rules.engine:
        fail(
            f"the {family} family rates {rules.shape}s with its own state; the replay engine "
            "runs only tournament families with DWZ snapshots (docs/engine.md) - use "
            "`ratingdb evaluate --rules` for it"
        )
    with Session(engine()) as session, session.begin():
        if params_file:
            params: dict[str, Any] = read_json(params_file)
            if not isinstance(params, dict):
                fail(f"{params_file}: expected a JSON object of parameters")
        else:
            row = session.execute(
                text("SELECT parameters FROM rechenmodule WHERE version = :v AND family = :f")
                if base
                else text(
                    "SELECT parameters FROM rechenmodule WHERE valid_from < :d AND family = :f "
                    "ORDER BY valid_from DESC LIMIT 1"
                ),
                {"v": base, "d": start, "f": family},
            ).first()
            if row is None and base:
                fail(f"--base: no {family} Rechenmodul version {base!r}")
            params = dict(row.parameters) if row else {}
        params.update(_parse_settings(settings))
        try:
            checked = rules.parameters.from_dict(params).to_dict()
        except ValueError as err:
            fail(f"parameters: {err}")
        exists = session.execute(
            text(
                "SELECT 1 FROM rechenmodule WHERE (family = :f AND version = :v) OR valid_from = :d"
            ),
            {"f": family, "v": version, "d": start},
        ).first()
        if exists:
            fail(f"a Rechenmodul {family} {version} or one valid from {start} exists already")
        first = session.execute(text("SELECT min(valid_from) FROM rechenmodule")).scalar()
        session.execute(
            text(
                "INSERT INTO rechenmodule (family, version, valid_from, parameters, description) "
                "VALUES (:f, :v, :d, CAST(:p AS jsonb), :desc)"
            ),
            {"f": family, "v": version, "d": start, "p": json.dumps(checked), "desc": description},
        )
        # tournaments before the first version are evaluated with the oldest one: a new
        # oldest version therefore changes the rules for everything before it as well
        since = date(1, 1, 1) if first is None or start < first else start
        _record(session, "rechenmodul", since, f"{family}/{version}")
    click.echo(f"Rechenmodul {family} {version} valid from {start}; change point recorded")


@click.group()
def adjustment() -> None:
    """Dated rating conversions (WO Anhang 4), replayed like tournaments."""


@adjustment.command("add")
@click.option("--date", "when", required=True, type=click.DateTime(["%Y-%m-%d"]))
@click.option("--formula", default="dwz-2026-umstufung", show_default=True)
@click.option("--name", default="DWZ-Umstellung (WO Anhang 4)", show_default=True)
@click.option("--keep-index", is_flag=True, help="Do not raise the index by one.")
def adjustment_add(when: Any, formula: str, name: str, keep_index: bool) -> None:
    """Convert every stored rating (and residual-game opponent rating) on DATE."""
    from ratingdb.rules.adjustments import FORMULAS

    day = when.date()
    if formula not in FORMULAS:
        fail(f"unknown formula {formula!r} (known: {', '.join(FORMULAS)})")
    with Session(engine()) as session, session.begin():
        exists = session.execute(
            text("SELECT 1 FROM rating_adjustments WHERE effective_on = :d AND formula = :f"),
            {"d": day, "f": formula},
        ).first()
        if exists:
            fail(f"adjustment {formula} on {day} exists already")
        session.execute(
            text(
                "INSERT INTO rating_adjustments (name, effective_on, formula, raises_index) "
                "VALUES (:n, :d, :f, :r)"
            ),
            {"n": name, "d": day, "f": formula, "r": not keep_index},
        )
        _record(session, "adjustment", day, formula)
    click.echo(f"adjustment {formula} on {day}; change point recorded")


@adjustment.command("list")
def adjustment_list() -> None:
    with Session(engine()) as session:
        for r in session.execute(
            text(
                "SELECT effective_on, formula, raises_index, name FROM rating_adjustments "
                "ORDER BY effective_on"
            )
        ):
            index = "index +1" if r.raises_index else "index kept"
            click.echo(f"{r.effective_on}  {r.formula:22} {index:10} {r.name}")
