"""Request dependencies: a database session, today's date, the authenticated user (by API
token for the API, by session cookie for the pages: the same :class:`Principal`); and the
route class of the routers that hand out the session (:class:`ReleasingRoute`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, cast

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb.errors import Unauthenticated
from ratingdb.services.permissions import require_admin
from ratingdb.services.users import Principal, authenticate
from ratingdb.web.timing import in_thread

bearer = HTTPBearer(
    auto_error=False,
    description="An API token from `ratingdb user token NAME` (officers and admins).",
)


async def get_session(request: Request) -> AsyncIterator[Session]:
    """A session for one request; reads only (writes open their own transaction). The
    endpoint closes it when it returns (:class:`ReleasingRoute`), in its thread.

    The dependencies are ``async`` and do their database work (if any) in one call to the
    threads: a synchronous dependency costs a trip through the thread limiter of its own,
    and under load every trip queues behind all the requests waiting there."""
    session = Session(request.app.state.engine)
    try:
        yield session
    finally:
        if session.in_transaction():  # the endpoint did not close it: it holds a connection
            await in_thread(session.close)
        else:
            session.close()  # nothing to give back: no database work


class ReleasingRoute(APIRoute):
    """A route whose endpoint returns its database connection to the pool as soon as it
    returns, in its own worker thread.

    FastAPI turns a synchronous endpoint's answer into JSON in a *second* call to the worker
    threads, and ends a dependency's ``yield`` only after that. A request would hold its
    pool connection while it waits for a thread; with every thread taken by requests that
    wait for a connection, the server stood still until the pool's timeout (30 s) and
    answered 500 under a mixed load. Closed by the endpoint, a connection is held only
    by a request that holds a thread, so a pool as large as the thread limit always
    suffices (docs/web.md, "Threads, connections and processes")."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, _releasing(endpoint), **kwargs)


def _close_sessions(arguments: dict[str, Any]) -> None:
    for value in arguments.values():
        if isinstance(value, Session):
            value.close()


def _releasing(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint``, closing the sessions it was given when it returns (or raises).

    A synchronous endpoint becomes a coroutine that runs it (and closes its sessions) in
    one call to the threads: FastAPI validates and serialises the answer of a synchronous
    endpoint in a *second* call to the threads, that of a coroutine in the event loop. Under
    load every call queues behind all the requests waiting for a thread, so a JSON answer
    waited twice; now once, as a page."""
    if inspect.iscoroutinefunction(endpoint):

        @functools.wraps(endpoint)
        async def closing_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await endpoint(*args, **kwargs)
            finally:
                _close_sessions(kwargs)

        return closing_async

    def closing(*args: Any, **kwargs: Any) -> Any:
        try:
            return endpoint(*args, **kwargs)
        finally:
            _close_sessions(kwargs)

    @functools.wraps(endpoint)
    async def in_one_trip(*args: Any, **kwargs: Any) -> Any:
        return await in_thread(functools.partial(closing, *args, **kwargs))

    return in_one_trip


async def get_today(request: Request) -> date:
    return cast(date, request.app.state.today())


def _authenticate(engine: Engine, token: str) -> Principal | None:
    with Session(engine) as session, session.begin():
        return authenticate(session, token)


def _bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, None without one."""
    scheme, _sep, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


async def optional_principal(request: Request) -> Principal | None:
    """The token's user, None without a token; 401 for an unknown or revoked token.

    The header is read from the request, not through :data:`bearer`: a public operation
    that only shows more to an officer does not demand a token, so its OpenAPI entry
    declares no security (only :func:`principal`'s operations do)."""
    token = _bearer_token(request)
    if token is None:
        return None
    principal = await in_thread(_authenticate, request.app.state.engine, token)
    if principal is None:
        raise Unauthenticated("unknown or revoked API token")
    return principal


SESSION_COOKIE = "rdb_session"


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A signed-in browser: its user and the CSRF token its forms must carry."""

    user: Principal
    csrf: str


def _find_session(engine: Engine, token: str) -> tuple[Principal, str] | None:
    from ratingdb.services.sign_in import find_session

    with Session(engine) as session:
        return find_session(session, token)


async def signed_in(request: Request) -> SignedIn | None:
    """The user of the request's session cookie, None without a valid session."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    found = await in_thread(_find_session, request.app.state.engine, token)
    return None if found is None else SignedIn(*found)


async def principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    """An authenticated user (officer or admin); 401 without a token (the operation's
    OpenAPI entry declares the bearer security)."""
    found = await optional_principal(request)
    if found is None:
        raise Unauthenticated("an API token is required (Authorization: Bearer TOKEN)")
    return found


async def admin(user: Annotated[Principal, Depends(principal)]) -> Principal:
    require_admin(user)
    return user


SessionDep = Annotated[Session, Depends(get_session)]
TodayDep = Annotated[date, Depends(get_today)]
OptionalUser = Annotated[Principal | None, Depends(optional_principal)]
UserDep = Annotated[Principal, Depends(principal)]
AdminDep = Annotated[Principal, Depends(admin)]
SignedInDep = Annotated[SignedIn | None, Depends(signed_in)]
