"""Online Elo (spec online-elo.txt): the published 1200 vs 1600 numbers, K bands, rating
order by end time, parameters and the JSON parser."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest

from ratingdb.errors import InputError, RulesError
from ratingdb.io.elo_online_json import parse_document, parse_input
from ratingdb.rules.elo_online import (
    RULES_NAME,
    OnlineEloParameters,
    OnlineGameInput,
    OnlineInput,
    OnlinePlayerInput,
    evaluate,
    k_factor,
    win_expectancy,
)

PARAMS = OnlineEloParameters()
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def one_game(white: int, black: int, result: str) -> tuple[int, int]:
    data = OnlineInput(
        (OnlinePlayerInput("W", white), OnlinePlayerInput("B", black)),
        (OnlineGameInput("W", "B", result, T0),),
    )
    out = evaluate(data)
    return out.player("W").rating_new, out.player("B").rating_new


@pytest.mark.parametrize(
    ("result", "low_new", "high_new"),
    [("1-0", 1229, 1571), ("1/2-1/2", 1213, 1587), ("0-1", 1197, 1603)],
)
def test_spec_example_1200_against_1600(result: str, low_new: int, high_new: int):
    # spec: 1229 after a win, 1213 after a draw, 1197 (-3) after a loss; the 1600 player
    # gains +3 for a win and loses -29 for a loss
    assert one_game(1200, 1600, result) == (low_new, high_new)
    mirrored = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1/2-1/2"}[result]
    assert one_game(1600, 1200, mirrored) == (high_new, low_new)


def test_spec_example_risk_of_the_1600_player():
    assert one_game(1600, 1200, "1-0")[0] - 1600 == 3
    assert one_game(1600, 1200, "0-1")[0] - 1600 == -29


def test_win_expectancy():
    assert win_expectancy(1200, 1600, PARAMS) == pytest.approx(1 / 11)
    assert win_expectancy(1600, 1200, PARAMS) == pytest.approx(10 / 11)
    assert win_expectancy(1500, 1500, PARAMS) == 0.5


@pytest.mark.parametrize(
    ("rating", "k"),
    [(0, 32), (1200, 32), (2099, 32), (2099.6, 32), (2100, 24), (2399, 24), (2400, 16),
     (2800, 16)],
)  # fmt: skip
def test_k_bands(rating: float, k: int):
    assert k_factor(rating, PARAMS) == k


@pytest.mark.parametrize(
    ("rating", "gain"), [(2099, 16), (2100, 12), (2399, 12), (2400, 8), (1000, 16)]
)
def test_k_bands_in_a_game(rating: int, gain: int):
    # equal ratings: W_e = 0.5, a win gains K/2 and the loser loses K/2
    assert one_game(rating, rating, "1-0") == (rating + gain, rating - gain)


def test_k_follows_each_players_own_band():
    # 2400 beats 2099: W_e = 1/(10^(-301/400)+1) = 0.8495; +16*0.1505, -32*0.1505
    assert one_game(2400, 2099, "1-0") == (2402, 2094)


def test_games_are_rated_in_end_time_order_with_current_ratings():
    players = (
        OnlinePlayerInput("A", 1200, games_before=7),
        OnlinePlayerInput("B", 1600),
        OnlinePlayerInput("C", 1400),
    )
    games = (
        # listed first but ends last: A plays C with A's rating after beating B
        OnlineGameInput("A", "C", "1/2-1/2", T0 + timedelta(hours=2), id="g2"),
        OnlineGameInput("A", "B", "1-0", T0, id="g1"),
    )
    out = evaluate(OnlineInput(players, games))
    assert [g.id for g in out.games] == ["g1", "g2"]
    assert [g.index for g in out.games] == [1, 0]
    g1, g2 = out.games
    assert (g1.white_before, g1.white_after, g1.black_after) == (1200, 1229, 1571)
    assert g2.white_before == 1229 and g2.black_before == 1400
    # 1229 vs 1400: W_e = 1/(10^(171/400)+1) = 0.2723; draw: +32*0.2277 = 7.29
    assert (g2.white_after, g2.black_after) == (1236, 1393)
    a = out.player("A")
    assert (a.rating_old, a.rating_new) == (1200, 1236)
    assert (a.games_before, a.games, a.games_after) == (7, 2, 9)
    assert (a.score, a.wins, a.draws, a.losses) == (Decimal("1.5"), 1, 1, 0)


def test_simultaneous_ends_in_input_order_and_time_zones():
    players = (OnlinePlayerInput("A", 1200), OnlinePlayerInput("B", 1600))
    plus_two = timezone(timedelta(hours=2))
    games = (
        OnlineGameInput("A", "B", "1-0", datetime(2025, 3, 1, 12, 0), id="naive-utc"),
        OnlineGameInput("A", "B", "1-0", datetime(2025, 3, 1, 13, 30, tzinfo=plus_two), id="x"),
        OnlineGameInput("B", "A", "0-1", T0, id="tie"),
    )
    out = evaluate(OnlineInput(players, games))
    # 13:30+02:00 = 11:30 UTC comes first; the two 12:00 UTC games in input order
    assert [g.id for g in out.games] == ["x", "naive-utc", "tie"]
    assert out.games[0].white_after == 1229
    assert out.games[1].white_before == 1229


def test_forfeits_are_not_rated():
    players = (OnlinePlayerInput("A", 1200), OnlinePlayerInput("B", 1600))
    games = (OnlineGameInput("A", "B", "+-", T0), OnlineGameInput("A", "B", "--", T0))
    out = evaluate(OnlineInput(players, games))
    assert [g.rated for g in out.games] == [False, False]
    assert out.games[0].white_after is None
    a = out.player("A")
    assert (a.rating_new, a.games, a.games_after) == (1200, 0, 0)


def test_float_precision_carries_unrounded_ratings():
    players = (OnlinePlayerInput("A", 1500), OnlinePlayerInput("B", 1500))
    games = tuple(OnlineGameInput("A", "B", "1/2-1/2", T0 + timedelta(minutes=k)) for k in range(2))
    data = OnlineInput(players, (OnlineGameInput("A", "B", "1-0", T0 - timedelta(1)), *games))
    table = evaluate(data)
    floated = evaluate(data, PARAMS.with_precision("float"))
    # table: 1516 / 1484, then draws: W_e(1516 vs 1484) = 0.546 -> 32*-0.046 = -1.47 -> 1515
    # 1515 vs 1485: -1.38 -> 1513.62 -> 1514 (integers after every game)
    assert [g.white_after for g in table.games] == [1516, 1515, 1514]
    # float: 1516 - 1.470 = 1514.530, then 1514.530 - 1.335 = 1513.195 -> 1513
    assert table.player("A").rating_new == 1514
    assert floated.player("A").rating_new == 1513
    assert floated.precision == "float"


def test_to_dict_shape():
    data = OnlineInput(
        (OnlinePlayerInput("A", 1200), OnlinePlayerInput("B", 1600)),
        (OnlineGameInput("A", "B", "1-0", T0, id="g1"),),
        id="batch",
    )
    out = evaluate(data).to_dict()
    assert out["rules"] == RULES_NAME == "elo-online"
    assert out["precision"] == "table"
    assert out["parameters"] == PARAMS.to_dict()
    assert out["id"] == "batch"
    assert out["players"][0] == {
        "id": "A", "rating_old": 1200, "rating_new": 1229, "games_before": 0, "games": 1,
        "games_after": 1, "score": 1.0, "wins": 1, "draws": 0, "losses": 0,
    }  # fmt: skip
    game = out["games"][0]
    assert game["end"] == "2025-03-01T12:00:00+00:00"
    assert (game["white_before"], game["white_after"]) == (1200, 1229)
    assert (game["black_before"], game["black_after"]) == (1600, 1571)
    assert game["white_expected"] == 0.091 and game["white_k"] == 32
    assert "trace" not in out
    assert evaluate(data).to_dict(trace=True)["trace"]["changes"][0]["white_change"] == 29.091


def test_rules_errors():
    players = (OnlinePlayerInput("A", 1200),)
    with pytest.raises(RulesError, match="unknown player"):
        evaluate(OnlineInput(players, (OnlineGameInput("A", "Z", "1-0", T0),)))
    with pytest.raises(RulesError, match="duplicate"):
        evaluate(OnlineInput(players * 2, ()))


# -- parameters --------------------------------------------------------------------------
def test_parameters_round_trip():
    params = OnlineEloParameters(k_low=40, scale=480, precision="float")
    assert OnlineEloParameters.from_dict(params.to_dict()) == params
    assert OnlineEloParameters.from_dict({}) == PARAMS
    assert PARAMS.with_precision("float") == OnlineEloParameters(precision="float")


@pytest.mark.parametrize(
    "data",
    [{"k": 32}, {"k_low": "32"}, {"scale": 0}, {"k_high_from": 2000}, {"precision": "x"},
     {"k_mid": 2.5}],
)  # fmt: skip
def test_parameters_reject(data: dict[str, Any]):
    with pytest.raises(ValueError):
        OnlineEloParameters.from_dict(data)


def test_custom_bands():
    params = OnlineEloParameters(k_mid_from=1500, k_mid=20)
    assert k_factor(1499, params) == 32 and k_factor(1500, params) == 20


# -- JSON --------------------------------------------------------------------------------
DOC: dict[str, Any] = {
    "id": "night-1",
    "players": [
        {"id": "A", "name": "Anna", "rating": 1200, "games_before": 3},
        {"id": "B", "rating": 1600},
    ],
    "games": [
        {"id": "g1", "white": "A", "black": "B", "result": "1-0", "end": "2025-03-01T12:00:00Z"},
        {"white": "B", "black": "A", "result": "1/2-1/2", "end": "2025-03-01T12:30+01:00"},
        {"white": "B", "black": "A", "result": "--", "end": "2025-03-01T13:00:00.5"},
    ],
}  # fmt: skip


def test_parse_document():
    inputs, was_array = parse_document(DOC)
    assert not was_array
    data = inputs[0]
    assert data.id == "night-1"
    assert data.players[0] == OnlinePlayerInput("A", 1200, 3, "Anna")
    assert data.players[1].games_before == 0
    assert data.games[0] == OnlineGameInput("A", "B", "1-0", T0, "g1")
    assert data.games[1].end == datetime(2025, 3, 1, 11, 30, tzinfo=UTC)
    assert data.games[2].end.tzinfo is None
    out = evaluate(data)
    assert [g.index for g in out.games] == [1, 0, 2]
    inputs, was_array = parse_document([DOC, DOC])
    assert was_array and len(inputs) == 2


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
        (["players"], KeyError, "$.players"),
        (["players"], "A", "$.players"),
        (["id"], [], "$.id"),
        (["players", 0], 5, "$.players[0]"),
        (["players", 0, "id"], "", "$.players[0].id"),
        (["players", 1, "id"], "A", "$.players[1].id"),
        (["players", 1, "rating"], KeyError, "$.players[1].rating"),
        (["players", 1, "rating"], None, "$.players[1].rating"),
        (["players", 1, "rating"], -5, "$.players[1].rating"),
        (["players", 1, "rating"], 4001, "$.players[1].rating"),
        (["players", 1, "games_before"], -1, "$.players[1].games_before"),
        (["players", 1, "games_before"], "2", "$.players[1].games_before"),
        (["games"], {}, "$.games"),
        (["games", 0, "white"], "Z", "$.games[0].white"),
        (["games", 0, "black"], "A", "$.games[0]"),
        (["games", 0, "result"], "1-1", "$.games[0].result"),
        (["games", 0, "result"], KeyError, "$.games[0].result"),
        (["games", 0, "end"], KeyError, "$.games[0].end"),
        (["games", 0, "end"], "2025-03-01", "$.games[0].end"),
        (["games", 0, "end"], "2025-03-01 12:00", "$.games[0].end"),
        (["games", 0, "end"], "2025-02-30T12:00:00Z", "$.games[0].end"),
        (["games", 0, "end"], "2025-03-01T25:00:00Z", "$.games[0].end"),
        (["games", 0, "end"], 1740830400, "$.games[0].end"),
        (["games", 1, "id"], "g1", "$.games[1].id"),
    ],
)  # fmt: skip
def test_parse_errors(path: list[Any], value: Any, location: str):
    with pytest.raises(InputError) as err:
        parse_input(mutate(path, value))
    assert err.value.location == location


def test_parse_errors_in_arrays():
    with pytest.raises(InputError) as err:
        parse_document([DOC, mutate(["games", 2, "end"], "soon")])
    assert err.value.location == "$[1].games[2].end"
    with pytest.raises(InputError) as err:
        parse_document([])
    assert err.value.location == "$"
