"""A failed recalculation run names the tournament it failed at (issue 22, item 1).

* ``recalc_runs.failed_tournament``: the code of the tournament the replay was evaluating
  when the run failed (null when it failed elsewhere: loading, writing, a lost connection).
  The reason is in ``message``; the run's change points stay pending.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("recalc_runs", sa.Column("failed_tournament", sa.String(30), nullable=True))


def downgrade() -> None:
    op.drop_column("recalc_runs", "failed_tournament")
