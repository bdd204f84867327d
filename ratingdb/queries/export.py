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

COLUMNS = (
    "tournament", "end_date", "player_id", "name", "player_group", "age_class", "member",
    "rating_old", "index_old", "k", "opponents_avg", "score", "games", "expected",
    "performance", "exceptional", "start_value", "iteration_value", "rating_new",
    "index_new", "stored", "residual_in", "new_residual_games",
)  # fmt: skip


def evaluation_rows(session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        text(
            "SELECT t.code AS tournament, t.end_date, s.player_id, "
            "coalesce(pa.textual_name, pl.surname || ', ' || pl.given_name) AS name, "
            "s.player_group, s.age_class, s.member, s.rating_old, s.index_old, s.k, "
            "s.opponents_avg, s.score, s.games, s.expected, s.performance, s.exceptional, "
            "s.start_value, s.iteration_value, s.rating_new, s.index_new, s.stored, "
            "(SELECT jsonb_agg(jsonb_build_object('opponent_rating', r->'opponent_rating', "
            " 'score', r->'score', 'played_on', r->'played_on')) "
            " FROM jsonb_array_elements(s.residual_in) r) AS residual_in, "
            "s.new_residual_games "
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
