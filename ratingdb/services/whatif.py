"""The what-if use case: the ratings a submission, correction or deletion would move, before
anything is written (WO 3.7: a change replays the affected tournaments and everything after
them).

The change is applied inside a savepoint, the next recalculation run is simulated
(``recalc.dry_run``: the same incremental replay the nightly job does) and
everything is rolled back. Other edits still pending for the next run would move ratings
too; to show only this change's effect the pending edits are simulated alone first (the
*baseline*), and the answer is the difference between the two simulations: every player
whose current DWZ or any evaluation differs (:mod:`ratingdb.db.change_report`), listed in
full. The caller's transaction holds the write lock exclusively until it ends
(:mod:`ratingdb.db.locks`): no edit and no run's write phase interleaves, so what it reads
is one consistent state and its simulated writes wait for nobody (a run that is computing
does not stop it); the caller
must roll that transaction back (nothing here is ever committed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.change_report import PlayerState, RatingChange
from ratingdb.db.locks import exclude_edits
from ratingdb.db.recalc import RunReport, dry_run

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MovedRating:
    """One player whose state the change moves (:mod:`ratingdb.db.change_report`: the
    current DWZ or any evaluation): published now (``current``), after the next run without
    the change (``baseline``) and with it (``after``)."""

    player_id: int
    name: str
    current: PlayerState
    baseline: PlayerState
    after: PlayerState
    #: a player the change creates (a new member): his page exists only once the change
    #: is submitted, under another id than the what-if's
    new: bool = False

    @property
    def delta(self) -> int | None:
        """After minus baseline rating; None when either has none (a first rating)."""
        if self.after.rating is None or self.baseline.rating is None:
            return None
        return self.after.rating - self.baseline.rating

    def line(self) -> str:
        """``name (id): baseline → after``, as the run reports' lines."""
        return RatingChange(self.player_id, self.name, self.baseline, self.after).line()

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "current": self.current.rating,
            "current_index": self.current.index,
            "baseline": self.baseline.rating,
            "baseline_index": self.baseline.index,
            "after": self.after.rating,
            "after_index": self.after.index,
            "delta": self.delta,
            "evaluations_changed": self.baseline.evaluations != self.after.evaluations,
            "new": self.new,
        }


@dataclass
class WhatIf:
    pending_changes: int
    tournaments_evaluated: int
    moved: list[MovedRating] = field(default_factory=list)
    #: how many participants of the changed tournament the run would give a stored rating
    #: (None: the change is no tournament's, or deletes it); 0 is a tournament in which
    #: nobody can be rated
    rated: int | None = None


def _simulate(session: Session) -> RunReport:
    savepoint = session.begin_nested()
    try:
        return dry_run(session)
    finally:
        savepoint.rollback()


def what_if(session: Session, change: Callable[[Session], T]) -> tuple[T, WhatIf]:
    """Apply ``change`` in a savepoint, simulate the next run, roll everything back.

    Returns what ``change`` returned (read its values inside ``change``: ORM objects are
    expired afterwards) and the moved ratings; waits while edits are written or a run
    writes. Errors of ``change`` (InputError, ...) propagate.
    """
    exclude_edits(session)
    pending = session.execute(
        text("SELECT count(*) FROM change_points WHERE run_id IS NULL")
    ).scalar_one()
    baseline = {c.player_id: c for c in _simulate(session).ratings_changed} if pending else {}
    savepoint = session.begin_nested()
    try:
        result = change(session)
        session.flush()
        report = dry_run(session)
        rated = _rated(session, result)
    finally:
        savepoint.rollback()
    with_change = {c.player_id: c for c in report.ratings_changed}
    moved = []
    for pid in sorted(set(baseline) | set(with_change)):
        base, new = baseline.get(pid), with_change.get(pid)
        some = base or new
        assert some is not None
        current = some.old  # both runs start from the published state
        before_run = base.new if base is not None else current
        after_run = new.new if new is not None else current
        if before_run != after_run:
            moved.append(MovedRating(pid, some.name, current, before_run, after_run))
    existing = set(
        session.scalars(
            text("SELECT id FROM players WHERE id = ANY(:p)"), {"p": [m.player_id for m in moved]}
        )
    )
    moved = [replace(m, new=m.player_id not in existing) for m in moved]
    return result, WhatIf(pending, report.tournaments_evaluated, moved, rated)


def _rated(session: Session, result: Any) -> int | None:
    """Participants of the changed tournament (``result.tournament``, a code) with a stored
    rating after the simulated run; None for a deletion or a change of no tournament."""
    code = getattr(result, "tournament", None)
    if not isinstance(code, str) or getattr(result, "action", None) in ("delete", "unchanged"):
        return None
    return int(
        session.execute(
            text(
                "SELECT count(*) FROM rating_snapshots s JOIN tournaments t "
                "ON t.id = s.tournament_id WHERE t.code = :c AND s.stored"
            ),
            {"c": code},
        ).scalar_one()
    )
