"""Who is published (WO 4.1.1, 3.4.3, 6.5 and the data-protection notes of the WO).

Players appear with their personal data (Karteikarte, club, link to their history) only
while they are members: "Nach Beendigung seiner letzten Mitgliedschaft im DSB wird der
Spieler in Veröffentlichungen (siehe 6.5) wie ein textueller Teilnehmer behandelt" (WO
4.1.1). Non-members and former members appear only as textual participants: their name,
nothing else; anonymised players never have personal data at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from sqlalchemy import text
from sqlalchemy.orm import Session

#: SQL: player ``p`` is published on day ``:d`` (a member that day, not anonymised)
PUBLISHED = (
    "(NOT p.anonymised AND EXISTS (SELECT 1 FROM memberships m WHERE m.player_id = p.id "
    "AND m.valid_from <= :d AND (m.valid_to IS NULL OR m.valid_to >= :d)))"
)


def published_players(session: Session, player_ids: Iterable[int | None], day: date) -> set[int]:
    """The players among ``player_ids`` who are members on ``day`` (one query)."""
    ids = sorted({int(p) for p in player_ids if p is not None})
    if not ids:
        return set()
    rows = session.execute(
        text(f"SELECT p.id FROM players p WHERE p.id = ANY(:ids) AND {PUBLISHED}"),
        {"ids": ids, "d": day},
    )
    return {r[0] for r in rows}


def is_published(session: Session, player_id: int, day: date) -> bool:
    return player_id in published_players(session, [player_id], day)
