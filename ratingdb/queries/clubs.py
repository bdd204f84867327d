"""Clubs and federation levels (``organisations``) as users see them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.errors import InputError, NotFound
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


@dataclass(frozen=True, slots=True)
class DirectoryEntry:
    """An organisation in the directory, with the members of its clubs on the day (a
    player in two clubs counts in both)."""

    vkz: str
    name: str
    kind: str
    members: int
    clubs: int


@dataclass(frozen=True, slots=True)
class Directory:
    """A level of the organisation tree (DSB → Landesverband → Bezirk/Kreis → club): the
    level (None: the top), the levels above it from the top, the levels and clubs below."""

    node: DirectoryEntry | None
    path: list[DirectoryEntry]
    children: list[DirectoryEntry]


def directory(session: Session, vkz: str | None, day: date) -> Directory:
    """The directory at ``vkz`` (None: the top) built from the club lists' hierarchy; a club
    that no level names hangs under the level whose VKZ (a region's without its trailing
    zeros) begins its own, as in :class:`OrganisationScope`. Only published members count
    (WO 4.1.1). NotFound for an unknown VKZ."""
    orgs = session.execute(
        text(
            "SELECT o.id, o.vkz, o.name, o.kind, o.parent_id, coalesce(c.n, 0) AS members "
            "FROM organisations o LEFT JOIN (SELECT m.organisation_id, count(*) AS n "
            "FROM memberships m JOIN players p ON p.id = m.player_id WHERE NOT p.anonymised "
            "AND m.valid_from <= :d AND (m.valid_to IS NULL OR m.valid_to >= :d) "
            "GROUP BY m.organisation_id) c ON c.organisation_id = o.id ORDER BY o.vkz"
        ),
        {"d": day},
    ).all()
    by_id = {o.id: o for o in orgs}
    levels = sorted(
        (o for o in orgs if o.kind != "club" and o.vkz.strip("0")),
        key=lambda o: -len(OrganisationScope(o.vkz, o.name, o.kind).prefix),
    )
    roots = [o for o in orgs if o.kind == "federation"]

    def parent(o: Any) -> int | None:
        if o.parent_id is not None or o.kind == "federation":
            return None if o.parent_id is None else int(o.parent_id)
        for level in levels:  # the longest prefix first
            if level.id != o.id and o.vkz.startswith(
                OrganisationScope(level.vkz, level.name, level.kind).prefix
            ):
                return int(level.id)
        return int(roots[0].id) if roots else None

    parents = {o.id: parent(o) for o in orgs}
    members = {o.id: 0 for o in orgs}
    clubs = {o.id: 0 for o in orgs}
    for o in orgs:
        if o.kind != "club":
            continue
        up: int | None = o.id
        seen: set[int] = set()
        while up is not None and up not in seen:  # a cycle in hand-made data ends here
            seen.add(up)
            members[up] += o.members
            clubs[up] += 1
            up = parents[up]

    def entry(o: Any) -> DirectoryEntry:
        return DirectoryEntry(o.vkz, o.name, o.kind, members[o.id], clubs[o.id])

    if vkz is None:
        node = roots[0] if len(roots) == 1 else None
    else:
        node = next((o for o in orgs if o.vkz == vkz), None)
        if node is None:
            raise NotFound(_("no organisation has the VKZ %(vkz)s") % {"vkz": vkz})
    path: list[DirectoryEntry] = []
    if node is not None:
        up = parents[node.id]
        while up is not None and len(path) < 20:
            path.insert(0, entry(by_id[up]))
            up = parents[up]
    node_id = None if node is None else node.id
    children = [entry(o) for o in orgs if parents[o.id] == node_id and o.id != node_id]
    children.sort(key=lambda e: (e.kind == "club", e.vkz))
    return Directory(None if node is None else entry(node), path, children)


def find_clubs(session: Session, text_typed: str, limit: int = 20) -> list[Club]:
    """Organisations whose name contains ``text_typed`` (case ignored), or whose VKZ begins
    with it; clubs first, by VKZ (the answer to a club name typed where a VKZ belongs)."""
    rows = session.execute(
        text(
            "SELECT o.vkz, o.name, o.kind, p.vkz AS parent FROM organisations o "
            "LEFT JOIN organisations p ON p.id = o.parent_id "
            "WHERE lower(o.name) LIKE :part OR o.vkz LIKE :prefix "
            "ORDER BY o.kind <> 'club', o.vkz LIMIT :n"
        ),
        {
            "part": "%" + like_escape(text_typed.strip().lower()) + "%",
            "prefix": like_escape(text_typed.strip()) + "%",
            "n": limit,
        },
    )
    return [Club(r.vkz, r.name, r.kind, r.parent) for r in rows]
