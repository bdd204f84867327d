"""The DSB member list's ``Spielberechtigung`` per membership (issue 21, item 5).

``memberships.eligibility``: the playing eligibility as the list gives it (``D``, ``A``,
``E``, ``G``, ``-`` …; up to 5 characters, null when the list has none). ratingdb keeps it
and writes it back into the player files for pairing programs; no rule reads it.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("memberships", sa.Column("eligibility", sa.String(5), nullable=True))


def downgrade() -> None:
    op.drop_column("memberships", "eligibility")
