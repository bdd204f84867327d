"""KBSB Elo (spec kbsb-elo.txt): tables 1 and 2 in full, the three worked examples, the
choices of docs/rules-elo.md, parameters and the JSON parser."""

from __future__ import annotations

import copy
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ratingdb.errors import InputError, RulesError
from ratingdb.io.elo_kbsb_json import parse_document, parse_period
from ratingdb.rules.elo_kbsb import (
    RULES_NAME,
    KbsbGameInput,
    KbsbHistory,
    KbsbParameters,
    KbsbPeriodInput,
    KbsbPlayerInput,
    PeriodInfo,
    evaluate,
    k_factor,
)
from ratingdb.rules.elo_kbsb.tables import d_hundredths, expected_hundredths

DATA = Path(__file__).parent / "data"
PERIOD = PeriodInfo("2025-1", date(2025, 1, 1), date(2025, 6, 30), "first half 2025")
PARAMS = KbsbParameters()


def read_tsv(name: str) -> list[list[str]]:
    lines = (DATA / name).read_text().splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


def hundredths(text: str) -> int:
    return int(Decimal(text) * 100)


def period(players: list[KbsbPlayerInput], games: list[tuple[str, str, str]]) -> KbsbPeriodInput:
    return KbsbPeriodInput(
        PERIOD, tuple(players), tuple(KbsbGameInput(w, b, r) for w, b, r in games)
    )


def opponents(prefix: str, ratings: list[int], games_before: int = 200) -> list[KbsbPlayerInput]:
    return [KbsbPlayerInput(f"{prefix}{k}", games_before, r) for k, r in enumerate(ratings)]


def results_for(player: str, prefix: str, results: list[str]) -> list[tuple[str, str, str]]:
    return [(player, f"{prefix}{k}", r) for k, r in enumerate(results)]


# -- tables ------------------------------------------------------------------------------
def test_table_1_every_value():
    rows = read_tsv("kbsb_table1.tsv")
    assert len(rows) == 101
    published = {hundredths(p): (None if d == "X" else int(d)) for p, d in rows}
    assert sorted(published) == list(range(101))
    computed = {p: d_hundredths(p) for p in range(101)}
    assert computed == published


def test_table_2_every_value():
    rows = read_tsv("kbsb_table2.tsv")
    assert len(rows) == 51
    covered: list[int] = []
    for band, high, low in rows:
        if band.startswith("+"):
            lo, hi = int(band[1:]) + 1, 4000  # "+ 735": every larger difference
        else:
            lo, hi = (int(x) for x in band.split("-"))
        for diff in range(lo, hi + 1):
            assert expected_hundredths(diff) == hundredths(high), diff
            assert expected_hundredths(-diff) == hundredths(low), -diff
            covered.append(diff)
    assert covered == list(range(4001))  # contiguous bands, nothing missing


def test_table_2_published_chances_of_the_example():
    # "Kans (We)" column of the formula 2 example
    diffs = [115, 80, -160, 40, -220, -145, -250]
    assert [expected_hundredths(d) for d in diffs] == [66, 61, 29, 56, 22, 31, 19]


# -- formula 1 ---------------------------------------------------------------------------
def formula1_period_1() -> KbsbPeriodInput:
    # 12 opponents, sum 24048 (average 2004); 4 points of 12
    opp = opponents("O", [2004] * 12)
    games = results_for("A", "O", ["1-0"] * 4 + ["0-1"] * 8)
    return period([KbsbPlayerInput("A", 0, None), *opp], games)


def formula1_period_2(history: KbsbHistory | None, rating: int = 1879) -> KbsbPeriodInput:
    # 8 opponents, sum 14324; 5 points of 8
    ratings = [1790] * 4 + [1791] * 4
    assert sum(ratings) == 14324
    opp = opponents("Q", ratings)
    games = results_for("A", "Q", ["1-0"] * 4 + ["1/2-1/2"] * 2 + ["0-1"] * 2)
    return period([KbsbPlayerInput("A", 12, rating, history=history), *opp], games)


def test_formula_1_example_first_tournament():
    a = evaluate(formula1_period_1()).player("A")
    assert a.formula == 1
    assert a.opponents_avg == 2004
    assert a.score == 4
    assert a.performance == 1879  # 2004 - 125 (P = 33 %)
    assert a.rating_new == 1879
    assert a.games_after == 12
    assert a.provisional  # listed after 10 games, provisionally until 20
    assert a.history == KbsbHistory(24048, Decimal(4))


def test_formula_1_example_over_20_games():
    first = evaluate(formula1_period_1()).player("A")
    a = evaluate(formula1_period_2(first.history, first.rating_new)).player("A")
    assert a.formula == 1
    assert a.opponents_avg == 1919  # (24048 + 14324) / 20 = 1918.6
    assert a.rating_new == 1883  # 1919 - 36 (P = 9/20 = 45 %)
    assert a.games_after == 20
    assert not a.provisional
    assert a.history == KbsbHistory(24048 + 14324, Decimal(9))


def test_formula_1_example_with_the_misprinted_sum():
    # the example's calculation adds 14.325 instead of 14.324: same result
    a = evaluate(formula1_period_2(KbsbHistory(24049, Decimal(4)))).player("A")
    assert a.rating_new == 1883


def test_formula_1_without_history_uses_the_rating_as_fifty_percent():
    a = evaluate(formula1_period_2(None)).player("A")
    # 12 games at 1879 with 6 points + the 8 games: (22548 + 14324) / 20 = 1843.6, 11/20
    assert (a.opponents_avg, a.performance, a.rating_new) == (1844, 1880, 1880)


def test_no_rating_below_ten_games_then_provisional():
    opp = opponents("O", [1500] * 9)
    p = period([KbsbPlayerInput("N", 0), *opp], results_for("N", "O", ["1/2-1/2"] * 9))
    n = evaluate(p).player("N")
    assert n.rating_new is None and not n.provisional
    assert n.formula == 1 and n.performance == 1500
    assert n.history == KbsbHistory(13500, Decimal("4.5"))
    opp = opponents("O", [1600])
    p2 = period([KbsbPlayerInput("N", 9, None, history=n.history), *opp], [("O0", "N", "0-1")])
    n2 = evaluate(p2).player("N")
    # (13500 + 1600) / 10 = 1510, P = 5.5 / 10 = 55 % -> +36
    assert (n2.rating_new, n2.provisional, n2.games_after) == (1546, True, 10)


def test_undetermined_d_at_100_percent():
    opp = opponents("O", [1500] * 10)
    p = period([KbsbPlayerInput("N", 0), *opp], results_for("N", "O", ["1-0"] * 10))
    n = evaluate(p).player("N")
    assert n.performance is None and n.rating_new is None  # table 1: "X"
    n = evaluate(p, KbsbParameters(d_extreme=800)).player("N")
    assert n.performance == 2300 and n.rating_new == 2300
    # 0.995 and more rounds to P = 1.00 in table precision
    assert d_hundredths(100) is None and d_hundredths(0) is None


# -- formula 2 ---------------------------------------------------------------------------
EXAMPLE_OPPONENTS = [1645, 1680, 1920, 1720, 1980, 1905, 2010]
EXAMPLE_RESULTS = ["1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2", "1-0", "0-1"]


def formula2_example(games_before: int, rating: int = 1760) -> KbsbPeriodInput:
    return period(
        [KbsbPlayerInput("X", games_before, rating), *opponents("O", EXAMPLE_OPPONENTS)],
        results_for("X", "O", EXAMPLE_RESULTS),
    )


@pytest.mark.parametrize(
    ("games_before", "k", "rating_new"),
    [(50, 32, 1797), (99, 32, 1797), (150, 24, 1788), (299, 24, 1788), (400, 16, 1779)],
)
def test_formula_2_example(games_before: int, k: int, rating_new: int):
    result = evaluate(formula2_example(games_before))
    x = result.player("X")
    assert x.formula == 2
    assert x.k == k
    assert x.score == 4
    assert x.expected == Decimal("2.84")
    assert x.rating_new == rating_new
    assert x.formula2_rating == rating_new and not x.improvement
    per_game = [g["expected"] for g in result.trace["players"]["X"]["games"]]  # type: ignore[index]
    assert per_game == [0.66, 0.61, 0.29, 0.56, 0.22, 0.31, 0.19]


def test_formula_2_rates_every_game_from_the_list_before():
    # both play twice; the second game is still rated from the old ratings
    players = [KbsbPlayerInput("A", 500, 1800), KbsbPlayerInput("B", 500, 1800)]
    p = period(players, [("A", "B", "1-0"), ("B", "A", "0-1")])
    result = evaluate(p)
    assert result.player("A").expected == Decimal("1.00")
    assert result.player("A").rating_new == 1816  # 1800 + 16 * (2 - 1)
    assert result.player("B").rating_new == 1784


@pytest.mark.parametrize(
    ("games_before", "rating", "k"),
    [
        (20, 1500, 32), (99, 1999, 32), (100, 1500, 24), (299, 2150, 24),
        (300, 1999, 16), (300, 2000, 16), (300, 2001, 12), (1000, 2200, 12),
        (20, 2200, 32), (20, 2201, 10), (150, 2300, 10), (1000, 2700, 10),
    ],
)  # fmt: skip
def test_k_bands(games_before: int, rating: int, k: int):
    assert k_factor(games_before, rating, PARAMS) == k


# -- improvement rule --------------------------------------------------------------------
def improvement_example(games_before: int = 24, **changes: Any) -> KbsbPeriodInput:
    # 32 opponents, sum 47744 (average 1492), W_e = 12.10 for a 1420 player; 24 points
    ratings = [650] * 2 + [1323] * 8 + [1630] * 22
    assert sum(ratings) == 47744
    results = ["1-0"] * 10 + ["1-0"] * 12 + ["1/2-1/2"] * 4 + ["0-1"] * 6
    return period(
        [KbsbPlayerInput("X", games_before, 1420), *opponents("O", ratings)],
        results_for("X", "O", results),
    )


def test_improvement_example():
    x = evaluate(improvement_example()).player("X")
    assert x.games == 32 and x.score == 24
    assert x.k == 32
    assert x.expected == Decimal("12.10")
    assert x.formula2_rating == 1801  # (24 - 12.10) * 32 + 1420 = 1800.8, +381
    assert x.opponents_avg == 1492
    assert x.performance == 1685  # 1492 + 193 (P = 75 %)
    assert x.improvement
    assert x.rating_new == 1685


def test_improvement_needs_more_than_25_games():
    ratings = [1630] * 25
    players = [KbsbPlayerInput("X", 24, 1420), *opponents("O", ratings)]
    p = period(players, results_for("X", "O", ["1-0"] * 24 + ["1/2-1/2"]))
    x = evaluate(p).player("X")
    assert x.formula2_rating - 1420 > 150
    assert not x.improvement and x.rating_new == x.formula2_rating
    # counting all games (24 before + 25) instead of the period's applies it
    x = evaluate(p, KbsbParameters(improvement_count="total")).player("X")
    assert x.improvement and x.rating_new == x.performance == 1630 + 589  # P = 98 %


def test_improvement_needs_a_change_of_more_than_150():
    ratings = [1420] * 26
    players = [KbsbPlayerInput("X", 400, 1420), *opponents("O", ratings)]
    # 16 * (W - 13) = 144 -> W = 22 (change 144)
    p = period(players, results_for("X", "O", ["1-0"] * 22 + ["0-1"] * 4))
    x = evaluate(p).player("X")
    assert x.formula2_rating == 1564 and not x.improvement
    x = evaluate(p, KbsbParameters(improvement_change=143)).player("X")
    assert x.improvement


def test_improvement_also_for_losses():
    ratings = [1420] * 30
    players = [KbsbPlayerInput("X", 30, 1420), *opponents("O", ratings)]
    p = period(players, results_for("X", "O", ["0-1"] * 28 + ["1-0"] * 2))
    x = evaluate(p).player("X")
    assert x.formula2_rating == 1420 + 32 * (2 - 15)
    assert x.improvement and x.rating_new == 1420 - 422  # P = 2/30 -> 7 % -> -422


# -- which games count -------------------------------------------------------------------
def test_games_against_unlisted_players_count_for_the_unlisted_one_only():
    players = [KbsbPlayerInput("A", 50, 1800), KbsbPlayerInput("N", 0)]
    p = period(players, [("A", "N", "0-1"), ("N", "A", "+-"), ("A", "N", "--")])
    result = evaluate(p)
    a, n = result.player("A"), result.player("N")
    assert (a.games, a.formula, a.rating_new, a.games_after) == (0, None, 1800, 50)
    assert (n.games, n.score, n.history) == (1, 1, KbsbHistory(1800, Decimal(1)))


def test_player_without_games_keeps_rating():
    result = evaluate(period([KbsbPlayerInput("A", 15, 1700)], []))
    a = result.player("A")
    assert a.rating_new == 1700 and a.provisional and a.formula is None
    assert a.history == KbsbHistory(15 * 1700, Decimal("7.5"))


def test_rules_errors():
    with pytest.raises(RulesError, match="formula 2 needs"):
        evaluate(period([KbsbPlayerInput("A", 20)], []))
    with pytest.raises(RulesError, match="history"):
        evaluate(period([KbsbPlayerInput("A", 5)], []))
    with pytest.raises(RulesError, match="unknown player"):
        evaluate(period([KbsbPlayerInput("A", 0)], [("A", "Z", "1-0")]))
    with pytest.raises(RulesError, match="duplicate"):
        evaluate(period([KbsbPlayerInput("A", 0), KbsbPlayerInput("A", 0)], []))


def test_float_precision_is_close_to_the_tables():
    params = PARAMS.with_precision("float")
    x = evaluate(formula2_example(50), params).player("X")
    assert abs(x.expected - Decimal("2.84")) < Decimal("0.03")  # type: ignore[operator]
    assert abs(x.rating_new - 1797) <= 1  # type: ignore[operator]
    assert x.expected == Decimal("2.822")
    first = evaluate(formula1_period_1(), params).player("A")
    # 2004 + 200*sqrt(2)*Phi^-1(1/3) = 1882.18 (table 1 reads -125 for 33 %)
    assert first.rating_new == 1882


def test_to_dict_shape():
    result = evaluate(formula2_example(50))
    out = result.to_dict()
    assert out["rules"] == RULES_NAME == "elo-kbsb"
    assert out["precision"] == "table"
    assert out["parameters"] == PARAMS.to_dict()
    assert out["period"]["id"] == "2025-1"
    assert "trace" not in out and "trace" in result.to_dict(trace=True)
    x = out["players"][0]
    assert x["id"] == "X" and x["rating_old"] == 1760 and x["rating_new"] == 1797
    assert (x["games_before"], x["games"], x["games_after"]) == (50, 7, 57)
    assert x["expected"] == 2.84 and x["k"] == 32 and x["formula"] == 2
    assert x["history"] is None


# -- parameters --------------------------------------------------------------------------
def test_parameters_round_trip():
    params = KbsbParameters(k_first=30, d_extreme=800, improvement_count="total")
    assert KbsbParameters.from_dict(params.to_dict()) == params
    assert KbsbParameters.from_dict({}) == KbsbParameters()
    assert KbsbParameters.from_dict({"d_extreme": None}).d_extreme is None
    assert PARAMS.with_precision("float").precision == "float"
    assert PARAMS.to_dict()["formula1_games"] == 20


@pytest.mark.parametrize(
    "data",
    [
        {"nonsense": 1},
        {"k_first": "32"},
        {"k_first": 0},
        {"k_first": 1.5},
        {"k_first": True},
        {"precision": "exact"},
        {"improvement_count": "all"},
        {"provisional_games": 30},
        {"d_extreme": -5},
    ],
)
def test_parameters_reject(data: dict[str, Any]):
    with pytest.raises(ValueError):
        KbsbParameters.from_dict(data)


# -- JSON --------------------------------------------------------------------------------
DOC: dict[str, Any] = {
    "period": {"id": "2025-1", "name": "Jan-Jun", "start": "2025-01-01", "end": "2025-06-30"},
    "players": [
        {"id": "A", "name": "Anna", "rating": 1879, "games_before": 12, "birth_year": 1990,
         "history": {"opponents_sum": 24048, "score": 4}},
        {"id": "B", "rating": 1790, "games_before": 200},
        {"id": "N", "rating": None, "games_before": 3,
         "history": {"opponents_sum": 5400, "score": 1.5}},
    ],
    "games": [
        {"white": "A", "black": "B", "result": "1-0", "date": "2025-02-01"},
        {"white": "N", "black": "A", "result": "1/2-1/2"},
        {"white": "B", "black": "N", "result": "+-"},
    ],
}  # fmt: skip


def test_parse_document():
    periods, was_array = parse_document(DOC)
    assert not was_array and len(periods) == 1
    p = periods[0]
    assert p.period == PeriodInfo("2025-1", date(2025, 1, 1), date(2025, 6, 30), "Jan-Jun")
    assert p.players[0] == KbsbPlayerInput(
        "A", 12, 1879, "Anna", 1990, KbsbHistory(24048, Decimal(4))
    )
    assert p.players[2].rating is None
    assert p.players[2].history == KbsbHistory(5400, Decimal("1.5"))
    assert p.games[0] == KbsbGameInput("A", "B", "1-0", date(2025, 2, 1))
    assert p.games[1].date is None
    periods, was_array = parse_document([DOC, DOC])
    assert was_array and len(periods) == 2
    result = evaluate(periods[0])
    assert result.player("N").history == KbsbHistory(5400 + 1879, Decimal(2))


def mutate(path: list[Any], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(DOC)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value", "location"),
    [
        (["period"], KeyError, "$.period"),
        (["period", "id"], None, "$.period.id"),
        (["period", "start"], "2025-1-1", "$.period.start"),
        (["period", "end"], "2024-12-31", "$.period.end"),
        (["period", "end"], "2025-02-30", "$.period.end"),
        (["players"], {}, "$.players"),
        (["players", 1], "B", "$.players[1]"),
        (["players", 1, "id"], KeyError, "$.players[1].id"),
        (["players", 1, "id"], "A", "$.players[1].id"),
        (["players", 1, "rating"], 0, "$.players[1].rating"),
        (["players", 1, "rating"], 4001, "$.players[1].rating"),
        (["players", 1, "rating"], 1790.5, "$.players[1].rating"),
        (["players", 1, "rating"], "1790", "$.players[1].rating"),
        (["players", 1, "games_before"], KeyError, "$.players[1].games_before"),
        (["players", 1, "games_before"], -1, "$.players[1].games_before"),
        (["players", 1, "games_before"], True, "$.players[1].games_before"),
        (["players", 0, "birth_year"], 2026, "$.players[0].birth_year"),
        (["players", 0, "name"], 5, "$.players[0].name"),
        (["players", 2, "history"], KeyError, "$.players[2].history"),
        (["players", 2, "history"], [], "$.players[2].history"),
        (["players", 2, "history", "opponents_sum"], KeyError,
         "$.players[2].history.opponents_sum"),
        (["players", 2, "history", "opponents_sum"], 2, "$.players[2].history.opponents_sum"),
        (["players", 2, "history", "opponents_sum"], 12001,
         "$.players[2].history.opponents_sum"),
        (["players", 2, "history", "score"], 0.25, "$.players[2].history.score"),
        (["players", 2, "history", "score"], 3.5, "$.players[2].history.score"),
        (["players", 2, "history", "score"], -1, "$.players[2].history.score"),
        (["players", 2, "history", "score"], "1", "$.players[2].history.score"),
        (["games"], "none", "$.games"),
        (["games", 0, "white"], "Z", "$.games[0].white"),
        (["games", 0, "black"], KeyError, "$.games[0].black"),
        (["games", 0, "black"], "A", "$.games[0]"),
        (["games", 0, "result"], "1:0", "$.games[0].result"),
        (["games", 0, "result"], ["1-0"], "$.games[0].result"),
        (["games", 0, "date"], "2025-07-01", "$.games[0].date"),
        (["games", 0, "date"], "01.02.2025", "$.games[0].date"),
    ],
)  # fmt: skip
def test_parse_errors(path: list[Any], value: Any, location: str):
    with pytest.raises(InputError) as err:
        parse_period(mutate(path, value))
    assert err.value.location == location


def test_parse_errors_in_arrays():
    with pytest.raises(InputError) as err:
        parse_document([DOC, mutate(["games", 1, "white"], "Z")])
    assert err.value.location == "$[1].games[1].white"
    with pytest.raises(InputError) as err:
        parse_document([])
    assert err.value.location == "$"
    with pytest.raises(InputError) as err:
        parse_document("period")
    assert err.value.location == "$"
