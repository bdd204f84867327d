"""Exact change reports (issue 23, item 1).

* ``removed_snapshots``: the evaluations an edit removed before the next run (deleting or
  correcting a tournament deletes its snapshots at once), as the change report needs them:
  the player, the tournament's order key (WO 2.2.3) at the time, the rating and index it
  stored and the fingerprint of the exported values (:mod:`ratingdb.db.change_report`).
  The next successful run reads and drops them.
* ``recalc_runs.changes``: every player the run changed, as
  ``[player_id, rating_before, index_before, rating_after, index_after, evaluations_changed]``.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "removed_snapshots",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger(), nullable=False),
        sa.Column("end_date", sa.Date(), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("vkz", sa.String(length=10, collation="C"), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stored", sa.Boolean(), nullable=False),
        sa.Column("rating_new", sa.Integer(), nullable=True),
        sa.Column("index_new", sa.Integer(), nullable=True),
        sa.Column("fingerprint", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_removed_snapshots_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_removed_snapshots")),
    )
    op.add_column(
        "recalc_runs",
        sa.Column(
            "changes",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default="[]",
            nullable=False,
        ),
    )


def downgrade() -> None:
    op.drop_column("recalc_runs", "changes")
    op.drop_table("removed_snapshots")
