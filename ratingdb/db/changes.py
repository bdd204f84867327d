"""Recording a change: the change point the next recalculation run replays from (WO 3.7)
and the audit-log entry with who did it. Every write of ratingdb that changes what a replay
computes goes through :func:`record_change` (tournaments, memberships, Rechenmodule, rating
adjustments), in the caller's transaction, which then holds the write lock shared
(:func:`ratingdb.db.locks.hold_edits`) until it ends: a run never sees half of an edit."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from ratingdb.db.locks import hold_edits
from ratingdb.db.models import AuditEntry, ChangePoint


def record_change(
    session: Session,
    kind: str,
    from_date: date,
    *,
    actor: str,
    action: str,
    entity: str,
    entity_id: str,
    details: dict[str, Any] | None = None,
    tournament_id: int | None = None,
    player_ids: Iterable[int] | None = None,
    hold_key: list[Any] | None = None,
) -> None:
    """A pending change point of ``kind`` from ``from_date`` and its audit entry."""
    hold_edits(session)
    point = ChangePoint(kind=kind, from_date=from_date, tournament_id=tournament_id)
    if player_ids is not None:
        point.player_ids = sorted(player_ids)
    if hold_key is not None:
        point.hold_key = hold_key
    session.add(point)
    session.add(
        AuditEntry(
            actor=actor,
            action=action,
            entity=entity,
            entity_id=entity_id,
            change_point=from_date,
            details=details or {},
        )
    )
