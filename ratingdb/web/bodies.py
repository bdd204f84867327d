"""Request bodies: who may send one and how large, decided before a byte of it is read.

An anonymous 1 GiB POST to an officer's upload route was refused with 401 only after the
server had spooled it into a temporary file. :class:`BodyGuard` (pure ASGI middleware)
looks at the request's headers first, for every method that carries a body:

1. **authentication**: a route of the signed-in area (``/officer``, ``/admin``) needs a
   valid session cookie, a write of the API (``/api/...`` but the public calculator) a
   valid API token; without one a page answers as it answers anyone without a session (303
   to the sign-in page, or 401), run on an empty form instead of the body, and the API
   answers 401, neither reading the body;
2. **CSRF**: a signed-in page's POST whose ``Origin`` (or ``Sec-Fetch-Site``) names
   another site is refused with 403 before the body is read (the form's token, which sits
   in the body, is checked afterwards by :mod:`ratingdb.web.guard`);
3. **size**: a ``Content-Length`` above the route's limit (:func:`limit_of`) is answered
   413 at once; a body without one (chunked) is counted as it arrives and cut off with 413
   when it passes the limit, so no more than the limit is ever read;
4. **time**: a body that pauses longer than :data:`BODY_PAUSE` between two parts or takes
   longer than :data:`BODY_SECONDS` as a whole (a slow loris) is answered 408.

The limits: :data:`UPLOAD_LIMIT` for the signed-in area and the API's writes (a
tournament file of :data:`ratingdb.services.drafts.MAX_BYTES` and the form around it),
:data:`PUBLIC_LIMIT` for everything else (sign-in, the calculator, the DeWIS calls).
Every refusal carries ``Connection: close``: the client stops sending.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratingdb.i18n import _
from ratingdb.services.drafts import MAX_BYTES

#: the most a signed-in page's form or an API write may send (a file and its form)
UPLOAD_LIMIT = MAX_BYTES + 1024 * 1024
#: the most any other request may send (sign-in, calculator, DeWIS)
PUBLIC_LIMIT = 1024 * 1024
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: public routes under /api that take a body
PUBLIC_API = ("/api/calc",)


class BodyTooLarge(HTTPException):
    """A body that passed its limit while it was read (413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large(limit), headers={"Connection": "close"})


#: the longest a body may pause between two of its parts, and the longest it may take as a
#: whole (a 21 MiB upload at 200 KiB/s): a body sent byte by byte (slow loris) holds a
#: connection and a request no longer than that
BODY_PAUSE = 10
BODY_SECONDS = 120


class BodyTooSlow(HTTPException):
    """A body that paused longer than :data:`BODY_PAUSE` or took longer than
    :data:`BODY_SECONDS` (408)."""

    def __init__(self, message: str) -> None:
        super().__init__(408, message, headers={"Connection": "close"})


def too_large(limit: int) -> str:
    return _("the request's body has more than %(limit)d bytes, the most accepted here") % {
        "limit": limit
    }


def area_of(path: str) -> str:
    """``pages`` (session cookie), ``api`` (token) or ``public``."""
    if path.startswith(("/officer", "/admin")):
        return "pages"
    if path.startswith("/api/") and not path.startswith(PUBLIC_API):
        return "api"
    return "public"


def limit_of(path: str) -> int:
    return PUBLIC_LIMIT if area_of(path) == "public" else UPLOAD_LIMIT


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def cross_site(scope: Scope) -> bool:
    """Whether the browser says the request comes from another site's page."""
    if _header(scope, b"sec-fetch-site") == "cross-site":
        return True
    origin = _header(scope, b"origin")
    if origin is None or origin == "null":
        return origin == "null"
    host = _header(scope, b"host") or ""
    return urlsplit(origin).netloc.lower() != host.lower()


def _signed_in(engine: Any, token: str) -> bool:
    from sqlalchemy.orm import Session

    from ratingdb.services.sign_in import find_session

    with Session(engine) as session:
        return find_session(session, token) is not None


def _token_valid(engine: Any, token: str) -> bool:
    """Whether ``token`` is an active token of an active user (its last use is recorded
    by the endpoint's own check)."""
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    from ratingdb.services.users import TOKEN_PREFIX, hash_token

    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return False
    with Session(engine) as session:
        row = session.execute(
            text(
                "SELECT 1 FROM api_tokens t JOIN users u ON u.id = t.user_id "
                "WHERE t.token_hash = :h AND t.revoked_at IS NULL AND u.disabled_at IS NULL"
            ),
            {"h": hash_token(token)},
        ).first()
    return row is not None


class BodyGuard:
    """Pure ASGI middleware: size, authentication and origin of a body checked from the
    headers before the body is read; a body without a length cut off at the limit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        limit = limit_of(path)
        refusal = await self._refusal(scope, path, limit)
        if refusal is WITHOUT_BODY:  # the page answers as to anyone without a session
            await self.app(_without_body(scope), _empty, send)
            return
        if refusal is not None:
            await refusal(scope, _nothing, send)
            return
        started = False

        async def counting_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        read = 0
        pause, whole = BODY_PAUSE, BODY_SECONDS
        deadline = asyncio.get_running_loop().time() + whole

        complete = False

        async def counting_receive() -> Message:
            nonlocal read, complete
            if complete:  # the body is in: waiting for a disconnect is no slow body
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), timeout=max(min(pause, left), 0))
            except TimeoutError:
                raise BodyTooSlow(
                    _("the request's body paused for more than %(seconds)d seconds")
                    % {"seconds": pause}
                    if left > pause
                    else _("the request's body took more than %(seconds)d seconds to arrive")
                    % {"seconds": whole}
                ) from None
            if message["type"] == "http.request":
                complete = not message.get("more_body", False)
                read += len(message.get("body", b""))
                if read > limit:
                    raise BodyTooLarge(limit)
            return message

        try:
            await self.app(scope, counting_receive, counting_send)
        except (BodyTooLarge, BodyTooSlow) as err:  # where no handler made it an answer
            if started:
                raise
            await self._respond(scope, err.status_code, err.detail)(scope, _nothing, send)

    async def _refusal(self, scope: Scope, path: str, limit: int) -> Any:
        area = area_of(path)
        if area != "public" and _routed(scope):  # else the router answers 404 or 405
            refused = await self._unauthenticated(scope, area)
            if refused is not None:
                return refused
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.isascii() or not length.isdigit():
                return self._respond(scope, 400, _("the Content-Length header is no number"))
            if int(length) > limit:
                return self._respond(scope, 413, too_large(limit))
        return None

    async def _unauthenticated(self, scope: Scope, area: str) -> Any:
        """The answer to a request of the signed-in area or the API without valid
        credentials (or, on a page, from another site); None when it may send its body."""
        from ratingdb.web.timing import in_thread

        engine = scope["app"].state.engine
        if area == "pages":
            from ratingdb.web.deps import SESSION_COOKIE
            from ratingdb.web.guard import csrf_refused

            token = Request(scope).cookies.get(SESSION_COOKIE)
            if not token or not await in_thread(_signed_in, engine, token):
                return WITHOUT_BODY
            if cross_site(scope):
                return self._respond(scope, 403, str(csrf_refused()))
            return None
        authorization = _header(scope, b"authorization") or ""
        scheme, _sep, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return self._respond(
                scope, 401, "an API token is required (Authorization: Bearer TOKEN)"
            )
        if not await in_thread(_token_valid, engine, token.strip()):
            return self._respond(scope, 401, "unknown or revoked API token")
        return None

    def _respond(self, scope: Scope, status: int, summary: str) -> Any:
        from ratingdb.web.errors import respond

        response = respond(Request(scope), status, summary, [])
        response.headers["Connection"] = "close"
        return response


def _routed(scope: Scope) -> bool:
    """Whether a route of the app takes this method at this path (an undeclared method is
    answered 405 with ``Allow`` by the router, without reading the body)."""
    from starlette.routing import Match

    router = getattr(scope.get("app"), "router", None)
    routes = getattr(router, "routes", ())
    return any(route.matches(scope)[0] == Match.FULL for route in routes)


#: the refusal of a page's request without a session: the page runs without the body
WITHOUT_BODY = object()


def _without_body(scope: Scope) -> Scope:
    """``scope`` as an empty form: the page refuses it as every request without a session
    (303 to the sign-in page or 401), its real body unread."""
    headers = [(k, v) for k, v in scope.get("headers", ()) if k not in (b"content-type",
               b"content-length", b"transfer-encoding")]  # fmt: skip
    headers += [(b"content-type", b"application/x-www-form-urlencoded"),
                (b"content-length", b"0")]  # fmt: skip
    return {**scope, "headers": headers}


async def _empty() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _nothing() -> Message:
    return {"type": "http.disconnect"}
