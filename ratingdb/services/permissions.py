"""Who may change what (WO 6.2, 6.3).

* WO 6.3: the first characters of a tournament's VKZ name its organisation level and so
  the responsible rating officer. An officer holds one or more VKZ prefixes and may act on
  tournaments whose VKZ starts with one of them.
* WO 6.2: an officer may delete or correct an evaluation "wenn das Turnierende nicht mehr
  als ein Jahr zurückliegt"; late submissions are admissible "innerhalb eines Jahres nach
  Turnierende". So officers act only on tournaments that ended at most one year ago
  (on or after the same day one year back). "Gesondert Berechtigte (Administratoren)"
  may act on anything, at any time.

A correction is checked twice: the tournament as stored and as it would be afterwards.
A submission that registers a new member creates a membership in the member's club: the
club must lie within the officer's prefixes too (an officer of ``C00`` may not create a
member of ``A0021`` through a tournament of ``C00``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, or_, true
from sqlalchemy.orm import InstrumentedAttribute

from ratingdb.dates import add_years
from ratingdb.errors import Forbidden
from ratingdb.i18n import _, date_text
from ratingdb.services.users import Principal

__all__ = [
    "Forbidden",
    "check_edit",
    "check_memberships",
    "in_scope",
    "require_admin",
    "scope_condition",
    "within_deadline",
]


def in_scope(principal: Principal, vkz: str) -> bool:
    return principal.is_admin or any(vkz.startswith(prefix) for prefix in principal.scopes)


def scope_condition(
    principal: Principal, vkz: ColumnElement[str] | InstrumentedAttribute[str]
) -> ColumnElement[bool]:
    """:func:`in_scope` as an SQL condition on the column ``vkz`` (WO 6.3), for listings."""
    if principal.is_admin:
        return true()
    return or_(*(vkz.startswith(prefix, autoescape=True) for prefix in principal.scopes))


def within_deadline(end: date, today: date) -> bool:
    """WO 6.2: the tournament ended at most one year before ``today``."""
    return end >= add_years(today, -1)


def check_edit(principal: Principal, *, code: str, vkz: str, end: date, today: date) -> None:
    """Raise :class:`Forbidden` unless ``principal`` may write tournament ``code``."""
    if principal.is_admin:
        return
    if not in_scope(principal, vkz):
        scopes = ", ".join(principal.scopes)
        raise Forbidden(
            _(
                "tournament %(code)s has VKZ %(vkz)s, outside your organisation levels "
                "(%(scopes)s) (WO 6.3)"
            )
            % {"code": code, "vkz": vkz, "scopes": scopes}
        )
    if not within_deadline(end, today):
        raise Forbidden(
            _(
                "tournament %(code)s ended on %(end)s, more than one year ago: only an "
                "administrator may change it (WO 6.2)"
            )
            % {"code": code, "end": date_text(end)}
        )


def new_member_clubs(doc: Any) -> list[tuple[str, str]]:
    """(JSON path, club VKZ) of every new member a submission document registers (a player
    entry without ``player_id`` that is not ``"member": false``)."""
    players = doc.get("players") if isinstance(doc, dict) else None
    out = []
    for k, raw in enumerate(players if isinstance(players, list) else []):
        if isinstance(raw, dict) and "player_id" not in raw and raw.get("member", True):
            out.append((f"$.players[{k}].club", str(raw.get("club"))))
    return out


def check_memberships(principal: Principal, doc: Any) -> None:
    """Raise :class:`Forbidden` when the document registers a new member in a club outside
    ``principal``'s VKZ prefixes (WO 6.3: an officer acts within the own organisation)."""
    if principal.is_admin:
        return
    for path, club in new_member_clubs(doc):
        if not in_scope(principal, club):
            scopes = ", ".join(principal.scopes)
            raise Forbidden(
                _(
                    "%(path)s: a new member of club %(club)s is outside your organisation levels "
                    "(%(scopes)s) (WO 6.3)"
                )
                % {"path": path, "club": club, "scopes": scopes}
            )


def require_admin(principal: Principal) -> None:
    if not principal.is_admin:
        raise Forbidden(_("administrators only"))
