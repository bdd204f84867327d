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

from ratingdb.db.evaluation_columns import COLUMNS, SQL

__all__ = ["COLUMNS", "evaluation_rows", "residual_rows"]


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
