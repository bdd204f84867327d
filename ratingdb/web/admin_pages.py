"""The administrators' pages (WO 6.2 "gesondert Berechtigte"):

* ``/admin/users``: every user with role, VKZ prefixes (WO 6.3), password and tokens; a
  form to add one (an officer with his prefixes, or an admin), optionally with a generated
  password shown once;
* ``/admin/users/{name}``: change the officer's prefixes, give him a new password (generated
  and shown once, or typed twice), revoke his API tokens (one or all), disable him (every
  token and session ended at once, sign-in refused) or enable him again;
* ``/admin/audit``: the audit log, newest first, filtered by user (who) and by tournament or
  user (what), 50 entries a page.

The work is done by the functions the command line uses (:mod:`ratingdb.services.users`,
:mod:`ratingdb.services.sign_in`, :mod:`ratingdb.queries.audit`), so the rules and the audit
entries are the same; the actor is the signed-in admin. Officers get 403, visitors
without a session are sent to sign in (:mod:`ratingdb.web.guard`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from ratingdb.errors import InputError, NotFound
from ratingdb.i18n import _
from ratingdb.queries.audit import audit_entries
from ratingdb.services.permissions import require_admin
from ratingdb.services.sign_in import reset_password, set_password
from ratingdb.services.users import (
    add_user,
    disable_user,
    enable_user,
    list_users,
    revoke,
    set_scopes,
    user_tokens,
)
from ratingdb.web.deps import ReleasingRoute, SessionDep, SignedIn, SignedInDep
from ratingdb.web.guard import FormUserDep, render, to_sign_in

router = APIRouter(include_in_schema=False, route_class=ReleasingRoute)
AUDIT_ROWS = 50
T = TypeVar("T")

UserName = Annotated[str, Path(max_length=100)]
Text = Annotated[str, Form(max_length=1000)]
Done = Literal["added", "scopes", "password", "revoked", "disabled", "enabled"]


def split_scopes(raw: str) -> list[str]:
    """VKZ prefixes as typed in one field: separated by spaces, commas or semicolons."""
    return [s for s in re.split(r"[\s,;]+", raw.strip()) if s]


def _admin(request: Request, user: SignedIn | None) -> SignedIn | Response:
    """The signed-in admin; for anyone else the answer: sign in, or 403 (raised)."""
    if user is None:
        return to_sign_in(request)
    require_admin(user.user)
    return user


def _account(session: Session, name: str) -> dict[str, Any]:
    """User ``name`` as :func:`list_users` shows him; NotFound (404) otherwise."""
    found = list_users(session, name)
    if not found:
        raise NotFound(_("no user %(name)s") % {"name": name})
    return found[0]


def _write(request: Request, change: Callable[[Session], T]) -> T:
    with Session(request.app.state.engine) as session, session.begin():
        return change(session)


def _users_page(
    request: Request,
    session: Session,
    user: SignedIn,
    *,
    form: dict[str, str] | None = None,
    error: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    return render(
        request,
        "admin_users.html",
        {
            "csrf": user.csrf,
            "users": list_users(session),
            "form": form or {"role": "officer", "password": "generate"},
            "error": error,
        },
        status_code,
    )


@router.get("/admin/users", response_class=HTMLResponse)
def users_page(request: Request, session: SessionDep, user: SignedInDep) -> Response:
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    return _users_page(request, session, admin)


@router.post("/admin/users", response_class=HTMLResponse)
def add_user_form(
    request: Request,
    session: SessionDep,
    user: FormUserDep,
    name: Text = "",
    full_name: Text = "",
    role: Text = "officer",
    scopes: Text = "",
    password: Text = "",
) -> Response:
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    name, actor = name.strip(), admin.user.name

    def add(s: Session) -> str | None:
        add_user(s, name, role, split_scopes(scopes), full_name=full_name.strip(), actor=actor)
        return reset_password(s, name, actor=actor) if password == "generate" else None

    try:
        generated = _write(request, add)
    except InputError as err:
        form = {"name": name, "full_name": full_name, "role": role, "scopes": scopes,
                "password": password}  # fmt: skip
        return _users_page(request, session, admin, form=form, error=str(err), status_code=422)
    if generated is not None:
        return _user_page(request, session, admin, name, generated=generated, done="added")
    return RedirectResponse(f"/admin/users/{quote(name)}?done=added", status_code=303)


def _user_page(
    request: Request,
    session: Session,
    user: SignedIn,
    name: str,
    *,
    done: str | None = None,
    generated: str | None = None,
    error: str | None = None,
    revoked: int | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    account = _account(session, name)
    entries, total = audit_entries(session, entity_id=name, limit=10)
    return render(
        request,
        "admin_user.html",
        {
            "csrf": user.csrf,
            "account": account,
            "tokens": user_tokens(session, name),
            "audit": entries,
            "audit_total": total,
            "done": done,
            "revoked": revoked,
            "generated": generated,
            "error": error,
        },
        status_code,
    )


@router.get("/admin/users/{name}", response_class=HTMLResponse)
def user_page(
    request: Request,
    name: UserName,
    session: SessionDep,
    user: SignedInDep,
    done: Done | None = None,
    revoked: Annotated[int | None, Query(ge=0, le=1_000_000)] = None,
) -> Response:
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    return _user_page(request, session, admin, name, done=done, revoked=revoked)


def _change(
    request: Request,
    session: Session,
    admin: SignedIn,
    name: str,
    change: Callable[[Session], T],
) -> T | HTMLResponse:
    """Run ``change`` in one transaction; an InputError shows the user's page with the
    message (422) and nothing written."""
    _account(session, name)
    try:
        return _write(request, change)
    except InputError as err:
        return _user_page(request, session, admin, name, error=str(err), status_code=422)


@router.post("/admin/users/{name}/scopes", response_class=HTMLResponse)
def scopes_form(
    request: Request, name: UserName, session: SessionDep, user: FormUserDep, scopes: Text = ""
) -> Response:
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    actor = admin.user.name
    done = _change(
        request,
        session,
        admin,
        name,
        lambda s: set_scopes(s, name, split_scopes(scopes), actor=actor),
    )
    if isinstance(done, HTMLResponse):
        return done
    return RedirectResponse(f"/admin/users/{quote(name)}?done=scopes", status_code=303)


@router.post("/admin/users/{name}/password", response_class=HTMLResponse)
def password_form(
    request: Request,
    name: UserName,
    session: SessionDep,
    user: FormUserDep,
    mode: Text = "generate",
    password: Text = "",
    repeated: Text = "",
) -> Response:
    """A new password for ``name``: generated and shown once on the answer (never stored
    anywhere but as its hash), or typed twice. Ends his sessions."""
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    actor = admin.user.name
    if mode == "generate":
        generated = _change(
            request, session, admin, name, lambda s: reset_password(s, name, actor=actor)
        )
        if isinstance(generated, HTMLResponse):
            return generated
        return _user_page(request, session, admin, name, generated=generated, done="password")
    if password != repeated:
        message = _("the two passwords differ")
        return _user_page(request, session, admin, name, error=message, status_code=422)
    done = _change(
        request, session, admin, name, lambda s: set_password(s, name, password, actor=actor)
    )
    if isinstance(done, HTMLResponse):
        return done
    return RedirectResponse(f"/admin/users/{quote(name)}?done=password", status_code=303)


@router.post("/admin/users/{name}/revoke", response_class=HTMLResponse)
def revoke_form(
    request: Request, name: UserName, session: SessionDep, user: FormUserDep, token: Text = ""
) -> Response:
    """Revoke one of ``name``'s API tokens (by its prefix) or all of them."""
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    actor = admin.user.name
    prefix = token.strip() or None
    count = _change(
        request, session, admin, name, lambda s: revoke(s, name, prefix=prefix, actor=actor)
    )
    if isinstance(count, HTMLResponse):
        return count
    query = urlencode({"done": "revoked", "revoked": count})
    return RedirectResponse(f"/admin/users/{quote(name)}?{query}", status_code=303)


@router.post("/admin/users/{name}/disable", response_class=HTMLResponse)
def disable_form(
    request: Request, name: UserName, session: SessionDep, user: FormUserDep
) -> Response:
    """Disable ``name``: his tokens revoked and his sessions ended in one transaction, his
    sign-in refused from now on."""
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    actor = admin.user.name
    done = _change(request, session, admin, name, lambda s: disable_user(s, name, actor=actor))
    if isinstance(done, HTMLResponse):
        return done
    return RedirectResponse(f"/admin/users/{quote(name)}?done=disabled", status_code=303)


@router.post("/admin/users/{name}/enable", response_class=HTMLResponse)
def enable_form(
    request: Request, name: UserName, session: SessionDep, user: FormUserDep
) -> Response:
    """Let a disabled ``name`` sign in again (with a new token if he needs one)."""
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    actor = admin.user.name
    done = _change(request, session, admin, name, lambda s: enable_user(s, name, actor=actor))
    if isinstance(done, HTMLResponse):
        return done
    return RedirectResponse(f"/admin/users/{quote(name)}?done=enabled", status_code=303)


@router.get("/admin/audit", response_class=HTMLResponse)
def audit_page(
    request: Request,
    session: SessionDep,
    user: SignedInDep,
    actor: Annotated[str | None, Query(max_length=100)] = None,
    entity_id: Annotated[str | None, Query(max_length=50)] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> Response:
    """The audit log (WO 6.3/6.4.3: every change traceable to who made it), newest first."""
    admin = _admin(request, user)
    if isinstance(admin, Response):
        return admin
    actor, entity_id = (actor or "").strip() or None, (entity_id or "").strip() or None
    entries, total = audit_entries(
        session, actor=actor, entity_id=entity_id, limit=AUDIT_ROWS, offset=offset
    )
    query = urlencode({k: v for k, v in {"actor": actor, "entity_id": entity_id}.items() if v})
    return render(
        request,
        "audit.html",
        {
            "entries": entries,
            "total": total,
            "actor": actor or "",
            "entity_id": entity_id or "",
            "offset": offset,
            "limit": AUDIT_ROWS,
            "query": query,
        },
    )
