"""The DWZ versions before 2026 give the rules' numbers where newcomers score little and
where the performance iteration is slow (issue: one solver for first ratings and
performances). Each case is a tournament with the values of the rules' equations solved
exactly (tests/fixtures/dwz-classic-cases/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ratingdb.cli import main

CASES = Path(__file__).parent / "fixtures" / "dwz-classic-cases"
NAMES = ("negative-ri", "slow-performance", "stop-rule", "unbounded-down")


def evaluated(name: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        main, ["evaluate", str(CASES / f"{name}.json"), "--rechenmodul", "auto"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", NAMES)
def test_case_gives_the_rules_numbers(name: str) -> None:
    expected = json.loads((CASES / f"{name}.expected.json").read_text())
    doc = evaluated(name)
    assert doc["rechenmodul"] == expected["version"]
    out = {p["id"]: p for p in doc["players"]}
    for pid, values in expected["players"].items():
        for key, value in values.items():
            got = out[pid][key]
            if key == "iteration_value":  # shown rounded; the rules' value has a decimal
                assert abs(got - value) <= 0.5, (pid, key, got, value)
            elif key == "expected":
                assert got == pytest.approx(value, abs=1e-9), (pid, key)
            else:
                assert got == value, (pid, key, got, value)


def test_negative_iteration_value_is_corrected_as_computed() -> None:
    """WO 2014: 700 + R_i/8 with R_i = -77 -> 690.375 -> 690 (not 700 from R_i = 0)."""
    n = {p["id"]: p for p in evaluated("negative-ri")["players"]}["N"]
    assert (n["iteration_value"], n["rating_new"]) == (-77, 690)


def test_unbounded_down_group_is_rated_like_a_zero_result() -> None:
    """x = (x + 1020 + 1040 + 1060 + 1080 + 1100) / 6 - 677 -> 5x = 1238 -> 247.6;
    700 + 248 / 8 = 731. The trace says how the values were found."""
    result = CliRunner().invoke(
        main,
        ["evaluate", str(CASES / "unbounded-down.json"), "--rechenmodul", "auto", "--trace"],
    )
    doc = json.loads(result.stdout)
    first = doc["trace"]["first_rating"]
    assert first["method"] == "solver"
    final = dict(zip(first["order"], first["steps"][-1], strict=True))
    assert final["A"] == pytest.approx(247.6, abs=1e-3)
    assert final["B"] == pytest.approx(247.6, abs=1e-3)


def test_slow_performance_is_the_root_to_a_thousandth() -> None:
    """R_h where W_e(R_h) = W = 1 (X beat L 355, lost to four 2400s), from the trace."""
    from scipy.special import ndtr

    result = CliRunner().invoke(
        main,
        ["evaluate", str(CASES / "slow-performance.json"), "--rechenmodul", "auto", "--trace"],
    )
    steps = json.loads(result.stdout)["trace"]["performance"]["X"]
    r_h = steps[-1]
    expected = sum(float(ndtr((r_h - o) / 282.842712474619)) for o in (355, *[2400] * 4))
    assert abs(expected - 1.0) <= 0.001
    assert r_h == pytest.approx(1326.71, abs=0.01)
