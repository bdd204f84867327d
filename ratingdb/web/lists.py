"""The rating-list and top-list selections shared by the pages, the CSV and PDF downloads
and the API (WO 6.5.2.1 item 3, 6.5.2.2): a club VKZ or a federation prefix, an age class,
a day; a top list's organisation and filters (:mod:`ratingdb.queries.top_lists`)."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from ratingdb.db import scopes
from ratingdb.i18n import _
from ratingdb.io.errors import InputError
from ratingdb.queries.clubs import OrganisationScope, organisation_scope, scope_clubs
from ratingdb.queries.documents import Document
from ratingdb.queries.reports import list_scope, rating_list_document, rating_list_rows
from ratingdb.queries.top_lists import (
    TopListQuery,
    TopListRow,
    top_list_document,
    top_list_query,
    top_list_rows,
)
from ratingdb.web.page_cache import depends_on


def selected_list(
    session: Session,
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: date | None,
    today: date,
) -> tuple[list[dict[str, Any]], Document]:
    club = (club or "").strip() or None
    federation = (federation or "").strip() or None
    age_class = (age_class or "").strip() or None
    if (club is None) == (federation is None):
        raise InputError("club", "give either a club VKZ (club) or a federation prefix")
    day = day or today
    try:
        rows = rating_list_rows(
            session,
            club=club,
            federation=federation,
            age_class=age_class,
            day=day,
            published_on=today,
        )
    except ValueError as err:
        raise InputError("age_class", str(err)) from None
    # the list shows the club's (or the federation's clubs') members (migration 0018)
    # a list of another day shows who was a member then and is published today: any
    # player's publication (a membership anywhere, WO 4.1.1) can add or remove a row
    anyone = () if day == today else (scopes.ANY_PERSON,)
    depends_on(
        scopes.club(club) if club is not None else scopes.clubs_under(federation or ""),
        *(scopes.player(r["player_id"]) for r in rows),
        *anyone,
    )
    scope = list_scope(club, federation)
    return rows, rating_list_document(rows, scope=scope, day=day, age_class=age_class)


def list_query(
    club: str | None, federation: str | None, age_class: str | None, day: date | None
) -> str:
    values = {"club": club, "federation": federation, "age_class": age_class, "date": day}
    return urlencode({k: v for k, v in values.items() if v})


def selected_top_list(
    session: Session,
    today: date,
    *,
    organisation: str | None,
    day: date | None = None,
    limit: int = 100,
    birth_year_from: int | None = None,
    birth_year_to: int | None = None,
    age: str | None = None,
    sex: str | None = None,
    status: str | None = None,
) -> tuple[TopListQuery, OrganisationScope, list[TopListRow], Document]:
    """A top list of the published players (WO 4.1.1) for the page, its CSV/PDF and the API."""
    if not (organisation or "").strip():
        raise InputError("organisation", _("give the VKZ of a federation level or club"))
    query = top_list_query(
        organisation=organisation or "", on=day or today, limit=limit,
        birth_year_from=birth_year_from, birth_year_to=birth_year_to, age=age, sex=sex,
        status=status, today=today,
    )  # fmt: skip
    scope = organisation_scope(session, query.organisation)
    rows = top_list_rows(session, query, scope, published_on=today)
    anyone = () if query.on == today else (scopes.ANY_PERSON,)
    depends_on(
        scopes.clubs_under("" if scope.everything else scope.prefix),
        *map(scopes.club, scope_clubs(session, scope)),
        *(scopes.player(r.player_id) for r in rows),
        *anyone,
    )
    return query, scope, rows, top_list_document(rows, query, scope)


def top_query(query: TopListQuery) -> str:
    """The URL query of a top list's selection (the links to its CSV, PDF and JSON)."""
    values = {
        "organisation": query.organisation, "date": query.on, "limit": query.limit,
        "birth_year_from": query.birth_year_from, "birth_year_to": query.birth_year_to,
        "age": query.age, "sex": query.sex, "status": query.status,
    }  # fmt: skip
    return urlencode({k: v for k, v in values.items() if v is not None})
