"""Rechenmodul parameters validated by one schema (ratingdb/rules/parameters.py):
no Rechenmodul that can break a run is stored. Each bad value of the issue through
``ratingdb rechenmodul add`` is one error line naming the parameter, exit code 2, and the
rechenmodule table (and the change points) unchanged; a stored row that fails the schema
stops a run with one line; any parameter set the schema accepts lets a replay run."""

from __future__ import annotations

import json
import typing
from dataclasses import fields
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text

from ratingdb.engine.history import History
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules import FAMILIES
from ratingdb.rules.parameters import In, bounds, rows
from tests.cli import run
from tests.test_engine_replay import histories

#: (option value, text the one error line must hold): the issue's cases and their kin
CASES = [
    ("k0={}", "parameter k0: rows missing: young, adult, strong"),
    ('k0={"young": [60], "adult": [], "strong": []}', "parameter k0: row young needs 11 values"),
    ("k_max=NaN", "parameter k_max: expected a finite number, got nan"),
    ("k_max=Infinity", "parameter k_max: expected a finite number, got inf"),
    ("k_max=-Infinity", "parameter k_max: expected a finite number, got -inf"),
    ("k_max=1e308", "parameter k_max: must be between 1 and 200, got 1E+308"),
    ("max_iterations=1000000000000", "parameter max_iterations: must be between 100 and 10000"),
    ("max_iterations=" + "9" * 5000, "parameter max_iterations: expected a whole number"),
    ("nonsense=1", "unknown DWZ 2026 parameter(s): nonsense"),
    ("k0=5", "parameter k0: expected an object of rows, got 5"),
    ("round_change_first=1", "parameter round_change_first: input should be a valid boolean"),
    ('t="30"', "parameter t: expected a whole number, got '30'"),
    ("t=abc", "parameter t: expected a whole number, got 'abc'"),
    ("r=abc", "parameter r: expected a finite number, got 'abc'"),
    ("t=30.5", "parameter t: expected a whole number, got 30.5"),
    ("precision=fast", "parameter precision: input should be 'table' or 'float'"),
    ("rating_floor=2500", "first_rating_pivot must be above rating_floor"),
    ("k0=" + "[" * 100_000, "parameter k0: expected an object of rows"),
]


def table(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return [
            *conn.execute(text("SELECT * FROM rechenmodule ORDER BY id")).all(),
            *conn.execute(text("SELECT count(*) FROM change_points")).all(),
        ]


def one_line(out: Any) -> str:
    assert out.returncode == 2, out.stderr
    assert out.stdout == "" and "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return str(lines[0])


@pytest.mark.parametrize(("setting", "needle"), CASES, ids=[c[0][:30] for c in CASES])
def test_a_bad_setting_is_one_line_and_stores_nothing(migrated_engine, setting, needle):
    before = table(migrated_engine)
    out = run(
        ["rechenmodul", "add", "--version", "bad", "--valid-from", "2031-01-01",
         "--set", setting],
        migrated_engine.url,
    )  # fmt: skip
    line = one_line(out)
    assert line.startswith("error: parameters: ") and needle in line, line
    assert table(migrated_engine) == before


def test_every_problem_on_one_line(migrated_engine):
    out = run(
        ["rechenmodul", "add", "--version", "bad", "--valid-from", "2031-01-01",
         "--set", "k_max=NaN", "--set", "t=0", "--set", "k_maximum=1"],
        migrated_engine.url,
    )  # fmt: skip
    assert one_line(out) == (
        "error: parameters: unknown DWZ 2026 parameter(s): k_maximum; parameter t: must be "
        "between 1 and 1000, got 0; parameter k_max: expected a finite number, got nan"
    )


@pytest.mark.parametrize(
    ("family", "parameters", "needle"),
    [
        ("dwz2026", {"k0": {}}, "parameter k0: rows missing"),
        ("dwz2026", {"k0": {"young": [60] * 11, "adult": [60] * 11, "strong": [60] * 10 + ["x"]}},
         "parameter k0.strong[10]: expected a whole number, got 'x'"),
        ("dwz2026", {"k0": {"young": [60] * 11, "adult": [60] * 11, "strong": [60] * 11,
                            "old": [60] * 11}}, "unknown rows: old"),
        ("dwz-classic", {"max_iterations": 10**12}, "parameter max_iterations: must be between"),
        ("ingo", {"short_tournaments": {"3": [7, 1e308]}}, "short_tournaments.3[1]: must be"),
        ("elo-kbsb", {"d_extreme": "Infinity"}, "parameter d_extreme: expected a whole number"),
        ("elo-online", {"scale": 1e308}, "parameter scale: must be between 100 and 4000"),
    ],
)  # fmt: skip
def test_a_bad_parameters_file_is_one_line(migrated_engine, tmp_path, family, parameters, needle):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(parameters))
    before = table(migrated_engine)
    out = run(
        ["rechenmodul", "add", "--family", family, "--version", "bad",
         "--valid-from", "2031-01-01", "--parameters", str(path)],
        migrated_engine.url,
    )  # fmt: skip
    line = one_line(out)
    assert line.startswith("error: parameters: ") and needle in line, line
    assert table(migrated_engine) == before


def test_a_stored_row_is_validated_when_read_back(scratch_db):
    """A row written past the schema (by hand, or by an older ratingdb) stops the run before
    any tournament with one line naming the version; nothing is written."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    assert run(["db", "upgrade"], scratch_db).returncode == 0
    engine = create_engine(scratch_db, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO rechenmodule (family, version, valid_from, parameters, description)"
                " VALUES ('dwz2026', 'hand', '2030-01-01', CAST(:p AS jsonb), '')"
            ),
            {"p": json.dumps({"k0": {}})},
        )
    before = table(engine)
    line = one_line(run(["recalc", "--full", "--quiet"], scratch_db))
    assert "Rechenmodul dwz2026/hand: parameter k0: rows missing" in line, line
    assert table(engine) == before
    engine.dispose()


# -- the schema itself ------------------------------------------------------------------------
def numeric(cls: type) -> list[str]:
    hints = typing.get_type_hints(cls)
    names = []
    for f in fields(cls):
        kinds = {hints[f.name], *typing.get_args(hints[f.name])}
        if kinds & {int, Decimal}:
            names.append(f.name)
    return names


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_number_has_a_range_holding_its_default(family):
    cls = FAMILIES[family].parameters
    declared = bounds(cls)
    assert set(numeric(cls)) <= set(declared), set(numeric(cls)) - set(declared)
    defaults = cls()
    for name, bound in declared.items():
        value = getattr(defaults, name)
        if value is not None and not isinstance(value, dict):
            assert bound.low <= value <= bound.high, (name, value)


def test_every_dsb_version_and_stored_default_passes():
    from ratingdb.rules import dsb_timeline

    for entry in dsb_timeline.rechenmodule():
        FAMILIES[entry.family].parameters.from_dict(entry.parameters)
    seed = (
        Path(__file__).parents[1] / "migrations" / "versions" / "0002_seed_dwz2026_rechenmodul.py"
    )
    namespace: dict[str, Any] = {}
    exec(compile(seed.read_text(), str(seed), "exec"), namespace)  # the seeded dict as is
    FAMILIES["dwz2026"].parameters.from_dict(namespace["PARAMETERS"])


def test_numbers_keep_their_exact_values():
    params = FAMILIES["dwz2026"].parameters.from_dict({"r": 0.1, "k_max": "79.5", "t": 40.0})
    assert (params.r, params.k_max, params.t) == (Decimal("0.1"), Decimal("79.5"), 40)
    assert type(params.t) is int and params.to_dict()["r"] == 0.1


def test_code_cannot_build_an_object_outside_the_schema():
    cls = FAMILIES["dwz2026"].parameters
    with pytest.raises(ValueError, match="max_iterations"):
        cls(max_iterations=10**12)
    with pytest.raises(ValueError, match="precision"):
        cls().with_precision("exact")  # type: ignore[arg-type]


# -- any accepted parameter set lets a replay run -----------------------------------------------
def value_in(bound: In, decimal: bool) -> st.SearchStrategy[Any]:
    if decimal:
        return st.decimals(bound.low, bound.high, places=3).map(float)
    return st.integers(int(bound.lo), int(bound.hi))


@st.composite
def parameter_sets(draw: st.DrawFn, family: str) -> dict[str, Any]:
    """Each field the default or, one time in three, any value of its declared schema."""
    cls = FAMILIES[family].parameters
    hints = typing.get_type_hints(cls)
    declared = bounds(cls)
    tables = rows(cls)
    defaults = cls().to_dict()
    out: dict[str, Any] = {}
    for f in fields(cls):
        if draw(st.integers(0, 2)) != 0:
            continue
        hint = hints[f.name]
        if f.name in tables:
            shape = tables[f.name]
            out[f.name] = {
                row: draw(st.lists(value_in(declared[f.name], False), min_size=shape.length,
                                   max_size=shape.length))
                for row in shape.names
            }  # fmt: skip
        elif f.name == "short_tournaments":
            cell = st.tuples(st.integers(0, 100), st.integers(0, 300)).map(list)
            out[f.name] = draw(st.dictionaries(st.integers(1, 100).map(str), cell, max_size=4))
        elif f.name in declared:
            value = value_in(declared[f.name], Decimal in {hint, *typing.get_args(hint)})
            out[f.name] = draw(value)
        elif typing.get_origin(hint) is typing.Literal:
            out[f.name] = draw(st.sampled_from(typing.get_args(hint)))
        elif hint is bool:
            out[f.name] = draw(st.booleans())
        else:
            raise AssertionError(f"no strategy for {family}.{f.name}: {hint}")
        assert f.name in defaults
    return out


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), history=histories())
def test_any_accepted_parameter_set_runs(data, history):
    family = data.draw(st.sampled_from(sorted(FAMILIES)))
    raw = data.draw(parameter_sets(family))
    try:
        params = FAMILIES[family].parameters.from_dict(raw)
    except ValueError as err:
        # only the cross-field checks may refuse values drawn from the declared ranges
        if "parameter " in str(err) or "unknown" in str(err):
            raise
        reject()
    players, tournaments, _ = history
    version = RechenmodulVersion(family, "drawn", date(1900, 1, 1), params)
    h = History(Timeline([version]), dict(players), list(tournaments))
    h.full_replay()
    assert h.snapshots
