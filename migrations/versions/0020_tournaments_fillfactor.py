"""Room on every page of ``tournaments`` for its rows' next version (issue 24).

A run sets ``status = 'evaluated'`` on every tournament it evaluated (WO 3.7; at the first
full replay of a loaded history that is every tournament). A bulk load fills the table's
pages completely, so each updated row had to move to another page, and each of the four
indexes got a new entry for it: at 250,000 players (76,457 tournaments) the update took
1.0–1.3 s of the run's write phase. With half of each page kept free the new version stays
on its page and no index changes (PostgreSQL's heap-only tuples): 0.28 s. The table is
small (about 150 bytes a row), and after the first run it has the same size as before: the
update left every row's old version behind until the next vacuum.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels = None
depends_on = None

#: percent of each page filled by inserts (PostgreSQL's default: 100)
FILLFACTOR = 50


def upgrade() -> None:
    op.execute(f"ALTER TABLE tournaments SET (fillfactor = {FILLFACTOR})")


def downgrade() -> None:
    op.execute("ALTER TABLE tournaments RESET (fillfactor)")
