"""Engine: snapshot inputs (rating source, membership, birth year, residual games used),
new residual games per snapshot, residual-game identity (seq), pending change points.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 20:14:57.437435
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # WO 2.2.3: the VKZ is compared as a string: byte order, independent of the locale
    op.alter_column(
        "tournaments",
        "vkz",
        type_=sa.String(length=10, collation="C"),
        existing_type=sa.String(length=10),
        existing_nullable=False,
    )
    op.create_table(
        "change_points",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("from_date", sa.Date(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger(), nullable=True),
        sa.Column("player_ids", sa.ARRAY(sa.BigInteger()), server_default="{}", nullable=False),
        sa.Column("hold_key", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "kind IN ('insert', 'correct', 'delete', 'player', 'rechenmodul', 'full')",
            name=op.f("ck_change_points_kind"),
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["recalc_runs.id"], name=op.f("fk_change_points_run_id_recalc_runs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_change_points")),
    )
    op.create_index("ix_change_points_pending", "change_points", ["run_id"], unique=False)
    op.add_column("rating_snapshots", sa.Column("rating_in", sa.Integer(), nullable=True))
    op.add_column("rating_snapshots", sa.Column("index_in", sa.Integer(), nullable=True))
    op.add_column(
        "rating_snapshots", sa.Column("rating_source", sa.String(length=10), nullable=True)
    )
    op.add_column(
        "rating_snapshots",
        sa.Column("member", sa.Boolean(), server_default=sa.text("true"), nullable=False),
    )
    op.add_column("rating_snapshots", sa.Column("birth_year", sa.Integer(), nullable=True))
    op.add_column(
        "rating_snapshots",
        sa.Column(
            "residual_in",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default="[]",
            nullable=False,
        ),
    )
    op.add_column(
        "rating_snapshots",
        sa.Column(
            "new_residual_games",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default="[]",
            nullable=False,
        ),
    )
    op.drop_column("rating_snapshots", "residual_games_used")
    op.add_column(
        "residual_games", sa.Column("seq", sa.Integer(), server_default="0", nullable=False)
    )
    op.create_unique_constraint(
        op.f("uq_residual_games_owner_id_created_by_id_seq"),
        "residual_games",
        ["owner_id", "created_by_id", "seq"],
    )
    op.create_check_constraint(
        op.f("ck_residual_games_seq_nonnegative"), "residual_games", "seq >= 0"
    )
    op.create_check_constraint(
        op.f("ck_rating_snapshots_rating_source"),
        "rating_snapshots",
        "rating_source IN ('dwz', 'fide', 'national')",
    )


def downgrade() -> None:
    op.alter_column(
        "tournaments",
        "vkz",
        type_=sa.String(length=10),
        existing_type=sa.String(length=10, collation="C"),
        existing_nullable=False,
    )
    op.drop_constraint(op.f("ck_rating_snapshots_rating_source"), "rating_snapshots", type_="check")
    op.drop_constraint(op.f("ck_residual_games_seq_nonnegative"), "residual_games", type_="check")
    op.drop_constraint(
        op.f("uq_residual_games_owner_id_created_by_id_seq"), "residual_games", type_="unique"
    )
    op.drop_column("residual_games", "seq")
    op.add_column(
        "rating_snapshots",
        sa.Column(
            "residual_games_used",
            sa.INTEGER(),
            server_default=sa.text("0"),
            autoincrement=False,
            nullable=False,
        ),
    )
    op.drop_column("rating_snapshots", "new_residual_games")
    op.drop_column("rating_snapshots", "residual_in")
    op.drop_column("rating_snapshots", "birth_year")
    op.drop_column("rating_snapshots", "member")
    op.drop_column("rating_snapshots", "rating_source")
    op.drop_column("rating_snapshots", "index_in")
    op.drop_column("rating_snapshots", "rating_in")
    op.drop_index("ix_change_points_pending", table_name="change_points")
    op.drop_table("change_points")
