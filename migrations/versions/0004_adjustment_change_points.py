"""Change points for rating adjustments (WO Anhang 4).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD = "kind IN ('insert', 'correct', 'delete', 'player', 'rechenmodul', 'full')"
NEW = "kind IN ('insert', 'correct', 'delete', 'player', 'rechenmodul', 'adjustment', 'full')"


def upgrade() -> None:
    op.drop_constraint(op.f("ck_change_points_kind"), "change_points", type_="check")
    op.create_check_constraint(op.f("ck_change_points_kind"), "change_points", NEW)


def downgrade() -> None:
    op.execute("DELETE FROM change_points WHERE kind = 'adjustment'")
    op.drop_constraint(op.f("ck_change_points_kind"), "change_points", type_="check")
    op.create_check_constraint(op.f("ck_change_points_kind"), "change_points", OLD)
