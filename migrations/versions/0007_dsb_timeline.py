"""Seed the DSB's DWZ timeline: the versions before 2026, the Umstufung, WO 2026 from 8 June.

Every database gets the timeline of ``ratingdb/data/dsb-timeline.json`` (the same data that
``ratingdb evaluate --rechenmodul auto`` uses; sources in docs/engine.md, "The DSB
timeline"): ``dwz-classic`` versions classic (1993) -> WO 2002 (2002-05-09) -> DeWIS/2014
rules (2011-01-01) -> Sonderwertung (2016-08-01); the Umstufung of WO Anhang 4 on
2026-06-07 (index + 1); and the seeded ``dwz2026`` version 2026.1 moved from 2026-07-01 to
2026-06-08. A version whose family/version or valid-from date a database already holds is
left out (the federation's own entry wins), and so is the Umstufung if the database has a
``dwz-2026-umstufung`` adjustment already. A database with tournaments gets a change point
from the beginning: the next run replays its history with the new rules.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ratingdb.rules.dsb_timeline import adjustments, rechenmodule

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_2026_START = "2026-07-01"
#: versions of the timeline file whose rows a later migration renamed back on its downgrade
#: (0023: the oldest was seeded as ``dwz-classic``)
EARLIER_NAMES = {"dwz-elobase": "dwz-classic"}


def upgrade() -> None:
    bind = op.get_bind()
    for entry in rechenmodule():
        if entry.family == "dwz2026" and entry.version == "2026.1":
            bind.execute(
                sa.text(
                    "UPDATE rechenmodule SET valid_from = :d WHERE family = 'dwz2026' "
                    "AND version = '2026.1' AND valid_from = CAST(:old AS date) AND NOT EXISTS "
                    "(SELECT 1 FROM rechenmodule WHERE valid_from = CAST(:d AS date))"
                ),
                {"d": entry.valid_from, "old": OLD_2026_START},
            )
            continue
        bind.execute(
            sa.text(
                "INSERT INTO rechenmodule (family, version, valid_from, parameters, description) "
                "SELECT CAST(:f AS varchar), CAST(:v AS varchar), CAST(:d AS date), "
                "CAST(:p AS jsonb), CAST(:desc AS varchar) WHERE NOT EXISTS (SELECT 1 FROM "
                "rechenmodule WHERE (family = CAST(:f AS varchar) AND version = CAST(:v AS "
                "varchar)) OR valid_from = CAST(:d AS date))"
            ),
            {
                "f": entry.family,
                "v": entry.version,
                "d": entry.valid_from,
                "p": json.dumps(entry.parameters),
                "desc": entry.description,
            },
        )
    for adj in adjustments():
        bind.execute(
            sa.text(
                "INSERT INTO rating_adjustments (name, effective_on, formula, raises_index) "
                "SELECT CAST(:n AS varchar), CAST(:d AS date), CAST(:f AS varchar), "
                "CAST(:r AS boolean) WHERE NOT EXISTS "
                "(SELECT 1 FROM rating_adjustments WHERE formula = CAST(:f AS varchar))"
            ),
            {"n": adj.name, "d": adj.effective_on, "f": adj.formula, "r": adj.raises_index},
        )
    bind.execute(
        sa.text(
            "INSERT INTO change_points (kind, from_date) SELECT 'rechenmodul', DATE '0001-01-01' "
            "WHERE EXISTS (SELECT 1 FROM tournaments)"
        )
    )


def downgrade() -> None:
    bind = op.get_bind()
    for entry in rechenmodule():
        if entry.family == "dwz2026" and entry.version == "2026.1":
            bind.execute(
                sa.text(
                    "UPDATE rechenmodule SET valid_from = :old WHERE family = 'dwz2026' "
                    "AND version = '2026.1' AND valid_from = :d"
                ),
                {"d": entry.valid_from, "old": OLD_2026_START},
            )
        else:
            where = "family = :f AND version IN (:v, :was) AND valid_from = :d"
            values = {
                "f": entry.family,
                "v": entry.version,
                "was": EARLIER_NAMES.get(entry.version, entry.version),
                "d": entry.valid_from,
            }
            bind.execute(
                sa.text(
                    "DELETE FROM rating_snapshots WHERE rechenmodul_id IN "
                    f"(SELECT id FROM rechenmodule WHERE {where})"
                ),
                values,
            )
            bind.execute(sa.text(f"DELETE FROM rechenmodule WHERE {where}"), values)
    for adj in adjustments():
        bind.execute(
            sa.text(
                "DELETE FROM rating_adjustments WHERE name = :n AND effective_on = :d "
                "AND formula = :f"
            ),
            {"n": adj.name, "d": adj.effective_on, "f": adj.formula},
        )
    bind.execute(
        sa.text(
            "INSERT INTO change_points (kind, from_date) SELECT 'full', DATE '0001-01-01' "
            "WHERE EXISTS (SELECT 1 FROM tournaments)"
        )
    )
