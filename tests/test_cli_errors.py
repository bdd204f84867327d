"""One error hierarchy (ratingdb/errors.py) mapped once (ratingdb/services/outcomes.py) to
exit codes and HTTP statuses; commands catch nothing, and the web never imports them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ratingdb import errors
from ratingdb.db.connection import DatabaseUnavailable, NotMigrated
from ratingdb.db.recalc import RecalcBusy
from ratingdb.errors import ConvergenceError, RulesError
from ratingdb.io.trf import TrfError
from ratingdb.services.outcomes import as_error, outcome
from tests.cli import run

#: values of ``--set NAME=VALUE`` that no numeric parameter takes: JSON's NaN and
#: infinities, a float beyond range (JSON reads 1e400 as inf), strings, lists, objects, bools
BAD_SETTINGS = ["NaN", "nan", "Infinity", "-Infinity", "1e400", "abc", "[1]", "{}", "true"]
#: a numeric parameter of every family (Decimal and int fields)
FIELDS = [
    ("dwz2026", "k_max"),
    ("dwz2026", "t"),
    ("dwz-classic", "e_max"),
    ("ingo", "score_offset"),
    ("ingo", "min_games"),
    ("elo-kbsb", "k_first"),
    ("elo-online", "k_low"),
]


@pytest.mark.parametrize(("family", "key"), FIELDS)
def test_rechenmodul_add_with_a_bad_value_is_one_line(migrated_engine, family, key):
    for value in BAD_SETTINGS:
        out = run(
            ["rechenmodul", "add", "--family", family, "--version", "bad",
             "--valid-from", "2031-01-01", "--set", f"{key}={value}"],
            migrated_engine.url,
        )  # fmt: skip
        assert out.returncode == 2, (value, out.stderr)
        assert out.stdout == "" and "Traceback" not in out.stderr, (value, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: parameters: "), (value, lines)
        assert key in lines[0], (value, lines)


def test_the_classes_and_their_old_names():
    assert issubclass(TrfError, errors.InputError)
    assert issubclass(RulesError, errors.RatingdbError)
    assert issubclass(ConvergenceError, RulesError)
    assert issubclass(RecalcBusy, errors.Busy)
    assert issubclass(DatabaseUnavailable, errors.Unavailable)
    assert issubclass(NotMigrated, errors.Unavailable)
    assert issubclass(errors.NotFound, LookupError)


@pytest.mark.parametrize(
    ("error", "exit_code", "status"),
    [
        (errors.InputError("$.games[0]", "bad"), 2, 422),
        (errors.Refused("t.json", "value too long"), 2, 422),
        (RulesError("no finite solution"), 2, 422),
        (ConvergenceError("no convergence", ["A"]), 2, 422),
        (errors.NotFound("no tournament 'X'"), 2, 404),
        (errors.Forbidden("outside your organisation levels"), 2, 403),
        (errors.Unauthenticated("an API token is required"), 2, 401),
        (RecalcBusy("another recalculation run is in progress"), 3, 409),
        (NotMigrated("run `ratingdb db upgrade`"), 2, 503),
    ],
)
def test_one_table_maps_each_class(error, exit_code, status):
    found = outcome(error)
    assert (found.exit_code, found.status) == (exit_code, status)


def test_foreign_errors_and_context():
    assert isinstance(as_error(LookupError("no player with id 7")), errors.NotFound)
    assert as_error(KeyError("x")) is None and as_error(IndexError()) is None
    err = errors.InputError("$.players[0].rating", "DWZ ratings come from the database")
    named = err.with_context("t.json")
    assert type(named) is errors.InputError and named.message == err.message
    assert str(named) == "t.json: $.players[0].rating: DWZ ratings come from the database"
    assert named.location == "t.json: $.players[0].rating"
    stuck = ConvergenceError("did not converge", ["A", "B"]).with_context("$[1]")
    assert type(stuck) is ConvergenceError and stuck.players == ["A", "B"]
    assert str(stuck) == "$[1]: did not converge"
    refused = errors.Refused("", "value too long").with_context("t.json")
    assert str(refused) == "t.json: refused by the database, nothing written: value too long"
    assert refused.reason == "value too long"


@pytest.mark.slow
def test_the_web_never_imports_the_command_line():
    code = (
        "import sys, ratingdb.web.app; "
        "found = sorted(m for m in sys.modules if m.startswith('ratingdb.commands')); "
        "sys.exit(str(found) if found else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["player", "join", "1", "--club", "A0001", "--from", "2026-02-30"],
         "Invalid value for '--from': '2026-02-30' does not match the format '%Y-%m-%d'"),
        (["player", "leave", "abc", "--club", "A0001", "--on", "2026-01-01"],
         "Invalid value for 'PLAYER_ID': 'abc' is not a valid integer"),
        (["player", "join", "-5", "--club", "A0001", "--from", "2026-01-01"],
         "No such option '-5'"),
        (["export", "list", "--club", "A0001", "--date", "31.02.2020"],
         "Invalid value for '--date': '31.02.2020'"),
        (["export", "list", "--club", "A0001", "--format", "xls"],
         "Invalid value for '--format': 'xls' is not one of"),
        (["calc", "--rating", "abc", "--index", "5"], "Invalid value for '--rating'"),
        (["recalc", "--list", "-1"], "Invalid value for '--list': -1 is not in the range"),
        (["tournament", "add"], "Missing argument 'FILE'"),
        (["--lang", "xx", "recalc"], "Invalid value for '--lang': 'xx' is not one of"),
        (["no-such-command"], "No such command 'no-such-command'"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line(migrated_engine, args, needle):
    """An option's value click cannot read is bad input as any other: one ``error:`` line
    naming the command's help and exit code 2, not click's four-line usage block."""
    out = run(args, migrated_engine.url)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {needle}"), lines
    assert lines[0].endswith(" --help`)"), lines


def test_a_group_without_a_command_still_shows_its_help(migrated_engine):
    out = run(["tournament"], migrated_engine.url)
    assert "Usage:" in out.stdout + out.stderr and "Commands:" in out.stdout + out.stderr


@pytest.mark.parametrize(
    ("args", "line"),
    [
        # stored before: a version valid from 1900 (the whole history rated with it) or 9999
        (["--version", "x1", "--valid-from", "1900-01-01"],
         "error: --valid-from: 1900-01-01 is not plausible (from 1950-01-01 to "),
        (["--version", "x2", "--valid-from", "9999-01-01"],
         "error: --valid-from: 9999-01-01 is not plausible"),
        # stored before: a version without a name, or one with blanks around it
        (["--version", "", "--valid-from", "2026-11-01"],
         "error: --version: a version needs a name"),
        (["--version", " v ", "--valid-from", "2026-11-01"],
         "error: --version: not a version name"),
        # "refused by the database, nothing written: value too long" without the option
        (["--version", "v" * 31, "--valid-from", "2026-11-01"],
         "error: --version: a version name has at most 30 characters, not 31"),
        # "unknown DWZ 2026 parameter(s): " naming nothing
        (["--version", "x3", "--valid-from", "2026-11-01", "--set", "=1"],
         "error: --set '=1': expected NAME=VALUE"),
    ],
)  # fmt: skip
def test_rechenmodul_add_names_and_dates(migrated_engine, args, line):
    from sqlalchemy import text

    def versions() -> list[str]:
        with migrated_engine.connect() as conn:
            rows = conn.execute(text("SELECT version FROM rechenmodule ORDER BY id"))
            return list(rows.scalars())

    before = versions()
    out = run(["rechenmodul", "add", *args], migrated_engine.url)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(line), lines
    assert versions() == before


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        (None, "Fehler: --set '=1': erwartet NAME=WERT"),
        ("en", "error: --set '=1': expected NAME=VALUE"),
    ],
)
def test_a_refused_option_is_worded_in_the_language_of_the_call(migrated_engine, lang, line):
    args = ["rechenmodul", "add", "--version", "x4", "--valid-from", "2026-11-01", "--set", "=1"]
    out = run(args, migrated_engine.url, lang=lang)
    assert out.returncode == 2 and out.stderr.strip() == line
