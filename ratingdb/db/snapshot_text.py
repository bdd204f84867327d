# cython: annotation_typing=False
"""The rows of ``rating_snapshots`` as the text ``COPY … FROM STDIN`` reads.

A full replay writes one row per snapshot, 1.2 million at 250,000 players. Handing psycopg
a tuple per row cost the replaying process a tuple, a dumper call per column and the
JSON of three columns, about a fifth of its time. Here a row is one string, in two parts:

* :func:`output_text`, the 18 columns of the rules' output. It needs nothing but the
  output, so a full replay makes it in its worker process right after the rules ran
  (``encode`` of :func:`ratingdb.engine.stream.stream_full_replay`, kept as
  :attr:`Snapshot.encoded <ratingdb.engine.model.Snapshot.encoded>`), where the second
  core has time to spare;
* :func:`snapshot_line`, the 10 columns of the snapshot's identity and input in front of it.

The text is PostgreSQL's COPY text format: columns separated by a tab, ``\\N`` for NULL,
backslash, tab, newline and carriage return inside a value escaped with a backslash;
booleans ``t``/``f``; numbers as Python writes them (an integer in decimal, a float as its
shortest ``repr``, the text psycopg sends for it); the JSON columns as
:mod:`ratingdb.db.snapshot_json` writes them. ``tests/test_snapshot_text.py`` compares
rows written this way with the same values written through psycopg's own adaptation.

This module and :mod:`ratingdb.db.snapshot_json` are compiled by Cython (setup.py's
``CYTHON_MODULES``): plain Python, its one implementation, made about twice as fast; the
first line keeps Python's semantics (annotations are not enforced as C types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ratingdb.db.snapshot_json import (
    compact,
    floats_json,
    residual_json,
)
from ratingdb.engine.model import Snapshot
from ratingdb.rules.snapshots import SnapshotOutput

if TYPE_CHECKING:  # the worker process imports this module: no driver needed there
    import psycopg

#: the columns of a snapshot's identity and input, in the order :func:`snapshot_line`
#: writes them
INPUT_COLUMNS = (
    "tournament_id, participant_id, player_id, rechenmodul_id, rating_in, index_in, "
    "rating_source, member, birth_year, residual_in"
)
#: the columns of the rules' output, in the order :func:`output_text` writes them
OUTPUT_COLUMNS = (
    "player_group, age_class, rating_old, index_old, k, opponents_avg, score, games, "
    "expected, performance, exceptional, start_value, iteration_value, rating_new, "
    "index_new, stored, new_residual_games, expected_games"
)
#: every column a replay writes, in the order of a line
SNAPSHOT_COLUMNS = f"{INPUT_COLUMNS}, {OUTPUT_COLUMNS}"

#: NULL in COPY's text format
NULL = "\\N"
#: lines per ``COPY`` write (an incremental run forced from far back writes a million)
WRITE_LINES = 10_000
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def text_value(value: str | None) -> str:
    """A text column's value as COPY's text format writes it."""
    if value is None:
        return NULL
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        return value.translate(_ESCAPES)
    return value


def _flag(value: bool | None) -> str:
    """A boolean column (None stays NULL, as psycopg sent it: the column refuses it)."""
    return NULL if value is None else "t" if value else "f"


def output_text(o: SnapshotOutput) -> str:
    """The output columns (:data:`OUTPUT_COLUMNS`) of one snapshot, the line's end included."""
    return (
        f"{text_value(o.group)}\t{text_value(o.age_class)}\t"
        f"{NULL if o.rating_old is None else o.rating_old}\t"
        f"{NULL if o.index_old is None else o.index_old}\t"
        f"{NULL if o.k is None else o.k}\t"
        f"{NULL if o.opponents_avg is None else o.opponents_avg}\t"
        f"{o.score}\t{o.games}\t"
        f"{NULL if o.expected is None else o.expected}\t"
        f"{NULL if o.performance is None else o.performance}\t"
        f"{_flag(o.exceptional)}\t"
        f"{NULL if o.start_value is None else o.start_value}\t"
        f"{NULL if o.iteration_value is None else o.iteration_value}\t"
        f"{NULL if o.rating_new is None else o.rating_new}\t"
        f"{NULL if o.index_new is None else o.index_new}\t"
        f"{_flag(o.stored)}\t"
        f"{text_value(compact(o.new_residual_games))}\t"
        f"{text_value(floats_json(o.expected_games))}\n"
    )


def snapshot_line(s: Snapshot, modul_ids: dict[str, int]) -> str:
    """One ``rating_snapshots`` row (:data:`SNAPSHOT_COLUMNS`): the identity and input
    columns, then the output's: ``s.encoded`` if the replay had :func:`output_text` make
    them where the rules ran (the only ``encode`` a replay that writes is given), made
    here otherwise."""
    i = s.input
    return (
        f"{s.tournament_id}\t{s.participant_id}\t"
        f"{NULL if s.player_id is None else s.player_id}\t"
        f"{modul_ids[i.rechenmodul]}\t"
        f"{NULL if i.rating is None else i.rating}\t"
        f"{NULL if i.index is None else i.index}\t"
        f"{text_value(i.rating_source)}\t{_flag(i.member)}\t"
        f"{NULL if i.birth_year is None else i.birth_year}\t"
        f"{text_value(residual_json(i.residual))}\t"
        f"{s.encoded or output_text(s.output)}"
    )


def snapshot_lines(snapshots: list[Snapshot], modul_ids: dict[str, int]) -> str:
    """:func:`snapshot_line` of each of ``snapshots``, one after the other."""
    return "".join([snapshot_line(s, modul_ids) for s in snapshots])


def copy_snapshots(
    raw: psycopg.Connection[Any], table: str, snapshots: list[Snapshot], modul_ids: dict[str, int]
) -> None:
    """``COPY table (SNAPSHOT_COLUMNS) FROM STDIN`` with the lines of ``snapshots``
    (:func:`snapshot_lines`), :data:`WRITE_LINES` at a time."""
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({SNAPSHOT_COLUMNS}) FROM STDIN") as copy:
        for start in range(0, len(snapshots), WRITE_LINES):
            copy.write(snapshot_lines(snapshots[start : start + WRITE_LINES], modul_ids))
