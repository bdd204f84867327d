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
        click.echo(f"{indent}(showing {limit} of {len(changes)}{more})")


def recalc_and_report(
    eng: Engine, *, full: bool, dry_run: bool, quiet: bool, shown: int = SHOWN
) -> None:
    """Run :func:`ratingdb.services.recalc.recalculate` and print what it did."""
    from ratingdb.services.recalc import recalculate

    with recalc_progress(enabled=not quiet) as update:
        report = recalculate(eng, full=full, dry_run=dry_run, progress=update)
    if report.change_point is None and not report.full:
        click.echo("nothing to recalculate: no pending changes")
        return
    head = "dry run: would re-evaluate" if dry_run else f"run {report.run_id}: re-evaluated"
    where = "full replay" if report.full else f"from {report.change_point}"
    click.echo(
        f"{head} {report.tournaments_evaluated} of {report.tournaments_total} tournaments "
        f"({where}), {report.snapshots_written} snapshots, "
        f"{len(report.ratings_changed)} ratings changed, {report.seconds:.2f} s"
    )
    if report.deferred:
        click.echo(
            f"{len(report.deferred)} tournament(s) edited during the run stay pending for the "
            f"next run: {', '.join(report.deferred[:20])}"
        )
    if report.problems:
        click.echo(
            f"{len(report.problems)} tournament(s) could not be rated in full; their players "
            "named below kept their ratings (details: `ratingdb runs`):"
        )
        for line in report.problems[:20]:
            click.echo(f"  {line}")
    more = (
        f"; --list {len(report.ratings_changed)} shows all"
        if dry_run
        else f"; `ratingdb runs --changes {report.run_id}` lists all"
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
    for r in rows:
        seconds = (r["finished_at"] - r["started_at"]).total_seconds() if r["finished_at"] else 0
        where = "full" if r["full"] else f"from {r['change_point'] or '–'}"
        click.echo(
            f"run {r['id']:>4}  {r['started_at']:%Y-%m-%d %H:%M:%S}  {r['status']:9} {where:16} "
            f"{r['tournaments_evaluated']:>6} tournaments  {r['ratings_changed']:>6} ratings  "
            f"{seconds:.2f} s"
        )
        if r["status"] == "failed":
            at = f"at {r['failed_tournament']}: " if r["failed_tournament"] else ""
            click.echo(f"          failed {at}{r['message']}")
    if problems:
        click.echo(f"\n{len(problems)} tournament(s) whose last evaluation struck players:")
        for p in problems:
            names = ", ".join(p["players"])
            click.echo(
                f"  {p['code']} (ends {p['end_date']}): not rated: {names}\n    {p['message']}"
            )


def _run_changes(run_id: int, as_json: bool) -> None:
    """The players run ``run_id`` changed (``recalc_runs.changes``)."""
    from ratingdb.queries.runs import run_changes

    with Session(engine()) as session:
        changes = run_changes(session, run_id)
    if as_json:
        echo_json([c.to_dict() for c in changes])
        return
    click.echo(f"run {run_id}: {len(changes)} ratings changed")
    echo_changes(changes, limit=len(changes))
