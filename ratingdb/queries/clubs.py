"""Clubs and federation levels (``organisations``) as users see them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.queries.like import like_escape


@dataclass(frozen=True, slots=True)
class Club:
    vkz: str
    name: str
    kind: str
    parent: str | None  # the VKZ of the level above


def club_list(session: Session, prefix: str = "") -> list[Club]:
    """Organisations whose VKZ starts with ``prefix`` (all when empty), by VKZ."""
    rows = session.execute(
        text(
            "SELECT o.vkz, o.name, o.kind, p.vkz AS parent FROM organisations o "
            "LEFT JOIN organisations p ON p.id = o.parent_id "
            "WHERE o.vkz LIKE :prefix ORDER BY o.vkz"
        ),
        {"prefix": like_escape(prefix) + "%"},
    )
    return [Club(r.vkz, r.name, r.kind, r.parent) for r in rows]


def club_names(session: Session, vkz: list[str]) -> dict[str, str]:
    """VKZ -> name of the given organisations (unknown ones are left out)."""
    rows = session.execute(
        text("SELECT vkz, name FROM organisations WHERE vkz = ANY(:v)"), {"v": list(vkz)}
    )
    return {r.vkz: r.name for r in rows}
