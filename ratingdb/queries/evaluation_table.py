"""A stored evaluation for the web (WO Anhang 3.1.11): the display rows of
:mod:`ratingdb.queries.evaluation_display` with sortable keys, the tournament's header data
and, per row, whether the participant is published (WO 4.1.1).

"Sortierbarkeit nach Feldern soll bei Web-Darstellung möglich sein" (Anhang 3.1.11 notes):
every column has a key; the sort is stable, empty values last in either direction.
Unpublished participants (non-members, former members, anonymised players) show their name
only: no age class, no VKZ, no link to a Karteikarte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.store import FIND_TOURNAMENT
from ratingdb.i18n import _
from ratingdb.io.trf import TeamRow, scoring_of, teams_of
from ratingdb.queries.evaluation_display import evaluation_rows, headers, spreadsheet_headers
from ratingdb.queries.problems import problems_from, problems_sql
from ratingdb.queries.publication import PUBLISHED
from ratingdb.queries.tournament import read_stored_evaluation
from ratingdb.rules.model import TournamentInput, TournamentResult
from ratingdb.terms import Term, evaluation_terms

#: URL keys of the display columns, in the order of ``evaluation_display.HEADERS``
COLUMN_KEYS = (
    "nr", "name", "age", "vkz", "r_o", "k", "r_c", "w", "n", "w_e", "r_h", "r_n", "change",
)  # fmt: skip


@dataclass
class TournamentInfoRow:
    id: int
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
    #: the name of the playing level's organisation (``clubs import``), "" when unknown
    vkz_name: str = ""
    #: the point values the tournament's file set where they differ from the standard ones
    #: (key of :data:`ratingdb.io.trf.SCORING_KEYS` -> points; docs/data-exchange.md)
    scoring: dict[str, str] = field(default_factory=dict)
    #: a team tournament's teams from its file's TRF-2026 team records (310/802)
    teams: list[TeamRow] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "start": self.start,
            "end": self.end,
            "vkz": self.vkz,
            "kind": self.kind,
            "status": self.status,
            "city": self.city,
            "time_control": self.time_control,
            "evaluators": self.evaluators,
            "processed_at": self.processed_at,
            "evaluated_at": self.evaluated_at,
            "calculated_at": self.calculated_at,
            "players": self.players,
            "games": self.games,
            "scoring": self.scoring,
            "teams": [
                {"number": t.number, "name": t.name, "match_points": t.match_points,
                 "game_points": t.game_points,
                 "rounds": [{"opponent": o, "colour": c, "game_points": g} for o, c, g in t.rounds]}
                for t in self.teams
            ],
        }  # fmt: skip


@dataclass
class EvaluationRow:
    participant_id: int
    player_id: int | None  # None unless published
    cells: tuple[str, ...]
    keys: tuple[Any, ...]
    member: bool
    stored: bool
    #: the row for spreadsheets (:attr:`ratingdb.queries.evaluation_display.DisplayRow.values`)
    values: tuple[str, ...] = ()


@dataclass
class EvaluationTable:
    info: TournamentInfoRow
    columns: tuple[str, ...]
    rows: list[EvaluationRow] = field(default_factory=list)
    rules: str | None = None
    precision: str | None = None
    evaluated: bool = True
    #: the version of the Rechenmodul of the stored evaluation (e.g. dwz-2016, 2026.1)
    rechenmodul: str | None = None
    #: the rules refused this tournament in its last evaluation: ``participant_ids`` were
    #: struck (kept their ratings), ``message`` says why (ratingdb/engine/problems.py)
    problem: dict[str, Any] | None = None
    #: the columns' symbols and explanations (hover text and legend, :mod:`ratingdb.terms`)
    terms: tuple[Term, ...] = ()
    #: the CSV header of the rows' ``values`` (the page's column names, numbers apart)
    csv_columns: tuple[str, ...] = ()
    #: the players of all participants, shown or not (whose publication decides what shows)
    player_ids: frozenset[int] = frozenset()


def tournament_info(session: Session, ident: str) -> TournamentInfoRow:
    """The header data of a tournament (WO 6.5.2.1 item 4 and 6.1.2.1), found by code or
    else by number as :func:`ratingdb.db.store.find_tournament` finds it, in one query;
    LookupError."""
    r = session.execute(text(TOURNAMENT_INFO), found_by(ident)).first()
    if r is None:
        raise LookupError(_("no tournament %(code)r") % {"code": ident})
    return info_from(r)


def found_by(ident: str) -> dict[str, Any]:
    """The parameters of :data:`ratingdb.db.store.FIND_TOURNAMENT` for ``ident``."""
    number = int(ident) if ident.isascii() and ident.isdigit() and len(ident) < 19 else None
    return {"code": ident, "number": number}


#: the header data of the tournament ``FIND_TOURNAMENT`` finds
TOURNAMENT_INFO = (
    "SELECT t.id, t.code, t.name, t.start_date, t.end_date, t.vkz, t.kind, t.status, "
    "t.city, t.time_control, t.evaluators, t.processed_at, c.evaluated_at, "
    "c.calculated_at, "
    "(SELECT count(*) FROM participants p WHERE p.tournament_id = t.id) AS players, "
    "(SELECT count(*) FROM games g WHERE g.tournament_id = t.id) AS games, "
    "(SELECT o.name FROM organisations o WHERE o.vkz = t.vkz) AS vkz_name, "
    "t.exchange -> 'records' AS kept_records, t.exchange -> 'other' AS kept_other "
    "FROM tournaments t LEFT JOIN tournament_calculations c ON c.tournament_id = t.id "
    f"WHERE t.id = {FIND_TOURNAMENT}"
)


def info_from(r: Any) -> TournamentInfoRow:
    return TournamentInfoRow(
        r.id, r.code, r.name, r.start_date, r.end_date, r.vkz, r.kind, r.status, r.city,
        r.time_control, list(r.evaluators or []), r.processed_at, r.evaluated_at,
        r.calculated_at, r.players, r.games, r.vkz_name or "",
        changed_scoring(r.kept_records or [], r.kept_other or {}),
        teams_of(r.kept_records or []),
    )  # fmt: skip


def changed_scoring(records: list[str], other: dict[str, str]) -> dict[str, str]:
    """The point values a tournament's file set (its kept ``BB?`` and ``162`` records) that
    differ from the standard ones, as text."""
    scoring = scoring_of(records, other)
    standard = scoring_of([], {})
    return {k: f"{v:.1f}" for k, v in scoring.items() if v != standard[k]}


def _keys(number: int, name: str, age: str, vkz: str, res: Any) -> tuple[Any, ...]:
    change = (
        res.rating_new - res.rating_old
        if res.rating_new is not None and res.rating_old is not None and res.stored
        else None
    )
    return (
        number,
        name.lower(),
        age or None,
        None if vkz in ("", "-") else vkz,
        res.rating_old,
        None if res.k is None else float(res.k),
        res.opponents_avg,
        float(res.score),
        res.games,
        None if res.expected is None else float(res.expected),
        res.performance,
        res.rating_new if res.group != "remaining" else None,
        change,
    )


def evaluation_table(
    session: Session,
    ident: str,
    day: date,
    *,
    sort: str | None = None,
    descending: bool = False,
    show_all: bool = False,
) -> EvaluationTable:
    """The evaluation of tournament ``ident`` as of ``day`` (whose membership is published);
    ``show_all``: an officer sees everybody's data. LookupError for an unknown tournament."""
    params = found_by(ident) | {"d": day}
    stored, (info_rows, published_rows, problem_rows) = read_stored_evaluation(
        session,
        FIND_TOURNAMENT,
        params,
        [
            (TOURNAMENT_INFO, params),
            (
                "SELECT p.id FROM players p WHERE p.id IN (SELECT pa.player_id FROM "
                f"participants pa WHERE pa.tournament_id = {FIND_TOURNAMENT}) AND {PUBLISHED}",
                params,
            ),
            (problems_sql(f"WHERE e.tournament_id = {FIND_TOURNAMENT}"), params),
        ],
    )
    if not info_rows:
        raise LookupError(_("no tournament %(code)r") % {"code": ident})
    info = info_from(info_rows[0])
    if stored is None:  # no snapshots
        return EvaluationTable(info, (), [], evaluated=False)
    tin, result = stored.input, stored.result
    players = {p.id: p.player_id for p in stored.tournament.participants}
    shown = (
        {p for p in players.values() if p is not None}
        if show_all
        else {r.id for r in published_rows}
    )
    rows = build_rows(tin, result, players, shown)
    if sort in COLUMN_KEYS:
        rows = sort_rows(rows, COLUMN_KEYS.index(sort), descending)
    problem = next(iter(problems_from(problem_rows)), None)
    return EvaluationTable(
        info,
        headers(result),
        rows,
        result.rules,
        result.precision,
        rechenmodul=stored.rechenmodul,
        problem=None
        if problem is None
        else {"participant_ids": problem["participant_ids"], "message": problem["message"]},
        terms=evaluation_terms(result.coefficient),
        csv_columns=spreadsheet_headers(result),
        player_ids=frozenset(p for p in players.values() if p is not None),
    )


def build_rows(
    tin: TournamentInput,
    result: TournamentResult,
    players: dict[int, int | None],
    shown: set[int],
) -> list[EvaluationRow]:
    by_id = {p.id: p for p in tin.players}
    out = []
    for row, res in zip(evaluation_rows(tin, result), result.players, strict=True):
        participant = int(res.id)
        player_id = players.get(participant)
        published = player_id is not None and player_id in shown
        cells, values = list(row.cells), list(row.values)
        if not published:  # no age class, no VKZ (WO 4.1.1)
            cells[2], cells[3] = "", "-"
            values[2], values[3] = "", ""
        member = by_id[res.id].member and not by_id[res.id].computer
        out.append(
            EvaluationRow(
                participant,
                player_id if published else None,
                tuple(cells),
                _keys(int(cells[0]), cells[1], cells[2], cells[3], res),
                member,
                res.stored,
                tuple(values),
            )
        )
    return out


def sort_rows(rows: list[EvaluationRow], column: int, descending: bool) -> list[EvaluationRow]:
    """Stable sort by one column; rows without a value stay last in both directions."""
    present = [r for r in rows if r.keys[column] is not None]
    missing = [r for r in rows if r.keys[column] is None]
    present.sort(key=lambda r: r.keys[column], reverse=descending)
    return present + missing
