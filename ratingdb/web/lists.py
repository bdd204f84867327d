"""The rating-list selection shared by the page, the CSV download and the API
(WO 6.5.2.1 item 3, 6.5.2.2): a club VKZ or a federation prefix, an age class, a day."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from ratingdb.db import scopes
from ratingdb.io.errors import InputError
from ratingdb.queries.documents import Document
from ratingdb.queries.reports import list_scope, rating_list_document, rating_list_rows
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
