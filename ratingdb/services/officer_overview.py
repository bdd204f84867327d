"""The officer's overview: his tournaments with their state, and the
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

from sqlalchemy import ColumnElement, and_, false, func, select
from sqlalchemy.orm import Session

from ratingdb.db.models import EvaluationProblem, RecalcRun, Tournament
from ratingdb.services.permissions import scope_condition, within_deadline
from ratingdb.services.users import Principal


def last_failed_run(session: Session) -> RecalcRun | None:
    """The latest run if it failed (its change points are still pending), else None."""
    run = session.scalar(select(RecalcRun).order_by(RecalcRun.id.desc()).limit(1))
    return run if run is not None and run.status == "failed" else None


#: the states of :func:`officer_tournaments`, in the order the overview shows them
STATES = ("pending", "failed", "evaluated", "rejected")


def _state_condition(state: str, failed: RecalcRun | None) -> ColumnElement[bool]:
    """The SQL condition of a tournament ``state`` (pending and failed are both stored as
    ``submitted``; failed is the one the last, failed run stopped at)."""
    failed_code = failed.failed_tournament if failed is not None else None
    if state in ("evaluated", "rejected"):
        return Tournament.status == state
    submitted = Tournament.status == "submitted"
    if state == "failed":
        return and_(submitted, Tournament.code == failed_code) if failed_code else false()
    return and_(submitted, Tournament.code != failed_code) if failed_code else submitted


def state_counts(session: Session, principal: Principal) -> dict[str, int]:
    """How many of ``principal``'s tournaments are in each state (:data:`STATES`)."""
    failed = last_failed_run(session)
    return {
        state: session.scalar(
            select(func.count())
            .select_from(Tournament)
            .where(scope_condition(principal, Tournament.vkz), _state_condition(state, failed))
        )
        or 0
        for state in STATES
    }


def officer_tournaments(
    session: Session,
    principal: Principal,
    today: date,
    *,
    state: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """The tournaments in ``principal``'s scope (only those in ``state``, one of
    :data:`STATES`), latest end first, with their state; a failed one with the run's id and
    reason."""
    failed = last_failed_run(session)
    query = (
        select(Tournament, EvaluationProblem.message)
        .outerjoin(EvaluationProblem, EvaluationProblem.tournament_id == Tournament.id)
        .where(scope_condition(principal, Tournament.vkz))
    )
    if state is not None:
        query = query.where(_state_condition(state, failed))
    rows = session.execute(
        query.order_by(Tournament.end_date.desc(), Tournament.id.desc()).limit(limit).offset(offset)
    ).all()
    out = []
    for t, problem in rows:
        current: str = t.status
        reason: str | None = problem
        run_id = None
        if t.status == "submitted":
            current, reason = "pending", None
            if failed is not None and failed.failed_tournament == t.code:
                current, reason, run_id = "failed", failed.message, failed.id
        out.append(
            {
                "code": t.code,
                "name": t.name,
                "vkz": t.vkz,
                "end_date": t.end_date,
                "state": current,
                "reason": reason,
                "run_id": run_id,
                "changeable": principal.is_admin or within_deadline(t.end_date, today),
            }
        )
    return out
