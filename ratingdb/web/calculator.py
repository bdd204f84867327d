"""The DWZ calculator on the web: the page ``/rechner`` (a form that posts to itself, no
JavaScript needed) and ``POST /api/calc`` (:mod:`ratingdb.services.calculator`).

The page keeps its whole state in the form: the date, the player (a database player picked
from a search, or DWZ, index and birth year typed in), one row per game (a database
opponent added from the search, or a rating and index typed in; the result). Its buttons
are ``action`` values: ``calc`` (the default), ``search``, ``pick:ID`` (the player),
``add:ID`` (an opponent), ``remove:K`` (a row), ``clear`` (the picked player), ``more``
(empty rows). Database players are published ones only (WO 4.1.1) unless the request
carries an officer's token.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, cast

from fastapi import APIRouter, Body, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from ratingdb.errors import InputError, RulesError
from ratingdb.i18n import N_, _
from ratingdb.queries.search import search_players
from ratingdb.services.calc_explain import GROUP, calculation_dict, de, explain
from ratingdb.services.calculator import (
    INDICES,
    MAX_GAMES,
    PLAYER_IDS,
    RATINGS,
    Calculation,
    calculate,
    locations_named,
    parse_request,
    split_path,
)
from ratingdb.services.users import Principal
from ratingdb.terms import age_class, term
from ratingdb.web import schemas
from ratingdb.web.deps import OptionalUser, ReleasingRoute, SessionDep, TodayDep
from ratingdb.web.timing import in_thread

page_router = APIRouter(include_in_schema=False, route_class=ReleasingRoute)
api_router = APIRouter(prefix="/api", tags=["public"], route_class=ReleasingRoute)

#: empty game rows of a fresh form, and how many "more" adds
ROWS, MORE = 8, 5
MAX_ROWS = 200
#: the form's names of the request's fields (translated where used)
_LABELS = {
    "rating": N_("DWZ"),
    "index": N_("Index"),
    "birth_year": N_("Birth year"),
    "id": N_("Player"),
    "result": N_("Result"),
}
_EXAMPLE = {
    "date": "2026-12-12",
    "player": {"rating": 2220, "index": 31, "birth_year": 1986},
    "opponents": [
        {"rating": 2100, "index": 55, "result": 1},
        {"rating": 1961, "result": 1},
        {"id": 42, "result": 0.5},
    ],
}


def _number(bounds: tuple[int, int], what: str) -> dict[str, Any]:
    """A typed-in number: an integer within ``bounds``, its text (the form's), or nothing
    (null or blank); the text's value is checked by the reader (a 422 naming the path)."""
    low, high = bounds
    return {
        "anyOf": [
            {"type": "integer", "minimum": low, "maximum": high},
            {"type": "string"},
            {"type": "null"},
        ],
        "description": what,
    }


#: the calculator's request as :func:`ratingdb.services.calculator.parse_request` reads it
CALC_BODY: dict[str, Any] = {
    "type": "object",
    "required": ["player", "opponents"],
    "properties": {
        "date": {
            "type": ["string", "null"],
            "description": "YYYY-MM-DD (it chooses the Rechenmodul); empty or missing: today",
        },
        "player": {
            "type": "object",
            "description": "a published player's id, or rating, index and birth year "
            "(no rating: a first rating)",
            "properties": {
                "id": _number(PLAYER_IDS, "a database player"),
                "rating": _number(RATINGS, "DWZ"),
                "index": _number(INDICES, "index (needed with a rating)"),
                "birth_year": {
                    "type": ["integer", "string", "null"],
                    "description": "from 1900 to the year of the date",
                },
            },
        },
        "opponents": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_GAMES,
            "items": {
                "type": "object",
                "required": ["result"],
                "properties": {
                    "id": _number(PLAYER_IDS, "a database player"),
                    "rating": _number(RATINGS, "DWZ (or a first rating R_1)"),
                    "index": _number(INDICES, "index"),
                    "result": {
                        "anyOf": [{"enum": [1, 0.5, 0]}, {"type": "string"}],
                        "description": 'the player\'s result: 1, 0.5 or 0 (also "½", "1/2")',
                    },
                },
            },
        },
    },
    "example": _EXAMPLE,
}


@api_router.post(
    "/calc",
    responses=schemas.error_responses(
        401,
        422,
        refused="A database player without DWZ on the date, typed-in values that "
        "are no number or outside their range, a date whose Rechenmodul is no DWZ",
    ),
    openapi_extra={
        "requestBody": {"required": True, "content": {"application/json": {"schema": CALC_BODY}}}
    },
    summary="DWZ calculator: the new DWZ after games against opponents of given ratings",
)
def api_calc(
    payload: Annotated[dict[str, Any], Body()],
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
) -> dict[str, Any]:
    """The player (`{"id": ...}` of a published player, or `rating`, `index`, `birth_year`;
    no `rating`: a first rating), one opponent per game (`{"id": ...}` or `rating` and an
    optional `index`; `result` 1, 0.5 or 0) and the `date` (default today), which chooses the
    Rechenmodul as the engine does. The answer: the evaluation of the `ratingdb evaluate`
    contract (`result`), the scoresheet with P(D) per game, the calculation
    (`explanation.lines`), notes, and (for typed-in players) the `ratingdb evaluate` input
    that reproduces it. Bad input: 422 naming the JSON path (docs/calculator.md)."""
    calc = calculate(session, parse_request(payload, today), published_on=None if user else today)
    return calculation_dict(calc, with_document=user is not None or calc.player.player_id is None)


# -- the page ---------------------------------------------------------------------------
@dataclass
class Row:
    """One game row of the form."""

    player_id: str = ""
    name: str = ""
    rating: str = ""
    index: str = ""
    result: str = ""

    @property
    def empty(self) -> bool:
        return not (self.player_id or self.rating.strip() or self.index.strip() or self.result)


@dataclass
class FormState:
    day: str
    player_id: str = ""
    player_name: str = ""
    rating: str = ""
    index: str = ""
    born: str = ""
    q: str = ""
    rows: list[Row] | None = None


def _render(request: Request, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    templates = request.app.state.templates
    context = {**context, "age_class": age_class, "group": GROUP, "num": de, "term": term}
    return cast(
        HTMLResponse,
        templates.TemplateResponse(request, "calculator.html", context, status_code=status),
    )


def _name(session: Session, player_id: int) -> str:
    from sqlalchemy import text

    from ratingdb.names import full_name

    row = session.execute(
        text("SELECT surname, given_name FROM players WHERE id = :p"), {"p": player_id}
    ).first()
    return "" if row is None else full_name(row.surname, row.given_name)


@page_router.get("/rechner", response_class=HTMLResponse)
def calculator_page(
    request: Request,
    session: SessionDep,
    today: TodayDep,
    user: OptionalUser,
    player: int | None = None,
) -> HTMLResponse:
    """An empty form; ``?player=ID`` (the Karteikarte's link) picks a published player."""
    state = FormState(day=today.isoformat(), rows=[Row() for _ in range(ROWS)])
    if player is not None and _visible(session, player, today, user):
        state.player_id, state.player_name = str(player), _name(session, player)
    return _render(request, {"form": state})


@page_router.post("/rechner", response_class=HTMLResponse)
async def calculator_post(request: Request, today: TodayDep, user: OptionalUser) -> HTMLResponse:
    """Every button of the form (see the module text); the form is read as text fields."""
    form = await request.form()
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str)}
    return cast(HTMLResponse, await in_thread(_answer, request, fields, today, user))


def _visible(session: Session, player_id: int, today: date, user: Principal | None) -> bool:
    from ratingdb.queries.publication import is_published

    return user is not None or is_published(session, player_id, today)


def _state(fields: dict[str, str], today: date) -> FormState:
    given = fields.get("rows", "")
    count = min(int(given), MAX_ROWS) if given.isascii() and given.isdigit() else ROWS
    rows = [
        Row(
            fields.get(f"o{k}_id", "").strip(),
            fields.get(f"o{k}_name", ""),
            fields.get(f"o{k}_rating", ""),
            fields.get(f"o{k}_index", ""),
            fields.get(f"o{k}_result", ""),
        )
        for k in range(count)
    ]
    return FormState(
        day=fields.get("date", "").strip() or today.isoformat(),
        player_id=fields.get("player_id", "").strip(),
        player_name=fields.get("player_name", ""),
        rating=fields.get("rating", ""),
        index=fields.get("index", ""),
        born=fields.get("born", ""),
        q=fields.get("q", ""),
        rows=rows,
    )


def _answer(
    request: Request, fields: dict[str, str], today: date, user: Principal | None
) -> HTMLResponse:
    state = _state(fields, today)
    rows = state.rows or []
    action = fields.get("action", "calc")
    context: dict[str, Any] = {"form": state}
    with Session(request.app.state.engine) as session:
        verb, _colon, arg = action.partition(":")
        number = arg.isascii() and arg.isdigit() and len(arg) <= 9
        if verb in ("pick", "add") and number:
            pid = int(arg)
            if _visible(session, pid, today, user):
                if verb == "pick":
                    state.player_id, state.player_name = arg, _name(session, pid)
                    state.rating = state.index = state.born = ""
                else:
                    free = next((r for r in rows if r.empty), None)
                    if free is None:
                        free = Row()
                        rows.append(free)
                    free.player_id, free.name = arg, _name(session, pid)
            return _render(request, context)
        if verb == "remove" and number and int(arg) < len(rows):
            rows[int(arg)] = Row()
            return _render(request, context)
        if verb == "clear":
            state.player_id = state.player_name = ""
            return _render(request, context)
        if verb == "more":
            rows.extend(Row() for _ in range(MORE))
            return _render(request, context)
        if verb == "search":
            query = state.q.strip()
            found = search_players(
                session, name=query, day=today, include_unpublished=user is not None, limit=20
            )
            context["hits"] = found if query else []
            context["searched"] = True
            return _render(request, context)
        used = [k for k, r in enumerate(rows) if not r.empty]
        data = {
            "date": state.day,
            "player": {"id": state.player_id}
            if state.player_id
            else {"rating": state.rating, "index": state.index, "birth_year": state.born},
            "opponents": [_opponent(rows[k]) for k in used],
        }
        try:
            with locations_named(lambda where: _label(where, used)):
                calc: Calculation = calculate(
                    session, parse_request(data, today), published_on=None if user else today
                )
        except (InputError, RulesError) as err:  # the form stays, with the one message
            context["error"] = str(err)
            return _render(request, context, status=422)
        context["calc"] = calc
        context["day"] = calc.request.day.strftime(_("%Y-%m-%d"))
        context["explanation"] = explain(calc)
        return _render(request, context)


def _opponent(row: Row) -> dict[str, Any]:
    out: dict[str, Any] = {"result": row.result if row.result else None}
    if row.player_id:
        out["id"] = row.player_id
    else:
        out["rating"], out["index"] = row.rating, row.index
    if not row.result:
        del out["result"]
    return out


def _label(location: str, used: list[int]) -> str:
    """A JSON path as the form names it: ``$.opponents[1].result`` -> ``Gegner 3, Ergebnis``."""
    parts = split_path(location)
    if parts is None:
        return location
    key, k, field = parts
    if key == "date":
        return _("Date")
    if key == "player":
        return _(_LABELS.get(field or "", N_("Player")))
    opponent = _("Opponent {k}").format(k=used[k] + 1) if k is not None else _("Opponents")
    label = _LABELS.get(field or "")
    if label is None or k is None:
        return opponent
    field_name = _(label)
    return f"{opponent}, {field_name}"
