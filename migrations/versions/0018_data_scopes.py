"""What each change of the data touched: the scopes of a data version (issue 22, the read
latency under load; docs/web.md, "The page cache").

Migration 0017 raises ``data_version.n`` at every commit that wrote data, and the page cache
dropped every page then: under officers' edits (several a second) few reads found their page.
This migration records, per version, *which* pages the change can have touched, so that the
cache drops only those (:mod:`ratingdb.web.page_cache`):

* ``data_changes(n, scopes)``: one row per version, written in the committing transaction
  with the version itself; ``scopes`` NULL means "everything", an empty array "nothing a
  public page shows";
* the scopes are ``p:<player id>`` (anything of the player), ``n:<player id>`` (the
  player's name and publication: the row of ``players`` and the memberships),
  ``t:<tournament id>`` and ``v:<club VKZ>`` (the members of a club), collected by row
  triggers on the tables the public pages read by player or
  tournament (:data:`SCOPED`): a row of ``rating_snapshots`` touches its player and its
  tournament, a row of ``memberships`` its player and its club, a row of ``players`` the
  player and their clubs (a rating list shows the name, leaves out the anonymised), a row of
  ``tournaments`` the tournament and every player who took part (their Karteikarten show
  its name and date), and so on;
* a write to any other table of the data (organisations, Rechenmodule, adjustments, ... and
  every table added later with the plain trigger) means "everything", as does a TRUNCATE;
* the tables no public page reads (:data:`SILENT`: change points, runs, removed snapshots)
  raise the version but touch no page;
* a transaction that touched more than about 600 scopes or 2,000 rows of these tables (a
  run, an import) means "everything" from then on, and its further rows skip the row
  trigger (its ``WHEN``), so bulk writes pay for the first rows only; a full run says
  "everything" at its start (:mod:`ratingdb.db.recalc`).

The scopes collect in the transaction-local setting ``ratingdb.scopes`` (space-separated,
or ``all``), rolled back with the transaction or a savepoint like the rows themselves.
Rows older than 5,000 versions are deleted: a cache that far behind drops everything.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRIGGER = "data_version_touch"
ROW_TRIGGER = "data_scope_rows"
#: tables read by the public pages by player or tournament: their rows name the scopes
SCOPED = (
    "evaluation_problems",
    "external_ratings",
    "games",
    "memberships",
    "participants",
    "players",
    "rating_snapshots",
    "rating_takeovers",
    "residual_games",
    "tournament_calculations",
    "tournaments",
)
#: data that no public page shows (the officers' pages are never cached)
SILENT = ("change_points", "recalc_runs", "removed_snapshots")

TOUCH = """
CREATE OR REPLACE FUNCTION data_version_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('ratingdb.data_touched', true), '') <> 'y' THEN
        PERFORM set_config('ratingdb.data_touched', 'y', true);
        INSERT INTO data_touched (xid) VALUES (pg_current_xact_id()::text::bigint)
            ON CONFLICT DO NOTHING;
    END IF;
    -- a table without row scopes (no argument: also every table added later) or a
    -- TRUNCATE: every page may have changed
    IF TG_NARGS = 0 OR TG_OP = 'TRUNCATE' THEN
        PERFORM set_config('ratingdb.scopes', 'all', true);
    END IF;
    RETURN NULL;
END $$
"""

ROWS = """
CREATE FUNCTION data_scope_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s text := coalesce(nullif(current_setting('ratingdb.scopes', true), ''), ' ');
    rows jsonb[] := '{}';
    r jsonb;
    k text;
    ks text[];
    seen int := coalesce(nullif(current_setting('ratingdb.scope_rows', true), ''), '0')::int;
BEGIN
    IF TG_OP <> 'INSERT' THEN rows := rows || to_jsonb(OLD); END IF;
    IF TG_OP <> 'DELETE' THEN rows := rows || to_jsonb(NEW); END IF;
    FOREACH r IN ARRAY rows LOOP
        CASE TG_TABLE_NAME
        WHEN 'players' THEN
            ks := ARRAY['p:' || (r->>'id'), 'n:' || (r->>'id')] || ARRAY(
                SELECT 'v:' || o.vkz FROM memberships m
                JOIN organisations o ON o.id = m.organisation_id
                WHERE m.player_id = (r->>'id')::bigint);
        WHEN 'tournaments' THEN
            ks := ARRAY['t:' || (r->>'id')] || ARRAY(
                SELECT 'p:' || player_id FROM participants
                WHERE tournament_id = (r->>'id')::bigint AND player_id IS NOT NULL);
        WHEN 'memberships' THEN
            ks := ARRAY['p:' || (r->>'player_id'), 'n:' || (r->>'player_id'), 'v:' || (
                SELECT vkz FROM organisations WHERE id = (r->>'organisation_id')::bigint)];
        WHEN 'residual_games' THEN  -- shown on the owner's Karteikarte only
            ks := ARRAY['p:' || (r->>'owner_id')];
        ELSE  -- the tables with player_id and/or tournament_id
            ks := ARRAY['p:' || (r->>'player_id'), 't:' || (r->>'tournament_id')];
        END CASE;
        FOREACH k IN ARRAY ks LOOP
            IF k IS NOT NULL AND strpos(s, ' ' || k || ' ') = 0 THEN
                s := s || k || ' ';
            END IF;
        END LOOP;
    END LOOP;
    IF length(s) > 6000 OR seen >= 2000 THEN
        s := 'all';
    END IF;
    PERFORM set_config('ratingdb.scopes', s, true);
    PERFORM set_config('ratingdb.scope_rows', (seen + 1)::text, true);
    RETURN NULL;
END $$
"""

BUMP = """
CREATE OR REPLACE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s text := coalesce(current_setting('ratingdb.scopes', true), '');
    v bigint;
BEGIN
    UPDATE data_version SET n = n + 1 WHERE id = 1 RETURNING n INTO v;
    INSERT INTO data_changes (n, scopes) VALUES (
        v, CASE WHEN s = 'all' THEN NULL
                ELSE coalesce(string_to_array(nullif(btrim(s), ''), ' '), '{}') END);
    IF v % 500 = 0 THEN
        DELETE FROM data_changes WHERE n <= v - 5000;
    END IF;
    DELETE FROM data_touched WHERE xid = NEW.xid;
    RETURN NULL;
END $$
"""

OLD_TOUCH = """
CREATE OR REPLACE FUNCTION data_version_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('ratingdb.data_touched', true), '') <> 'y' THEN
        PERFORM set_config('ratingdb.data_touched', 'y', true);
        INSERT INTO data_touched (xid) VALUES (pg_current_xact_id()::text::bigint)
            ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$
"""

OLD_BUMP = """
CREATE OR REPLACE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE data_version SET n = n + 1 WHERE id = 1;
    DELETE FROM data_touched WHERE xid = NEW.xid;
    RETURN NULL;
END $$
"""


def _statement_trigger(table: str, argument: str = "") -> str:
    return (
        f'CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "{table}" '
        f"FOR EACH STATEMENT EXECUTE FUNCTION data_version_touch({argument})"
    )


def upgrade() -> None:
    op.create_table(
        "data_changes",
        sa.Column("n", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=True),
    )
    op.execute(TOUCH)
    op.execute(ROWS)
    op.execute(BUMP)
    for table in (*SCOPED, *SILENT):
        op.execute(f'DROP TRIGGER {TRIGGER} ON "{table}"')
        op.execute(_statement_trigger(table, "'rows'"))
    for table in SCOPED:
        op.execute(
            f'CREATE TRIGGER {ROW_TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
            "FOR EACH ROW WHEN (current_setting('ratingdb.scopes', true) "
            "IS DISTINCT FROM 'all') EXECUTE FUNCTION data_scope_rows()"
        )


def downgrade() -> None:
    for table in SCOPED:
        op.execute(f'DROP TRIGGER {ROW_TRIGGER} ON "{table}"')
    for table in (*SCOPED, *SILENT):
        op.execute(f'DROP TRIGGER {TRIGGER} ON "{table}"')
        op.execute(_statement_trigger(table))
    op.execute(OLD_BUMP)
    op.execute(OLD_TOUCH)
    op.execute("DROP FUNCTION data_scope_rows()")
    op.execute("DROP TABLE data_changes")
