"""Filling an empty table in one statement with its indexes and foreign keys built after
the rows, not row by row (issue 24).

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
everything in it. Dropping a constraint locks the table against readers until the
transaction ends, which is why the write phase does this only for an empty table (nobody
reads evaluations that do not exist yet).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, text


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@contextmanager
def built_after(conn: Connection, table: str) -> Iterator[bool]:
    """Drop ``table``'s foreign keys, unique constraints and secondary indexes, yield, and
    create them again as they were. Yields False (and changes nothing) when another table
    refers to ``table`` (its unique constraints cannot be dropped then)."""
    regclass = {"t": table}
    referenced = conn.execute(
        text("SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE confrelid = CAST(:t AS regclass))"),
        regclass,
    ).scalar_one()
    if referenced:
        yield False
        return
    constraints = conn.execute(
        text(
            "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = CAST(:t AS regclass) AND contype IN ('f', 'u') ORDER BY conname"
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
    target = _quoted(table)
    foreign = [(name, definition) for name, kind, definition in constraints if kind == "f"]
    unique = [(name, definition) for name, kind, definition in constraints if kind == "u"]
    for name, _ in foreign + unique:
        conn.execute(text(f"ALTER TABLE {target} DROP CONSTRAINT {_quoted(name)}"))
    for name, _ in indexes:
        conn.execute(text(f"DROP INDEX {name}"))
    yield True
    for _, definition in indexes:
        conn.execute(text(definition))
    for name, definition in unique + foreign:
        conn.execute(text(f"ALTER TABLE {target} ADD CONSTRAINT {_quoted(name)} {definition}"))
