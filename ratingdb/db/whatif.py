"""What-if: the ratings a submission, correction or deletion would move, before anything is
written (WO 3.7: a change replays the affected tournaments and everything after them).

The change is applied inside a savepoint, the next recalculation run is simulated
(``recalc.dry_run``: the same incremental replay the nightly job does) and
everything is rolled back. Other edits still pending for the next run would move ratings
too; to show only this change's effect the pending edits are simulated alone first (the
*baseline*), and the answer is the difference between the two simulations. The caller's
transaction holds the recalculation lock until it ends, so no run interleaves; the caller
must roll that transaction back (nothing here is ever committed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.recalc import LOCK_KEY, RecalcBusy, RunReport, dry_run

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MovedRating:
    """One player's current rating (last stored), after the next run without the change
    (``baseline``) and with it (``after``); ``delta`` = after - baseline."""

    player_id: int
    name: str
    current: int | None
    baseline: int | None
    after: int | None

    @property
    def delta(self) -> int | None:
        if self.after is None or self.baseline is None:
            return None
        return self.after - self.baseline

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "current": self.current,
            "baseline": self.baseline,
            "after": self.after,
            "delta": self.delta,
        }


@dataclass
class WhatIf:
    pending_changes: int
    tournaments_evaluated: int
    moved: list[MovedRating] = field(default_factory=list)


def _simulate(session: Session) -> RunReport:
    savepoint = session.begin_nested()
    try:
        return dry_run(session)
    finally:
        savepoint.rollback()


def what_if(session: Session, change: Callable[[Session], T]) -> tuple[T, WhatIf]:
    """Apply ``change`` in a savepoint, simulate the next run, roll everything back.

    Returns what ``change`` returned (read its values inside ``change``: ORM objects are
    expired afterwards) and the moved ratings. Raises :class:`RecalcBusy` while a
    recalculation run holds the lock; errors of ``change`` (InputError, ...) propagate.
    """
    locked = session.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
    if not locked.scalar():
        raise RecalcBusy("a recalculation run is in progress; try again when it has finished")
    pending = session.execute(
        text("SELECT count(*) FROM change_points WHERE run_id IS NULL")
    ).scalar_one()
    baseline = {c.player_id: c for c in _simulate(session).ratings_changed} if pending else {}
    savepoint = session.begin_nested()
    try:
        result = change(session)
        session.flush()
        report = dry_run(session)
    finally:
        savepoint.rollback()
    with_change = {c.player_id: c for c in report.ratings_changed}
    moved = []
    for pid in sorted(set(baseline) | set(with_change)):
        base, new = baseline.get(pid), with_change.get(pid)
        current = (base or new).before  # type: ignore[union-attr]
        before_run = base.after if base is not None else current
        after_run = new.after if new is not None else current
        if before_run != after_run:
            name = (new.name if new is not None else "") or (base.name if base else "")
            moved.append(MovedRating(pid, name, current, before_run, after_run))
    return result, WhatIf(pending, report.tournaments_evaluated, moved)
