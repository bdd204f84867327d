"""The admin API: the audit log (every write with user, time and change point) and the
anonymisation of a former member's data (WO 4.1.1)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from sqlalchemy.orm import Session

from ratingdb.queries.audit import audit_entries
from ratingdb.services.anonymise import anonymise_player
from ratingdb.web import schemas
from ratingdb.web.deps import AdminDep, ReleasingRoute, SessionDep

router = APIRouter(prefix="/api/admin", tags=["admin"], route_class=ReleasingRoute)
ADMIN = schemas.error_responses(401, 403)


@router.get("/audit", response_model=schemas.AuditPage, responses=ADMIN)
def audit(
    session: SessionDep,
    user: AdminDep,
    actor: Annotated[str | None, Query(max_length=100)] = None,
    entity_id: Annotated[str | None, Query(max_length=50)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> dict[str, Any]:
    """The audit log, newest first: who (the token's user), when, what, the change point."""
    items, total = audit_entries(
        session, actor=actor, entity_id=entity_id, limit=limit, offset=offset
    )
    return {"total": total, "items": items}


@router.post(
    "/players/{player_id}/anonymise",
    response_model=schemas.AnonymisedOut,
    responses=schemas.error_responses(
        401, 403, 404, 422, refused="The player is a member today, or anonymised already"
    ),
)
def anonymise(request: Request, player_id: int, user: AdminDep) -> dict[str, Any]:
    """Replace a non-member's or former member's personal data in all evaluations with a
    placeholder; no number changes (WO 4.1.1)."""
    with Session(request.app.state.engine) as session, session.begin():
        done = anonymise_player(
            session, player_id, today=request.app.state.today(), actor=user.name
        )
    return {
        "player_id": done.player_id,
        "evaluations": done.evaluations,
        "memberships": done.memberships,
    }
