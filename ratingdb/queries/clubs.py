"""Clubs and federation levels (``organisations``) as users see them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.errors import InputError
from ratingdb.i18n import _
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


#: a VKZ as the DSB writes it (WO 6.3)
VKZ = re.compile(r"[0-9A-Za-z]{1,10}")


@dataclass(frozen=True, slots=True)
class OrganisationScope:
    """The clubs of an organisation level (WO 6.3): the clubs below the organisation ``vkz``
    in the hierarchy of the club lists, and every club whose VKZ begins with ``prefix``
    (the VKZ itself; a region's without its trailing zeros: the DSB's region ``100`` names
    its clubs ``1xxxx``, the synthetic federation's ``A`` its ``Axxxx``), so that a club
    whose level the club lists do not name still counts; a VKZ of zeros (``000``, DeWIS's
    ``00000``) is the whole federation."""

    vkz: str
    name: str | None  # None: no organisation of that VKZ is known (a plain prefix)
    kind: str | None
    everything: bool = False

    @property
    def prefix(self) -> str:
        return self.vkz.rstrip("0") or self.vkz if self.kind == "region" else self.vkz

    def condition(self, club: str = "o") -> tuple[str, dict[str, object]]:
        """SQL on the organisation alias ``club`` (a club in scope) and its parameters."""
        if self.everything:
            return "TRUE", {}
        return (
            f"({club}.vkz LIKE :scope_prefix OR {club}.id IN (WITH RECURSIVE below(id) AS ("
            "SELECT id FROM organisations WHERE vkz = :scope_vkz UNION "
            "SELECT c.id FROM organisations c JOIN below b ON c.parent_id = b.id) "
            "SELECT id FROM below))",
            {"scope_prefix": like_escape(self.prefix) + "%", "scope_vkz": self.vkz},
        )


def organisation_scope(
    session: Session, vkz: str, where: str = "organisation"
) -> OrganisationScope:
    """The scope of ``vkz``: a known organisation, else the longest known one that ``vkz``
    is with zeros appended (DeWIS wrote a district ``C06`` as ``C0600``), else a plain
    prefix. InputError at ``where`` for text that is no VKZ."""
    vkz = vkz.strip()
    if not VKZ.fullmatch(vkz):
        raise InputError(
            where, _("%(value)r is no VKZ (1 to 10 letters and digits)") % {"value": vkz}
        )
    if vkz.strip("0") == "":
        root = session.execute(
            text("SELECT vkz, name FROM organisations WHERE kind = 'federation' ORDER BY vkz")
        ).first()
        return OrganisationScope(
            root.vkz if root else vkz, root.name if root else None, "federation", True
        )
    candidates = [vkz] + [vkz[:n] for n in range(len(vkz) - 1, 0, -1) if vkz[n:].strip("0") == ""]
    known = {
        r.vkz: r
        for r in session.execute(
            text("SELECT vkz, name, kind FROM organisations WHERE vkz = ANY(:v)"),
            {"v": candidates},
        )
    }
    for candidate in candidates:
        if candidate in known:
            return OrganisationScope(candidate, known[candidate].name, known[candidate].kind)
    return OrganisationScope(vkz, None, None)


def scope_clubs(session: Session, scope: OrganisationScope) -> list[str]:
    """The VKZ of every club in ``scope`` (a list's page names them: a change of their
    memberships touches it)."""
    condition, params = scope.condition("o")
    rows = session.execute(
        text(f"SELECT o.vkz FROM organisations o WHERE o.kind = 'club' AND {condition}"), params
    )
    return [r.vkz for r in rows]
