"""Tournament lists by selection criteria (WO 6.5.2.1 item 4).

For every tournament: name, end date, VKZ of the playing level, tournament id, evaluator
names, evaluation date and last calculation date (the stamps of
``tournament_calculations``), plus start date, kind, number of players, status and its
number (``id``). Filters: end date from/to (the period), VKZ prefix (the organisation level,
WO 6.3), a part of the name (case-insensitive). Newest first in the evaluation order (WO
2.2.3).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.engine.order import ORDER_DESC
from ratingdb.queries.like import like_escape

MAX_LIMIT = 500


def find_tournaments(
    session: Session,
    *,
    ended_from: date | None = None,
    ended_to: date | None = None,
    vkz: str | None = None,
    name: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> tuple[list[dict[str, Any]], int]:
    """(one page of matching tournaments, how many match in all)."""
    where = ["true"]
    params: dict[str, Any] = {
        "n": max(1, min(limit, MAX_LIMIT)),
        "o": max(0, offset),
    }
    if ended_from is not None:
        where.append("t.end_date >= :f")
        params["f"] = ended_from
    if ended_to is not None:
        where.append("t.end_date <= :u")
        params["u"] = ended_to
    if vkz and vkz.strip():
        where.append("t.vkz LIKE :v")
        params["v"] = like_escape(vkz.strip()) + "%"
    if name and name.strip():
        where.append("t.name ILIKE :q")
        params["q"] = "%" + like_escape(name.strip()) + "%"
    condition = " AND ".join(where)
    total = session.execute(
        text(f"SELECT count(*) FROM tournaments t WHERE {condition}"), params
    ).scalar_one()
    rows = session.execute(
        text(
            "SELECT t.id, t.code, t.name, t.start_date, t.end_date, t.vkz, t.kind, t.status, "
            "t.evaluators, t.processed_at, c.evaluated_at, c.calculated_at, "
            "(SELECT count(*) FROM participants p WHERE p.tournament_id = t.id) AS players "
            "FROM tournaments t LEFT JOIN tournament_calculations c ON c.tournament_id = t.id "
            f"WHERE {condition} ORDER BY {ORDER_DESC} LIMIT :n OFFSET :o"
        ),
        params,
    ).mappings()
    return [dict(r) | {"evaluators": list(r["evaluators"] or [])} for r in rows], total
