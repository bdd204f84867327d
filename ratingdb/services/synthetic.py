"""Loading a synthetic federation (``ratingdb synth``, the benchmarks): generated
deterministically per seed by :mod:`ratingdb.synth`, written in bulk by
:func:`ratingdb.db.bulk.load_federation`, in the caller's transaction."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.bulk import load_federation
from ratingdb.errors import InputError
from ratingdb.i18n import _
from ratingdb.synth import generate


def load_synthetic(session: Session, players: int, years: int, seed: int) -> dict[str, int]:
    """Generate and load a federation of ``players`` over ``years``; returns the row counts.
    A seed whose tournaments exist already is an InputError (nothing is written)."""
    fed = generate(players, years, seed)
    clash = session.execute(
        text("SELECT code FROM tournaments WHERE code = ANY(:codes) LIMIT 1"),
        {"codes": [t.code for t in fed.tournaments]},
    ).first()
    if clash:
        raise InputError(
            "", _("tournament %(code)s exists already: load another --seed") % {"code": clash.code}
        )
    return load_federation(session, fed)


#: the demo's users: an officer for the late tournament's level and an administrator
OFFICER, ADMIN = "referent", "admin"


def demo_users(session: Session, vkz: str) -> list[tuple[str, str, str, list[str]]]:
    """The users ``ratingdb demo`` signs in with: an officer for the first letter of
    ``vkz`` (his organisation level, WO 6.3) and an administrator, each with a generated
    password (printed once, stored as a hash): (name, role, password, scopes)."""
    from ratingdb.services.sign_in import reset_password
    from ratingdb.services.users import add_user

    out = []
    for name, role, scopes, full in ((OFFICER, "officer", [vkz[:1]], "Demo-Referent"),
                                     (ADMIN, "admin", [], "Demo-Administrator")):  # fmt: skip
        add_user(session, name, role, scopes, full_name=full)
        out.append((name, role, reset_password(session, name, actor="demo"), scopes))
    return out
