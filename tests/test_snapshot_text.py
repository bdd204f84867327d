"""The snapshot rows as COPY text (ratingdb/db/snapshot_text.py) store what psycopg's own
adaptation of the same values stores, column for column."""

from __future__ import annotations

import json
import random
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from operator import attrgetter
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from psycopg.rows import dict_row
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

from ratingdb.db.models import RatingSnapshot
from ratingdb.db.snapshot_json import compact, floats_json, residual_json
from ratingdb.db.snapshot_text import (
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    SNAPSHOT_COLUMNS,
    copy_snapshots,
    output_text,
    snapshot_line,
    snapshot_lines,
    text_value,
)
from ratingdb.engine.model import ResidualEntry, Snapshot, SnapshotInput
from ratingdb.rules.snapshots import SnapshotOutput
from tests.conftest import at_head

#: text values COPY must escape, and plain ones
TEXTS = ["dwz", "fide", "a\tb", "c\\d", "e\nf", "g\rh", "\\N", "ü ß", "", None]
FLOATS = [0.0, -0.0, 0.5, 1e-05, 0.1 + 0.2, 0.9999999999999999, 123.456, 2.5e-10]


def _maybe(rng: random.Random, value: Any) -> Any:
    return None if rng.random() < 0.25 else value


def _snapshot(rng: random.Random, n: int) -> Snapshot:
    residual = tuple(
        ResidualEntry(rng.randint(1, 9999), k, rng.randint(800, 2700), Decimal("0.5"),
                      date(2020, 1, 1 + k))
        for k in range(rng.choice([0, 0, 1, 3]))
    )  # fmt: skip
    inp = SnapshotInput(
        rating=_maybe(rng, rng.randint(800, 2800)),
        index=_maybe(rng, rng.randint(0, 150)),
        rating_source=rng.choice(TEXTS),
        member=rng.random() < 0.8,
        birth_year=_maybe(rng, rng.randint(1930, 2020)),
        residual=residual,
        rechenmodul=rng.choice(["dwz-2016", "dwz-2026"]),
    )
    new_residual = [
        {"opponent_rating": rng.randint(800, 2700), "score": rng.choice([0, 0.5, 1]),
         "date": "2021-03-04", "note": rng.choice(TEXTS)}
        for _ in range(rng.choice([0, 0, 2]))
    ]  # fmt: skip
    out = SnapshotOutput(
        group=rng.choice(["established", "first_stage", "remaining", "x\ty", None]),
        age_class=rng.choice(["adult", "youth", "a\\b", None]),
        rating_old=_maybe(rng, rng.randint(800, 2800)),
        index_old=_maybe(rng, rng.randint(0, 150)),
        k=_maybe(rng, rng.choice([30, 17.5, 5.25, 1e-05, 0.1 + 0.2, 0, -0.0])),
        opponents_avg=_maybe(rng, rng.randint(800, 2800)),
        score=rng.choice([0.0, -0.0, 0, 0.5, 3, 7.5, 0.1 + 0.2]),
        games=rng.randint(0, 20),
        expected=_maybe(rng, rng.choice([3.1415, 0.0, 0, 2, 1e-05, 12.3456, 0.0005, 1e-15])),
        performance=_maybe(rng, rng.randint(0, 3000)),
        exceptional=rng.choice([True, False, False, None]),  # None: NULL, as psycopg wrote it
        start_value=_maybe(rng, rng.randint(800, 2800)),
        iteration_value=_maybe(rng, rng.randint(800, 2800)),
        rating_new=_maybe(rng, rng.randint(800, 2800)),
        index_new=_maybe(rng, rng.randint(0, 150)),
        stored=rng.random() < 0.7,
        new_residual_games=new_residual,
        expected_games=[rng.choice([*FLOATS, None]) for _ in range(rng.randint(0, 9))],
    )
    return Snapshot(n // 7 + 1, n + 1, _maybe(rng, n + 100), inp, out)


def _row(s: Snapshot, modul_ids: dict[str, int]) -> tuple[Any, ...]:
    """The row as the replay wrote it before the text (a tuple psycopg adapts)."""
    o, i = s.output, s.input
    return (
        s.tournament_id, s.participant_id, s.player_id, modul_ids[i.rechenmodul], i.rating,
        i.index, i.rating_source, i.member, i.birth_year, residual_json(i.residual), o.group,
        o.age_class, o.rating_old, o.index_old, o.k, o.opponents_avg, o.score, o.games,
        o.expected, o.performance, o.exceptional, o.start_value, o.iteration_value,
        o.rating_new, o.index_new, o.stored, compact(o.new_residual_games),
        floats_json(o.expected_games),
    )  # fmt: skip


@pytest.fixture
def raw(scratch_db):
    at_head(scratch_db)
    url = create_engine(scratch_db, poolclass=NullPool).url
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        for table in ("by_text", "by_rows"):
            # the columns' types (numeric scales, varchar lengths), not the checks
            conn.execute(
                f"CREATE TEMP TABLE {table} AS SELECT {SNAPSHOT_COLUMNS} FROM rating_snapshots "
                "WITH NO DATA"
            )
        yield conn


#: each column's attribute of a snapshot (found by the column's name, not the line's order)
ATTRIBUTES = {
    "tournament_id": "tournament_id",
    "participant_id": "participant_id",
    "player_id": "player_id",
    "rating_in": "input.rating",
    "index_in": "input.index",
    "rating_source": "input.rating_source",
    "member": "input.member",
    "birth_year": "input.birth_year",
    "player_group": "output.group",
    **{
        name: f"output.{name}"
        for name in [
            "age_class",
            "rating_old",
            "index_old",
            "k",
            "opponents_avg",
            "score",
            "games",
            "expected",
            "performance",
            "exceptional",
            "start_value",
            "iteration_value",
            "rating_new",
            "index_new",
            "stored",
        ]
    },
}
#: the JSON columns' values (as stored: parsed)
JSON_VALUES = {
    "residual_in": lambda s: json.loads(residual_json(s.input.residual)),
    "new_residual_games": lambda s: json.loads(compact(s.output.new_residual_games)),
    "expected_games": lambda s: json.loads(floats_json(s.output.expected_games)),
}


def value_of(name: str, s: Snapshot, modul_ids: dict[str, int]) -> Any:
    if name == "rechenmodul_id":
        return modul_ids[s.input.rechenmodul]
    if name in JSON_VALUES:
        return JSON_VALUES[name](s)
    return attrgetter(ATTRIBUTES[name])(s)


#: the numeric columns' scales (the stored value is the Python value rounded to them)
SCALES = {"k": 1, "score": 1, "expected": 3}


def test_the_columns_are_the_tables_and_in_the_lines_order():
    assert SNAPSHOT_COLUMNS.startswith(INPUT_COLUMNS) and SNAPSHOT_COLUMNS.endswith(OUTPUT_COLUMNS)
    names = [c.strip() for c in SNAPSHOT_COLUMNS.split(",")]
    table = [c.name for c in RatingSnapshot.__table__.columns if c.name != "id"]
    assert (
        sorted(names) == sorted(table) == sorted([*ATTRIBUTES, *JSON_VALUES, "rechenmodul_id"])
    )  # each column once, none left out
    rng = random.Random(3)
    s = _snapshot(rng, 1)
    line = snapshot_line(s, {"dwz-2016": 1, "dwz-2026": 2})
    assert line.endswith("\n") and line.count("\n") == 1
    assert line.count("\t") == len(SNAPSHOT_COLUMNS.split(",")) - 1
    assert output_text(s.output).count("\t") == len(OUTPUT_COLUMNS.split(",")) - 1


def test_text_values_are_escaped_as_copy_reads_them():
    assert text_value(None) == "\\N"
    assert text_value("\\N") == "\\\\N"  # the two characters, not NULL
    assert text_value("a\tb\nc\rd\\e") == "a\\tb\\nc\\rd\\\\e"
    assert text_value("plain ü") == "plain ü"


def test_copy_text_stores_what_psycopg_adaptation_stores(raw):
    rng = random.Random(20261128)
    snaps = [_snapshot(rng, n) for n in range(600)]
    modul_ids = {"dwz-2016": 4, "dwz-2026": 5}
    # half with the output encoded beforehand, as the worker process does
    for s in snaps[::2]:
        s.encoded = output_text(s.output)
    copy_snapshots(raw, "by_text", snaps, modul_ids)
    with raw.cursor() as cur, cur.copy(f"COPY by_rows ({SNAPSHOT_COLUMNS}) FROM STDIN") as copy:
        for s in snaps:
            copy.write_row(_row(s, modul_ids))

    def rows(table: str) -> list[str]:
        # each row as PostgreSQL prints it: numerics with their scale, jsonb as stored
        got = raw.execute(f"SELECT t::text FROM {table} t ORDER BY participant_id").fetchall()
        return [r[0] for r in got]

    by_text, by_rows = rows("by_text"), rows("by_rows")
    assert len(by_text) == len(snaps)
    assert by_text == by_rows
    # and each value sits in the column of its name (the comparison above shares the
    # column list with the text, this does not)
    with raw.cursor(row_factory=dict_row) as cur:
        stored = cur.execute("SELECT * FROM by_text ORDER BY participant_id").fetchall()
    for s, row in zip(snaps, stored, strict=True):
        for name in row:
            want, got = value_of(name, s, modul_ids), row[name]
            if name in SCALES and want is not None and got is not None:
                step = Decimal(1).scaleb(-SCALES[name])  # numeric input rounds halves up
                want = Decimal(repr(float(want))).quantize(step, ROUND_HALF_UP)
            assert got == want, (name, s.participant_id, got, want)
    nulls = raw.execute(
        "SELECT count(*) FILTER (WHERE rating_source IS NULL), "
        "count(*) FILTER (WHERE rating_source = '\\N'), "
        "count(*) FILTER (WHERE rating_source LIKE E'%\\t%') FROM by_text"
    ).fetchone()
    assert nulls is not None and all(n > 0 for n in nulls)  # NULL, "\N" and a tab all occur


# -- every value the output columns may hold ---------------------------------------------------
NUMBERS = st.one_of(
    st.none(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, places=3, max_value=10**6, min_value=-(10**6)),
    st.fractions(max_denominator=100),
    st.booleans(),
)
OUTPUTS = st.builds(
    SnapshotOutput,
    group=st.one_of(st.none(), st.sampled_from(TEXTS), st.text(max_size=5)),
    age_class=st.one_of(st.none(), st.sampled_from(["youth", "junior", "adult"])),
    rating_old=NUMBERS,
    index_old=NUMBERS,
    k=NUMBERS,
    opponents_avg=NUMBERS,
    score=NUMBERS.filter(lambda v: v is not None),  # NOT NULL columns: the rules give both
    games=NUMBERS.filter(lambda v: v is not None),
    expected=NUMBERS,
    performance=NUMBERS,
    exceptional=st.one_of(st.none(), st.booleans(), st.integers(0, 2)),
    start_value=NUMBERS,
    iteration_value=NUMBERS,
    rating_new=NUMBERS,
    index_new=NUMBERS,
    stored=st.booleans(),
    new_residual_games=st.one_of(
        st.just([]),
        st.lists(st.fixed_dictionaries({"score": st.sampled_from([0, 0.5, 1])}), max_size=2),
    ),
    expected_games=st.one_of(
        st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))),
        st.lists(st.one_of(st.integers(0, 1), st.floats(0, 1)), max_size=3),
        st.tuples(st.floats(0, 1)),
    ),
)


def _number(value: Any) -> str:
    """A number column's value in COPY's text format: NULL, or the number as Python
    writes it (what psycopg sends)."""
    return "\\N" if value is None else str(value)


def _column(value: Any) -> str:
    """A text or flag column's value in COPY's text format, as the COPY documentation
    states it (the oracle)."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    text = value if isinstance(value, str) else str(value)
    for raw, escaped in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        text = text.replace(raw, escaped)
    return text


@given(OUTPUTS)
def test_an_output_line_is_its_columns_in_copy_text(o):
    """Every output line (the module is compiled by Cython) is its 18 columns in COPY's
    text format: NULL, flags as t/f, numbers as Python writes them, JSON as json.dumps
    writes it, a text escaped."""
    compact_json = {"separators": (",", ":")}
    expected = [
        _column(o.group), _column(o.age_class),
        *[_number(getattr(o, name)) for name in (
            "rating_old", "index_old", "k", "opponents_avg", "score", "games", "expected",
            "performance")],
        _column(None if o.exceptional is None else bool(o.exceptional)),
        *[_number(getattr(o, name)) for name in (
            "start_value", "iteration_value", "rating_new", "index_new")],
        _column(bool(o.stored)),
        _column(json.dumps(list(o.new_residual_games), **compact_json)),
        _column(json.dumps(list(o.expected_games), **compact_json)),
    ]  # fmt: skip
    assert output_text(o) == "\t".join(expected) + "\n"


def test_zeros_are_written_as_themselves():
    """0.0 and -0.0 are equal keys of the float texts' cache: each keeps its own text."""
    zeros = SnapshotOutput(score=-0.0, expected_games=[0.0, -0.0])
    assert "\t-0.0\t" in output_text(zeros)
    assert output_text(zeros).endswith("[0.0,-0.0]\n")
    assert output_text(SnapshotOutput(expected_games=[-0.0, 0.0])).endswith("[-0.0,0.0]\n")


# -- whole rows ----------------------------------------------------------------------------------
def _ordinary(rng: random.Random, n: int) -> Snapshot:
    """A snapshot as most of a full replay's are: no residual games held, a plain rating
    source, the output encoded by the worker."""
    s = _snapshot(rng, n)
    s.input.residual = ()
    s.input.rating_source = rng.choice(["dwz", "fide", "national", None])
    s.output.group, s.output.age_class = "established", "adult"
    s.output.new_residual_games = []
    s.encoded = output_text(s.output)
    return s


def test_a_row_without_its_rechenmodul_or_values_is_refused():
    rng = random.Random(12)
    s = _ordinary(rng, 1)
    with pytest.raises(KeyError):  # a Rechenmodul without an id: snapshot_line's KeyError
        snapshot_lines([s], {})
    with pytest.raises(AttributeError):
        snapshot_lines([SimpleNamespace(tournament_id=1)], {"dwz-2016": 1})  # type: ignore[list-item]


def test_rows_are_their_lines_one_after_the_other():
    """Encoded by the worker or not, with residual games held or not: the rows are each
    snapshot's line, the output's columns the same either way."""
    rng = random.Random(13)
    snaps = [_ordinary(rng, n) for n in range(100)] + [_snapshot(rng, n) for n in range(100, 200)]
    modul_ids = {"dwz-2016": 1, "dwz-2026": 2}
    rows = snapshot_lines(snaps, modul_ids)
    assert rows == "".join(snapshot_line(s, modul_ids) for s in snaps)
    for s in snaps:
        unencoded = Snapshot(s.tournament_id, s.participant_id, s.player_id, s.input, s.output)
        assert snapshot_line(unencoded, modul_ids) == snapshot_line(s, modul_ids)
