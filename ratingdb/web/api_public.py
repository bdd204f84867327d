"""The read-only JSON API (WO 6.5.2.1): no login; a token shows unpublished players too."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response

from ratingdb.names import full_name
from ratingdb.plausibility import BIRTH_YEAR
from ratingdb.queries.age_ranges import SELECTIONS
from ratingdb.queries.clubs import VKZ
from ratingdb.queries.evaluation_table import COLUMN_KEYS
from ratingdb.queries.games import tournament_games
from ratingdb.queries.scoresheet import scoresheet
from ratingdb.queries.search import ZPS_PARAMETER, count_players, search_players
from ratingdb.queries.top_lists import MAX_LIMIT as MAX_PLACES
from ratingdb.queries.top_lists import SEXES, STATUSES
from ratingdb.queries.tournament_search import MAX_LIMIT
from ratingdb.web import schemas
from ratingdb.web.deps import OptionalUser, ReleasingRoute, SessionDep, TodayDep
from ratingdb.web.lists import selected_list
from ratingdb.web.pages import TopListSelection, card_for, table_for, tournament_list
from ratingdb.web.schemas import IsoDate

router = APIRouter(prefix="/api", tags=["public"], route_class=ReleasingRoute)


@router.get(
    "/players",
    response_model=list[schemas.PlayerHit],
    responses={
        200: {"headers": {"X-Total-Count": schemas.TOTAL_COUNT}},
        **schemas.error_responses(401, 422),
    },
    summary="Search players by name, DSB id, FIDE id, ZPS number or club",
)
def api_players(
    response: Response,
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
    q: Annotated[
        str | None,
        Query(
            max_length=100,
            description="name prefix (accents and umlaut spellings ignored: Mueller finds "
            "Müller), or a DSB id, FIDE id or ZPS number (C0327-12)",
        ),
    ] = None,
    club: Annotated[str | None, Query(max_length=100, description="VKZ or club name")] = None,
    dsb_id: Annotated[str | None, Query(max_length=20)] = None,
    fide_id: Annotated[int | None, Query(ge=1, le=10**12)] = None,
    zps: Annotated[
        str | None, Query(pattern=ZPS_PARAMETER, description="VKZ-number (C0327-12)")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> list[dict[str, Any]]:
    """Members today (WO 4.1.1); with a token also non-members and former members. A page of
    ``limit`` hits from ``offset``; the header ``X-Total-Count`` has the number of all hits."""
    criteria: dict[str, Any] = {
        "name": q, "club": club, "dsb_id": dsb_id, "fide_id": fide_id, "zps": zps,
        "day": today, "include_unpublished": user is not None,
    }  # fmt: skip
    hits = search_players(session, limit=limit, offset=offset, **criteria)
    response.headers["X-Total-Count"] = str(count_players(session, **criteria))
    return hits


@router.get(
    "/players/{player_id}",
    response_model=schemas.Card,
    responses=schemas.error_responses(401, 404),
    summary="The Karteikarte of a player",
)
def api_card(
    player_id: int, session: SessionDep, today: TodayDep, user: OptionalUser
) -> dict[str, Any]:
    """Current DWZ and index, every evaluation in order, takeovers and adjustments,
    memberships, residual games and the chart's points (WO 6.5.2.1 item 2)."""
    data = card_for(session, player_id, today, user)
    card = data["card"]
    p = card.player
    return {
        "player": {
            "id": p["id"],
            "name": full_name(p["surname"], p["given_name"]),
            "dsb_id": p["dsb_id"],
            "fide_id": p["fide_id"],
            "anonymised": p["anonymised"],
        },
        "current_rating": card.current_rating,
        "current_index": card.current_index,
        "evaluations": card.evaluations,
        "memberships": card.memberships,
        "residual_games": card.residual_games,
        "chart": [pt.to_dict() for pt in data["points"]],
    }


@router.get(
    "/tournaments",
    response_model=schemas.TournamentPage,
    responses=schemas.error_responses(422),
    summary="Tournament list (WO 6.5.2.1 item 4)",
)
def api_tournaments(
    session: SessionDep,
    ended_from: Annotated[IsoDate | None, Query(alias="from")] = None,
    ended_to: Annotated[IsoDate | None, Query(alias="to")] = None,
    vkz: Annotated[str | None, Query(max_length=10, description="VKZ prefix")] = None,
    name: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> dict[str, Any]:
    items, total = tournament_list(
        session, ended_from=ended_from, ended_to=ended_to, vkz=vkz, name=name,
        limit=limit, offset=offset,
    )  # fmt: skip
    return {"total": total, "limit": limit, "offset": offset, "items": items}


@router.get(
    "/tournaments/{code}",
    response_model=schemas.Evaluation,
    responses=schemas.error_responses(401, 404, 422),
    summary="A tournament's evaluation display (WO Anhang 3.1.11)",
)
def api_evaluation(
    code: str,
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
    sort: Annotated[str | None, Query(max_length=10)] = None,
    dir: Annotated[str, Query(pattern="^(asc|desc)$")] = "asc",
) -> dict[str, Any]:
    table = table_for(
        session, code, today, user, sort=sort if sort in COLUMN_KEYS else None,
        descending=dir == "desc",
    )  # fmt: skip
    return {
        "tournament": table.info.to_dict(),
        "evaluated": table.evaluated,
        "rules": table.rules,
        "precision": table.precision,
        "problem": table.problem,
        "columns": list(table.columns),
        "keys": list(COLUMN_KEYS),
        "rows": [
            {
                "participant_id": r.participant_id,
                "player_id": r.player_id,
                "member": r.member,
                "stored": r.stored,
                "cells": list(r.cells),
            }
            for r in table.rows
        ],
    }


@router.get(
    "/tournaments/{code}/games",
    response_model=schemas.Games,
    responses=schemas.error_responses(401, 404),
    summary="All game results of a tournament",
)
def api_games(
    code: str, session: SessionDep, today: TodayDep, user: OptionalUser
) -> dict[str, Any]:
    return tournament_games(session, code, today, show_all=user is not None)


@router.get(
    "/tournaments/{code}/players/{participant_id}",
    response_model=schemas.ScoresheetOut,
    responses=schemas.error_responses(401, 404),
    summary="A player's scoresheet in a tournament (WO Anhang 3.1.12)",
)
def api_scoresheet(
    code: str, participant_id: int, session: SessionDep, today: TodayDep, user: OptionalUser
) -> dict[str, Any]:
    return scoresheet(session, code, participant_id, today, show_all=user is not None).to_dict()


#: an age class or range (:mod:`ratingdb.queries.age_ranges`), or nothing
AGE = Query(
    pattern=f"^(?:{SELECTIONS})?$",
    description="youth, junior, adult (Jgd, Jun, Erw), U<n> (age n or less), Ü<n> (n or more)",
)
BORN = Query(ge=BIRTH_YEAR.low, le=BIRTH_YEAR.high)
#: a VKZ: 1 to 10 letters and digits (:data:`ratingdb.queries.clubs.VKZ`)
VKZ_PARAMETER = f"^{VKZ.pattern}$"


async def top(
    organisation: Annotated[
        str, Query(pattern=VKZ_PARAMETER, description="VKZ of the level or club; 000: all")
    ],
    day: Annotated[IsoDate | None, Query(alias="date", description="default: today")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PLACES, description="places")] = 100,
    birth_year_from: Annotated[int | None, BORN] = None,
    birth_year_to: Annotated[int | None, BORN] = None,
    age: Annotated[str | None, AGE] = None,
    sex: Annotated[Literal[tuple(SEXES)] | None, Query(description="w is f")] = None,  # type: ignore[valid-type]
    status: Annotated[Literal[STATUSES] | None, Query()] = None,  # type: ignore[valid-type]
) -> TopListSelection:
    """A top list's selection as the API declares it: numbers as numbers, each bound in
    the schema (the pages read the form's text fields: :func:`ratingdb.web.pages.
    top_list_selection`)."""
    return TopListSelection(
        organisation, day, limit, birth_year_from, birth_year_to, age, sex, status
    )


@router.get(
    "/lists",
    response_model=schemas.RatingList,
    responses=schemas.error_responses(422),
    summary="Rating list of a club or federation (WO 6.5.2.1 item 3)",
)
def api_list(
    session: SessionDep,
    today: TodayDep,
    club: Annotated[str | None, Query(max_length=10)] = None,
    federation: Annotated[str | None, Query(max_length=10)] = None,
    org: Annotated[
        str | None,
        Query(pattern=f"^(?:{VKZ.pattern})?$", description="an organisation level (its clubs)"),
    ] = None,
    age_class: Annotated[str | None, AGE] = None,
    day: Annotated[IsoDate | None, Query(alias="date")] = None,
) -> dict[str, Any]:
    """Members by DWZ (players without DWZ last); CSV and PDF: ``/lists.csv``,
    ``/lists.pdf`` with the same query."""
    rows, _ = selected_list(session, club, federation, age_class, day, today, org)
    return {
        "club": club,
        "federation": federation,
        "org": org,
        "age_class": age_class,
        "date": day or today,
        "rows": rows,
    }


@router.get(
    "/lists/top",
    response_model=schemas.TopList,
    responses=schemas.error_responses(422),
    summary="Top list (Bestenliste) of a federation level or club",
)
def api_top_list(
    session: SessionDep, today: TodayDep, selection: Annotated[TopListSelection, Depends(top)]
) -> dict[str, Any]:
    """The best ``limit`` members by DWZ on ``date``, with the filters of DeWIS's
    bestOfFederation: age class or birth years, sex, status. CSV and PDF:
    ``/lists/top.csv``, ``/lists/top.pdf`` with the same query."""
    query, scope, rows, _doc = selection.run(session, today)
    return {
        "organisation": scope.vkz,
        "name": scope.name,
        "date": query.on,
        "limit": query.limit,
        "birth_year_from": query.birth_year_from,
        "birth_year_to": query.birth_year_to,
        "age": query.age,
        "sex": query.sex,
        "status": query.status,
        "rows": [r.to_dict() for r in rows],
    }
