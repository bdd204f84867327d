"""``users.disabled_at``: a user disabled by an administrator (``ratingdb user disable``,
the admin page) signs in no more; his sessions and tokens were ended when he was disabled,
and his name stays in the audit log. Null: an active user.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("users", "disabled_at")
