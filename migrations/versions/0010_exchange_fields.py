"""What tournament files carry beyond the games (issue 21, items 2 and 3).

* ``participants.byes``: round -> TRF code of every round without an opponent (H, F, U, Z,
  ``-`` a forfeit without opponent, ``=``/``+`` old-style byes). Never rated (WO: unchanged);
  kept so that an export reproduces them and the points column.
* ``participants.title``, ``participants.federation``: FIDE title and federation as filed.
* ``tournaments.exchange``: the rest of a file's tournament data that no rating needs, as
  JSON: ``type`` (TRF 092), ``federation`` (032), ``round_dates``, ``other`` (further header
  records, deputy arbiters), ``records`` (team records, ``XX?``), ``uncoloured`` (games
  filed without colours: ``[round, white start rank, black start rank]``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    jsonb = postgresql.JSONB(astext_type=sa.Text())
    op.add_column("participants", sa.Column("byes", jsonb, server_default="{}", nullable=False))
    op.add_column("participants", sa.Column("title", sa.String(3), nullable=True))
    op.add_column("participants", sa.Column("federation", sa.String(3), nullable=True))
    op.add_column("tournaments", sa.Column("exchange", jsonb, server_default="{}", nullable=False))


def downgrade() -> None:
    op.drop_column("tournaments", "exchange")
    op.drop_column("participants", "federation")
    op.drop_column("participants", "title")
    op.drop_column("participants", "byes")
