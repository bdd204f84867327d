"""Tournaments whose last evaluation had to strike players (ratingdb/engine/problems.py),
for ``ratingdb runs`` and the web: which tournament, whom, and the rules' reason."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session


def open_problems(session: Session, tournament_id: int | None = None) -> list[dict[str, Any]]:
    """Every recorded problem (or one tournament's), in evaluation order; ``players`` are
    the struck participants' names (textual participants by their name in the file),
    ``participant_ids`` their participant ids."""
    only = "" if tournament_id is None else "WHERE e.tournament_id = :tid"
    rows = session.execute(text(problems_sql(only)), {"tid": tournament_id})
    return problems_from(rows)


def problems_sql(where: str) -> str:
    """The query of :func:`open_problems` (``where``: on ``e``, the problems)."""
    return (
        "SELECT e.tournament_id, t.code, t.name, t.end_date, e.message, e.run_started_at, "
        "e.participant_ids, "
        "ARRAY(SELECT coalesce(p.surname || ', ' || p.given_name, pa.textual_name, "
        "'participant ' || pa.id) FROM participants pa LEFT JOIN players p "
        "ON p.id = pa.player_id WHERE pa.id = ANY(e.participant_ids) ORDER BY pa.id) "
        "AS players FROM evaluation_problems e JOIN tournaments t ON t.id = e.tournament_id "
        f"{where} ORDER BY t.end_date, t.start_date, t.vkz, t.processed_at"
    )


def problems_from(rows: Iterable[Any]) -> list[dict[str, Any]]:
    """The problems of the rows of :func:`problems_sql`."""
    return [
        {
            "tournament_id": r.tournament_id,
            "code": r.code,
            "name": r.name,
            "end_date": r.end_date,
            "participant_ids": list(r.participant_ids),
            "players": list(r.players),
            "message": r.message,
            "noticed_at": r.run_started_at,
        }
        for r in rows
    ]
