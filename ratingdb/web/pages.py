"""Public HTML pages (WO 6.5, 6.5.2.1): player search and Karteikarte, tournament lists,
evaluation displays (Anhang 3.1.11), scoresheets (3.1.12), game results, rating lists.

Server-rendered, readable without JavaScript (the chart is inline SVG, sorting is by link).
Personal data only of published players (WO 4.1.1, :mod:`ratingdb.queries.publication`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, cast
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.names import full_name
from ratingdb.queries.age_ranges import PRESETS
from ratingdb.queries.card import current_memberships, rating_card
from ratingdb.queries.clubs import VKZ, club_names, directory, find_clubs, organisation_scope
from ratingdb.queries.documents import Document, to_csv, to_pdf
from ratingdb.queries.evaluation_table import (
    COLUMN_KEYS,
    EvaluationTable,
    evaluation_table,
)
from ratingdb.queries.games import tournament_games
from ratingdb.queries.reports import card_document, list_labels
from ratingdb.queries.scoresheet import scoresheet
from ratingdb.queries.search import count_players, search_players
from ratingdb.queries.top_lists import top_labels
from ratingdb.queries.tournament_search import find_tournaments
from ratingdb.services.users import Principal
from ratingdb.terms import card_terms, term
from ratingdb.web import scopes
from ratingdb.web.chart import chart_points, rating_chart
from ratingdb.web.deps import OptionalUser, ReleasingRoute, SessionDep, TodayDep
from ratingdb.web.lists import (
    LIST_SORTS,
    list_query,
    selected_list,
    selected_top_list,
    sorted_rows,
    top_query,
)
from ratingdb.web.page_cache import depends_on
from ratingdb.web.schemas import IsoDate

router = APIRouter(include_in_schema=False, route_class=ReleasingRoute)
LIST_PAGE_ROWS = 100
SEARCH_PAGE_ROWS = 50


def _render(request: Request, template: str, context: dict[str, Any]) -> HTMLResponse:
    return cast(
        HTMLResponse, request.app.state.templates.TemplateResponse(request, template, context)
    )


def tournament_list(session: Session, **criteria: Any) -> tuple[list[dict[str, Any]], int]:
    """A page of the tournament list (:func:`find_tournaments`): it shows any tournament."""
    depends_on(scopes.ANY_TOURNAMENT)
    return find_tournaments(session, **criteria)


def table_for(
    session: Session, code: str, today: date, user: Principal | None, **order: Any
) -> EvaluationTable:
    """A tournament's evaluation table (:func:`evaluation_table`, an officer sees everybody);
    it shows the tournament and its participants' names as published today."""
    table = evaluation_table(session, code, today, show_all=user is not None, **order)
    # found by its number: a tournament given that code later would be shown instead
    found_by_number = () if table.info.code == code else (scopes.ANY_TOURNAMENT,)
    depends_on(
        scopes.tournament(table.info.id), *map(scopes.person, table.player_ids), *found_by_number
    )
    return table


@router.get("/", response_class=HTMLResponse)
def home(request: Request, session: SessionDep) -> HTMLResponse:
    tournaments, _ = tournament_list(session, limit=10)
    return _render(request, "home.html", {"tournaments": tournaments})


@router.get("/players", response_class=HTMLResponse)
def players(
    request: Request,
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
    q: Annotated[str | None, Query(max_length=100)] = None,
    club: Annotated[str | None, Query(max_length=100)] = None,
    dsb_id: Annotated[str | None, Query(max_length=20)] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> HTMLResponse:
    limit = SEARCH_PAGE_ROWS
    searched = any(v and v.strip() for v in (q, club, dsb_id))
    criteria: dict[str, Any] = {
        "name": q, "club": club, "dsb_id": dsb_id, "day": today,
        "include_unpublished": user is not None,
    }  # fmt: skip
    results = search_players(session, limit=limit, offset=offset, **criteria) if searched else []
    total = count_players(session, **criteria) if searched else 0
    query = urlencode({k: v for k, v in {"q": q, "club": club, "dsb_id": dsb_id}.items() if v})
    return _render(
        request,
        "search.html",
        {
            "q": q,
            "club": club,
            "dsb_id": dsb_id,
            "results": results,
            "searched": searched,
            "limit": limit,
            "offset": offset,
            "total": total,
            "query": query,
        },
    )


def card_for(
    session: Session, player_id: int, today: date, user: Principal | None
) -> dict[str, Any]:
    """The Karteikarte of a published player (any player for an officer); LookupError."""
    depends_on(scopes.player(player_id))
    card = rating_card(session, player_id, today, published_only=user is None)
    return {"card": card, "points": chart_points(card.evaluations)}


@router.get("/players/{player_id}", response_class=HTMLResponse)
def card_page(
    request: Request, player_id: int, session: SessionDep, today: TodayDep, user: OptionalUser
) -> HTMLResponse:
    data = card_for(session, player_id, today, user)
    card = data["card"]
    name = full_name(card.player["surname"], card.player["given_name"])
    chart = rating_chart(data["points"], _("Rating history of %(name)s") % {"name": name})
    stored = sum(1 for e in card.evaluations if e["kind"] == "evaluation" and e["stored"])
    return _render(
        request,
        "card.html",
        {
            "card": card,
            "name": name,
            "chart": chart,
            "stored": stored,
            "clubs": current_memberships(card, today),
            "terms": card_terms(),
        },
    )


@router.get("/players/{player_id}/card.pdf")
def card_pdf(player_id: int, session: SessionDep, today: TodayDep, user: OptionalUser) -> Response:
    """The Karteikarte as a PDF: the chart, the evaluations, the memberships (WO 6.5.2.2);
    the public one without birth year (as the page)."""
    card_for(session, player_id, today, user)  # the publication check of the page
    doc = card_document(session, player_id, today, public=user is None)
    doc.printed_on = today
    return Response(
        to_pdf(doc),
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="karteikarte-{player_id}.pdf"'},
    )


@router.get("/tournaments", response_class=HTMLResponse)
def tournaments(
    request: Request,
    session: SessionDep,
    ended_from: Annotated[IsoDate | None, Query(alias="from")] = None,
    ended_to: Annotated[IsoDate | None, Query(alias="to")] = None,
    vkz: Annotated[str | None, Query(max_length=10)] = None,
    name: Annotated[str | None, Query(max_length=100)] = None,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> HTMLResponse:
    limit = 50
    rows, total = tournament_list(
        session, ended_from=ended_from, ended_to=ended_to, vkz=vkz, name=name,
        limit=limit, offset=offset,
    )  # fmt: skip
    query = urlencode(
        {
            k: v
            for k, v in {"from": ended_from, "to": ended_to, "vkz": vkz, "name": name}.items()
            if v
        }
    )
    return _render(
        request,
        "tournaments.html",
        {
            "tournaments": rows,
            "total": total,
            "limit": limit,
            "offset": offset,
            "query": query,
            "ended_from": ended_from,
            "ended_to": ended_to,
            "vkz": vkz,
            "name": name,
        },
    )


@router.get("/tournaments/{code}", response_class=HTMLResponse)
def evaluation(
    request: Request,
    code: str,
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
    sort: Annotated[str | None, Query(max_length=10)] = None,
    dir: Annotated[str, Query(pattern="^(asc|desc)$")] = "asc",
) -> HTMLResponse:
    sort = sort if sort in COLUMN_KEYS else None
    table = table_for(session, code, today, user, sort=sort, descending=dir == "desc")
    return _render(
        request,
        "evaluation.html",
        {"table": table, "keys": COLUMN_KEYS, "sort": sort, "descending": dir == "desc"},
    )


@router.get("/tournaments/{code}/evaluation.csv")
def evaluation_csv(code: str, session: SessionDep, today: TodayDep, user: OptionalUser) -> Response:
    table = table_for(session, code, today, user)
    if not table.evaluated:
        raise LookupError(_("tournament %(code)s has not been evaluated yet") % {"code": code})
    doc = Document(
        table.info.name, table.columns, [r.cells for r in table.rows],
        csv_columns=table.csv_columns, csv_rows=[r.values for r in table.rows],
    )  # fmt: skip
    return Response(
        to_csv(doc),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{table.info.code}.csv"'},
    )


@router.get("/tournaments/{code}/players/{participant_id}", response_class=HTMLResponse)
def scoresheet_page(
    request: Request,
    code: str,
    participant_id: int,
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
) -> HTMLResponse:
    sheet = scoresheet(session, code, participant_id, today, show_all=user is not None)
    return _render(
        request,
        "scoresheet.html",
        {"sheet": sheet, "coefficient_term": term("k", sheet.coefficient.lower()), "term": term},
    )


@router.get("/tournaments/{code}/games", response_class=HTMLResponse)
def games_page(
    request: Request, code: str, session: SessionDep, today: TodayDep, user: OptionalUser
) -> HTMLResponse:
    """All game results with each participant's points, and beside every name the DWZ
    alt/neu of the evaluation display (its cells, so both pages write a rating alike)."""
    table = table_for(session, code, today, user)
    data = tournament_games(session, code, today, show_all=user is not None)
    ratings = {
        row.participant_id: dict(zip(COLUMN_KEYS, row.cells, strict=True)) for row in table.rows
    }
    return _render(
        request,
        "games.html",
        {"data": data, "info": table.info, "table": table, "keys": COLUMN_KEYS,
         "ratings": ratings},
    )  # fmt: skip


ListClub = Annotated[str | None, Query(max_length=100, description="a club's VKZ (or name)")]
ListLevel = Annotated[str | None, Query(max_length=10, description="a VKZ of the directory")]
ListPrefix = Annotated[str | None, Query(max_length=10, description="a VKZ prefix")]
ListAge = Annotated[str | None, Query(max_length=8)]
ListDay = Annotated[IsoDate | None, Query(alias="date")]


def club_answer(session: Session, club: str | None) -> list[Any] | None:
    """For a ``club`` that names no club (a club's name typed, a typing error): the
    organisations it may mean (name or VKZ beginning), else None (a club VKZ)."""
    club = (club or "").strip()
    if not club:
        return None
    if VKZ.fullmatch(club) and club_names(session, [club]):
        return None
    return find_clubs(session, club)


@router.get("/lists", response_class=HTMLResponse)
def lists_page(
    request: Request,
    session: SessionDep,
    today: TodayDep,
    club: ListClub = None,
    federation: ListPrefix = None,
    org: ListLevel = None,
    age_class: ListAge = None,
    day: ListDay = None,
    sort: Annotated[str | None, Query(max_length=10)] = None,
    dir: Annotated[str, Query(pattern="^(asc|desc)$")] = "asc",
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> HTMLResponse:
    """The directory (DSB → Landesverband → Bezirk → club) and a level's or club's rating
    list, a page of :data:`LIST_PAGE_ROWS` rows, sortable by its heads."""
    candidates = club_answer(session, club)
    rows = None
    if candidates is None and (club or federation or org):
        rows, _doc = selected_list(session, club, federation, age_class, day, today, org)
    level = (club or "").strip() or None
    if (org or "").strip():
        scope = organisation_scope(session, org or "", "org")
        level = scope.vkz if scope.name is not None and not scope.everything else None
    place = None
    if candidates is None and not (federation or "").strip():
        place = directory(session, level, day or today)  # the organisations: every change
        depends_on(scopes.clubs_under(""))
    shown = sorted_rows(rows or [], sort, dir == "desc")
    return _render(
        request,
        "lists.html",
        {
            "rows": rows,
            "shown": shown[offset : offset + LIST_PAGE_ROWS],
            "offset": offset,
            "limit": LIST_PAGE_ROWS,
            "total": len(shown),
            "club": club,
            "federation": federation,
            "org": org,
            "age_class": age_class,
            "day": day,
            "sort": sort if sort in LIST_SORTS else None,
            "descending": dir == "desc",
            "candidates": candidates,
            "place": place,
            "base_query": list_query(club, federation, age_class, day, org),
            "query": list_query(club, federation, age_class, day, org)
            + (f"&sort={sort}&dir={dir}" if sort in LIST_SORTS else ""),
            "labels": list_labels(),  # the CSV's column names (ratingdb/queries/reports.py)
        },
    )


@router.get("/lists.csv")
def list_csv(
    session: SessionDep,
    today: TodayDep,
    club: ListClub = None,
    federation: ListPrefix = None,
    org: ListLevel = None,
    age_class: ListAge = None,
    day: ListDay = None,
) -> Response:
    _rows, doc = selected_list(session, club, federation, age_class, day, today, org)
    name = list_file(club, federation, org, age_class)
    return Response(
        to_csv(doc),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


@router.get("/lists.pdf")
def list_pdf(
    session: SessionDep,
    today: TodayDep,
    club: ListClub = None,
    federation: ListPrefix = None,
    org: ListLevel = None,
    age_class: ListAge = None,
    day: ListDay = None,
) -> Response:
    """The rating list as a PDF (WO 6.5.2.2), every row."""
    _rows, doc = selected_list(session, club, federation, age_class, day, today, org)
    doc.printed_on = today
    name = list_file(club, federation, org, age_class)
    return Response(
        to_pdf(doc),
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{name}.pdf"'},
    )


def list_file(club: str | None, federation: str | None, org: str | None, age: str | None) -> str:
    """``dwz-C0327``, ``dwz-C03-all-U18``: a rating list's file name (ASCII only)."""
    name = (club or (f"{federation}-all" if federation else org) or "") + (f"-{age}" if age else "")
    return "dwz-" + "".join(c if (c.isascii() and c.isalnum()) or c == "-" else "_" for c in name)


def whole_number(value: str | None, where: str) -> int | None:
    """A form's number field: empty is None, anything else a whole number (an InputError
    naming the field: a form sends empty fields as empty text, which no int parameter takes)."""
    value = (value or "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 9:  # '²' is a digit too
        raise InputError(where, _("%(value)r is no whole number") % {"value": value})
    return int(value)


@dataclass(frozen=True, slots=True)
class TopListSelection:
    """The query parameters of a top list (page, CSV, PDF, API), numbers parsed."""

    organisation: str | None
    day: date | None
    limit: int
    birth_year_from: int | None
    birth_year_to: int | None
    age: str | None
    sex: str | None
    status: str | None

    def run(self, session: Session, today: date) -> Any:
        return selected_top_list(
            session, today, organisation=self.organisation, day=self.day, limit=self.limit,
            birth_year_from=self.birth_year_from, birth_year_to=self.birth_year_to,
            age=self.age, sex=self.sex, status=self.status,
        )  # fmt: skip


async def top_list_selection(
    organisation: Annotated[
        str | None, Query(max_length=10, description="VKZ of the level or club; 000: all")
    ] = None,
    day: Annotated[IsoDate | None, Query(alias="date", description="default: today")] = None,
    limit: Annotated[str | None, Query(max_length=9, description="places, 1 to 1000")] = None,
    birth_year_from: Annotated[str | None, Query(max_length=9)] = None,
    birth_year_to: Annotated[str | None, Query(max_length=9)] = None,
    age: Annotated[
        str | None, Query(max_length=8, description="U<n>, Ü<n>, youth, junior, adult")
    ] = None,
    sex: Annotated[str | None, Query(max_length=1, description="f, m or d")] = None,
    status: Annotated[str | None, Query(max_length=8, description="active or passive")] = None,
) -> TopListSelection:
    """The selection from the query (async: no trip through the threads, docs/web.md)."""
    places = whole_number(limit, "limit")
    return TopListSelection(
        organisation, day, 100 if places is None else places,
        whole_number(birth_year_from, "birth_year_from"),
        whole_number(birth_year_to, "birth_year_to"), age, sex, status,
    )  # fmt: skip


TopListDep = Annotated[TopListSelection, Depends(top_list_selection)]


@router.get("/lists/top", response_class=HTMLResponse)
def top_list_page(
    request: Request, session: SessionDep, today: TodayDep, selection: TopListDep
) -> HTMLResponse:
    """A top list (Bestenliste): the form, and with an organisation its places."""
    found = None
    if (selection.organisation or "").strip():
        query, scope, rows, doc = selection.run(session, today)
        found = {"query": query, "scope": scope, "rows": rows, "header": doc.header,
                 "title": doc.title, "link": top_query(query)}  # fmt: skip
    return _render(
        request,
        "top_list.html",
        {"selection": selection, "found": found, "labels": top_labels(), "presets": PRESETS},
    )


@router.get("/lists/top.csv")
def top_list_csv(session: SessionDep, today: TodayDep, selection: TopListDep) -> Response:
    query, _scope, _rows, doc = selection.run(session, today)
    return Response(
        to_csv(doc),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{top_file_name(query)}.csv"'},
    )


@router.get("/lists/top.pdf")
def top_list_pdf(session: SessionDep, today: TodayDep, selection: TopListDep) -> Response:
    query, _scope, _rows, doc = selection.run(session, today)
    doc.printed_on = today
    return Response(
        to_pdf(doc),
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{top_file_name(query)}.pdf"'},
    )


def top_file_name(query: Any) -> str:
    """``bestenliste-C03-U18-f-2026-11-21``: the selection in a file name (ASCII only)."""
    parts = [query.organisation, query.age, query.sex, query.status, query.on.isoformat()]
    name = "-".join(str(p) for p in parts if p)
    return "bestenliste-" + "".join(c if (c.isascii() and c.isalnum()) or c == "-" else "_"
                                    for c in name)  # fmt: skip
