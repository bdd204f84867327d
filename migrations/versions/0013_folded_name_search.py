"""Accent- and umlaut-folding player search (issue 23): ``ratingdb_fold_name(text)`` and an
index on the folded surname and given name.

The fold makes Müller = Mueller = Muller and Strauß = Strauss: Latin letters with marks lose
them (``translate`` over Latin-1 and Latin Extended-A/B: é → e, ł → l, ø → o, æ → a), ß and þ
become ss and th, then the German transcriptions ae, oe, ue become a, o, u, and everything is
lower case. PostgreSQL's ``unaccent`` (a contrib extension, which the embedded server has) is
not used: it is not IMMUTABLE, so an index cannot use it without a wrapper that pins its
dictionary; creating it needs rights an operator's server may not grant; and it does not
fold ue to u. This function is plain SQL, works on every PostgreSQL, and the index is kept by
the database itself (no column for the application to maintain). The index on lower(surname)
stays: tournament imports match names by it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: every Latin letter with a mark in U+00C0-U+024F and its base letter, lower case
FROM = (
    "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝàáâãäåæçèéêëìíîïðñòóôõöøùúûüýÿĀ"
    "āĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĴĵĶķĹĺĻļĽľĿ"
    "ŀŁłŃńŅņŇňŌōŎŏŐőŒœŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽž"
    "ſƀƒƗƚƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǤǥǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍ"
    "ȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳ"
)
TO = (
    "aaaaaaaceeeeiiiidnoooooouuuuyaaaaaaaceeeeiiiidnoooooouuuuyya"
    "aaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiijjkklllllll"
    "lllnnnnnnoooooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzz"
    "sbfiloouuaaiioouuuuuuuuuuaaaaggggkkoooojggnnaaaaaaeeeeiiiioo"
    "oorrrruuuusstthhaaeeooooooooyy"
)

FOLD = f"""
CREATE FUNCTION ratingdb_fold_name(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $fold$
SELECT replace(replace(replace(lower(translate(
    replace(replace(replace(replace(name, 'ß', 'ss'), 'ẞ', 'ss'), 'þ', 'th'), 'Þ', 'th'),
    '{FROM}', '{TO}')), 'ae', 'a'), 'oe', 'o'), 'ue', 'u')
$fold$
"""


def upgrade() -> None:
    op.execute(FOLD)
    op.execute(
        "CREATE INDEX ix_players_folded_name ON players "
        "(ratingdb_fold_name(surname) text_pattern_ops, "
        "ratingdb_fold_name(given_name) text_pattern_ops)"
    )


def downgrade() -> None:
    op.drop_index("ix_players_folded_name", table_name="players")
    op.execute("DROP FUNCTION ratingdb_fold_name(text)")
