"""A tournament's VKZ must name a known organisation (WO 6.3: the VKZ names the playing level
and so the responsible rating officer); a typing error like ``C50`` for ``C05`` would
otherwise create a tournament nobody is responsible for.

Organisations come from the DSB's lists (``ratingdb clubs import``, ``players import``), the
synthetic federation and the demo. A submission may create a missing one explicitly
(``"create_organisation": true`` in the tournament object, ``--create-organisation`` on the
command line, ``create_organisation=true`` in the API): a placeholder named
``Verband <VKZ>`` (``Verein <VKZ>`` for a club VKZ of 5 or more characters), under the
longest known VKZ that is a prefix of it, which a later ``clubs import`` names properly.
The federation itself (``000``, the default VKZ of a submission) is always known: it is
created the first time a tournament names it.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.db.models import AuditEntry, Organisation
from ratingdb.errors import InputError
from ratingdb.i18n import _

#: a VKZ this long names a club (DSB: region 1, district 3, club 5 characters)
CLUB_LENGTH = 5


def _kind(vkz: str) -> str:
    if vkz.strip("0") == "":
        return "federation"
    if len(vkz) >= CLUB_LENGTH:
        return "club"
    return "region" if vkz[1:].strip("0") == "" else "district"


def create_placeholder(session: Session, vkz: str, *, actor: str) -> Organisation:
    """A new organisation ``vkz`` (kind by its shape, parent the longest known prefix)."""
    known = {vkz: oid for vkz, oid in session.execute(select(Organisation.vkz, Organisation.id))}
    parent = next((known[vkz[:n]] for n in range(len(vkz) - 1, 0, -1) if vkz[:n] in known), None)
    kind = _kind(vkz)
    org = Organisation(
        vkz=vkz,
        name=f"{'Verein' if kind == 'club' else 'Verband'} {vkz}",
        kind=kind,
        parent_id=parent,
    )
    session.add(org)
    session.add(
        AuditEntry(
            actor=actor,
            action="organisation-create",
            entity="organisation",
            entity_id=vkz,
            change_point=None,
            details={"kind": kind, "reason": "named by a tournament"},
        )
    )
    session.flush()
    return org


def require_organisation(
    session: Session, vkz: str, where: str, *, create: bool = False, actor: str = "cli"
) -> None:
    """An :class:`InputError` at ``where`` unless organisation ``vkz`` exists; with
    ``create`` a missing one is created (:func:`create_placeholder`)."""
    found = session.scalar(select(Organisation.id).where(Organisation.vkz == vkz))
    if found is not None:
        return
    if create or _kind(vkz) == "federation":  # the root (000) every VKZ hangs under
        create_placeholder(session, vkz, actor=actor)
        return
    raise InputError(
        where,
        _(
            "no organisation has the VKZ %(vkz)r (WO 6.3): import the club list (ratingdb clubs "
            "import) or create it with the submission (create_organisation)"
        )
        % {"vkz": vkz},
    )
