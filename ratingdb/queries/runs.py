"""The recorded recalculation runs (Berechnungslauf, WO 3.7) and what each changed: the
one reading behind ``ratingdb runs [--changes RUN]`` and the officer's pages.

What a run changed is its change report (``recalc_runs.changes``,
:mod:`ratingdb.db.change_report`): every player whose current DWZ or any evaluation
differs from what the run before it published, with the old and new DWZ.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.change_report import RatingChange, from_record, names_of
from ratingdb.errors import NotFound
from ratingdb.i18n import _

_COLUMNS = (
    'id, started_at, finished_at, change_point, "full", status, tournaments_evaluated, '
    "ratings_changed, message, failed_tournament"
)


def recorded_runs(session: Session, *, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
    """The runs, newest first, with their counts and (a failed one) the tournament it failed
    at and the reason; its change points stayed pending."""
    rows = session.execute(
        text(f"SELECT {_COLUMNS} FROM recalc_runs ORDER BY id DESC LIMIT :n OFFSET :o"),
        {"n": limit, "o": offset},
    ).mappings()
    return [dict(r) for r in rows]


def count_runs(session: Session) -> int:
    return int(session.execute(text("SELECT count(*) FROM recalc_runs")).scalar_one())


def recorded_run(session: Session, run_id: int) -> dict[str, Any]:
    """Run ``run_id`` as :func:`recorded_runs` gives it; NotFound for an unknown run."""
    row = (
        session.execute(text(f"SELECT {_COLUMNS} FROM recalc_runs WHERE id = :id"), {"id": run_id})
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(_("no recalculation run %(run)s (see `ratingdb runs`)") % {"run": run_id})
    return dict(row)


def run_changes(session: Session, run_id: int) -> list[RatingChange]:
    """Every player run ``run_id`` changed, by player id, with old and new DWZ; NotFound
    for an unknown run."""
    entries = session.execute(
        text("SELECT changes FROM recalc_runs WHERE id = :id"), {"id": run_id}
    ).scalar_one_or_none()
    if entries is None:
        raise NotFound(_("no recalculation run %(run)s (see `ratingdb runs`)") % {"run": run_id})
    return from_record(entries, names_of(session, (e[0] for e in entries)))
