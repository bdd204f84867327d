"""Per-game winning expectations with every rating snapshot.

``rating_snapshots.expected_games``: the P(D) of each of the player's games in the
tournament's game order, as the rules computed them (WO 3.3.2; null for a game that does
not count, [] for a player without W_e). The scoresheet (WO Anhang 3.1.12) reads them
instead of recomputing. Snapshots written before this revision have [] until their
tournament is evaluated again: the upgrade records a full-replay change point when the
database holds snapshots, so the next nightly run fills them in.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "rating_snapshots",
        sa.Column(
            "expected_games",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default="[]",
            nullable=False,
        ),
    )
    op.get_bind().execute(
        sa.text(
            "INSERT INTO change_points (kind, from_date) SELECT 'full', DATE '0001-01-01' "
            "WHERE EXISTS (SELECT 1 FROM rating_snapshots)"
        )
    )


def downgrade() -> None:
    op.drop_column("rating_snapshots", "expected_games")
