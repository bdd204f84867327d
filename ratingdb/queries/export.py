"""``ratingdb export evaluations``: every snapshot in a stable order, so that two
databases (say, after an incremental and after a full replay) can be diffed.

Order: the evaluation order of WO 2.2.3 (end date, start date, VKZ as a string,
processing time, tournament code), then player id, then start rank. Internal row ids
are left out; tournaments are named by their code.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

#: the residual games that went in, without their internal links (creating tournament, seq)
RESIDUAL_IN = (
    "(SELECT jsonb_agg(jsonb_build_object('opponent_rating', r->'opponent_rating', "
    "'score', r->'score', 'played_on', r->'played_on')) "
    "FROM jsonb_array_elements(s.residual_in) r)"
)
#: column -> SQL over the snapshot ``s``, its tournament ``t``, participant ``pa`` and player
#: ``pl``; every column but ``name`` is a value of the evaluation (what a change report
#: compares: ratingdb/db/change_report.py)
SQL = {
    "tournament": "t.code", "end_date": "t.end_date", "player_id": "s.player_id",
    "name": "coalesce(pa.textual_name, pl.surname || ', ' || pl.given_name)",
    **{c: f"s.{c}" for c in (
        "player_group", "age_class", "member", "rating_old", "index_old", "k",
        "opponents_avg", "score", "games", "expected", "performance", "exceptional",
        "start_value", "iteration_value", "rating_new", "index_new", "stored",
    )},
    "residual_in": RESIDUAL_IN, "new_residual_games": "s.new_residual_games",
}  # fmt: skip
COLUMNS = tuple(SQL)
#: the values of an evaluation (every column but the name) as one SQL row
VALUES_ROW = "row(" + ", ".join(sql for column, sql in SQL.items() if column != "name") + ")"


def evaluation_rows(session: Session) -> list[dict[str, Any]]:
    select = ", ".join(f"{sql} AS {column}" for column, sql in SQL.items())
    rows = session.execute(
        text(
            f"SELECT {select} "
            "FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            "JOIN participants pa ON pa.id = s.participant_id "
            "LEFT JOIN players pl ON pl.id = s.player_id "
            "ORDER BY t.end_date, t.start_date, t.vkz, t.processed_at, t.code, "
            "s.player_id NULLS LAST, pa.start_rank, name"
        )
    ).mappings()
    return [dict(r) for r in rows]


def residual_rows(session: Session) -> list[dict[str, Any]]:
    """The residual-game table in a stable order (tournaments named by code)."""
    rows = session.execute(
        text(
            "SELECT r.owner_id, r.opponent_rating, r.score, r.played_on, r.expires_on, "
            "c.code AS created_by, u.code AS consumed_by, r.seq FROM residual_games r "
            "LEFT JOIN tournaments c ON c.id = r.created_by_id "
            "LEFT JOIN tournaments u ON u.id = r.consumed_by_id "
            "ORDER BY r.owner_id, r.played_on, c.code, r.seq"
        )
    ).mappings()
    return [dict(r) for r in rows]
