"""Initial schema: organisations, players, memberships, tournaments, games, residual games,
rating snapshots, Rechenmodule, adjustments, recalculation runs, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-11-21 19:54:35.523555
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # memberships use an exclusion constraint over (player, club, period)
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
    op.create_table(
        "audit_log",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("actor", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=50), nullable=False),
        sa.Column("entity", sa.String(length=50), nullable=False),
        sa.Column("entity_id", sa.String(length=50), nullable=True),
        sa.Column("change_point", sa.Date(), nullable=True),
        sa.Column(
            "details", postgresql.JSONB(astext_type=sa.Text()), server_default="{}", nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"], unique=False)
    op.create_table(
        "organisations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vkz", sa.String(length=10), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "kind IN ('federation', 'region', 'district', 'club')",
            name=op.f("ck_organisations_kind"),
        ),
        sa.CheckConstraint("vkz ~ '^[0-9A-Za-z]{1,10}$'", name=op.f("ck_organisations_vkz_format")),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["organisations.id"],
            name=op.f("fk_organisations_parent_id_organisations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organisations")),
        sa.UniqueConstraint("vkz", name=op.f("uq_organisations_vkz")),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("dsb_id", sa.String(length=20), nullable=True),
        sa.Column("fide_id", sa.BigInteger(), nullable=True),
        sa.Column("surname", sa.String(length=100), nullable=False),
        sa.Column("given_name", sa.String(length=100), server_default="", nullable=False),
        sa.Column("sex", sa.String(length=1), nullable=True),
        sa.Column("birth_date", sa.Date(), nullable=True),
        sa.Column("birth_year", sa.Integer(), nullable=True),
        sa.Column("anonymised", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("sex IN ('m', 'f', 'd')", name=op.f("ck_players_sex")),
        sa.CheckConstraint(
            "birth_date IS NULL OR birth_year = EXTRACT(YEAR FROM birth_date)",
            name=op.f("ck_players_birth_date_matches_year"),
        ),
        sa.CheckConstraint(
            "birth_year BETWEEN 1850 AND 2200", name=op.f("ck_players_birth_year_range")
        ),
        sa.CheckConstraint("fide_id > 0", name=op.f("ck_players_fide_id_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("dsb_id", name=op.f("uq_players_dsb_id")),
        sa.UniqueConstraint("fide_id", name=op.f("uq_players_fide_id")),
    )
    op.create_index("ix_players_name", "players", ["surname", "given_name"], unique=False)
    op.create_table(
        "rating_adjustments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("effective_on", sa.Date(), nullable=False),
        sa.Column("formula", sa.String(length=50), nullable=False),
        sa.Column(
            "parameters",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default="{}",
            nullable=False,
        ),
        sa.Column("raises_index", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_adjustments")),
        sa.UniqueConstraint(
            "effective_on", "formula", name=op.f("uq_rating_adjustments_effective_on_formula")
        ),
    )
    op.create_table(
        "recalc_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column(
            "started_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("change_point", sa.Date(), nullable=True),
        sa.Column("full", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("status", sa.String(length=10), server_default="running", nullable=False),
        sa.Column("tournaments_evaluated", sa.Integer(), server_default="0", nullable=False),
        sa.Column("ratings_changed", sa.Integer(), server_default="0", nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'succeeded', 'failed')", name=op.f("ck_recalc_runs_status")
        ),
        sa.CheckConstraint(
            "finished_at IS NULL OR finished_at >= started_at", name=op.f("ck_recalc_runs_finished")
        ),
        sa.CheckConstraint(
            "tournaments_evaluated >= 0 AND ratings_changed >= 0",
            name=op.f("ck_recalc_runs_counts_nonnegative"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recalc_runs")),
    )
    op.create_table(
        "rechenmodule",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=30), nullable=False),
        sa.Column("version", sa.String(length=30), nullable=False),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("parameters", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rechenmodule")),
        sa.UniqueConstraint("family", "version", name=op.f("uq_rechenmodule_family_version")),
        sa.UniqueConstraint("valid_from", name=op.f("uq_rechenmodule_valid_from")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("code", sa.String(length=30), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("vkz", sa.String(length=10), nullable=False),
        sa.Column("city", sa.String(length=100), nullable=True),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("end_date", sa.Date(), nullable=False),
        sa.Column("kind", sa.String(length=12), server_default="individual", nullable=False),
        sa.Column("time_control", sa.String(length=100), nullable=True),
        sa.Column("rated", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column(
            "evaluators", sa.ARRAY(sa.String(length=100)), server_default="{}", nullable=False
        ),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "processed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("status", sa.String(length=12), server_default="submitted", nullable=False),
        sa.CheckConstraint(
            "kind IN ('individual', 'team', 'match')", name=op.f("ck_tournaments_kind")
        ),
        sa.CheckConstraint(
            "status IN ('submitted', 'evaluated', 'rejected')", name=op.f("ck_tournaments_status")
        ),
        sa.CheckConstraint("end_date >= start_date", name=op.f("ck_tournaments_end_after_start")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("code", name=op.f("uq_tournaments_code")),
    )
    op.create_index(
        "ix_tournaments_evaluation_order",
        "tournaments",
        ["end_date", "start_date", "vkz", "processed_at", "id"],
        unique=False,
    )
    op.create_table(
        "external_ratings",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("system", sa.String(length=10), nullable=False),
        sa.Column("federation", sa.String(length=4), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("rated_on", sa.Date(), nullable=False),
        sa.CheckConstraint(
            "system IN ('fide', 'national')", name=op.f("ck_external_ratings_system")
        ),
        sa.CheckConstraint("rating > 0", name=op.f("ck_external_ratings_rating_positive")),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_external_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_external_ratings")),
        sa.UniqueConstraint(
            "player_id",
            "system",
            "federation",
            "rated_on",
            name=op.f("uq_external_ratings_player_id_system_federation_rated_on"),
        ),
    )
    op.create_table(
        "memberships",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("member_number", sa.String(length=10), nullable=True),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("valid_to", sa.Date(), nullable=True),
        sa.Column("status", sa.String(length=10), server_default="active", nullable=False),
        postgresql.ExcludeConstraint(
            (sa.column("player_id"), "="),
            (sa.column("organisation_id"), "="),
            (sa.text("daterange(valid_from, valid_to, '[]')"), "&&"),
            using="gist",
            name="no_overlap",
        ),
        sa.CheckConstraint("status IN ('active', 'passive')", name=op.f("ck_memberships_status")),
        sa.CheckConstraint(
            "valid_to IS NULL OR valid_to >= valid_from", name=op.f("ck_memberships_period")
        ),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name=op.f("fk_memberships_organisation_id_organisations"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_memberships_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memberships")),
    )
    op.create_index(
        "ix_memberships_player_period", "memberships", ["player_id", "valid_from"], unique=False
    )
    op.create_table(
        "participants",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger(), nullable=False),
        sa.Column("start_rank", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.BigInteger(), nullable=True),
        sa.Column("textual_name", sa.String(length=200), nullable=True),
        sa.Column("club_vkz", sa.String(length=10), nullable=True),
        sa.Column("rating_source", sa.String(length=10), nullable=True),
        sa.Column("external_rating", sa.Integer(), nullable=True),
        sa.Column("external_index", sa.Integer(), nullable=True),
        sa.Column("computer", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.CheckConstraint(
            "rating_source IN ('fide', 'national')", name=op.f("ck_participants_rating_source")
        ),
        sa.CheckConstraint(
            "(rating_source IS NULL) = (external_rating IS NULL)",
            name=op.f("ck_participants_external_rating_source"),
        ),
        sa.CheckConstraint(
            "external_index >= 0", name=op.f("ck_participants_external_index_nonnegative")
        ),
        sa.CheckConstraint(
            "external_rating > 0", name=op.f("ck_participants_external_rating_positive")
        ),
        sa.CheckConstraint(
            "player_id IS NOT NULL OR textual_name IS NOT NULL",
            name=op.f("ck_participants_identified"),
        ),
        sa.CheckConstraint("start_rank > 0", name=op.f("ck_participants_start_rank_positive")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_participants_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_participants_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_participants")),
        sa.UniqueConstraint("tournament_id", "id", name=op.f("uq_participants_tournament_id_id")),
        sa.UniqueConstraint(
            "tournament_id", "player_id", name=op.f("uq_participants_tournament_id_player_id")
        ),
        sa.UniqueConstraint(
            "tournament_id", "start_rank", name=op.f("uq_participants_tournament_id_start_rank")
        ),
    )
    op.create_table(
        "residual_games",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("opponent_rating", sa.Integer(), nullable=False),
        sa.Column("score", sa.Numeric(precision=2, scale=1), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("expires_on", sa.Date(), nullable=False),
        sa.Column("created_by_id", sa.BigInteger(), nullable=True),
        sa.Column("consumed_by_id", sa.BigInteger(), nullable=True),
        sa.CheckConstraint(
            "expires_on > played_on", name=op.f("ck_residual_games_expires_after_played")
        ),
        sa.CheckConstraint(
            "opponent_rating > 0", name=op.f("ck_residual_games_opponent_rating_positive")
        ),
        sa.CheckConstraint("score IN (0, 0.5, 1)", name=op.f("ck_residual_games_score_value")),
        sa.ForeignKeyConstraint(
            ["consumed_by_id"],
            ["tournaments.id"],
            name=op.f("fk_residual_games_consumed_by_id_tournaments"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["tournaments.id"],
            name=op.f("fk_residual_games_created_by_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["players.id"],
            name=op.f("fk_residual_games_owner_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_residual_games")),
    )
    op.create_index(
        op.f("ix_residual_games_consumed_by_id"), "residual_games", ["consumed_by_id"], unique=False
    )
    op.create_index(
        op.f("ix_residual_games_created_by_id"), "residual_games", ["created_by_id"], unique=False
    )
    op.create_index(
        "ix_residual_games_owner_expiry", "residual_games", ["owner_id", "expires_on"], unique=False
    )
    op.create_table(
        "games",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("board", sa.Integer(), nullable=True),
        sa.Column("white_id", sa.BigInteger(), nullable=False),
        sa.Column("black_id", sa.BigInteger(), nullable=False),
        sa.Column("result", sa.String(length=7), nullable=False),
        sa.CheckConstraint(
            "result IN ('1-0', '0-1', '1/2-1/2', '+-', '-+', '--')",
            name=op.f("ck_games_result_code"),
        ),
        sa.CheckConstraint("round >= 0", name=op.f("ck_games_round_nonnegative")),
        sa.CheckConstraint("white_id <> black_id", name=op.f("ck_games_two_players")),
        sa.ForeignKeyConstraint(
            ["tournament_id", "black_id"],
            ["participants.tournament_id", "participants.id"],
            name="fk_games_black_participants",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id", "white_id"],
            ["participants.tournament_id", "participants.id"],
            name="fk_games_white_participants",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_games_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_tournament_id"), "games", ["tournament_id"], unique=False)
    op.create_table(
        "rating_snapshots",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger(), nullable=False),
        sa.Column("participant_id", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=True),
        sa.Column("rechenmodul_id", sa.Integer(), nullable=False),
        sa.Column("player_group", sa.String(length=12), nullable=False),
        sa.Column("age_class", sa.String(length=6), nullable=False),
        sa.Column("rating_old", sa.Integer(), nullable=True),
        sa.Column("index_old", sa.Integer(), nullable=True),
        sa.Column("residual_games_used", sa.Integer(), server_default="0", nullable=False),
        sa.Column("k", sa.Numeric(precision=4, scale=1), nullable=True),
        sa.Column("opponents_avg", sa.Integer(), nullable=True),
        sa.Column("score", sa.Numeric(precision=6, scale=1), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("expected", sa.Numeric(precision=8, scale=3), nullable=True),
        sa.Column("performance", sa.Integer(), nullable=True),
        sa.Column("exceptional", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("start_value", sa.Integer(), nullable=True),
        sa.Column("iteration_value", sa.Integer(), nullable=True),
        sa.Column("rating_new", sa.Integer(), nullable=True),
        sa.Column("index_new", sa.Integer(), nullable=True),
        sa.Column("stored", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.CheckConstraint(
            "age_class IN ('youth', 'junior', 'adult')", name=op.f("ck_rating_snapshots_age_class")
        ),
        sa.CheckConstraint(
            "player_group IN ('established', 'first_stage', 'second_stage', 'remaining')",
            name=op.f("ck_rating_snapshots_player_group"),
        ),
        sa.CheckConstraint(
            "NOT stored OR player_id IS NOT NULL",
            name=op.f("ck_rating_snapshots_stored_needs_player"),
        ),
        sa.CheckConstraint("games >= 0", name=op.f("ck_rating_snapshots_games_nonnegative")),
        sa.CheckConstraint(
            "index_old >= 0 AND index_new >= 0", name=op.f("ck_rating_snapshots_index_nonnegative")
        ),
        sa.CheckConstraint("k > 0", name=op.f("ck_rating_snapshots_k_positive")),
        sa.CheckConstraint(
            "performance >= 0", name=op.f("ck_rating_snapshots_performance_nonnegative")
        ),
        sa.CheckConstraint("rating_new > 0", name=op.f("ck_rating_snapshots_rating_new_positive")),
        sa.CheckConstraint("rating_old > 0", name=op.f("ck_rating_snapshots_rating_old_positive")),
        sa.CheckConstraint(
            "score >= 0 AND score <= games", name=op.f("ck_rating_snapshots_score_range")
        ),
        sa.ForeignKeyConstraint(
            ["participant_id"],
            ["participants.id"],
            name=op.f("fk_rating_snapshots_participant_id_participants"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_rating_snapshots_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["rechenmodul_id"],
            ["rechenmodule.id"],
            name=op.f("fk_rating_snapshots_rechenmodul_id_rechenmodule"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_rating_snapshots_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_snapshots")),
        sa.UniqueConstraint(
            "tournament_id",
            "participant_id",
            name=op.f("uq_rating_snapshots_tournament_id_participant_id"),
        ),
    )
    op.create_index(
        "ix_rating_snapshots_player_history",
        "rating_snapshots",
        ["player_id", "tournament_id"],
        unique=False,
    )


def downgrade() -> None:
    # btree_gist stays installed: other schemas in the database may use it
    op.drop_index("ix_rating_snapshots_player_history", table_name="rating_snapshots")
    op.drop_table("rating_snapshots")
    op.drop_index(op.f("ix_games_tournament_id"), table_name="games")
    op.drop_table("games")
    op.drop_index("ix_residual_games_owner_expiry", table_name="residual_games")
    op.drop_index(op.f("ix_residual_games_created_by_id"), table_name="residual_games")
    op.drop_index(op.f("ix_residual_games_consumed_by_id"), table_name="residual_games")
    op.drop_table("residual_games")
    op.drop_table("participants")
    op.drop_index("ix_memberships_player_period", table_name="memberships")
    op.drop_table("memberships")
    op.drop_table("external_ratings")
    op.drop_index("ix_tournaments_evaluation_order", table_name="tournaments")
    op.drop_table("tournaments")
    op.drop_table("rechenmodule")
    op.drop_table("recalc_runs")
    op.drop_table("rating_adjustments")
    op.drop_index("ix_players_name", table_name="players")
    op.drop_table("players")
    op.drop_table("organisations")
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_table("audit_log")
