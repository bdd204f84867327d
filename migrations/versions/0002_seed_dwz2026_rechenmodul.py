"""Seed the Rechenmodul of the DWZ 2026 rules (WO Anhang 1.2.1 defaults).

The WO is valid from the second half of 2026, so the first version is valid from
2026-07-01. The parameters are written out in full here (not read from the code) so that
the stored version never changes when code defaults change.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARAMETERS = {
    "r": 0.08, "t": 30, "u": 800, "a1": 4, "a2": 4, "k_max": 80,
    "min_games": 5, "min_score": 0.5, "min_games_performance": 5,
    "exceptional_margin": 300, "rating_floor": 1100, "first_rating_pivot": 2000,
    "youth_bonus_pivot": 2000, "low_rating_threshold": 1600,
    "k0_young_threshold": 2200, "k0_adult_threshold": 2000,
    "k0": {
        "young": [60, 60, 48, 46, 44, 42, 40, 38, 36, 34, 32],
        "adult": [60, 60, 44, 42, 40, 38, 36, 34, 32, 30, 28],
        "strong": [60, 60, 41, 39, 37, 35, 33, 31, 29, 27, 25],
    },
    "youth_max_age": 20, "junior_max_age": 25, "residual_validity_years": 2,
    "foreign_rating_index": 6, "d_limit": 729, "p_limit": 0.005, "precision": "table",
    "max_iterations": 1000, "float_tolerance": 0.1,
}  # fmt: skip


def upgrade() -> None:
    op.execute(
        "INSERT INTO rechenmodule (family, version, valid_from, parameters, description) "
        "VALUES ('dwz2026', '2026.1', DATE '2026-07-01', "
        f"'{json.dumps(PARAMETERS)}'::jsonb, "
        "'DSB Wertungsordnung valid from the 2nd half of 2026, Anhang 1.2.1 defaults')"
    )


def downgrade() -> None:
    op.execute("DELETE FROM rechenmodule WHERE family = 'dwz2026' AND version = '2026.1'")
