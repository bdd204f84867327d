"""Guards of the signed-in pages: who may see a page, whether a form came from
this site. Every page of the officer's and the admin's area starts with them:

* without a session a page answers :func:`to_sign_in` (303 to ``/anmelden?next=...``);
* a form's POST checks its CSRF token (:data:`FormUserDep`, the token stored with the
  session) before anything else, 403 otherwise;
* an admin page refuses an officer with 403 (:func:`ratingdb.services.permissions.
  require_admin`, the rule of the admin API).

``tests/test_web_security.py`` finds every route that depends on the session
(:func:`ratingdb.web.deps.signed_in`) or lies under ``/officer`` or ``/admin`` and checks
each of these answers.
"""

from __future__ import annotations

from typing import Annotated, Any, cast
from urllib.parse import quote

from fastapi import Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from ratingdb.errors import Forbidden
from ratingdb.i18n import _
from ratingdb.services.sign_in import same_token
from ratingdb.web.deps import SignedIn, SignedInDep

SIGN_IN = "/anmelden"

#: the hidden ``csrf`` field of every form of a signed-in user
CsrfField = Annotated[str, Form(max_length=200)]


def to_sign_in(request: Request) -> RedirectResponse:
    """303 to the sign-in page, which comes back to this page (path and query) afterwards."""
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    if request.method != "GET":  # a form's action is no page to come back to
        here = "/officer"
    return RedirectResponse(f"{SIGN_IN}?next={quote(here, safe='/')}", status_code=303)


def csrf_refused() -> Forbidden:
    return Forbidden(_("the form's security token is missing or out of date: reload the page"))


def check_csrf(user: SignedIn, token: str | None) -> None:
    """Forbidden (403) unless ``token`` is the CSRF token of the user's session."""
    if not same_token(token, user.csrf):
        raise csrf_refused()


def render(
    request: Request, template: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    """A page of the signed-in area: never stored by a cache or the browser's history."""
    response = cast(
        HTMLResponse,
        request.app.state.templates.TemplateResponse(
            request, template, context, status_code=status_code
        ),
    )
    response.headers["Cache-Control"] = "no-store"
    return response


async def form_user(user: SignedInDep, csrf: CsrfField = "") -> SignedIn | None:
    """The signed-in user of a form's POST, checked to carry his session's CSRF token (403
    otherwise, before the form's other fields are looked at: a dependency runs before the
    endpoint's fields are validated); None without a session (the page sends
    :func:`to_sign_in`). ``async``: no database work, no trip through the threads."""
    if user is not None:
        check_csrf(user, csrf)
    return user


FormUserDep = Annotated[SignedIn | None, Depends(form_user)]
