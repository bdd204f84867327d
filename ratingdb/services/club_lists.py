"""The DSB's club and federation lists into ``organisations``: names, kinds and the
hierarchy (Landesverband → Bezirk/Kreis → club).

* Kinds: ``000`` (the DSB) is the federation; a level whose parent is ``000`` (or none) a
  region (Landesverband); every other level a district (Bezirk, Kreis); rows of
  ``vereine.csv`` clubs.
* Organisations are matched by VKZ: a known one gets the listed name, kind and parent (the
  placeholder names ``Verein <VKZ>`` of ``players import`` disappear); new ones are created.
* A parent named by a row but in neither file nor the database is created as
  ``Verband <VKZ>`` (a region when its VKZ ends in zeros, else a district), so the
  hierarchy holds; ``000`` is the parent only when it exists.
* Nothing here changes a rating: no change point; one audit entry per import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.io.dsb_clubs import OrgRow

ACTION = "clubs-import"
ROOT = "000"


@dataclass
class ClubImport:
    clubs: int = 0
    levels: int = 0
    created: int = 0
    updated: int = 0
    placeholders: int = 0

    def summary(self) -> str:
        """What the import did, in the language in force."""
        return _(
            "%(clubs)d clubs and %(levels)d federation levels: %(created)d new, "
            "%(updated)d updated, %(placeholders)d missing parents created"
        ) % {
            "clubs": self.clubs,
            "levels": self.levels,
            "created": self.created,
            "updated": self.updated,
            "placeholders": self.placeholders,
        }


def _kind(row: OrgRow) -> str:
    if row.code.strip("0") == "":
        return "federation"
    return "region" if row.parent in ("", ROOT, row.code) else "district"


def _check_hierarchy(
    existing: dict[str, tuple[int, str, str, int | None]],
    wanted: dict[str, tuple[str, str, str]],
    rows: list[tuple[OrgRow, str]],
) -> None:
    """The hierarchy after the import (the database's, with the lists' parents) has no
    cycle (``100`` above ``106`` above ``100``): an InputError at the first row on one."""
    vkz_of = {oid: vkz for vkz, (oid, _, _, _) in existing.items()}
    parent: dict[str, str | None] = {
        vkz: vkz_of.get(pid) if pid is not None else None
        for vkz, (_name, _level, _parent, pid) in existing.items()
    }
    for vkz, (_name, _level, above) in wanted.items():
        parent[vkz] = above if above and above != vkz else None
    for row, source in rows:
        path = [row.code]
        up = parent.get(row.code)
        while up is not None and up not in path and len(path) <= len(parent):
            path.append(up)
            up = parent.get(up)
        if up == row.code:
            shown = " → ".join([*path, row.code][::-1])
            raise InputError(
                f"{source}:{row.line}",
                f"{row.code} would lie below itself ({shown}, top to bottom): the hierarchy "
                "has a cycle",
            )


def import_orgs(
    session: Session,
    clubs: Sequence[OrgRow],
    levels: Sequence[OrgRow],
    source: str,
    *,
    actor: str = "cli",
    levels_source: str | None = None,
) -> ClubImport:
    """Upsert the listed organisations and their parents in the caller's transaction
    (``levels_source``: the name of the federation levels' file, for an error's place)."""
    session.execute(text("LOCK TABLE organisations IN EXCLUSIVE MODE"))
    report = ClubImport(clubs=len(clubs), levels=len(levels))
    existing = {
        r.vkz: (r.id, r.name, r.kind, r.parent_id)
        for r in session.execute(text("SELECT id, vkz, name, kind, parent_id FROM organisations"))
    }
    wanted: dict[str, tuple[str, str, str]] = {}  # vkz -> (name, kind, parent vkz)
    for row in levels:
        wanted[row.code] = (row.name, _kind(row), row.parent)
    for row in clubs:
        wanted[row.code] = (row.name, "club", row.parent)
    for _name, _level, parent in list(wanted.values()):
        if parent and parent not in wanted and parent not in existing and parent != ROOT:
            kind = "region" if parent[1:].strip("0") == "" else "district"
            wanted[parent] = (f"Verband {parent}", kind, "")
            report.placeholders += 1
    _check_hierarchy(existing, wanted, [(r, levels_source or source) for r in levels]
                     + [(r, source) for r in clubs])  # fmt: skip
    new = [vkz for vkz in wanted if vkz not in existing]
    if new:
        session.execute(
            text("INSERT INTO organisations (vkz, name, kind) VALUES (:v, :n, :k)"),
            [{"v": v, "n": wanted[v][0], "k": wanted[v][1]} for v in new],
        )
    ids = {r.vkz: r.id for r in session.execute(text("SELECT id, vkz FROM organisations"))}
    updates = []
    for vkz, (name, kind, parent) in wanted.items():
        parent_id = ids.get(parent) if parent and parent != vkz else None
        if vkz in existing:
            _, old_name, old_kind, old_parent = existing[vkz]
            if (old_name, old_kind, old_parent) == (name, kind, parent_id):
                continue
            report.updated += 1
        updates.append({"i": ids[vkz], "n": name, "k": kind, "p": parent_id})
    if updates:
        session.execute(
            text("UPDATE organisations SET name = :n, kind = :k, parent_id = :p WHERE id = :i"),
            updates,
        )
    report.created = len(new) - report.placeholders
    session.add(
        AuditEntry(
            actor=actor,
            action=ACTION,
            entity="organisations",
            entity_id=source[-50:],
            change_point=None,
            details=dict(vars(report)),
        )
    )
    session.flush()
    return report
