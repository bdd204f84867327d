"""The classic DWZ rules (rule family ``dwz-classic``, ratingdb.rules.dwz_classic).

* Anhang 2.1 / 2.2 / 2.4 / 2.5 are read from verbatim copies of the rules text
  (tests/data/dwz_classic_anhang_2_*.txt) and compared cell by cell with the code.
* Hand-worked tournaments: every expected number is derived in the comments from the
  printed tables (P from Anhang 2.1 as ``P(D) -> range -> value``, D from Anhang 2.2) and
  the formulas; half-up rounding throughout.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from fractions import Fraction
from functools import partial
from typing import Any

import pytest

from ratingdb.errors import ConvergenceError
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules.dwz.iteration import Iterant, IterationRules, iterate
from ratingdb.rules.dwz_classic import RULES_NAME, DwzClassicParameters, evaluate
from ratingdb.rules.dwz_classic.coefficient import (
    change_constant,
    development_coefficient,
    new_rating,
    success_value,
)
from ratingdb.rules.dwz_classic.tables import (
    arithmetic_for,
    d_logistic,
    d_of_hundredths,
    p_hundredths,
    p_logistic,
)
from ratingdb.rules.rounding import round_half_up
from tests import builders
from tests.conftest import DATA

PARAMS = DwzClassicParameters()
FLOAT = PARAMS.with_precision("float")
AGES = ("youth", "junior", "adult")


def spec_text(name: str) -> str:
    lines = (DATA / f"dwz_classic_anhang_{name}.txt").read_text(encoding="utf-8").splitlines()
    return " ".join(line for line in lines if not line.startswith("#"))


def hundredths(text: str) -> int:
    """'0,73' -> 73"""
    return round_half_up(Decimal(text.replace(",", ".")) * 100)


# -- Anhang 2.1: P(D) ------------------------------------------------------------------------
def anhang_2_1() -> dict[int, tuple[int, int]]:
    """|D| -> (P better, P worse) for |D| = 0..1000, from the printed rows."""
    text = spec_text("2_1").split("schlechter")[-1]
    rows = re.findall(r"(\d+)-(\d+) (\d,\d\d) (\d,\d\d)", text)
    table = {}
    for low, high, better, worse in rows:
        for d in range(int(low), int(high) + 1):
            table[d] = (hundredths(better), hundredths(worse))
    assert ">735 1,00 0,00" in text
    for d in range(736, 1001):
        table[d] = (100, 0)
    return table


def test_anhang_2_1_every_difference():
    table = anhang_2_1()
    assert sorted(table) == list(range(1001))  # the ranges cover 0..735 without gaps
    for d, (better, worse) in table.items():
        assert better + worse == 100
        assert p_hundredths(d) == better, d
        assert p_hundredths(-d) == worse, d


def test_anhang_2_1_range_ends():
    # spot checks straight from the printed rows
    assert [p_hundredths(d) for d in (0, 3, 4, 25, 26, 735, 736)] == [50, 50, 51, 53, 54, 99, 100]
    assert [p_hundredths(d) for d in (-344, -345, -10_000)] == [12, 11, 0]


def test_logistic_approximation():
    # P(0) = 1/2; P(400) = 1/(1 + 10^-1) = 10/11; P(-400) = 1/11
    assert p_logistic(0) == 0.5
    assert p_logistic(400) == pytest.approx(10 / 11, abs=1e-12)
    assert p_logistic(-400) == pytest.approx(1 / 11, abs=1e-12)
    # D(10/11) = 400 * log10(10) = 400; clamped to +-677 (the largest D of the tables)
    assert d_logistic(10 / 11, 677) == pytest.approx(400, abs=1e-9)
    assert d_logistic(0.999, 677) == 677 and d_logistic(0.0, 677) == -677
    assert d_logistic(1.5, 677) == 677 and d_logistic(-0.5, 677) == -677


# -- Anhang 2.2: D(P) ------------------------------------------------------------------------
def anhang_2_2() -> dict[int, int]:
    pairs = re.findall(r"(\d,\d\d) (-?\d+)", spec_text("2_2"))
    return {hundredths(p): int(d) for p, d in pairs}


def test_anhang_2_2_every_value():
    table = anhang_2_2()
    assert sorted(table) == list(range(1, 100))
    assert {p: d_of_hundredths(p, 677) for p in table} == table
    # outside the table: 100 % / 0 % -> +-677 (4.7.2.1.2), clamped beyond
    assert [d_of_hundredths(p, 677) for p in (0, 100, -20, 140)] == [-677, 677, -677, 677]


def test_anhang_2_2_is_the_inverse_of_anhang_2_1():
    """Every printed D(P) lies in the range that Anhang 2.1 gives that same P."""
    for p, d in anhang_2_2().items():
        assert p_hundredths(d) == p


# -- Anhang 2.4: E ---------------------------------------------------------------------------
def anhang_2_4() -> list[tuple[list[tuple[int, int]], list[int]]]:
    """Rows: (rating ranges for youth / junior / adult as far as given, E for index 1..5, >5)."""
    text = spec_text("2_4").split("E=")[1]
    tokens = re.findall(r">\d+|\d+ - \d+|\d+", text)
    rows = []
    ranges: list[tuple[int, int]] = []
    values: list[int] = []
    for token in tokens:
        if token.startswith(">"):
            ranges.append((int(token[1:]) + 1, 3000))
        elif " - " in token:
            low, high = token.split(" - ")
            ranges.append((int(low), int(high)))
        else:
            values.append(int(token))
            if len(values) == 6:
                rows.append((ranges, values))
                ranges, values = [], []
    return rows


def test_anhang_2_4_every_cell():
    """E = (R_o/1000)^4 + J rounded, E <= 5*index, 5 <= E <= 30 (4.9.2) reproduces every cell
    of Anhang 2.4 for every rating 1..3000 and index 0..8 of every age class: no cell of the
    table disagrees with the formula."""
    rows = anhang_2_4()
    assert len(rows) == 26 and rows[-1][1] == [5, 10, 15, 20, 25, 30]
    for column, age in enumerate(AGES):
        covered = []
        for ranges, values in rows:
            if column >= len(ranges):
                continue
            low, high = ranges[column]
            covered.extend(range(low, high + 1))
            for rating in range(low, high + 1):
                for index in range(9):
                    expected = values[min(max(index, 1), 6) - 1]  # index 0 reads as 1
                    got = development_coefficient(rating, index, age, PARAMS)
                    assert got == expected, (age, rating, index)
        assert covered == list(range(1, 3001)), age  # the ranges tile 1..3000


def test_e_boundaries_show_rounding_to_nearest():
    # youth 840: 0.84^4 = 0.49787 + 5 = 5.498 -> 5; 841: 0.841^4 = 0.500246 + 5 -> 6
    # (so E is rounded, not truncated or rounded up)
    assert development_coefficient(840, 9, "youth", PARAMS) == 5
    assert development_coefficient(841, 9, "youth", PARAMS) == 6
    # adult 1951: 1.951^4 = 14.4886 + 15 = 29.49 -> 29; 1952: 14.5183 + 15 = 29.52 -> 30
    assert development_coefficient(1951, 9, "adult", PARAMS) == 29
    assert development_coefficient(1952, 9, "adult", PARAMS) == 30
    # 2600 adult: 45.7 + 15 -> capped at 30; index 3 caps at 15; index 0 counts as 1 -> 5
    assert development_coefficient(2600, 30, "adult", PARAMS) == 30
    assert development_coefficient(2600, 3, "adult", PARAMS) == 15
    assert development_coefficient(2600, 0, "adult", PARAMS) == 5


# -- Anhang 2.5: K ---------------------------------------------------------------------------
#: cells (E, n) where the printed K differs from 800/(E + n) rounded half-up: the table
#: never goes below 26 (the "zwischen 26 und 133" of Anhang 1.2.2 holds only for n = 1:
#: 800/31 = 25.8), and E = 16, n = 9 prints 33 for 800/25 = 32.
K_TABLE_DISAGREES: dict[tuple[int, int], tuple[int, int]] = {
    (16, 9): (33, 32),
    (21, 11): (26, 25),
    (22, 10): (26, 25), (22, 11): (26, 24),
    (23, 9): (26, 25), (23, 10): (26, 24), (23, 11): (26, 24),
    (24, 8): (26, 25), (24, 9): (26, 24), (24, 10): (26, 24), (24, 11): (26, 23),
    (25, 7): (26, 25), (25, 8): (26, 24), (25, 9): (26, 24), (25, 10): (26, 23),
    (25, 11): (26, 22),
    (26, 6): (26, 25), (26, 7): (26, 24), (26, 8): (26, 24), (26, 9): (26, 23),
    (26, 10): (26, 22), (26, 11): (26, 22),
    (27, 5): (26, 25), (27, 6): (26, 24), (27, 7): (26, 24), (27, 8): (26, 23),
    (27, 9): (26, 22), (27, 10): (26, 22), (27, 11): (26, 21),
    (28, 4): (26, 25), (28, 5): (26, 24), (28, 6): (26, 24), (28, 7): (26, 23),
    (28, 8): (26, 22), (28, 9): (26, 22), (28, 10): (26, 21), (28, 11): (26, 21),
    (29, 3): (26, 25), (29, 4): (26, 24), (29, 5): (26, 24), (29, 6): (26, 23),
    (29, 7): (26, 22), (29, 8): (26, 22), (29, 9): (26, 21), (29, 10): (26, 21),
    (29, 11): (26, 20),
    (30, 3): (26, 24), (30, 4): (26, 24), (30, 5): (26, 23), (30, 6): (26, 22),
    (30, 7): (26, 22), (30, 8): (26, 21), (30, 9): (26, 21), (30, 10): (26, 20),
    (30, 11): (26, 20),
}  # fmt: skip


def anhang_2_5() -> dict[tuple[int, int], int]:
    text = spec_text("2_5").replace("E=", "").replace("K=", "")
    numbers = [int(x) for x in text.split()[1:]]  # drop "n=3"; then 4..11, then rows
    header, body = numbers[:8], numbers[8:]
    assert header == list(range(4, 12))
    table = {}
    for row in range(26):
        e, *ks = body[10 * row : 10 * row + 10]
        assert e == 5 + row
        for n, k in zip(range(3, 12), ks, strict=True):
            table[(e, n)] = k
    return table


def test_anhang_2_5_every_cell():
    """K = 800/(E + n) (Anhang 1.2.2) regenerated for E = 5..30, n = 3..11; the R_n formula
    of 4.9.1 has no floor, so the code follows the formula and these cells disagree."""
    printed = anhang_2_5()
    assert len(printed) == 26 * 9
    disagree = {}
    for (e, n), k in printed.items():
        computed = round_half_up(change_constant(e, n, PARAMS))
        if computed != k:
            disagree[(e, n)] = (k, computed)
    assert disagree == K_TABLE_DISAGREES
    # the table is max(26, formula) except for the single misprint E = 16, n = 9
    floored = {
        cell
        for cell, k in printed.items()
        if max(26, round_half_up(change_constant(*cell, PARAMS))) != k
    }
    assert floored == {(16, 9)}
    assert printed[(5, 3)] == 100 and change_constant(5, 1, PARAMS) == Fraction(800, 6)


def test_new_rating_formula_and_alternative_form():
    # 4.9.1: 1500 + 800 * 0.25 / (15 + 5) = 1500 + 10 = 1510; 1500 + 800*(1/3)/20 = 1513.33
    assert new_rating(1500, 15, 5, Fraction(1, 4), PARAMS) == 1510
    assert new_rating(1500, 15, 5, Fraction(1, 3), PARAMS) == 1513
    # half-up: 2000 + 800 * 0.05 / 80 = 2000.5 -> 2001; 2000 - 0.5 -> 1999.5 -> 2000
    assert new_rating(2000, 30, 50, Fraction(1, 20), PARAMS) == 2001
    assert new_rating(2000, 30, 50, Fraction(-1, 20), PARAMS) == 2000
    # R_p (4.7.6): 1500 + 800 * 3.8 / 5 = 2108
    assert success_value(1500, 5, Fraction(38, 10), PARAMS) == 2108
    # Anhang 1.2.1: R_n = (R_o E + R_p n)/(E + n) with the unrounded R_p is the same value
    for rating, e, n, diff in [(1500, 20, 7, Fraction(-113, 100)), (2217, 30, 9, Fraction(3, 2))]:
        r_p = rating + Fraction(800, n) * diff
        alternative = (rating * e + r_p * n) / (e + n)
        assert new_rating(rating, e, n, diff, PARAMS) == round_half_up(alternative)


# -- parameters ----------------------------------------------------------------------------------
def test_parameters_round_trip_and_validation():
    data = PARAMS.to_dict()
    json.dumps(data)
    assert data["precision"] == "table" and data["extreme_difference"] == 677
    assert data["j_youth"] == 5 and data["j_junior"] == 10 and data["j_adult"] == 15
    assert data["float_tolerance"] == 0.01 and data["min_score"] == 0
    assert DwzClassicParameters.from_dict(data) == PARAMS
    assert DwzClassicParameters.from_dict({}) == PARAMS
    changed = DwzClassicParameters.from_dict({"exceptional_margin": 250, "precision": "float"})
    assert changed.exceptional_margin == 250 and changed.precision == "float"
    assert PARAMS.with_precision("float").precision == "float" and PARAMS.precision == "table"
    assert PARAMS.foreign_rating_index == 0 and PARAMS.retention_years == 5
    assert PARAMS.residual_validity_years == 2 and PARAMS.late_member_years == 1
    bad: list[dict[str, Any]] = [
        {"no_such_key": 1},
        {"precision": "fast"},
        {"e_max": True},
        {"e_max": 2.5},
        {"e_max": "30"},
        {"float_tolerance": "abc"},
        {"float_tolerance": float("nan")},
        {"e_min": 0},
        {"j_adult": -1},
        {"e_max": 4},
        {"exceptional_in_match": 1},
        {"max_iterations": float("inf")},
    ]
    for case in bad:
        with pytest.raises(ValueError):
            DwzClassicParameters.from_dict(case)


# -- tournaments -------------------------------------------------------------------------------
tournament = builders.tournament
rated = builders.rated_with(index=10, birth_year=1970)
unrated = partial(builders.player, birth_year=1990)


def run(doc: dict[str, Any], params: DwzClassicParameters = PARAMS) -> dict[str, dict[str, Any]]:
    result = evaluate(parse_tournament(doc), params)
    out = json.loads(json.dumps(result.to_dict(trace=True)))
    assert out["rules"] == RULES_NAME == "dwz-classic"
    return {p["id"]: p for p in out["players"]} | {"": out}


def row(p: dict[str, Any], *keys: str) -> tuple:
    return tuple(p[k] for k in keys)


FIVE = [rated(f"O{k + 1}", 1500 + 100 * k) for k in range(5)]  # 1500 1600 1700 1800 1900


def test_established_round_robin():
    """A 1800 (adult, index 12), B 1650 (youth, index 3), C 1500 (junior, index 1),
    D 1400 (FIDE rating, no index -> index 0, adult). A-B 1-0, A-C =, D-A 1-0, B-C 1-0,
    B-D =, D-C 1-0.

    A: P(150) .70 + P(300) .85 + P(400) .92 = 2.47; W = 1.5; E = 1.8^4 + 15 = 25.50 -> 25
       (10.4976 + 15 = 25.4976), cap 60; R_n = 1800 - 800 * .97 / 28 = 1772.29 -> 1772
    B: P(-150) .30 + P(150) .70 + P(250) .81 = 1.81; W = 1.5; E = 1.65^4 + 5 = 12.41 -> 12
       (cap 15); R_n = 1650 - 800 * .31 / 15 = 1633.47 -> 1633
    C: P(-300) .15 + P(-150) .30 + P(100) .64 = 1.09; W = .5; E = 5.06 + 10 -> 15, capped at
       5 * 1 = 5; R_n = 1500 - 800 * .59 / 8 = 1441
    D: P(-400) .08 + P(-250) .19 + P(-100) .36 = .63; W = 2.5; E = 3.84 + 15 -> 19, capped at
       5 * max(0, 1) = 5; R_n = 1400 + 800 * 1.87 / 8 = 1587; index 0 -> 1
    Nobody has 5 games: no R_h, no Sonderwertung. R_c of A: 4550/3 = 1516.7 -> 1517.
    """
    players = [
        rated("A", 1800, 12, 1980),
        rated("B", 1650, 3, 2008),
        rated("C", 1500, 1, 2003),
        {"id": "D", "rating": 1400, "index": None, "rating_source": "fide"},
    ]
    games = [
        ("A", "B", "1-0"),
        ("A", "C", "1/2-1/2"),
        ("D", "A", "1-0"),
        ("B", "C", "1-0"),
        ("B", "D", "1/2-1/2"),
        ("D", "C", "1-0"),
    ]
    out = run(tournament(players, games))
    keys = ("age_class", "e", "expected", "score", "games", "rating_new", "index_new")
    assert row(out["A"], *keys) == ("adult", 25, 2.47, 1.5, 3, 1772, 13)
    assert row(out["B"], *keys) == ("youth", 12, 1.81, 1.5, 3, 1633, 4)
    assert row(out["C"], *keys) == ("junior", 5, 1.09, 0.5, 3, 1441, 2)
    assert row(out["D"], *keys) == ("adult", 5, 0.63, 2.5, 3, 1587, 1)
    assert out["D"]["index_old"] == 0
    assert out["A"]["opponents_avg"] == 1517 and out["D"]["opponents_avg"] == 1650
    for pid in "ABCD":
        assert out[pid]["performance"] is None and out[pid]["exceptional"] is False
        assert out[pid]["stored"] is True and out[pid]["group"] == "established"
        assert "k" not in out[pid]
    assert out[""]["iterations"] == 0


def test_first_rating_first_stage():
    """U (unrated) vs O1..O5 = 1500..1900: 1, 1, =, =, 0 -> W = 3 of 5.

    Start (4.7.2.1.1): R_c = 8500/5 = 1700, P = 3/5 = .60 -> D = 72 -> 1772.
    Teiliteration at 1772: D = 272 -> .83, 172 -> .73, 72 -> .60, -28 -> .46, -128 -> .33;
      W_e = 2.95, (W - W_e)/n = .01 -> P' = .51 -> D = 7 -> 1779.
    At 1779: 279 -> .84, 179 -> .73, 79 -> .61, -21 -> .47, -121 -> .34; W_e = 2.99,
      P' = .5 + .01/5 = .502 -> .50 -> D = 0: settled, R_n = R_h = 1779, index 1.
    The Gesamtiteration (only U) confirms 1779 in one step.
    Opponents, one game each (adult, index 10):
      O1 1500: E = 5.06 + 15 -> 20; W_e = P(-279) = .16; 1500 - 800*.16/21 = 1493.90 -> 1494
      O2 1600: E = 6.55 + 15 -> 22; W_e = P(-179) = .27; 1600 - 216/23 = 1590.61 -> 1591
      O3 1700: E = 8.35 + 15 -> 23; W = .5, W_e = P(-79) = .39; 1700 + 88/24 = 1703.67 -> 1704
      O4 1800: E = 10.4976 + 15 -> 25; W = .5, W_e = P(21) = .53; 1800 - 24/26 -> 1799
      O5 1900: E = 13.03 + 15 -> 28; W = 1, W_e = P(121) = .66; 1900 + 272/29 = 1909.38 -> 1909
    """
    games = [("U", "O1", "1-0"), ("O2", "U", "0-1"), ("U", "O3", "1/2-1/2")]
    games += [("O4", "U", "1/2-1/2"), ("U", "O5", "0-1")]
    out = run(tournament([*FIVE, unrated("U")], games))
    u = out["U"]
    assert row(u, "group", "start_value", "iteration_value", "rating_new", "index_new") == (
        "first_stage",
        1772,
        1779,
        1779,
        1,
    )
    assert row(u, "performance", "games", "score", "opponents_avg", "stored") == (
        1779,
        5,
        3.0,
        1700,
        True,
    )
    assert u["e"] is None and u["expected"] is None
    trace = out[""]["trace"]["first_rating"]
    assert trace["start"] == [1772] and trace["partial"] == [1779]
    assert out[""]["iterations"] == 1
    new = {f"O{k}": out[f"O{k}"]["rating_new"] for k in range(1, 6)}
    assert new == {"O1": 1494, "O2": 1591, "O3": 1704, "O4": 1799, "O5": 1909}
    assert [out[f"O{k}"]["e"] for k in range(1, 6)] == [20, 22, 23, 25, 28]
    assert out["O1"]["expected"] == 0.16 and out["O1"]["opponents_avg"] == 1779


def test_second_stage_gesamtiteration_and_residual_games():
    """As above, plus V (unrated): V-O1 1-0, O2-V 1-0, V-O3 =, O4-V 1-0, V-U 1-0; and W
    (unrated, residual games: 1600 won on 2025-06-01, valid; 1400 drawn on 2024-12-12,
    expired on 2026-12-12): O1-W 1-0, W-V =.

    Groups: U has 5 games against established -> 1st stage; V has 4 + U -> 2nd stage;
    W has O1 + 1 valid residual game -> remaining. W-V is dropped (V is 2nd stage).
    Teiliteration U (established opponents only): 1772 -> 1779 as in the test above.
    V: R_c = (1500+1600+1700+1800+1779)/5 = 1675.8 -> 1676, P = 2.5/5 = .50 -> start 1676;
       at 1676: 176 .73, 76 .60, -24 .47, -124 .33, -103 .36 = 2.49 -> P' .502 -> D 0: 1676.
    Gesamtiteration (U: 6 games, W = 3; V: 5 games, W = 2.5), both from the previous step:
      1: U 1779: 2.99 + P(103) .64 = 3.63; P' = .5 - .63/6 = .395 -> .40 -> -72 -> 1707
         V 1676: .73+.60+.47+.33 + P(-103) .36 = 2.49 -> .502 -> 0 -> 1676
      2: U 1707: 207 .77, 107 .65, 7 .51, -93 .37, -193 .25, V 31 .54 = 3.09
           -> .5 - .09/6 = .485 -> .49 -> -7 -> 1700
         V 1676: 2.13 + P(-31) .46 = 2.59 -> .5 - .09/5 = .482 -> .48 -> -14 -> 1662
      3: U 1700: .76+.64+.50+.36+.24 + P(38) .55 = 3.05 -> .4917 -> .49 -> -7 -> 1693
         V 1662: 162 .71, 62 .59, -38 .45, -138 .31, U -38 .45 = 2.51 -> .498 -> .50 -> 1662
      4: U 1693: 193 .75, 93 .63, -7 .49, -107 .35, -207 .23, V 31 .54 = 2.99 -> 0 -> 1693
         V 1662: 2.06 + P(-31) .46 = 2.52 -> .496 -> .50 -> 0 -> 1662: settled, 4 steps.
    Established (adult, index 10), games against U 1693 and V 1662:
      O1: W 0 of 2, W_e = P(-193) .25 + P(-162) .29 = .54; 1500 - 800*.54/22 = 1480.36 -> 1480
      O2: W 1 (beat V), W_e = P(-93) .37 + P(-62) .41 = .78; 1600 + 800*.22/24 -> 1607
      O3: W 1 (two draws), W_e = P(7) .51 + P(38) .55 = 1.06; 1700 - 48/25 = 1698.08 -> 1698
      O4: W 1.5, W_e = P(107) .65 + P(138) .69 = 1.34; 1800 + 128/27 = 1804.74 -> 1805
      O5: W 1 (beat U), W_e = P(207) .77; 1900 + 184/29 = 1906.34 -> 1906
    W: new residual game 1500 / 0 (O1); held: 1600 (1) + 1500 (0) -> 2 games, 1 point, 1550.
    """
    players = [*FIVE, unrated("U"), unrated("V")]
    residual = [
        {"opponent_rating": 1600, "score": 1, "date": "2025-06-01"},
        {"opponent_rating": 1400, "score": 0.5, "date": "2024-12-12"},
    ]
    players.append(unrated("W", residual_games=residual))
    games = [("U", "O1", "1-0"), ("O2", "U", "0-1"), ("U", "O3", "1/2-1/2")]
    games += [("O4", "U", "1/2-1/2"), ("U", "O5", "0-1")]
    games += [("V", "O1", "1-0"), ("O2", "V", "1-0"), ("V", "O3", "1/2-1/2")]
    games += [("O4", "V", "1-0"), ("V", "U", "1-0"), ("O1", "W", "1-0"), ("W", "V", "1/2-1/2")]
    out = run(tournament(players, games))
    keys = ("group", "start_value", "iteration_value", "rating_new", "games", "score")
    assert row(out["U"], *keys) == ("first_stage", 1772, 1693, 1693, 6, 3.0)
    assert row(out["V"], *keys) == ("second_stage", 1676, 1662, 1662, 5, 2.5)
    # R_c: U (1500+1600+1700+1800+1900+1662)/6 = 1693.7 -> 1694; V 8293/5 = 1658.6 -> 1659
    assert out["U"]["opponents_avg"] == 1694 and out["V"]["opponents_avg"] == 1659
    trace = out[""]["trace"]["first_rating"]
    assert trace["order"] == ["U", "V"]
    assert trace["partial"] == [1779, 1676]
    steps = [[1779, 1676], [1707, 1676], [1700, 1662], [1693, 1662], [1693, 1662]]
    assert trace["steps"] == steps  # start, steps 1-4
    assert out[""]["iterations"] == 4
    new = {f"O{k}": out[f"O{k}"]["rating_new"] for k in range(1, 6)}
    assert new == {"O1": 1480, "O2": 1607, "O3": 1698, "O4": 1805, "O5": 1906}
    assert out["O1"]["games"] == 2  # the win against W (remaining) does not count
    w = out["W"]
    assert w["group"] == "remaining" and w["rating_new"] is None and w["stored"] is False
    assert w["new_residual_games"] == [
        {"opponent_rating": 1500, "score": 0.0, "date": "2026-12-12"}
    ]
    assert row(w, "games", "score", "opponents_avg") == (2, 1.0, 1550)


def test_games_between_second_stage_players_do_not_count():
    """4.7.1.2 / 4.7.3.2: a 2nd-stage rating is used only by its direct DWZ opponents; V and
    X (both 2nd stage: 4 established opponents + U) play each other: the game is dropped,
    so adding it changes nothing."""
    players = [*FIVE, unrated("U"), unrated("V"), unrated("X")]
    results = ("1-0", "0-1", "1-0", "0-1", "1-0")
    games = [("U", f"O{k}", r) for k, r in enumerate(results, start=1)]
    games += [("V", f"O{k}", "1/2-1/2") for k in range(1, 5)] + [("V", "U", "0-1")]
    games += [("X", f"O{k}", "1-0") for k in range(2, 6)] + [("X", "U", "1/2-1/2")]
    without = run(tournament(players, games))
    with_game = run(tournament(players, [*games, ("V", "X", "1-0")]))
    assert without["V"]["group"] == without["X"]["group"] == "second_stage"
    for pid in ["U", "V", "X", *(f"O{k}" for k in range(1, 6))]:
        assert with_game[pid] == without[pid], pid
    assert with_game["V"]["games"] == 5 and with_game["V"]["score"] == 2.0


def test_residual_games_and_zero_percent_first_rating():
    """R (unrated) holds residual games 1600 / 1 (2026-03-01) and 1800 / = (2025-12-13), both
    valid, and 2000 / 1 (2024-12-12, expired); plays O1 0-1, O2 =, O3 1-0 -> 5 games, W = 3:
      start: R_c = (1600+1800+1500+1600+1700)/5 = 1640, P .60 -> +72 -> 1712
      1712: 112 .65, -88 .38, 212 .77, 112 .65, 12 .52 = 2.97 -> P' .506 -> .51 -> +7 -> 1719
      1719: 119 .66, -81 .39, 219 .78, 119 .66, 19 .53 = 3.02 -> P' .496 -> .50 -> 1719.
    Z (unrated) loses to O1..O5: 0 % (4.7.2.1.2) -> R_c - 677 = 1700 - 677 = 1023, for R_h too.
    O1 (1500, E 20): beat R and Z: W 2, W_e = P(-219) .22 + P(477) .95 = 1.17;
      1500 + 800 * .83 / 22 = 1530.18 -> 1530.
    O5 (1900, E 28): beat Z: W_e = P(877) = 1.00 -> 1900 unchanged, index 11.
    """
    residual = [
        {"opponent_rating": 1600, "score": 1, "date": "2026-03-01"},
        {"opponent_rating": 1800, "score": 0.5, "date": "2025-12-13"},
        {"opponent_rating": 2000, "score": 1, "date": "2024-12-12"},
    ]
    players = [*FIVE, unrated("R", residual_games=residual), unrated("Z")]
    games = [("O1", "R", "1-0"), ("R", "O2", "1/2-1/2"), ("O3", "R", "0-1")]
    games += [(f"O{k}", "Z", "1-0") for k in range(1, 6)]
    out = run(tournament(players, games))
    keys = ("group", "games", "score", "opponents_avg", "start_value", "rating_new")
    assert row(out["R"], *keys) == ("first_stage", 5, 3.0, 1640, 1712, 1719)
    assert row(out["Z"], *keys) == ("first_stage", 5, 0.0, 1700, 1023, 1023)
    assert out["Z"]["performance"] == 1023 and out["R"]["performance"] == 1719
    assert row(out["O1"], "games", "score", "expected", "rating_new") == (2, 2.0, 1.17, 1530)
    assert row(out["O5"], "expected", "rating_new", "index_new") == (1.0, 1900, 11)
    assert out["R"]["new_residual_games"] == [] and out["Z"]["new_residual_games"] == []


def test_sonderwertung_recalculates_established_and_first_ratings():
    """X 1500 beats P1..P5 (1700) and N; N (unrated) plays X 0-1, P1 1-0, P2 1-0, P3 =, P4 =.
    All adult, index 10.

    Pass 1: N (5 games vs established): R_c = (1500 + 4*1700)/5 = 1660, P .60 -> start 1732;
      1732: P(232) .79 + 4 * P(32) .54 = 2.95 -> .51 -> +7 -> 1739;
      1739: P(239) .80 + 4 * P(39) .55 = 3.00 -> 1739.
      X: 6 games, W = 6, W_e = 5 * P(-200) .24 + P(-239) .20 = 1.40;
      R_p = 1500 + 800 * 4.6 / 6 = 2113.3 -> 2113 >= 1500 + 200: Sonderwertung.
    Pass 2 (opponents see X at 2113):
      N: R_c = (2113 + 6800)/5 = 1782.6 -> 1783, P .60 -> start 1855;
         1855: P(-258) .18 + 4 * P(155) .71 = 3.02 -> P' .496 -> .50 -> 1855 = R_n = R_h.
      X (own R_o 1500): W_e = 1.20 + P(-355) .11 = 1.31; E = 20, n = 6;
         R_n = 1500 + 800 * 4.69 / 26 = 1644.31 -> 1644;
         R_h: 100 % -> R_c + 677, R_c = (8500 + 1855)/6 = 1725.8 -> 1726 -> 2403.
      P5 (only X): W_e = P(-413) .07; E 23; 1700 - 800 * .07/24 = 1697.67 -> 1698
        (without the Sonderwertung: P(200) = .76 -> 1674.67 -> 1675).
      P1 (lost to X and N): W_e = .07 + P(-155) .29 = .36; 1700 - 800 * .36 / 25 -> 1688
      P3 (lost to X, drew N): W = .5, W_e = .36; 1700 + 800 * .14 / 25 = 1704.48 -> 1704
    W (unrated, only lost to X) is remaining: its residual game keeps X's R_o 1500 (R_p is
    for R_n and R_h only), and the game does not count for X.
    """
    players = [rated("X", 1500), *(rated(f"P{k}", 1700) for k in range(1, 6)), unrated("N")]
    players.append(unrated("W"))
    games = [("X", f"P{k}", "1-0") for k in range(1, 6)] + [("X", "N", "1-0")]
    games += [("N", "P1", "1-0"), ("P2", "N", "0-1"), ("N", "P3", "1/2-1/2")]
    games += [("P4", "N", "1/2-1/2"), ("W", "X", "0-1")]
    out = run(tournament(players, games))
    x, n = out["X"], out["N"]
    assert x["games"] == 6 and out["W"]["group"] == "remaining"
    assert out["W"]["new_residual_games"] == [
        {"opponent_rating": 1500, "score": 0.0, "date": "2026-12-12"}
    ]
    assert row(x, "exceptional", "rating_new", "performance", "expected") == (
        True,
        1644,
        2403,
        1.31,
    )
    assert row(n, "start_value", "rating_new", "performance", "opponents_avg") == (
        1855,
        1855,
        1855,
        1783,
    )
    assert n["exceptional"] is False
    assert out[""]["trace"]["sonderwertung"] == {"X": 2113}
    assert out[""]["trace"]["first_rating"]["start"] == [1855]
    assert [out[f"P{k}"]["rating_new"] for k in range(1, 6)] == [1688, 1688, 1704, 1704, 1698]
    assert out["P5"]["opponents_avg"] == 2113 and out["P5"]["expected"] == 0.07


def test_sonderwertung_threshold_is_inclusive():
    """X 1500 vs Q1..Q4 (1500) 1, 1, 1, = and Z 1693 (0): W = 3.5,
    W_e = 4 * P(0) .50 + P(-193) .25 = 2.25; R_p = 1500 + 800 * 1.25 / 5 = 1700 = R_o + 200:
    "um 200 Punkte hoeher" -> exceptional.
    Q1 (lost) sees 1700: W_e = P(-200) .24, E 20: 1500 - 800 * .24 / 21 = 1490.86 -> 1491
      (seeing 1500: P(0) .50 -> 1480.95 -> 1481); Q4 (draw): 1500 + 800 * .26 / 21 -> 1510.
    Z (won; 1.693^4 = 8.215 + 15 -> E 23): P(-7) .49 -> 1693 + 800 * .51 / 24 = 1710.
    With a margin of 201 nobody is exceptional."""
    players = [rated("X", 1500), *(rated(f"Q{k}", 1500) for k in range(1, 5)), rated("Z", 1693)]
    games = [("X", "Q1", "1-0"), ("Q2", "X", "0-1"), ("X", "Q3", "1-0")]
    games += [("Q4", "X", "1/2-1/2"), ("X", "Z", "0-1")]
    out = run(tournament(players, games))
    assert out[""]["trace"]["sonderwertung"] == {"X": 1700} and out["X"]["exceptional"]
    assert [out[p]["rating_new"] for p in ("Q1", "Q4", "Z")] == [1491, 1510, 1710]
    strict = run(tournament(players, games), DwzClassicParameters(exceptional_margin=201))
    assert strict[""]["trace"]["sonderwertung"] == {} and not strict["X"]["exceptional"]
    assert strict["Q1"]["rating_new"] == 1481


def test_sonderwertung_of_the_recalculation_is_ignored():
    """X 1500 beats P1..P5 (1700) and Y (1500); Y: Q1 1-0, Q2 1-0, Q3 =, Q4 0-1 (Q 1700).

    Pass 1: X: W_e = 5 * .24 + P(0) .50 = 1.70, R_p = 1500 + 800 * 4.3/6 = 2073.3 -> 2073:
      exceptional. Y: W_e = .50 + 4 * .24 = 1.46, W = 2.5,
      R_p = 1500 + 800 * 1.04 / 5 = 1666.4 -> 1666 < 1700: not exceptional.
    Pass 2: Y sees X at 2073: W_e = P(-573) .02 + .96 = .98, R_p would be 1500 + 800*1.52/5 =
      1743.2 >= 1700, but new Sonderwertungen are ignored: the Q still see Y at 1500.
      Y: R_n = 1500 + 800 * 1.52 / 25 = 1548.64 -> 1549;
         R_h: R_c = (2073 + 4*1700)/5 = 1774.6 -> 1775, P .50 -> start 1775;
         1775: P(-298) .15 + 4 * P(75) .60 = 2.55 -> P' .49 -> -7 -> 1768;
         1768: P(-305) .14 + 4 * P(68) .59 = 2.50 -> 1768.
      Q1 (lost to Y): W_e = P(200) .76, E 23: 1700 - 800 * .76/24 = 1674.67 -> 1675
        (Y at 1743 would give P(-43) .44 -> 1685); Q3 (draw) 1700 - 800*.26/24 -> 1691;
        Q4 (won) 1700 + 800 * .24 / 24 = 1708.
      X: R_n = 1500 + 800 * 4.3 / 26 = 1632.31 -> 1632; R_h = R_c + 677 with
         R_c = (8500 + 1500)/6 = 1666.7 -> 1667 -> 2344.
      P_k: W_e = P(-373) .10 -> 1700 - 800 * .10 / 24 = 1696.67 -> 1697.
    """
    players = [rated("X", 1500), rated("Y", 1500)]
    players += [rated(f"P{k}", 1700) for k in range(1, 6)]
    players += [rated(f"Q{k}", 1700) for k in range(1, 5)]
    games = [("X", f"P{k}", "1-0") for k in range(1, 6)] + [("X", "Y", "1-0")]
    games += [("Y", "Q1", "1-0"), ("Q2", "Y", "0-1"), ("Y", "Q3", "1/2-1/2"), ("Q4", "Y", "1-0")]
    out = run(tournament(players, games))
    assert out[""]["trace"]["sonderwertung"] == {"X": 2073}
    assert row(out["X"], "exceptional", "rating_new", "performance") == (True, 1632, 2344)
    assert row(out["Y"], "exceptional", "expected", "rating_new", "performance") == (
        False,
        0.98,
        1549,
        1768,
    )
    assert [out[f"Q{k}"]["rating_new"] for k in range(1, 5)] == [1675, 1675, 1691, 1708]
    assert {out[f"P{k}"]["rating_new"] for k in range(1, 6)} == {1697}


def test_match_sonderwertung_and_unrated_opponent():
    """Zweikampf A 1500 - B 1700 (adult, index 10), A wins 6-0.
    A: W_e = 6 * P(-200) = 1.44; R_p = 1500 + 800 * 4.56 / 6 = 2108 >= 1700: Sonderwertung
       (6.2.3.5: the rules apply "analog"); R_n = 1500 + 800 * 4.56 / 26 = 1640.31 -> 1640;
       R_h = 100 % -> 1700 + 677 = 2377.
    B sees 2108: W_e = 6 * P(-408) .08 = .48; E 23, n 6: 1700 - 800 * .48/29 = 1686.76 -> 1687;
       R_h = 0 % -> 2108 - 677 = 1431.
    Without it (exceptional_in_match = False): W_e = 6 * .76 = 4.56;
       1700 - 800 * 4.56/29 = 1574.21 -> 1574; R_h = 1500 - 677 = 823.
    """
    games = [("A", "B", "1-0")] * 6
    doc = tournament([rated("A", 1500), rated("B", 1700)], games, kind="match")
    out = run(doc)
    assert row(out["A"], "exceptional", "rating_new", "performance") == (True, 1640, 2377)
    assert row(out["B"], "exceptional", "rating_new", "performance") == (False, 1687, 1431)
    plain = run(doc, DwzClassicParameters(exceptional_in_match=False))
    assert row(plain["A"], "exceptional", "rating_new") == (False, 1640)
    assert row(plain["B"], "rating_new", "performance") == (1574, 823)
    # 6.2.3.5: with an unrated opponent nothing is evaluated, no residual games
    lone_games = [("A", "U", "1-0")] * 6
    lone = run(tournament([rated("A", 1500), unrated("U")], lone_games, kind="match"))
    assert row(lone["A"], "rating_new", "index_new", "stored") == (1500, 10, False)
    assert lone["U"]["group"] == "remaining" and lone["U"]["new_residual_games"] == []


def test_computers_forfeits_and_non_members():
    """Computer games are struck (6.1.4), forfeits never rated; a non-member is computed but
    nothing is stored. A 1600 beats B 1400 (non-member): A: W_e = P(200) .76, E 22 ->
    1600 + 800 * .24 / 23 = 1608.35 -> 1608; B: E = 3.84 + 15 -> 19,
    1400 - 800 * .24 / 20 = 1390.4 -> 1390."""
    players = [
        rated("A", 1600),
        rated("B", 1400, member=False),
        {"id": "C", "rating": 2500, "index": 5, "computer": True},
    ]
    games = [("A", "B", "1-0"), ("A", "C", "1-0"), ("B", "C", "+-")]
    out = run(tournament(players, games))
    assert row(out["A"], "games", "rating_new", "stored") == (1, 1608, True)
    assert row(out["B"], "games", "rating_new", "stored") == (1, 1390, False)
    assert row(out["C"], "group", "rating_new", "stored") == ("remaining", None, False)
    only_forfeit = run(tournament([rated("A", 1600), rated("B", 1400)], [("A", "B", "+-")]))
    assert row(only_forfeit["A"], "games", "rating_new", "index_new", "e") == (0, 1600, 10, None)


def test_float_precision_uses_the_logistic_formula():
    """Same games as test_first_rating_first_stage. Solving sum 1/(1 + 10^((o - R)/400)) = 3
    over o = 1500..1900 by bisection gives R = 1781.667 -> 1782; the start value is
    1700 + 400 * log10(.6/.4) = 1770.44 -> 1770.
    O1: W_e = 1/(1 + 10^(282/400)) = .164747; E 20: 1500 - 800 * .164747 / 21 = 1493.72 -> 1494.
    O5: W_e = .663574 -> 1900 + 800 * .336426 / 29 = 1909.28 -> 1909."""
    games = [("U", "O1", "1-0"), ("O2", "U", "0-1"), ("U", "O3", "1/2-1/2")]
    games += [("O4", "U", "1/2-1/2"), ("U", "O5", "0-1")]
    out = run(tournament([*FIVE, unrated("U")], games), FLOAT)
    assert out[""]["precision"] == "float"
    assert row(out["U"], "start_value", "rating_new") == (1770, 1782)
    assert out["O1"]["expected"] == 0.165 and out["O1"]["rating_new"] == 1494
    assert out["O5"]["expected"] == 0.664 and out["O5"]["rating_new"] == 1909
    assert 1700 + 400 * math.log10(1.5) == pytest.approx(1770.437, abs=1e-3)


# -- iteration: cycles, unbounded groups, the step cap -----------------------------------------
def _cycle_mean(span: int) -> IterationRules:
    """The classic rules' end of a table cycle (DwzClassicParameters.max_cycle_span)."""
    return IterationRules(span, "mean", extremes=True)


def test_table_iteration_cycle_takes_the_mean():
    """A beat a 1350 player, B a 1550 player; A-B four games =, 0, =, 0 for A
    (A: W = 2 of 5, B: W = 4 of 5). From (2027, 2227):
      A 2027: P(677) .99 + 4 * P(-200) .24 = 1.95 -> P' = .5 + .05/5 = .51 -> +7 -> 2034
      B 2227: P(677) .99 + 4 * P(200) .76 = 4.03 -> P' = .494 -> .49 -> -7 -> 2220
      A 2034: P(684) .99 + 4 * P(-186) .26 = 2.03 -> .494 -> -7 -> 2027
      B 2220: P(670) .99 + 4 * P(186) .74 = 3.95 -> .51 -> +7 -> 2227: the start again.
    Mean of the cycle: (2027 + 2034)/2 = 2030.5 -> 2031, (2227 + 2220)/2 = 2223.5 -> 2224."""
    a = Iterant("A", (1350,), (2,), (1, 1, 1, 1), (1, 0, 1, 0))
    b = Iterant("B", (1550,), (2,), (0, 0, 0, 0), (1, 2, 1, 2))
    arith = arithmetic_for(PARAMS)
    outcome = iterate([a, b], [2027, 2227], arith, 100, _cycle_mean(14))
    assert outcome.trace == [[2027, 2227], [2034, 2220], [2027, 2227]]
    assert outcome.cycle and outcome.values == [2031, 2224]
    with pytest.raises(ConvergenceError) as err:
        iterate([a, b], [2027, 2227], arith, 100, _cycle_mean(6))
    assert err.value.players == ["A", "B"]


def test_step_cap_is_an_error():
    runner = Iterant("A", (1500, 1600, 1700), (2, 1, 0))
    with pytest.raises(ConvergenceError):
        iterate([runner], [2500], arithmetic_for(PARAMS), 1, _cycle_mean(14))


def test_perfect_group_is_an_error_in_float_precision():
    """U and V beat O1..O5 and draw each other: no finite solution of W = W_e exists, an
    error in float precision. The table iteration still ends, as P(D) reaches 1.00:
    Teiliteration: 100 % against O1..O5 -> 1700 + 677 = 2377 each. Gesamtiteration (W = 5.5
    of 6, V at the same value: P(0) = .50):
      2377: 877 1.00, 777 1.00, 677 .99, 577 .98, 477 .95 + .50 = 5.42 -> P' .513 -> +7
      ... every step +7 while W_e <= 5.47 (P' = .5 + .03/6 = .505 -> .51) ...
      2517: 1.00, 1.00, 817 1.00, 717 .99, 617 .98 + .50 = 5.47 -> +7 -> 2524
      2524: 1.00, 1.00, 1.00, 724 .99, 624 .99 + .50 = 5.48 -> P' .503 -> .50: settled;
    21 steps of +7 and one confirming step."""
    players = [*FIVE, unrated("U"), unrated("V")]
    games = [(u, f"O{k}", "1-0") for u in "UV" for k in range(1, 6)] + [("U", "V", "1/2-1/2")]
    with pytest.raises(ConvergenceError) as err:
        evaluate(parse_tournament(tournament(players, games)), FLOAT)
    assert set(err.value.players) == {"U", "V"}
    out = run(tournament(players, games))
    assert out["U"]["rating_new"] == out["V"]["rating_new"] == 2524
    assert out["U"]["start_value"] == 2377 and out[""]["iterations"] == 22
