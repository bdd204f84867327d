"""Filling an empty table in one statement with its indexes and foreign keys built after
the rows, not row by row.

The first full replay of a freshly loaded history (WO 3.7: every tournament evaluated
from the beginning) inserts every snapshot into an empty ``rating_snapshots``. Row by
row, each of the 1.2 million rows of a 250,000-player federation checks four foreign
keys (a lookup each) and enters three indexes; checked and built once after the insert,
the same constraints cost a fraction (60,000 players: 5.96 s against 2.4 s).

:func:`built_after` reads the table's foreign keys, unique constraints and secondary
indexes from the catalog (``pg_get_constraintdef``, ``pg_get_indexdef``: their names and
definitions exactly as the migrations made them), drops them, lets the caller insert, and
creates them again in the same transaction. A row that breaks one fails the ``ADD
CONSTRAINT`` as it would have failed the insert, and the transaction rolls back with
everything in it.

Dropping a foreign key locks not only the table but also the table it refers to
(PostgreSQL removes the key's triggers there): ``rating_snapshots``, ``participants``,
``players``, ``rechenmodule`` and ``tournaments`` stay locked against readers until the
write transaction ends (at 250,000 players the first replay's write phase, about 15 s).
So the locks are taken first, all in one statement and with a ``lock_timeout``
(:data:`LOCK_WAIT`): when a reader holds one of them, the attempt gives up, nothing is
dropped, and the rows go in one by one as before (no reader can then be caught in a
deadlock with the run). The write phase does this only for an empty table, the first
replay of a loaded history: nobody can read evaluations that do not exist yet, and web
pages of players and tournaments wait for those seconds instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError, OperationalError


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


#: how long the run waits for the locks before it inserts row by row instead
LOCK_WAIT = "2s"


def _literal(definition: str) -> str:
    """A definition from the catalog as SQLAlchemy text: every colon literal (a ``:word``
    inside a quoted string would otherwise be a bind parameter)."""
    return definition.replace(":", "\\:")


@contextmanager
def built_after(conn: Connection, table: str, primary_key: bool = False) -> Iterator[bool]:
    """Drop ``table``'s foreign keys, unique constraints and secondary indexes (with
    ``primary_key`` its primary key too: only for a body that needs no key, such as a
    plain insert; an ``ON CONFLICT`` needs its constraint), yield True, and create them
    again as they were. Yields False and changes nothing when another table refers to
    ``table`` (its keys cannot be dropped then) or when the locks are not free within
    :data:`LOCK_WAIT`."""
    regclass = {"t": table}
    target, referenced = conn.execute(
        text(
            "SELECT CAST(:t AS regclass)::text, EXISTS (SELECT 1 FROM pg_constraint "
            "WHERE confrelid = CAST(:t AS regclass))"
        ),
        regclass,
    ).one()
    if referenced:
        yield False
        return
    constraints = conn.execute(
        text(
            "SELECT conname, contype, pg_get_constraintdef(oid), confrelid::regclass::text "
            "FROM pg_constraint "
            "WHERE conrelid = CAST(:t AS regclass) AND contype IN ('f', 'u', 'p') ORDER BY conname"
        ),
        regclass,
    ).all()
    indexes = conn.execute(
        text(
            "SELECT quote_ident(n.nspname) || '.' || quote_ident(i.relname), "
            "pg_get_indexdef(i.oid) FROM pg_index x "
            "JOIN pg_class i ON i.oid = x.indexrelid "
            "JOIN pg_namespace n ON n.oid = i.relnamespace "
            "WHERE x.indrelid = CAST(:t AS regclass) AND NOT x.indisprimary "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid "
            "AND c.conrelid = x.indrelid) ORDER BY i.relname"
        ),
        regclass,
    ).all()
    foreign = [(name, definition) for name, kind, definition, _ in constraints if kind == "f"]
    # the primary key (kept up row by row it cost the first replay's insert at 250,000
    # players 0.5-0.6 s more than built after the rows) first, with the unique constraints
    keys = ("p",) if primary_key else ()
    unique = [(name, definition) for name, kind, definition, _ in constraints if kind in keys]
    unique += [(name, definition) for name, kind, definition, _ in constraints if kind == "u"]
    locked = [target, *sorted({other for _, kind, _, other in constraints if kind == "f"})]
    if not _locked(conn, locked):
        yield False
        return
    for name, _ in foreign + unique:
        conn.execute(text(f"ALTER TABLE {target} DROP CONSTRAINT {_quoted(name)}"))
    for name, _ in indexes:
        conn.execute(text(f"DROP INDEX {name}"))
    yield True
    for _, definition in indexes:
        conn.execute(text(_literal(definition)))
    for name, definition in unique + foreign:
        conn.execute(
            text(f"ALTER TABLE {target} ADD CONSTRAINT {_quoted(name)} {_literal(definition)}")
        )


#: how long the lock waits for an autovacuum worker before PostgreSQL cancels it (its
#: ``deadlock_timeout``, 1 s by default; only a superuser may shorten it)
AUTOVACUUM_WAIT = "50ms"


def _locked(conn: Connection, tables: list[str]) -> bool:
    """Every table locked ``ACCESS EXCLUSIVE`` within :data:`LOCK_WAIT`, or none (the
    attempt rolled back to a savepoint); the transaction's lock timeout as it was.

    A freshly loaded history is often being vacuumed when its first replay writes: the
    lock then waits ``deadlock_timeout`` until PostgreSQL cancels the autovacuum worker
    (at 250,000 players 1.0-1.4 s of the write phase). Where the run may, it shortens that
    wait to :data:`AUTOVACUUM_WAIT` for the lock."""
    before = conn.execute(
        text("SELECT current_setting('lock_timeout'), current_setting('deadlock_timeout')")
    ).one()
    attempt = conn.begin_nested()
    try:
        # set inside the attempt: rolling it back undoes the settings too
        prompt = _setting(conn, "deadlock_timeout", AUTOVACUUM_WAIT)
        conn.execute(text("SELECT set_config('lock_timeout', :wait, true)"), {"wait": LOCK_WAIT})
        conn.execute(text(f"LOCK TABLE {', '.join(tables)} IN ACCESS EXCLUSIVE MODE"))
    except OperationalError:  # a reader holds one of them (LockNotAvailable): row by row
        attempt.rollback()
        return False
    if prompt:
        conn.execute(
            text("SELECT set_config('deadlock_timeout', :wait, true)"), {"wait": before[1]}
        )
    attempt.commit()
    conn.execute(text("SELECT set_config('lock_timeout', :wait, true)"), {"wait": before[0]})
    return True


def _setting(conn: Connection, name: str, value: str) -> bool:
    """``SET LOCAL name = value`` if the run's role may (a savepoint keeps a refusal from
    failing the transaction); whether it was set."""
    attempt = conn.begin_nested()
    try:
        conn.execute(text("SELECT set_config(:name, :value, true)"), {"name": name, "value": value})
    except DBAPIError:  # InsufficientPrivilege: not a superuser
        attempt.rollback()
        return False
    attempt.commit()
    return True
