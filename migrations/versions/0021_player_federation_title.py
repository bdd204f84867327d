"""A player's FIDE federation and title, as the tournament file of his first tournament
gives them: the ids and fields a file has are stored for a new member (DSB id, FIDE id,
sex, birth date, federation, title).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("federation", sa.String(3)))
    op.add_column("players", sa.Column("title", sa.String(3)))


def downgrade() -> None:
    op.drop_column("players", "title")
    op.drop_column("players", "federation")
