"""The sample-submission use case: submissions built from the database for the demo and the
benchmarks."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, cast

from sqlalchemy import Row, text
from sqlalchemy.orm import Session


def late_tournament(session: Session, end: date) -> dict[str, Any]:
    """Eight members of that day (those rated in the year before first) play a
    late-submitted round robin."""
    rows = cast(
        "list[Row[Any]]",  # .all() returns a list
        session.execute(
            text(
                "SELECT s.player_id AS id, min(o.vkz) AS vkz FROM rating_snapshots s "
                "JOIN tournaments t ON t.id = s.tournament_id "
                "JOIN memberships m ON m.player_id = s.player_id AND m.valid_from <= :d "
                "  AND (m.valid_to IS NULL OR m.valid_to >= :d) "
                "JOIN organisations o ON o.id = m.organisation_id "
                "WHERE s.stored AND t.end_date BETWEEN :d - 365 AND :d "
                "GROUP BY s.player_id ORDER BY s.player_id LIMIT 8"
            ),
            {"d": end},
        ).all(),
    )
    if len(rows) < 8:  # a young federation: any members of that day
        rows += session.execute(
            text(
                "SELECT p.id, o.vkz FROM players p JOIN memberships m ON m.player_id = p.id "
                "JOIN organisations o ON o.id = m.organisation_id "
                "WHERE m.valid_from <= :d AND (m.valid_to IS NULL OR m.valid_to >= :d) "
                "AND p.id <> ALL(:have) ORDER BY p.id LIMIT :n"
            ),
            {"d": end, "have": [r.id for r in rows], "n": 8 - len(rows)},
        ).all()
    ids = [f"p{r.id}" for r in rows]
    games = []
    for rnd in range(1, len(ids)):
        for k in range(len(ids) // 2):
            a, b = ids[(rnd + k) % len(ids)], ids[(rnd - k - 1) % len(ids)]
            if a != b:
                games.append(
                    {
                        "round": rnd,
                        "white": a,
                        "black": b,
                        "result": ("1-0", "1/2-1/2", "0-1")[(rnd + k) % 3],
                    }
                )
    return {
        "tournament": {
            "id": "DEMO-LATE",
            "name": "Late open (submitted a year late)",
            "start": (end - timedelta(days=2)).isoformat(),
            "end": end.isoformat(),
            "vkz": rows[0].vkz[:3] if rows else "000",
            "kind": "individual",
        },
        "players": [{"id": f"p{r.id}", "player_id": r.id} for r in rows],
        "games": games,
    }
