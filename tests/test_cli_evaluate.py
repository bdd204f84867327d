"""``ratingdb evaluate`` through the real command line (DESIGN.md, single-tournament interface).

Good input: the worked example of WO Anhang 3.1 gives the published values, from a file,
from stdin and inside an array; ``--trace``, ``--precision`` and ``--format table`` work.
Bad input: exit code 2, one line ``error: ...`` on stderr naming the place (JSON path or
line/column), no traceback, nothing on stdout. Each bad input is the example with exactly
one thing changed.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ratingdb.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLE_PATH = FIXTURES / "wo-2026-example.json"
EXPECTED_PATH = FIXTURES / "wo-2026-example.expected.json"
EXAMPLE: dict[str, Any] = json.loads(EXAMPLE_PATH.read_text(encoding="utf-8"))
EXPECTED: dict[str, Any] = json.loads(EXPECTED_PATH.read_text(encoding="utf-8"))


def make_runner() -> CliRunner:
    """A runner whose ``result.stdout`` and ``result.stderr`` are kept apart.

    click < 8.2 mixes stderr into the output unless ``mix_stderr=False``; click >= 8.2
    removed that argument and always keeps ``stdout`` and ``stderr`` separate.
    """
    if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    return CliRunner()


def invoke(args: list[str], stdin: bytes | str | None = None):
    return make_runner().invoke(main, ["evaluate", *args], input=stdin, env={"RATINGDB_LANG": "en"})


def example() -> dict[str, Any]:
    return copy.deepcopy(EXAMPLE)


def assert_matches_expected(result: dict[str, Any]) -> None:
    players = {p["id"]: p for p in result["players"]}
    assert set(players) == set(EXPECTED["players"])
    for pid, want in EXPECTED["players"].items():
        for key in ("rating_new", "index_new", "stored"):
            if key in want:
                assert players[pid][key] == want[key], (pid, key)


# -- good input -------------------------------------------------------------------------
def test_example_file_gives_the_published_values() -> None:
    result = invoke([str(EXAMPLE_PATH)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    out = json.loads(result.stdout)
    assert out["rules"] == "dwz2026"
    assert out["precision"] == "table"
    assert out["iterations"] == EXPECTED["iterations"]
    assert out["tournament"]["id"] == EXAMPLE["tournament"]["id"]
    assert [p["id"] for p in out["players"]] == [p["id"] for p in EXAMPLE["players"]]
    assert_matches_expected(out)
    assert "trace" not in out


def test_dash_reads_stdin() -> None:
    result = invoke(["-"], stdin=EXAMPLE_PATH.read_bytes())
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert_matches_expected(out)
    from_file = json.loads(invoke([str(EXAMPLE_PATH)]).stdout)
    assert out == from_file


def test_array_of_two_tournaments_gives_two_results_in_order(tmp_path: Path) -> None:
    second = example()
    second["tournament"]["id"] = "second"
    # a different second tournament: only A, B, C and their games among themselves
    second["players"] = [p for p in second["players"] if p["id"] in ("A", "B", "C")]
    keep = ("A", "B", "C")
    second["games"] = [g for g in second["games"] if g["white"] in keep and g["black"] in keep]
    path = tmp_path / "two.json"
    path.write_text(json.dumps([example(), second]), encoding="utf-8")
    result = invoke([str(path)])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert isinstance(out, list)
    assert len(out) == 2
    assert [r["tournament"]["id"] for r in out] == [EXAMPLE["tournament"]["id"], "second"]
    assert_matches_expected(out[0])
    assert [p["id"] for p in out[1]["players"]] == ["A", "B", "C"]
    # the first element is exactly what the single tournament gives
    single = json.loads(invoke([str(EXAMPLE_PATH)]).stdout)
    assert out[0] == single


def test_single_element_array_still_returns_an_array(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps([example()]), encoding="utf-8")
    result = invoke([str(path)])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert isinstance(out, list)
    assert len(out) == 1
    assert_matches_expected(out[0])


def test_trace_flag_adds_trace_key() -> None:
    plain = json.loads(invoke([str(EXAMPLE_PATH)]).stdout)
    assert "trace" not in plain
    result = invoke([str(EXAMPLE_PATH), "--trace"])
    assert result.exit_code == 0, result.stderr
    traced = json.loads(result.stdout)
    assert "trace" in traced
    assert traced["trace"] is not None
    # the trace is the only difference
    assert {k: v for k, v in traced.items() if k != "trace"} == plain
    first = traced["trace"]["first_rating"]
    assert first["order"] == EXPECTED["iteration_trace_order"]
    assert first["steps"][0] == EXPECTED["iteration_trace"][0]
    assert first["steps"][-1] == EXPECTED["iteration_trace"][-1]


def test_precision_float_is_reported() -> None:
    result = invoke([str(EXAMPLE_PATH), "--precision", "float"])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["precision"] == "float"
    assert out["parameters"]["precision"] == "float"
    table = json.loads(invoke([str(EXAMPLE_PATH), "--precision", "table"]).stdout)
    assert table["precision"] == "table"


def test_format_table() -> None:
    result = invoke([str(EXAMPLE_PATH), "--format", "table"])
    assert result.exit_code == 0, result.stderr
    assert "2081-56" in result.stdout  # B's new rating and index
    assert "1961*" in result.stdout  # G's performance, exceptional
    with pytest.raises(json.JSONDecodeError):
        json.loads(result.stdout)


def test_module_entry_point_runs_the_example() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ratingdb.cli", "evaluate", str(EXAMPLE_PATH)],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    assert_matches_expected(json.loads(proc.stdout))


# -- bad input ----------------------------------------------------------------------------
def _unknown_player(d: dict[str, Any]) -> None:
    d["games"][3]["white"] = "ZZ"


def _duplicate_id(d: dict[str, Any]) -> None:
    d["players"][1]["id"] = d["players"][0]["id"]


def _against_himself(d: dict[str, Any]) -> None:
    d["games"][3]["black"] = d["games"][3]["white"]


def _unknown_result(d: dict[str, Any]) -> None:
    d["games"][3]["result"] = "2-0"


def _result_not_a_string(d: dict[str, Any]) -> None:
    d["games"][3]["result"] = ["1-0"]


def _end_before_start(d: dict[str, Any]) -> None:
    d["tournament"]["end"] = "2026-08-09"


def _rating_zero(d: dict[str, Any]) -> None:
    d["players"][0]["rating"] = 0


def _rating_negative(d: dict[str, Any]) -> None:
    d["players"][0]["rating"] = -5


def _residual_quarter(d: dict[str, Any]) -> None:
    d["players"][8]["residual_games"][0]["score"] = 0.25


def _birth_year_string(d: dict[str, Any]) -> None:
    d["players"][0]["birth_year"] = "1986"


def _rating_float(d: dict[str, Any]) -> None:
    d["players"][0]["rating"] = 1500.5


def _rating_huge(d: dict[str, Any]) -> None:
    d["players"][0]["rating"] = 10**30


def _compact_date(d: dict[str, Any]) -> None:
    d["tournament"]["end"] = "20261212"


def _missing_tournament(d: dict[str, Any]) -> None:
    del d["tournament"]


def _match_of_three(d: dict[str, Any]) -> None:
    # one change in substance: a match (Zweikampf) of the first three players; their
    # games among themselves are kept so that nothing else is wrong
    keep = {p["id"] for p in d["players"][:3]}
    d["tournament"]["kind"] = "match"
    d["players"] = d["players"][:3]
    d["games"] = [g for g in d["games"] if g["white"] in keep and g["black"] in keep]


def _as_json(change: Callable[[dict[str, Any]], None]) -> bytes:
    d = example()
    change(d)
    return json.dumps(d, indent=1).encode("utf-8")


def _second_of_array() -> bytes:
    bad = example()
    _unknown_player(bad)
    return json.dumps([example(), bad], indent=1).encode("utf-8")


def _malformed() -> bytes:
    # drop the comma after the tournament object: line 10 ('"players": [') is unexpected
    text = json.dumps(example(), indent=1)
    broken = text.replace('"kind": "individual"\n },', '"kind": "individual"\n }', 1)
    assert broken != text
    return broken.encode("utf-8")


def _not_utf8() -> bytes:
    return (
        json.dumps(example(), indent=1, ensure_ascii=False)
        .encode("utf-8")
        .replace(b"Player A", b"Player \xff\xfe", 1)
    )


#: (test id, input bytes, location that must appear in the error line)
BAD_JSON_CASES: list[tuple[str, bytes, str]] = [
    ("unknown-player", _as_json(_unknown_player), "$.games[3].white"),
    ("duplicate-id", _as_json(_duplicate_id), "$.players[1].id"),
    ("against-himself", _as_json(_against_himself), "$.games[3]: "),
    ("unknown-result", _as_json(_unknown_result), "$.games[3].result"),
    ("result-not-a-string", _as_json(_result_not_a_string), "$.games[3].result"),
    ("end-before-start", _as_json(_end_before_start), "$.tournament.end"),
    ("rating-zero", _as_json(_rating_zero), "$.players[0].rating"),
    ("rating-negative", _as_json(_rating_negative), "$.players[0].rating"),
    ("residual-score-quarter", _as_json(_residual_quarter), "$.players[8].residual_games[0].score"),
    ("malformed-json", _malformed(), "line 10, column 2"),
    ("birth-year-string", _as_json(_birth_year_string), "$.players[0].birth_year"),
    ("rating-float", _as_json(_rating_float), "$.players[0].rating"),
    ("rating-huge", _as_json(_rating_huge), "$.players[0].rating"),
    ("compact-date", _as_json(_compact_date), "$.tournament.end"),
    ("missing-tournament", _as_json(_missing_tournament), "$.tournament: "),
    ("match-of-three", _as_json(_match_of_three), "$.players"),
    ("error-in-second-of-array", _second_of_array(), "$[1].games[3].white"),
]


def assert_input_error(exit_code: int, stdout: str, stderr: str, *needles: str) -> str:
    """Exit 2, nothing on stdout, one 'error:' line on stderr holding every needle."""
    assert exit_code == 2, (exit_code, stdout, stderr)
    assert stdout == "", stdout
    assert "Traceback" not in stderr
    assert stderr.endswith("\n")
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    line = lines[0]
    assert line.startswith("error:"), line
    for needle in needles:
        assert needle in line, (needle, line)
    return line


@pytest.mark.parametrize(
    ("data", "location"),
    [pytest.param(data, loc, id=name) for name, data, loc in BAD_JSON_CASES],
)
def test_bad_file_is_an_input_error(tmp_path: Path, data: bytes, location: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    result = invoke([str(path)])
    assert_input_error(result.exit_code, result.stdout, result.stderr, location, str(path))


@pytest.mark.parametrize(
    ("data", "location"),
    [pytest.param(data, loc, id=name) for name, data, loc in BAD_JSON_CASES],
)
def test_bad_stdin_is_an_input_error(data: bytes, location: str) -> None:
    result = invoke(["-"], stdin=data)
    assert_input_error(result.exit_code, result.stdout, result.stderr, location, "<stdin>")


def test_error_in_second_tournament_names_its_path() -> None:
    result = invoke(["-"], stdin=_second_of_array())
    line = assert_input_error(result.exit_code, result.stdout, result.stderr)
    match = re.match(r"error: <stdin>: (\S+): ", line)
    assert match is not None, line
    assert match.group(1).startswith("$[1]"), line


def test_malformed_json_names_line_and_column() -> None:
    result = invoke(["-"], stdin=b'{"tournament": {\n  "id": "T1",,\n}')
    line = assert_input_error(result.exit_code, result.stdout, result.stderr)
    assert re.search(r"line \d+, column \d+", line), line
    assert "line 2, column 14" in line


def test_non_utf8_stdin() -> None:
    result = invoke(["-"], stdin=_not_utf8())
    line = assert_input_error(result.exit_code, result.stdout, result.stderr, "<stdin>")
    assert re.search(r"byte \d+", line), line
    assert "UTF-8" in line


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "does-not-exist.json"
    result = invoke([str(path)])
    line = assert_input_error(result.exit_code, result.stdout, result.stderr, str(path))
    assert "cannot read" in line


def _unbounded_group() -> bytes:
    """Two unrated players who beat all five rated players and drew each other: W = W_e
    needs an infinite rating (DESIGN.md, last decision where the WO is silent)."""
    d = example()
    d["players"] = [{"id": f"E{k}", "rating": 1500 + 50 * k, "index": 10} for k in range(5)]
    d["players"] += [{"id": "U1"}, {"id": "U2"}]
    d["games"] = [
        {"white": u, "black": f"E{k}", "result": "1-0"} for u in ("U1", "U2") for k in range(5)
    ]
    d["games"].append({"white": "U1", "black": "U2", "result": "1/2-1/2"})
    return json.dumps(d).encode("utf-8")


def test_table_precision_ends_for_a_group_without_a_finite_rating() -> None:
    """DESIGN.md: in table precision the procedure ends (P saturates) and its result stands."""
    result = invoke(["-"], stdin=_unbounded_group())
    assert result.exit_code == 0, result.stderr
    out = {p["id"]: p for p in json.loads(result.stdout)["players"]}
    for pid in ("U1", "U2"):
        assert out[pid]["group"] == "first_stage"
        assert out[pid]["rating_new"] is not None


def test_float_precision_rates_a_group_without_a_finite_rating() -> None:
    """docs/rules-dwz2026.md: in float precision the group is a 100 % result of the group
    (3.4.1.3): each member gets a fictitious draw, nobody is refused, and the trace says
    the values were solved for."""
    result = invoke(["-", "--precision", "float", "--trace"], stdin=_unbounded_group())
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    out = {p["id"]: p for p in doc["players"]}
    assert out["U1"]["rating_new"] == out["U2"]["rating_new"] > 2000
    assert doc["trace"]["first_rating"]["method"] == "solver"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "stdin", "needle"),
    [
        pytest.param(["-"], _as_json(_unknown_player), "$.games[3].white", id="unknown-player"),
        pytest.param(["-"], _malformed(), "line 10, column 2", id="malformed-json"),
        pytest.param(["-"], _not_utf8(), "<stdin>", id="not-utf8"),
        pytest.param(["/nonexistent/ratingdb/none.json"], b"", "none.json", id="missing-file"),
    ],
)
def test_module_entry_point_has_no_traceback(args: list[str], stdin: bytes, needle: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ratingdb.cli", "evaluate", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        env={**os.environ, "RATINGDB_LANG": "en"},
    )
    assert_input_error(
        proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"), needle
    )
