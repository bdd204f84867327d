"""JSON shapes of the API (they make the OpenAPI document)."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _iso_date(value: Any) -> Any:
    """A date parameter as a date is written (``2026-11-21``): a number such as ``0`` is
    no date (pydantic would read it as seconds since 1970)."""
    from ratingdb.i18n import _

    if not isinstance(value, str | date) or (
        isinstance(value, str) and not _ISO_DATE.fullmatch(value)
    ):
        raise ValueError(_("a date is written YYYY-MM-DD, e.g. 2026-11-21"))
    return value


#: a date of a query parameter: ``YYYY-MM-DD`` only
IsoDate = Annotated[date, BeforeValidator(_iso_date)]


class ErrorItem(BaseModel):
    location: str = Field(description="file:line:column, 'line L, column C', a JSON path, ...")
    line: int | None = None
    column: int | None = None
    path: str | None = Field(None, description="JSON path such as $.games[3].result")
    message: str


class ErrorBody(BaseModel):
    error: str
    errors: list[ErrorItem] = []


#: the ``Retry-After`` of a 503: the seconds after which to try again
RETRY_AFTER = {"description": "seconds until a new try", "schema": {"type": "integer"}}
#: the ``X-Total-Count`` of a page of hits: the number of all hits
TOTAL_COUNT = {"description": "the number of all hits", "schema": {"type": "integer"}}
_TEXTS = {
    401: "No token, or an unknown or revoked token",
    403: "Outside the user's VKZ scope, older than one year (WO 6.2), or admins only",
    404: "Not found (or not published, WO 4.1.1)",
    409: "Another change to the same data was made at the same moment; try again",
    422: "Invalid input: file line/column or JSON path and message; nothing written",
    503: "The database cannot be reached, or the server runs as many heavy requests "
    "(what-ifs) as it takes at once; Retry-After says when to try again",
}


def error_responses(*codes: int, refused: str | None = None) -> dict[int | str, dict[str, Any]]:
    """The error answers of an operation: ``codes`` and 503 (every operation reads the
    database), each with :class:`ErrorBody`; ``refused`` names what a 422 refuses beyond
    the limits the schema declares on each parameter (a combination of them, a date's
    plausible range, the content of a document)."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in (*codes, 503):
        text = _TEXTS[code] if code != 422 or refused is None else f"{_TEXTS[422]}. {refused}"
        out[code] = {"model": ErrorBody, "description": text}
    out[503]["headers"] = {"Retry-After": RETRY_AFTER}
    return out


class PlayerHit(BaseModel):
    id: int
    name: str
    vkz: str | None
    club: str | None
    dsb_id: str | None
    fide_id: int | None
    fide_rating: int | None = Field(None, description="the last FIDE rating up to today")
    birth_year: int | None
    rating: int | None
    index: int | None
    member: bool


class CardPlayer(BaseModel):
    id: int
    name: str
    dsb_id: str | None
    fide_id: int | None
    anonymised: bool


class CardEntry(BaseModel):
    kind: str = Field(description="evaluation, takeover or adjustment")
    tournament: str | None = None
    participant_id: int | None = None
    name: str | None = None
    end_date: date
    group: str | None = None
    score: float | None = None
    games: int | None = None
    expected: float | None = None
    k: float | None = None
    opponents_avg: int | None = None
    performance: int | None = None
    exceptional: bool | None = None
    rating_old: int | None = None
    index_old: int | None = None
    rating_new: int | None = None
    index_new: int | None = None
    stored: bool
    new_residual: int | None = None
    change: int | None = Field(
        default=None,
        description="the +/- column: rating_new - rating_old of a stored evaluation or an "
        "adjustment",
    )
    rechenmodul: str | None = Field(
        default=None,
        description="Rechenmodul version of an evaluation (e.g. dwz-2016, 2026.1) or the "
        "formula of an adjustment (dwz-2026-umstufung)",
    )


class CardMembership(BaseModel):
    vkz: str
    club: str
    valid_from: date
    valid_to: date | None
    status: str


class CardResidual(BaseModel):
    opponent_rating: int
    score: float
    played_on: date
    expires_on: date
    tournament: str | None
    valid: bool


class ChartPointOut(BaseModel):
    date: date
    rating: int
    index: int | None
    kind: str
    label: str


class Card(BaseModel):
    player: CardPlayer
    current_rating: int | None
    current_index: int | None
    evaluations: list[CardEntry]
    memberships: list[CardMembership]
    residual_games: list[CardResidual]
    chart: list[ChartPointOut]


class TournamentSummary(BaseModel):
    code: str
    name: str
    start_date: date
    end_date: date
    vkz: str
    kind: str
    status: str
    evaluators: list[str]
    processed_at: datetime | None
    evaluated_at: datetime | None
    calculated_at: datetime | None
    players: int


class TournamentPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[TournamentSummary]


class TournamentInfoOut(BaseModel):
    code: str
    name: str
    start: date
    end: date
    vkz: str
    kind: str
    status: str
    city: str | None
    time_control: str | None
    evaluators: list[str]
    processed_at: datetime | None
    evaluated_at: datetime | None
    calculated_at: datetime | None
    players: int
    games: int


class EvaluationRowOut(BaseModel):
    participant_id: int
    player_id: int | None = Field(description="only for published players (WO 4.1.1)")
    member: bool
    stored: bool
    cells: list[str]


class EvaluationProblemOut(BaseModel):
    participant_ids: list[int]
    message: str


class Evaluation(BaseModel):
    tournament: TournamentInfoOut
    evaluated: bool
    rules: str | None
    precision: str | None
    problem: EvaluationProblemOut | None = Field(
        None,
        description="set when the rules refused part of the tournament: the struck "
        "participants kept their ratings",
    )
    columns: list[str]
    keys: list[str] = Field(description="the sort keys of the columns (?sort=KEY&dir=asc|desc)")
    rows: list[EvaluationRowOut]


class ScoresheetGameOut(BaseModel):
    round: int | None
    opponent: str
    opponent_participant: int
    opponent_player: int | None
    rating: str
    result: str
    score: float | None
    expected: float | None
    new_residual: bool


class ScoresheetOut(BaseModel):
    tournament: str
    tournament_name: str
    participant_id: int
    player_id: int | None
    name: str
    rating_old: str
    group: str
    residual_old: dict[str, Any] | None
    games: list[ScoresheetGameOut]
    score: float
    rated_games: int
    expected: float | None
    k: float | None
    coefficient: str
    rating_new: str


class GameParticipant(BaseModel):
    participant_id: int
    start_rank: int | None
    name: str
    player_id: int | None
    points: float
    games: int


class GameOut(BaseModel):
    round: int | None
    board: int | None
    white: str
    white_participant: int
    black: str
    black_participant: int
    result: str
    rated: bool


class Games(BaseModel):
    participants: list[GameParticipant]
    games: list[GameOut]


class ListRow(BaseModel):
    rank: int
    player_id: int
    name: str
    vkz: str
    club: str | None = None
    member_number: str | None
    birth_year: int | None
    sex: str | None
    rating: int | None
    index: int | None
    fide_id: int | None


class RatingList(BaseModel):
    club: str | None
    federation: str | None
    org: str | None = None
    age_class: str | None
    date: date
    rows: list[ListRow]


class TopListPlace(BaseModel):
    rank: int = Field(description="the place; equal DWZ share it")
    player_id: int
    name: str
    surname: str
    given_name: str
    rating: int
    index: int | None
    birth_year: int | None
    sex: str | None = Field(description="f, m or d, from the member list")
    vkz: str
    club: str
    status: str = Field(description="active or passive in the organisation on the day")
    fide_id: int | None
    dsb_id: str | None


class TopList(BaseModel):
    organisation: str = Field(description="the VKZ the list is of (000: the federation)")
    name: str | None = Field(description="the organisation's name, None for a plain prefix")
    date: date
    limit: int
    birth_year_from: int | None
    birth_year_to: int | None
    age: str | None
    sex: str | None
    status: str | None
    rows: list[TopListPlace]


class Me(BaseModel):
    name: str
    full_name: str
    role: str
    scopes: list[str]


class SubmitEvaluation(BaseModel):
    evaluated: bool = Field(description="the run succeeded; false: the change stays pending")
    run: int | None = Field(description="the run's number (`ratingdb runs`, the runs page)")
    tournaments_evaluated: int
    ratings_changed: int = Field(description="players whose rating or evaluations changed")
    reason: str | None = Field(description="why it did not run or failed")


class Written(BaseModel):
    action: str = Field(description="add, correct, delete or unchanged (nothing written)")
    tournament: str
    name: str
    vkz: str
    end: date
    change_point: date = Field(description="the next recalculation run replays from here")
    actor: str
    matches: list[dict[str, Any]] | None = Field(
        None, description="TRF: how each start rank was matched to a player"
    )
    evaluation: SubmitEvaluation | None = Field(
        None,
        description="the recalculation run right after the change (WO 6.4.3); null when "
        "nothing was written or the server evaluates at night only",
    )


class Moved(BaseModel):
    player_id: int
    name: str
    current: int | None = Field(description="the DWZ published now (the last run's)")
    current_index: int | None
    baseline: int | None = Field(description="after the next run without this change")
    baseline_index: int | None
    after: int | None = Field(description="after the next run with this change")
    after_index: int | None
    delta: int | None = Field(description="after - baseline; null for a first rating")
    evaluations_changed: bool = Field(
        description="an evaluation (snapshot) of the player differs, with or without the change"
    )
    new: bool = Field(
        False,
        description="a player the change creates (a new member): his id exists only in the "
        "what-if, submitting gives him another",
    )


class WhatIfOut(BaseModel):
    action: str
    tournament: str
    pending_changes: int = Field(description="other edits waiting for the next run")
    tournaments_evaluated: int
    moved: list[Moved]
    rated: int | None = Field(
        None,
        description="participants of the tournament who would get a stored rating (0: "
        "nobody in it can be rated); null for a deletion",
    )


class AuditEntryOut(BaseModel):
    id: int
    at: datetime
    actor: str
    action: str
    entity: str
    entity_id: str | None
    change_point: date | None
    details: dict[str, Any]
    #: the details as one line of text (``key: value; ...``)
    text: str


class AuditPage(BaseModel):
    total: int
    items: list[AuditEntryOut]


class AnonymisedOut(BaseModel):
    player_id: int
    evaluations: int
    memberships: int
