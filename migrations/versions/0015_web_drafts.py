"""Drafts of the officer's submission pages (issue 29, items 2-5).

``web_drafts``: a tournament file uploaded on ``/officer/upload`` and not yet submitted:
the file's bytes as uploaded (read again at every step, by the same readers as the API),
the options of the upload form, the officer's who-is-who choices and, for a correction, the
stored tournament it replaces. A draft belongs to one user, expires after a day and is
deleted when it is submitted; nothing of it is a tournament until then.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_drafts",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            index=True,
            nullable=False,
        ),
        sa.Column("filename", sa.String(200), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("options", JSONB(), server_default="{}", nullable=False),
        sa.Column("choices", JSONB(), server_default="{}", nullable=False),
        sa.Column("target", sa.String(30), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("web_drafts")
