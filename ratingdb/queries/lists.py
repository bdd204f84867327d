"""Rating lists for the web (WO 6.5.2.1 item 3, 6.5.2.2): the members of a club or of every
club under a federation prefix, optionally of one age class, with their DWZ and index on a
day — the rule of :func:`ratingdb.queries.reports.rating_list` (the CLI's export), as rows
with the player id for links, and as a CSV :class:`~ratingdb.queries.documents.Document`.

Published lists hold only players who are members today as well (WO 4.1.1: former members
appear in publications only as textual participants), so a list of an earlier day never
shows a former member's personal data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.queries.documents import Document, cells
from ratingdb.queries.reports import LIST_COLUMNS, _age_filter, current_ratings


def rating_list_rows(
    session: Session,
    *,
    club: str | None = None,
    federation: str | None = None,
    age_class: str | None = None,
    day: date,
    today: date,
) -> list[dict[str, Any]]:
    """Rows by DWZ descending (players without DWZ last); ValueError for a bad selection."""
    if (club is None) == (federation is None):
        raise ValueError("give either a club VKZ or a federation prefix")
    where = "o.vkz = :v" if club is not None else "o.vkz LIKE :v"
    value = club if club is not None else f"{federation}%"
    members = session.execute(
        text(
            "SELECT DISTINCT ON (p.id) p.id, p.surname, p.given_name, p.birth_year, p.sex, "
            "p.fide_id, o.vkz, m.member_number FROM memberships m "
            "JOIN players p ON p.id = m.player_id JOIN organisations o ON o.id = m.organisation_id "
            f"WHERE {where} AND m.valid_from <= :d AND (m.valid_to IS NULL OR m.valid_to >= :d) "
            "AND NOT p.anonymised AND EXISTS (SELECT 1 FROM memberships n WHERE "
            "n.player_id = p.id AND n.valid_from <= :today "
            "AND (n.valid_to IS NULL OR n.valid_to >= :today))"
            f"{_age_filter(age_class, day.year)} ORDER BY p.id, o.vkz"
        ),
        {"v": value, "d": day, "today": today},
    ).all()
    ratings = current_ratings(session, [m.id for m in members], day)

    def key(m: Any) -> tuple[Any, ...]:
        rating = ratings.get(m.id, (None, None))[0]
        return (rating is None, -(rating or 0), m.surname, m.given_name, m.id)

    return [
        {
            "rank": k,
            "player_id": m.id,
            "name": f"{m.surname}, {m.given_name}".strip(", "),
            "vkz": m.vkz,
            "member_number": m.member_number,
            "birth_year": m.birth_year,
            "sex": m.sex,
            "rating": ratings.get(m.id, (None, None))[0],
            "index": ratings.get(m.id, (None, None))[1],
            "fide_id": m.fide_id,
        }
        for k, m in enumerate(sorted(members, key=key), start=1)
    ]


def rating_list_document(
    rows: list[dict[str, Any]], *, scope: str, day: date, age_class: str | None
) -> Document:
    """The rows as the CSV/PDF document of ``ratingdb export list`` (same columns)."""
    header = [("Stand", day.isoformat()), ("Auswahl", scope)]
    if age_class:
        header.append(("Altersklasse", age_class))
    return Document(
        title=f"DWZ-Liste {scope}",
        header=header,
        columns=LIST_COLUMNS,
        rows=[
            cells(
                (
                    r["rank"],
                    r["name"],
                    r["vkz"],
                    r["member_number"],
                    r["birth_year"],
                    r["sex"],
                    r["rating"],
                    r["index"],
                    r["fide_id"],
                )
            )
            for r in rows
        ],
        left=frozenset({1, 2, 5}),
    )
