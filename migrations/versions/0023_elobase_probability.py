"""The DSB timeline's oldest version computes P(D) as ELOBASE did: ``dwz-classic`` (the
classic text, two-digit tables) becomes ``dwz-elobase`` (the same rules, P(D) from the
normal distribution in thousandths), as the W_e that ELOBASE published for tournaments of
1995-2002 show (docs/engine.md, "Texts and published numbers").

The seeded row is changed in place (its snapshots keep their Rechenmodul) when it still
holds the seeded parameters; a federation that changed it keeps its own. A database with
tournaments gets a change point from the beginning: the next run replays its history.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

from ratingdb.rules import dsb_timeline

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels = None
depends_on = None

CLASSIC_DESCRIPTION = (
    "DWZ, classic rules text (E of 4.9.2, two-digit tables, Sonderwertung 4.7.6, DWZ expire "
    "after 5 years)"
)
ELOBASE_DESCRIPTION = (
    "DWZ, classic rules text as ELOBASE computed it (E of 4.9.2, Sonderwertung 4.7.6, DWZ "
    "expire after 5 years; P(D) normal distribution in thousandths)"
)


#: the seeded parameters: ELOBASE's from the timeline, the classic text's the same with the
#: logistic two-digit tables (the one difference)
ELOBASE = dsb_timeline.find("dwz-classic/dwz-elobase").parameters
CLASSIC = {**ELOBASE, "probability": "logistic"}


def _swap(
    old: str, new: str, params: dict[str, Any], old_params: dict[str, Any], description: str
) -> None:
    bind = op.get_bind()
    changed = bind.execute(
        sa.text(
            "UPDATE rechenmodule SET version = :new, parameters = CAST(:p AS jsonb), "
            "description = :desc WHERE family = 'dwz-classic' AND version = :old "
            "AND parameters = CAST(:old_p AS jsonb) AND NOT EXISTS (SELECT 1 FROM rechenmodule "
            "WHERE family = 'dwz-classic' AND version = :new)"
        ),
        {
            "new": new,
            "old": old,
            "p": json.dumps(params),
            "old_p": json.dumps(old_params),
            "desc": description,
        },
    ).rowcount
    if changed:
        bind.execute(
            sa.text(
                "INSERT INTO change_points (kind, from_date) SELECT 'rechenmodul', "
                "DATE '0001-01-01' WHERE EXISTS (SELECT 1 FROM tournaments)"
            )
        )
        # the deferred triggers of that insert fire now: a downgrade further down may drop
        # their table in the same transaction
        bind.execute(sa.text("SET CONSTRAINTS ALL IMMEDIATE"))


def upgrade() -> None:
    _swap("dwz-classic", "dwz-elobase", ELOBASE, CLASSIC, ELOBASE_DESCRIPTION)


def downgrade() -> None:
    _swap("dwz-elobase", "dwz-classic", CLASSIC, ELOBASE, CLASSIC_DESCRIPTION)
