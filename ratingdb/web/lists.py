"""The rating-list and top-list selections shared by the pages, the CSV and PDF downloads
and the API (WO 6.5.2.1 item 3, 6.5.2.2): a club VKZ or a federation prefix, an age class,
a day; a top list's organisation and filters (:mod:`ratingdb.queries.top_lists`)."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _
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
from ratingdb.web import scopes
from ratingdb.web.page_cache import depends_on


def selected_list(
    session: Session,
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: date | None,
    today: date,
    org: str | None = None,
) -> tuple[list[dict[str, Any]], Document]:
    """A rating list of a club (``club``), of the clubs under a VKZ prefix (``federation``)
    or of an organisation level of the directory (``org``: :class:`OrganisationScope`)."""
    club = (club or "").strip() or None
    federation = (federation or "").strip() or None
    org = (org or "").strip() or None
    age_class = (age_class or "").strip() or None
    if sum(v is not None for v in (club, federation, org)) != 1:
        raise InputError("club", _("give a club VKZ (club), a federation prefix or a level"))
    day = day or today
    scope = organisation_scope(session, org, "org") if org is not None else None
    try:
        rows = rating_list_rows(
            session,
            club=club,
            federation=federation,
            age_class=age_class,
            day=day,
            published_on=today,
            scope=scope,
        )
    except ValueError as err:
        raise InputError("age_class", str(err)) from None
    # the list shows the club's (or the federation's clubs') members (migration 0018)
    # a list of another day shows who was a member then and is published today: any
    # player's publication (a membership anywhere, WO 4.1.1) can add or remove a row
    anyone = () if day == today else (scopes.ANY_PERSON,)
    if scope is not None:
        shown = [scopes.clubs_under("" if scope.everything else scope.prefix),
                 *map(scopes.club, scope_clubs(session, scope))]  # fmt: skip
        words = f"{scope.name} ({scope.vkz})" if scope.name else scope.vkz
    elif club is not None:
        shown, words = [scopes.club(club)], list_scope(club, None)
    else:
        shown, words = [scopes.clubs_under(federation or "")], list_scope(None, federation)
    depends_on(*shown, *(scopes.player(r["player_id"]) for r in rows), *anyone)
    return rows, rating_list_document(rows, scope=words, day=day, age_class=age_class)


#: the rating list's sort keys on the page (its header links) and the row fields they sort
LIST_SORTS = {"rank": "rank", "name": "name", "born": "birth_year", "club": "club",
              "rating": "rating"}  # fmt: skip


def sorted_rows(rows: list[dict[str, Any]], sort: str | None, descending: bool) -> list[Any]:
    """The rows by ``sort`` (a key of :data:`LIST_SORTS`; rank when None), empty values
    last in either direction; equal values keep the rank order."""
    field = LIST_SORTS.get(sort or "rank", "rank")
    present = [r for r in rows if r[field] not in (None, "")]
    empty = [r for r in rows if r[field] in (None, "")]
    present.sort(key=lambda r: (r[field].casefold() if isinstance(r[field], str) else r[field]),
                 reverse=descending)  # fmt: skip
    return present + empty


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


def list_query(
    club: str | None,
    federation: str | None,
    age_class: str | None,
    day: date | None,
    org: str | None = None,
) -> str:
    """The URL query of a rating list's selection (its CSV, PDF and paging links)."""
    values = {"club": club, "federation": federation, "org": org, "age_class": age_class,
              "date": day}  # fmt: skip
    return urlencode({k: v for k, v in values.items() if v})
