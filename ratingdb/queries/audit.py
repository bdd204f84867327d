"""The audit log for administrators: every write with user, time and change point
(WO 6.3/6.4.3: corrections are traceable to the officer who made them)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session


def audit_entries(
    session: Session,
    *,
    actor: str | None = None,
    entity_id: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> tuple[list[dict[str, Any]], int]:
    """(newest entries first, how many match)."""
    where = ["true"]
    params: dict[str, Any] = {"n": max(1, min(limit, 1000)), "o": max(0, offset)}
    if actor:
        where.append("actor = :a")
        params["a"] = actor
    if entity_id:
        where.append("entity_id = :e")
        params["e"] = entity_id
    condition = " AND ".join(where)
    total = session.execute(
        text(f"SELECT count(*) FROM audit_log WHERE {condition}"), params
    ).scalar_one()
    rows = session.execute(
        text(
            "SELECT id, at, actor, action, entity, entity_id, change_point, details "
            f"FROM audit_log WHERE {condition} ORDER BY at DESC, id DESC LIMIT :n OFFSET :o"
        ),
        params,
    ).mappings()
    return [dict(r) | {"text": details_text(r["details"])} for r in rows], total


def details_text(details: Any) -> str:
    """An entry's details as one line a person reads: ``key: value`` separated by ``; ``,
    lists joined by commas, nested details in parentheses, no JSON punctuation.

    >>> details_text({"role": "admin", "before": {"role": "officer", "scopes": ["A", "B"]}})
    'role: admin; before: (role: officer; scopes: A, B)'
    """
    if isinstance(details, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in details.items())
    return _value(details)


def _value(value: Any) -> str:
    if value is None or value == [] or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return f"({details_text(value)})" if value else "–"
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value)
    return str(value)
