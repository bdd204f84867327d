"""One recalculation run as the command line shows it (``ratingdb recalc`` and the
``--now`` option of the edit and import commands): a progress bar, the summary, the
tournaments whose players had to be struck, and one error line when the run cannot start."""

from __future__ import annotations

import click
from sqlalchemy import Engine

from ratingdb.commands.common import fail, progress_bar


def recalc_and_report(eng: Engine, *, full: bool, dry_run: bool, quiet: bool) -> None:
    from ratingdb.db.recalc import RecalcBusy, run_recalc
    from ratingdb.rules.errors import RulesError

    try:
        with progress_bar("recalculating", enabled=not quiet) as update:
            report = run_recalc(eng, full=full, dry_run=dry_run, progress=update)
    except RecalcBusy as err:
        fail(str(err), code=3)
    except RulesError as err:
        fail(f"the run failed and changed nothing (recorded in `ratingdb runs`): {err}")
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
