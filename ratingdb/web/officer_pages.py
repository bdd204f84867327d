"""The officer's pages: sign in and out (``/anmelden``, ``/abmelden``) and the
overview (``/officer``). The rules of who may see and change what are those of the API
(:mod:`ratingdb.services.permissions`): a session gives the same
:class:`~ratingdb.services.users.Principal` as an API token.

Every form carries a CSRF token: the sign-in form the one of the ``rdb_csrf`` cookie
(double submit: a page of another site can neither read the cookie nor set the field), the
forms of a signed-in user the one stored with his session. A POST without the right token
is refused with 403 before anything else is looked at.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from ratingdb.i18n import _
from ratingdb.queries.runs import recorded_runs
from ratingdb.services.officer_overview import officer_tournaments, state_counts
from ratingdb.services.sign_in import (
    SESSION_HOURS,
    Locked,
    close_session,
    open_session,
    same_token,
    sign_in,
)
from ratingdb.web.deps import SESSION_COOKIE, ReleasingRoute, SessionDep, SignedInDep, TodayDep
from ratingdb.web.guard import SIGN_IN, csrf_refused, render, to_sign_in

router = APIRouter(include_in_schema=False, route_class=ReleasingRoute)
CSRF_COOKIE = "rdb_csrf"


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _render(
    request: Request, template: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    return cast(
        HTMLResponse,
        request.app.state.templates.TemplateResponse(
            request, template, context, status_code=status_code
        ),
    )


def _next_page(target: str | None) -> str:
    """Where to go after signing in: a path of this site only (no open redirect)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/officer"


def _sign_in_page(
    request: Request, target: str | None, error: str | None = None, status_code: int = 200
) -> HTMLResponse:
    csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
    response = _render(
        request,
        "sign_in.html",
        {"csrf": csrf, "next": _next_page(target), "error": error},
        status_code,
    )
    response.set_cookie(
        CSRF_COOKIE, csrf, httponly=True, samesite="lax", secure=_secure(request), path="/"
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get(SIGN_IN, response_class=HTMLResponse)
def sign_in_form(request: Request, user: SignedInDep, next: str | None = None) -> Response:
    if user is not None:
        return RedirectResponse(_next_page(next), status_code=303)
    return _sign_in_page(request, next)


@router.post(SIGN_IN, response_class=HTMLResponse)
def sign_in_submit(
    request: Request,
    name: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=2000)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
    next: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    if not same_token(csrf, request.cookies.get(CSRF_COOKIE)):
        raise csrf_refused()
    address = request.client.host if request.client else "unknown"
    engine = request.app.state.engine
    outcome = sign_in(engine, name.strip(), password, address)
    if isinstance(outcome, Locked):
        message = _("Too many failed sign-ins: try again in %(seconds)d seconds.") % {
            "seconds": outcome.seconds
        }
        refused = _sign_in_page(request, next, message, 429)
        refused.headers["Retry-After"] = str(outcome.seconds)
        return refused
    if outcome is None:
        return _sign_in_page(request, next, _("Wrong name or password."), 401)
    with Session(engine) as session, session.begin():
        token, _csrf = open_session(session, outcome)
    response = RedirectResponse(_next_page(next), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_HOURS * 3600,
        httponly=True,
        samesite="lax",
        secure=_secure(request),
        path="/",
    )
    response.delete_cookie(CSRF_COOKIE, path="/")
    return response


@router.post("/abmelden")
def sign_out(
    request: Request, user: SignedInDep, csrf: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    if user is not None:
        if not same_token(csrf, user.csrf):
            raise csrf_refused()
        with Session(request.app.state.engine) as session, session.begin():
            close_session(session, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response


#: tournaments on one page of the overview
TOURNAMENT_ROWS = 50


@router.get("/officer", response_class=HTMLResponse)
def overview(
    request: Request,
    session: SessionDep,
    today: TodayDep,
    user: SignedInDep,
    state: Annotated[Literal["pending", "failed", "evaluated", "rejected"] | None, Query()] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> Response:
    """His tournaments by state (WO 6.3 scope, WO 6.2 window), the latest runs; for admins
    the links to users and audit log."""
    if user is None:
        return to_sign_in(request)
    principal = user.user
    counts = state_counts(session, principal)
    return render(
        request,
        "officer.html",
        {
            "user": principal,
            "csrf": user.csrf,
            "state": state,
            "counts": counts,
            "total": counts[state] if state else sum(counts.values()),
            "offset": offset,
            "limit": TOURNAMENT_ROWS,
            "tournaments": officer_tournaments(
                session, principal, today, state=state, limit=TOURNAMENT_ROWS, offset=offset
            ),
            "runs": recorded_runs(session, limit=10),
        },
    )
