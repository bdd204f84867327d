"""The locks between recalculation runs, edits and what-ifs (docs/database.md,
"Runs and edits at the same time").

All are PostgreSQL advisory locks, so a process that dies releases them with its connection:

* the **run lock** (:data:`RUN_KEY`, held by a run on its connection for the whole run): one
  run at a time; a second one is refused (:class:`ratingdb.errors.Busy`);
* the **write lock** (:data:`WRITE_KEY`, transaction-scoped): every edit holds it *shared*
  from its first write to its commit (:func:`hold_edits`); a run's short write phase and a
  what-if hold it *exclusively* (:func:`exclude_edits`). A run's long compute phase holds
  nothing of it, so edits go on while a run computes and wait only while it writes;
* the **tournament lock** (:func:`lock_tournament`, transaction-scoped, by code): writes on
  one tournament (add, correct, delete) run one after the other, each seeing the one before.

The order is always run lock, write lock, tournament lock, then rows: no two of these wait
for each other in a cycle.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

#: the run lock ("ratingdb" in ASCII, as a bigint)
RUN_KEY = 0x7261_7469_6E67_6462 & 0x7FFF_FFFF_FFFF_FFFF
#: the write lock ("ratingdw")
WRITE_KEY = 0x7261_7469_6E67_6477 & 0x7FFF_FFFF_FFFF_FFFF
#: the namespace (first key of the two-int form) of the tournament locks ("tour")
TOURNAMENT_SPACE = 0x746F_7572


def hold_edits(session: Session) -> None:
    """Take the write lock shared until the transaction ends (an edit: waits while a run
    writes or a what-if computes; never waits for another edit)."""
    session.execute(text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": WRITE_KEY})


def exclude_edits(session: Session) -> None:
    """Take the write lock exclusively until the transaction ends: waits for the edits in
    flight, and new edits wait for this transaction."""
    session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": WRITE_KEY})


def lock_tournament(session: Session, code: str) -> None:
    """Serialise the writes on tournament ``code`` until the transaction ends (and hold
    the write lock shared, as every edit does). A second writer waits, then sees the
    first one's result: two corrections give the second, a correction after a deletion
    finds no tournament, a second submission of a code finds it taken."""
    hold_edits(session)
    session.execute(
        text("SELECT pg_advisory_xact_lock(:space, hashtext(:code))"),
        {"space": TOURNAMENT_SPACE, "code": code},
    )
