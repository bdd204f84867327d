"""``ratingdb recalc`` (the nightly job) and ``ratingdb runs`` (what the runs did).

:func:`recalc_and_report` is one run as the command line shows it, also for the ``--now``
option of the edit and import commands: a progress bar, the summary, the tournaments whose
players had to be struck."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, recalc_progress
from ratingdb.i18n import _, date_text, decimal, ngettext, pgettext
from ratingdb.terms import record_status

if TYPE_CHECKING:
    from ratingdb.services.recalc import RatingChange


#: how many changed players a command lists unless told otherwise
SHOWN = 10


def echo_changes(
    changes: Sequence[RatingChange], *, limit: int = SHOWN, more: str = "", indent: str = "  "
) -> None:
    """Every changed player as ``name (id): old → new``
    (:class:`ratingdb.services.recalc.RatingChange`), the first ``limit`` of them; "showing
    10 of 47" and ``more`` (how to see the rest) when cut."""
    for c in changes[:limit]:
        click.echo(f"{indent}{c.line()}")
    if len(changes) > limit:
        shown = _("showing %(limit)d of %(total)d") % {"limit": limit, "total": len(changes)}
        click.echo(f"{indent}({shown}{more})")


def recalc_and_report(
    eng: Engine, *, full: bool, dry_run: bool, quiet: bool, shown: int = SHOWN
) -> None:
    """Run :func:`ratingdb.services.recalc.recalculate` and print what it did."""
    from ratingdb.services.recalc import recalculate

    with recalc_progress(enabled=not quiet) as update:
        report = recalculate(eng, full=full, dry_run=dry_run, progress=update)
    if report.change_point is None and not report.full:
        click.echo(_("nothing to recalculate: no pending changes"))
        return
    where = (
        _("full replay")
        if report.full or report.change_point is None
        else _("from %(day)s") % {"day": date_text(report.change_point)}
    )
    numbers = {
        "run": report.run_id,
        "evaluated": report.tournaments_evaluated,
        "total": report.tournaments_total,
        "where": where,
        "snapshots": report.snapshots_written,
        "changed": len(report.ratings_changed),
        "seconds": decimal(report.seconds, 2),
    }
    if dry_run:
        summary = _(
            "dry run: would re-evaluate %(evaluated)d of %(total)d tournaments (%(where)s), "
            "%(snapshots)d snapshots, %(changed)d ratings changed, %(seconds)s s"
        )
    else:
        summary = _(
            "run %(run)s: re-evaluated %(evaluated)d of %(total)d tournaments (%(where)s), "
            "%(snapshots)d snapshots, %(changed)d ratings changed, %(seconds)s s"
        )
    click.echo(summary % numbers)
    if report.deferred:
        click.echo(
            ngettext(
                "%(num)d tournament edited during the run stays pending for the next run: "
                "%(codes)s",
                "%(num)d tournaments edited during the run stay pending for the next run: "
                "%(codes)s",
                len(report.deferred),
            )
            % {"num": len(report.deferred), "codes": ", ".join(report.deferred[:20])}
        )
    if report.problems:
        click.echo(
            ngettext(
                "%(num)d tournament could not be rated in full; its players named below kept "
                "their ratings (details: `ratingdb runs`):",
                "%(num)d tournaments could not be rated in full; their players named below "
                "kept their ratings (details: `ratingdb runs`):",
                len(report.problems),
            )
            % {"num": len(report.problems)}
        )
        for line in report.problems[:20]:
            click.echo(f"  {line}")
    more = "; " + (
        _("--list %(num)d shows all") % {"num": len(report.ratings_changed)}
        if dry_run
        else _("`ratingdb runs --changes %(run)s` lists all") % {"run": report.run_id}
    )
    echo_changes(report.ratings_changed, limit=shown, more=more)


@click.command()
@click.option("--full", is_flag=True, help="Replay the whole history from the beginning.")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--list",
    "shown",
    default=SHOWN,
    show_default=True,
    type=click.IntRange(min=0),
    help="List this many of the changed players.",
)
def recalc(full: bool, dry_run: bool, quiet: bool, shown: int) -> None:
    """The nightly job: one recalculation run for all pending change points (WO 3.7).

    A player changed when their current DWZ or any of their evaluations differs from what
    the last run published (docs/engine.md, "Change reports")."""
    recalc_and_report(engine(), full=full, dry_run=dry_run, quiet=quiet, shown=shown)


@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=0))
@click.option(
    "--problems",
    "show_problems",
    is_flag=True,
    help="Only the tournaments whose last evaluation had to strike players.",
)
@click.option(
    "--changes",
    "run_id",
    type=int,
    metavar="RUN",
    help="Every player run RUN changed, with old and new DWZ.",
)
def runs(as_json: bool, limit: int, show_problems: bool, run_id: int | None) -> None:
    """Recorded recalculation runs, newest first (a failed one with the tournament it
    failed at and the reason; its change points stayed pending), and the tournaments whose
    last evaluation had to strike players (the rules refused them; nobody else was held up)."""
    from ratingdb.queries.problems import open_problems
    from ratingdb.queries.runs import recorded_runs

    if run_id is not None:
        _run_changes(run_id, as_json)
        return
    with Session(engine()) as session:
        rows = recorded_runs(session, limit=limit)
        problems = open_problems(session)
    if as_json:
        echo_json(problems if show_problems else rows)
        return
    if show_problems:
        rows = []
    run_word = pgettext("calculation", "run")
    for r in rows:
        seconds = (r["finished_at"] - r["started_at"]).total_seconds() if r["finished_at"] else 0
        point = r["change_point"]
        where = (
            _("full")
            if r["full"]
            else _("from %(day)s") % {"day": date_text(point) if point else "–"}
        )
        started = f"{date_text(r['started_at'].date())} {r['started_at']:%H:%M:%S}"
        tournaments = ngettext(
            "%(num)d tournament", "%(num)d tournaments", r["tournaments_evaluated"]
        ) % {"num": r["tournaments_evaluated"]}
        ratings = ngettext("%(num)d rating", "%(num)d ratings", r["ratings_changed"]) % {
            "num": r["ratings_changed"]
        }
        click.echo(
            f"{run_word} {r['id']:>4}  {started}  {record_status(r['status']):11} {where:18} "
            f"{tournaments:>16}  {ratings:>14}  {decimal(seconds, 2)} s"
        )
        if r["status"] == "failed":
            at = (
                _("at %(code)s: ") % {"code": r["failed_tournament"]}
                if r["failed_tournament"]
                else ""
            )
            click.echo(f"          {record_status('failed')} {at}{r['message']}")
    if problems:
        click.echo(
            "\n"
            + ngettext(
                "%(num)d tournament whose last evaluation struck players:",
                "%(num)d tournaments whose last evaluation struck players:",
                len(problems),
            )
            % {"num": len(problems)}
        )
        for p in problems:
            click.echo(
                "  "
                + _("%(code)s (ends %(end)s): not rated: %(names)s")
                % {
                    "code": p["code"],
                    "end": date_text(p["end_date"]),
                    "names": ", ".join(p["players"]),
                }
                + f"\n    {p['message']}"
            )


def _run_changes(run_id: int, as_json: bool) -> None:
    """The players run ``run_id`` changed (``recalc_runs.changes``)."""
    from ratingdb.queries.runs import run_changes

    with Session(engine()) as session:
        changes = run_changes(session, run_id)
    if as_json:
        echo_json([c.to_dict() for c in changes])
        return
    click.echo(
        _("run %(run)s: %(changed)d ratings changed") % {"run": run_id, "changed": len(changes)}
    )
    echo_changes(changes, limit=len(changes))
