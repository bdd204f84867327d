"""Rating takeovers from federation lists; unrated short-game results W-L, L-W, D-D.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD = "result IN ('1-0', '0-1', '1/2-1/2', '+-', '-+', '--')"
NEW = "result IN ('1-0', '0-1', '1/2-1/2', '+-', '-+', '--', 'W-L', 'L-W', 'D-D')"


def upgrade() -> None:
    op.drop_constraint(op.f("ck_games_result_code"), "games", type_="check")
    op.create_check_constraint(op.f("ck_games_result_code"), "games", NEW)
    op.create_table(
        "rating_takeovers",
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("taken_on", sa.Date(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("rating_index", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=200), server_default="", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("rating > 0", name=op.f("ck_rating_takeovers_rating_positive")),
        sa.CheckConstraint("rating_index >= 1", name=op.f("ck_rating_takeovers_index_positive")),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_rating_takeovers_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_rating_takeovers")),
    )


def downgrade() -> None:
    op.drop_table("rating_takeovers")
    op.execute("DELETE FROM games WHERE result IN ('W-L', 'L-W', 'D-D')")
    op.drop_constraint(op.f("ck_games_result_code"), "games", type_="check")
    op.create_check_constraint(op.f("ck_games_result_code"), "games", OLD)
