"""A statement's rows after "everything" add nothing to it (the page cache's scopes, 0018).

PostgreSQL decides whether to queue an ``AFTER ROW`` trigger (its ``WHEN``) as each row is
written, but runs the queued triggers at the end of the statement. So every row of one
multi-row statement was queued while ``ratingdb.scopes`` was not yet ``all``; when one of
them made it ``all`` (more than 6,000 characters of scopes), the next appended its scopes to
it (``allp:100388 …``), and ``data_version_bump`` stored those few scopes instead of
"everything": a run that rewrote a few hundred players' snapshots in one statement left
the other players' cached pages in place. ``data_scope_rows`` now returns at once when the
transaction already means everything, and the bump reads anything that begins with
``all`` as everything.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels = None
depends_on = None


def _previous() -> object:
    """Migration 0018's module (its function texts, for this one's changes and downgrade)."""
    path = Path(__file__).with_name("0018_data_scopes.py")
    spec = importlib.util.spec_from_file_location("ratingdb_migration_0018", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GUARD = "BEGIN\n    IF current_setting('ratingdb.scopes', true) = 'all' THEN RETURN NULL; END IF;\n"


def upgrade() -> None:
    previous = _previous()
    rows: str = previous.ROWS  # type: ignore[attr-defined]
    bump: str = previous.BUMP  # type: ignore[attr-defined]
    body = rows.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    head, begin, tail = body.partition("BEGIN\n")
    assert begin, "data_scope_rows has no BEGIN"
    op.execute(head + GUARD + tail)
    op.execute(bump.replace("CASE WHEN s = 'all' THEN NULL", "CASE WHEN s LIKE 'all%' THEN NULL"))


def downgrade() -> None:
    previous = _previous()
    op.execute(previous.ROWS.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))  # type: ignore[attr-defined]
    op.execute(previous.BUMP)  # type: ignore[attr-defined]
