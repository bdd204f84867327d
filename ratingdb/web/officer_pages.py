"""The officer's pages (issue 29): sign in and out (``/anmelden``, ``/abmelden``) and the
overview (``/officer``). The rules of who may see and change what are those of the API
(:mod:`ratingdb.services.permissions`): a session gives the same
:class:`~ratingdb.db.users.Principal` as an API token.

Every form carries a CSRF token: the sign-in form the one of the ``rdb_csrf`` cookie
(double submit: a page of another site can neither read the cookie nor set the field), the
forms of a signed-in user the one stored with his session. A POST without the right token
is refused with 403 before anything else is looked at.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, cast

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from ratingdb.db.sign_in import (
    SESSION_HOURS,
    Locked,
    close_session,
    open_session,
    same_token,
    sign_in,
)
from ratingdb.db.users import list_users
from ratingdb.errors import Forbidden
from ratingdb.i18n import _
from ratingdb.queries.officer import officer_tournaments, recent_runs
from ratingdb.web.deps import SESSION_COOKIE, ReleasingRoute, SessionDep, SignedInDep, TodayDep

router = APIRouter(include_in_schema=False, route_class=ReleasingRoute)
CSRF_COOKIE = "rdb_csrf"
SIGN_IN = "/anmelden"


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


def _csrf_refused() -> Forbidden:
    return Forbidden(_("the form's security token is missing or out of date: reload the page"))


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
        raise _csrf_refused()
    address = request.client.host if request.client else "unknown"
    with Session(request.app.state.engine) as session, session.begin():
        outcome = sign_in(session, name.strip(), password, address)
        if isinstance(outcome, Locked):
            message = _("Too many failed sign-ins: try again in %(seconds)d seconds.") % {
                "seconds": outcome.seconds
            }
            return _sign_in_page(request, next, message, 429)
        if outcome is None:
            return _sign_in_page(request, next, _("Wrong name or password."), 401)
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
            raise _csrf_refused()
        with Session(request.app.state.engine) as session, session.begin():
            close_session(session, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response


@router.get("/officer", response_class=HTMLResponse)
def overview(request: Request, session: SessionDep, today: TodayDep, user: SignedInDep) -> Response:
    if user is None:
        return RedirectResponse(f"{SIGN_IN}?next=/officer", status_code=303)
    principal = user.user
    response = _render(
        request,
        "officer.html",
        {
            "user": principal,
            "csrf": user.csrf,
            "tournaments": officer_tournaments(session, principal, today),
            "runs": recent_runs(session),
            "users": list_users(session) if principal.is_admin else None,
        },
    )
    response.headers["Cache-Control"] = "no-store"
    return response
