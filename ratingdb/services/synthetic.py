"""Loading a synthetic federation (``ratingdb synth``, the benchmarks): generated
deterministically per seed by :mod:`ratingdb.synth`, written in bulk by
:func:`ratingdb.db.bulk.load_federation`, in the caller's transaction."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

from ratingdb.db.bulk import load_federation
from ratingdb.errors import InputError
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
        raise InputError("", f"tournament {clash.code} exists already: load another --seed")
    return load_federation(session, fed)
