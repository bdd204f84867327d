"""The officer's overview (issue 29, item 6): his tournaments with their state, and the
recent recalculation runs (WO 3.7).

A tournament's state: ``pending`` (submitted, waiting for the next run), ``failed`` (the
last run failed while evaluating it: the run's message is the reason; it stays pending
for the next run), ``evaluated`` (with the rules' objection if the evaluation struck
participants, ``evaluation_problems``), ``rejected``. Which tournaments are listed is
decided by :func:`ratingdb.services.permissions.scope_condition` (WO 6.3), whether the
officer may still change one by :func:`~ratingdb.services.permissions.within_deadline`
(WO 6.2): the same rules as the API's.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.db.models import EvaluationProblem, RecalcRun, Tournament
from ratingdb.db.users import Principal
from ratingdb.services.permissions import scope_condition, within_deadline


def last_failed_run(session: Session) -> RecalcRun | None:
    """The latest run if it failed (its change points are still pending), else None."""
    run = session.scalar(select(RecalcRun).order_by(RecalcRun.id.desc()).limit(1))
    return run if run is not None and run.status == "failed" else None


def officer_tournaments(
    session: Session, principal: Principal, today: date, *, limit: int = 200
) -> list[dict[str, Any]]:
    """The tournaments in ``principal``'s scope, latest end first, with their state."""
    failed = last_failed_run(session)
    rows = session.execute(
        select(Tournament, EvaluationProblem.message)
        .outerjoin(EvaluationProblem, EvaluationProblem.tournament_id == Tournament.id)
        .where(scope_condition(principal, Tournament.vkz))
        .order_by(Tournament.end_date.desc(), Tournament.id.desc())
        .limit(limit)
    ).all()
    out = []
    for t, problem in rows:
        state: str = t.status
        reason: str | None = problem
        if t.status == "submitted":
            state, reason = "pending", None
            if failed is not None and failed.failed_tournament == t.code:
                state, reason = "failed", failed.message
        out.append(
            {
                "code": t.code,
                "name": t.name,
                "vkz": t.vkz,
                "end_date": t.end_date,
                "state": state,
                "reason": reason,
                "changeable": principal.is_admin or within_deadline(t.end_date, today),
            }
        )
    return out


def recent_runs(session: Session, *, limit: int = 10) -> list[RecalcRun]:
    """The latest recalculation runs, newest first."""
    return list(session.scalars(select(RecalcRun).order_by(RecalcRun.id.desc()).limit(limit)))
