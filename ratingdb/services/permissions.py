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
"""

from __future__ import annotations

from datetime import date

from ratingdb.dates import add_years
from ratingdb.db.users import Principal
from ratingdb.errors import Forbidden

__all__ = ["Forbidden", "check_edit", "in_scope", "require_admin", "within_deadline"]


def in_scope(principal: Principal, vkz: str) -> bool:
    return principal.is_admin or any(vkz.startswith(prefix) for prefix in principal.scopes)


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
            f"tournament {code} has VKZ {vkz}, outside your organisation levels ({scopes}) (WO 6.3)"
        )
    if not within_deadline(end, today):
        raise Forbidden(
            f"tournament {code} ended on {end.isoformat()}, more than one year ago: only an "
            "administrator may change it (WO 6.2)"
        )


def require_admin(principal: Principal) -> None:
    if not principal.is_admin:
        raise Forbidden("administrators only")
