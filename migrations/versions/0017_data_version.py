"""The data version: a counter that every committed change of the public data raises
(issue 22, the web's page cache; docs/web.md, "The page cache").

``data_version.n`` is raised once by every transaction that wrote (INSERT, UPDATE, DELETE,
TRUNCATE) any table of the data, *at its commit* and in it: a reader that sees ``n``
sees every change committed with a number up to ``n`` and none after, so two readers that
see the same ``n`` see the same data. The web's page cache keys the public pages by it.

How: a statement trigger on every data table marks the transaction once (a transaction-local
setting) and inserts its transaction id into ``data_touched``; a deferred constraint trigger
on that row raises ``n`` and deletes the row when the transaction commits. The row lock on
``data_version`` is held only from that moment to the commit (no other lock is taken after
it, so it never closes a cycle of waits); a transaction that rolls back (a what-if, a failed
run) raises nothing. Bulk writes (COPY, many rows per statement) cost one trigger call per
statement.

The tables of users, sign-in, tokens, drafts and the audit log are not data of the public
pages (which never show them) and raise nothing: a sign-in or an API token's use must not
empty the cache. ``tests/test_page_cache.py`` checks that every other table has the trigger.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: tables whose changes are not data of the public pages (and the version's own)
NOT_DATA = (
    "alembic_version",
    "api_tokens",
    "audit_log",
    "data_touched",
    "data_version",
    "sign_in_throttle",
    "users",
    "web_drafts",
    "web_sessions",
)
TRIGGER = "data_version_touch"


def upgrade() -> None:
    op.create_table(
        "data_version",
        sa.Column("id", sa.SmallInteger(), primary_key=True),
        sa.Column("n", sa.BigInteger(), nullable=False),
    )
    op.execute("INSERT INTO data_version (id, n) VALUES (1, 0)")
    op.create_table(
        "data_touched", sa.Column("xid", sa.BigInteger(), primary_key=True, autoincrement=False)
    )
    op.execute(
        """
        CREATE FUNCTION data_version_touch() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF coalesce(current_setting('ratingdb.data_touched', true), '') <> 'y' THEN
                PERFORM set_config('ratingdb.data_touched', 'y', true);
                INSERT INTO data_touched (xid) VALUES (pg_current_xact_id()::text::bigint)
                    ON CONFLICT DO NOTHING;
            END IF;
            RETURN NULL;
        END $$
        """
    )
    op.execute(
        """
        CREATE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE data_version SET n = n + 1 WHERE id = 1;
            DELETE FROM data_touched WHERE xid = NEW.xid;
            RETURN NULL;
        END $$
        """
    )
    op.execute(
        "CREATE CONSTRAINT TRIGGER data_version_bump AFTER INSERT ON data_touched "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_version_bump()"
    )
    for table in _data_tables():
        op.execute(
            f'CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "{table}" '
            "FOR EACH STATEMENT EXECUTE FUNCTION data_version_touch()"
        )


def downgrade() -> None:
    for table in _data_tables():
        op.execute(f'DROP TRIGGER IF EXISTS {TRIGGER} ON "{table}"')
    op.execute("DROP TABLE data_touched")
    op.execute("DROP TABLE data_version")
    op.execute("DROP FUNCTION data_version_bump()")
    op.execute("DROP FUNCTION data_version_touch()")


def _data_tables() -> list[str]:
    from sqlalchemy import text

    names = op.get_bind().execute(
        text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    )
    return sorted(n for n in names.scalars() if n not in NOT_DATA)
