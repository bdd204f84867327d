"""The recorded recalculation runs for signed-in officers and admins:
``/officer/runs`` (every run, newest first) and ``/officer/runs/{id}`` (what the run
changed: every player, old → new DWZ, from the run's change report,
:mod:`ratingdb.db.change_report`; the same reading as ``ratingdb runs --changes RUN``).

A run is a federation-wide event (WO 3.7), so every officer sees every run; a changed
player links to his Karteikarte when he is published (WO 4.1.1), else his name stands alone.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, Response

from ratingdb.queries.publication import published_players
from ratingdb.queries.runs import count_runs, recorded_run, recorded_runs, run_changes
from ratingdb.web.deps import ReleasingRoute, SessionDep, SignedInDep, TodayDep
from ratingdb.web.guard import render, to_sign_in

router = APIRouter(include_in_schema=False, route_class=ReleasingRoute)
#: runs on one page of the list, changed players on one page of a run
RUN_ROWS = 50
CHANGE_ROWS = 500
Offset = Annotated[int, Query(ge=0, le=10_000_000)]
RunId = Annotated[int, Path(ge=1, le=2**31 - 1)]


@router.get("/officer/runs", response_class=HTMLResponse)
def runs_page(
    request: Request, session: SessionDep, user: SignedInDep, offset: Offset = 0
) -> Response:
    if user is None:
        return to_sign_in(request)
    return render(
        request,
        "runs.html",
        {
            "runs": recorded_runs(session, limit=RUN_ROWS, offset=offset),
            "total": count_runs(session),
            "offset": offset,
            "limit": RUN_ROWS,
        },
    )


@router.get("/officer/runs/{run_id}", response_class=HTMLResponse)
def run_page(
    request: Request,
    run_id: RunId,
    session: SessionDep,
    today: TodayDep,
    user: SignedInDep,
    offset: Offset = 0,
) -> Response:
    if user is None:
        return to_sign_in(request)
    run = recorded_run(session, run_id)
    changes = run_changes(session, run_id)
    shown = changes[offset : offset + CHANGE_ROWS]
    return render(
        request,
        "run.html",
        {
            "run": run,
            "changes": shown,
            "published": published_players(session, (c.player_id for c in shown), today),
            "total": len(changes),
            "rated": sum(1 for c in changes if c.dwz_changed),
            "offset": offset,
            "limit": CHANGE_ROWS,
        },
    )
