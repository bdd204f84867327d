"""All game results of a tournament (WO 6.5.2.1 item 1: "Übersicht aller Partieergebnisse"),
by round and board, with each player's total. Names as in the evaluation display;
participants who are not published (WO 4.1.1) carry no player id (no link)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.store import find_tournament
from ratingdb.queries.publication import published_players
from ratingdb.rules.model import RESULTS

#: points of each result code for (white, black); unrated short games count as played
_POINTS = {
    "+-": (2, 0), "-+": (0, 2), "--": (0, 0), "W-L": (2, 0), "L-W": (0, 2), "D-D": (1, 1),
}  # fmt: skip


def tournament_games(
    session: Session, ident: str, day: date, *, show_all: bool = False
) -> dict[str, Any]:
    """``{"participants": [...], "games": [...]}``; LookupError for an unknown tournament."""
    tid = find_tournament(session, ident)
    parts = session.execute(
        text(
            "SELECT pa.id, pa.start_rank, pa.player_id, "
            "coalesce(pa.textual_name, pl.surname || ', ' || pl.given_name) AS name "
            "FROM participants pa LEFT JOIN players pl ON pl.id = pa.player_id "
            "WHERE pa.tournament_id = :t ORDER BY pa.start_rank NULLS LAST, pa.id"
        ),
        {"t": tid},
    ).all()
    shown = (
        {p.player_id for p in parts if p.player_id is not None}
        if show_all
        else published_players(session, (p.player_id for p in parts), day)
    )
    names = {p.id: p.name.strip(", ") if p.name else str(p.id) for p in parts}
    games = session.execute(
        text(
            "SELECT round, board, white_id, black_id, result FROM games WHERE tournament_id = :t "
            "ORDER BY round NULLS FIRST, board NULLS LAST, id"
        ),
        {"t": tid},
    ).all()
    half: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    out_games = []
    for g in games:
        points = RESULTS.get(g.result) or _POINTS[g.result]
        half[g.white_id] += points[0]
        half[g.black_id] += points[1]
        played[g.white_id] += 1
        played[g.black_id] += 1
        out_games.append(
            {
                "round": g.round,
                "board": g.board,
                "white": names[g.white_id],
                "white_participant": g.white_id,
                "black": names[g.black_id],
                "black_participant": g.black_id,
                "result": g.result,
                "rated": RESULTS.get(g.result) is not None,
            }
        )
    participants = [
        {
            "participant_id": p.id,
            "start_rank": p.start_rank,
            "name": names[p.id],
            "player_id": p.player_id if p.player_id in shown else None,
            "points": float(Decimal(half[p.id]) / 2),
            "games": played[p.id],
        }
        for p in parts
    ]
    return {"participants": participants, "games": out_games}
