"""``ratingdb recalc`` (the nightly job) and ``ratingdb runs`` (what the runs did).

:func:`recalc_and_report` is one run as the command line shows it, also for the ``--now``
option of the edit and import commands: a progress bar, the summary, the tournaments whose
players had to be struck."""

from __future__ import annotations

import click
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.commands.common import echo_json, engine, progress_bar


def recalc_and_report(eng: Engine, *, full: bool, dry_run: bool, quiet: bool) -> None:
    """Run :func:`ratingdb.services.recalc.recalculate` and print what it did."""
    from ratingdb.services.recalc import recalculate

    with progress_bar("recalculating", enabled=not quiet) as update:
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
    if report.problems:
        click.echo(
            f"{len(report.problems)} tournament(s) could not be rated in full; their players "
            "named below kept their ratings (details: `ratingdb runs`):"
        )
        for line in report.problems[:20]:
            click.echo(f"  {line}")
    if dry_run:
        for c in report.ratings_changed[:50]:
            delta = "" if c.before is None or c.after is None else f" ({c.after - c.before:+d})"
            click.echo(f"  {c.player_id:>8}  {c.name:30} {c.before} -> {c.after}{delta}")


@click.command()
@click.option("--full", is_flag=True, help="Replay the whole history from the beginning.")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def recalc(full: bool, dry_run: bool, quiet: bool) -> None:
    """The nightly job: one recalculation run for all pending change points (WO 3.7)."""
    recalc_and_report(engine(), full=full, dry_run=dry_run, quiet=quiet)


@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=0))
@click.option(
    "--problems",
    "show_problems",
    is_flag=True,
    help="Only the tournaments whose last evaluation had to strike players.",
)
def runs(as_json: bool, limit: int, show_problems: bool) -> None:
    """Recorded recalculation runs, newest first, and the tournaments whose last
    evaluation had to strike players (the rules refused them; nobody else was held up)."""
    from sqlalchemy import text

    from ratingdb.queries.problems import open_problems

    with Session(engine()) as session:
        rows = [
            dict(r)
            for r in session.execute(
                text(
                    'SELECT id, started_at, finished_at, change_point, "full", status, '
                    "tournaments_evaluated, ratings_changed, message FROM recalc_runs "
                    "ORDER BY id DESC LIMIT :n"
                ),
                {"n": limit},
            ).mappings()
        ]
        problems = open_problems(session)
    if as_json:
        echo_json(problems if show_problems else rows)
        return
    if show_problems:
        rows = []
    for r in rows:
        seconds = (r["finished_at"] - r["started_at"]).total_seconds() if r["finished_at"] else 0
        where = "full" if r["full"] else f"from {r['change_point']}"
        click.echo(
            f"run {r['id']:>4}  {r['started_at']:%Y-%m-%d %H:%M:%S}  {r['status']:9} {where:16} "
            f"{r['tournaments_evaluated']:>6} tournaments  {r['ratings_changed']:>6} ratings  "
            f"{seconds:.2f} s"
        )
    if problems:
        click.echo(f"\n{len(problems)} tournament(s) whose last evaluation struck players:")
        for p in problems:
            names = ", ".join(p["players"])
            click.echo(
                f"  {p['code']} (ends {p['end_date']}): not rated: {names}\n    {p['message']}"
            )
