"""Player search for the Karteikarte (WO 6.5.2.1 item 2): by name, club or DSB id.

Names match by prefix, case-insensitively: ``Müller`` finds every surname starting with it,
``Müller, An`` adds a given-name prefix, ``An Müller`` (no comma) tries both orders. Results
come in byte order of the lower-case name (the order of the name index, so that a short
prefix needs no sort of thousands of rows).
A club is a VKZ (or VKZ prefix) or a part of the club's name. Only published players
(members today, see :mod:`ratingdb.queries.publication`) are found unless
``include_unpublished`` (an authenticated officer) is set.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.names import full_name
from ratingdb.queries.reports import current_ratings

MAX_RESULTS = 200


def _like(prefix: str) -> str:
    escaped = prefix.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def _name_filter(name: str, params: dict[str, Any]) -> str:
    name = " ".join(name.split())
    if "," in name:
        surname, _, given = (s.strip() for s in name.partition(","))
        params.update(s=_like(surname), g=_like(given))
        return "lower(p.surname) LIKE :s AND lower(p.given_name) LIKE :g"
    words = name.split(" ")
    if len(words) == 1:
        params["s"] = _like(name)
        return "lower(p.surname) LIKE :s"
    first, rest = words[0], " ".join(words[1:])
    last, front = words[-1], " ".join(words[:-1])
    # "Given Surname", "Surname Given", or a surname of several words
    params.update(s1=_like(rest), g1=_like(first), s2=_like(front), g2=_like(last), s3=_like(name))
    # a UNION, not an OR: each branch is a range of the name index
    return (
        "p.id IN (SELECT id FROM players WHERE lower(surname) LIKE :s1 "
        "AND lower(given_name) LIKE :g1 UNION SELECT id FROM players WHERE "
        "lower(surname) LIKE :s2 AND lower(given_name) LIKE :g2 UNION "
        "SELECT id FROM players WHERE lower(surname) LIKE :s3)"
    )


def search_players(
    session: Session,
    *,
    name: str | None = None,
    club: str | None = None,
    dsb_id: str | None = None,
    day: date | None = None,
    include_unpublished: bool = False,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Players matching every given criterion, by name; each with id, name, club VKZ and
    name (today's membership), DSB id and current DWZ/index."""
    day = day or date.today()
    limit = max(1, min(limit, MAX_RESULTS))
    params: dict[str, Any] = {"d": day, "n": limit}
    where = []
    members = ""
    if name and name.strip():
        where.append(_name_filter(name, params))
    if dsb_id and dsb_id.strip():
        where.append("p.dsb_id = :dsb")
        params["dsb"] = dsb_id.strip()
    if club and club.strip():
        params["club_vkz"] = club.strip() + "%"
        params["club_name"] = "%" + club.strip().lower() + "%"
        members = (
            "WITH club_members AS MATERIALIZED (SELECT DISTINCT cm.player_id FROM memberships cm "
            "WHERE cm.organisation_id IN (SELECT id FROM organisations WHERE vkz LIKE :club_vkz "
            "OR lower(name) LIKE :club_name) "
            "AND cm.valid_from <= :d AND (cm.valid_to IS NULL OR cm.valid_to >= :d)) "
        )
        where.append("p.id IN (SELECT player_id FROM club_members)")
    if not where:
        return []
    join = "LEFT JOIN" if include_unpublished else "JOIN"
    published = "" if include_unpublished else " AND NOT p.anonymised"
    rows = session.execute(
        text(
            f"{members}SELECT p.id, p.surname, p.given_name, p.dsb_id, m.vkz, m.club "
            f"FROM players p {join} LATERAL (SELECT o.vkz, o.name AS club FROM memberships mm "
            "JOIN organisations o ON o.id = mm.organisation_id WHERE mm.player_id = p.id "
            "AND mm.valid_from <= :d AND (mm.valid_to IS NULL OR mm.valid_to >= :d) "
            "ORDER BY mm.valid_from DESC LIMIT 1) m ON true "
            f"WHERE {' AND '.join(where)}{published} "
            "ORDER BY lower(p.surname) USING ~<~, lower(p.given_name) USING ~<~, p.id LIMIT :n"
        ),
        params,
    ).all()
    ratings = current_ratings(session, [r.id for r in rows], day)
    return [
        {
            "id": r.id,
            "name": full_name(r.surname, r.given_name),
            "vkz": r.vkz,
            "club": r.club,
            "dsb_id": r.dsb_id,
            "rating": ratings.get(r.id, (None, None))[0],
            "index": ratings.get(r.id, (None, None))[1],
            "member": r.vkz is not None,
        }
        for r in rows
    ]
