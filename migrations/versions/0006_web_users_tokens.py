"""The web service: users and API tokens, tournament calculation stamps, page indexes.

* ``users`` (role officer/admin, VKZ-prefix scopes, WO 6.3) and ``api_tokens`` (SHA-256
  hashes only);
* ``tournament_calculations``: first evaluation and last calculation of each tournament
  (WO 6.5.2.1 item 4), stamped by a statement-level trigger on ``rating_snapshots`` so that
  every writer (full and incremental runs) keeps it without knowing about it;
* indexes for player search by name, club member lists and tournament lists by VKZ.

Tournaments evaluated before this revision have no stamps (shown as unknown) until their
next calculation.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STAMP_FUNCTION = """
CREATE FUNCTION ratingdb_stamp_calculations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tournament_calculations (tournament_id, evaluated_at, calculated_at)
    SELECT DISTINCT tournament_id, now(), now() FROM new_snapshots
    ON CONFLICT (tournament_id) DO UPDATE SET calculated_at = excluded.calculated_at;
    RETURN NULL;
END
$$
"""
STAMP_TRIGGER = """
CREATE TRIGGER rating_snapshots_stamp_calculations AFTER INSERT ON rating_snapshots
REFERENCING NEW TABLE AS new_snapshots
FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_stamp_calculations()
"""


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("full_name", sa.String(length=200), server_default="", nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column(
            "scopes", postgresql.ARRAY(sa.String(length=10)), server_default="{}", nullable=False
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("role IN ('officer', 'admin')", name=op.f("ck_users_role")),
        sa.CheckConstraint("name ~ '^[A-Za-z0-9._@-]{1,100}$'", name=op.f("ck_users_name_format")),
        sa.CheckConstraint(
            "role = 'admin' OR cardinality(scopes) >= 1", name=op.f("ck_users_officer_scoped")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("label", sa.String(length=100), server_default="", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_api_tokens_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_index(op.f("ix_api_tokens_user_id"), "api_tokens", ["user_id"])
    op.create_table(
        "tournament_calculations",
        sa.Column("tournament_id", sa.BigInteger(), nullable=False),
        sa.Column("evaluated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("calculated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_calculations_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_tournament_calculations")),
    )
    op.execute(STAMP_FUNCTION)
    op.execute(STAMP_TRIGGER)
    op.execute(
        "CREATE INDEX ix_players_search_name ON players "
        "(lower(surname) text_pattern_ops, lower(given_name) text_pattern_ops)"
    )
    op.create_index("ix_memberships_organisation", "memberships", ["organisation_id", "valid_from"])
    op.create_index("ix_tournaments_vkz", "tournaments", ["vkz", "end_date"])


def downgrade() -> None:
    op.drop_index("ix_tournaments_vkz", table_name="tournaments")
    op.drop_index("ix_memberships_organisation", table_name="memberships")
    op.drop_index("ix_players_search_name", table_name="players")
    op.execute("DROP TRIGGER rating_snapshots_stamp_calculations ON rating_snapshots")
    op.execute("DROP FUNCTION ratingdb_stamp_calculations()")
    op.drop_table("tournament_calculations")
    op.drop_index(op.f("ix_api_tokens_user_id"), table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_table("users")
