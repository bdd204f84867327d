"""Running a recalculation (Berechnungslauf, WO 3.7): the nightly job, the ``--now`` of the
edit commands and the demo. :class:`ratingdb.db.recalc.RecalcBusy` (a
:class:`ratingdb.errors.Busy`) when another run holds the lock; a run the rules stop is
recorded and its :class:`RulesError` says that nothing changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from ratingdb.db.change_report import RatingChange
from ratingdb.db.recalc import RunReport, run_recalc
from ratingdb.errors import RatingdbError, RulesError
from ratingdb.i18n import N_, _

__all__ = ["FAILED", "RatingChange", "RunReport", "recalculate"]

#: what a run the rules stopped says before their reason (in the user's language)
FAILED = N_("the run failed and changed nothing (recorded in `ratingdb runs`)")


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
        raise err.with_context(_(FAILED)) from None


#: how long a run started by an officer's change waits for a running one (the nightly job)
WAIT_SECONDS = 600.0
#: the setting that switches evaluating on submit off (:mod:`ratingdb.settings`): for
#: federations that evaluate at night only
SETTING = "RATINGDB_EVALUATE_ON_SUBMIT"


def evaluate_on_submit(environ: Any = None) -> bool:
    """Whether the officer's pages run the recalculation right after a change
    (:data:`SETTING`, default on)."""
    from ratingdb.settings import Settings

    return Settings.from_env(environ).evaluate_on_submit


@dataclass(frozen=True)
class Evaluation:
    """The run an officer's change started at once (WO 6.4.3: an evaluation is stored once
    the recalculations of 3.7 are done): ``ok`` with its run's number and what it changed,
    or why it did not run or failed (the change stays pending for the next run)."""

    ok: bool
    run_id: int | None = None
    tournaments_evaluated: int = 0
    changes: list[Any] = field(default_factory=list)
    reason: str | None = None


def evaluate_now(engine: Engine, _plan: Any = None) -> Evaluation:
    """One run for the pending change points, right after an officer's change: it waits for
    a running one (:data:`WAIT_SECONDS`), then goes; the nightly job stays the safety net. A
    failure is recorded as every run's and returned, never raised: the change is stored."""
    try:
        report = run_recalc(engine, wait=WAIT_SECONDS)
    except RatingdbError as err:
        return Evaluation(False, reason=str(err))
    return Evaluation(
        True, report.run_id, report.tournaments_evaluated, list(report.ratings_changed)
    )
