"""Request dependencies: a database session, today's date, the authenticated user (by API
token for the API, by session cookie for the pages: the same :class:`Principal`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Annotated, cast

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from ratingdb.db.users import Principal, authenticate
from ratingdb.errors import Unauthenticated
from ratingdb.services.permissions import require_admin

bearer = HTTPBearer(
    auto_error=False,
    description="An API token from `ratingdb user token NAME` (officers and admins).",
)


def get_session(request: Request) -> Iterator[Session]:
    """A session for one request; reads only (writes open their own transaction)."""
    with Session(request.app.state.engine) as session:
        yield session


def get_today(request: Request) -> date:
    return cast(date, request.app.state.today())


def optional_principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal | None:
    """The token's user, None without a token; 401 for an unknown or revoked token."""
    if credentials is None:
        return None
    with Session(request.app.state.engine) as session, session.begin():
        principal = authenticate(session, credentials.credentials)
    if principal is None:
        raise Unauthenticated("unknown or revoked API token")
    return principal


SESSION_COOKIE = "rdb_session"


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A signed-in browser: its user and the CSRF token its forms must carry."""

    user: Principal
    csrf: str


def signed_in(request: Request) -> SignedIn | None:
    """The user of the request's session cookie, None without a valid session."""
    from ratingdb.db.sign_in import find_session

    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    with Session(request.app.state.engine) as session:
        found = find_session(session, token)
    return None if found is None else SignedIn(*found)


def principal(
    found: Annotated[Principal | None, Depends(optional_principal)],
) -> Principal:
    """An authenticated user (officer or admin); 401 without a token."""
    if found is None:
        raise Unauthenticated("an API token is required (Authorization: Bearer TOKEN)")
    return found


def admin(user: Annotated[Principal, Depends(principal)]) -> Principal:
    require_admin(user)
    return user


SessionDep = Annotated[Session, Depends(get_session)]
TodayDep = Annotated[date, Depends(get_today)]
OptionalUser = Annotated[Principal | None, Depends(optional_principal)]
UserDep = Annotated[Principal, Depends(principal)]
AdminDep = Annotated[Principal, Depends(admin)]
SignedInDep = Annotated[SignedIn | None, Depends(signed_in)]
