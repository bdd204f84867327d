"""Running a recalculation (Berechnungslauf, WO 3.7): the nightly job, the ``--now`` of the
edit commands and the demo. :class:`ratingdb.db.recalc.RecalcBusy` (a
:class:`ratingdb.errors.Busy`) when another run holds the lock; a run the rules stop is
recorded and its :class:`RulesError` says that nothing changed."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine

from ratingdb.db.change_report import RatingChange
from ratingdb.db.recalc import RunReport, run_recalc
from ratingdb.rules.errors import RulesError

__all__ = ["FAILED", "RatingChange", "RunReport", "recalculate"]

FAILED = "the run failed and changed nothing (recorded in `ratingdb runs`)"


def recalculate(
    engine: Engine,
    *,
    full: bool = False,
    dry_run: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
) -> RunReport:
    """One run for all pending change points (``full``: from the beginning)."""
    try:
        return run_recalc(engine, full=full, dry_run=dry_run, progress=progress)
    except RulesError as err:
        raise err.with_context(FAILED) from None
