"""Property tests of the DWZ 2026 rules on random valid tournaments (hypothesis).

Symmetries: the order of the players and of the games, and which side had white, do not
matter; evaluating twice gives the same result. Invariants of DESIGN.md hold for every
player. The tables of WO Anhang 2.1/2.2 are symmetric and monotone. A ConvergenceError
is allowed in ``float`` precision only: in ``table`` precision every tournament ends.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratingdb.dates import add_years
from ratingdb.errors import ConvergenceError
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules.dwz2026 import Dwz2026Parameters, evaluate
from ratingdb.rules.dwz2026.probability import d_table, p_milli
from ratingdb.rules.model import TournamentInput, TournamentResult

#: decisive results and draws more often than forfeits
results = st.sampled_from(["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "+-", "-+", "--"])
MIRROR = {"1-0": "0-1", "0-1": "1-0", "+-": "-+", "-+": "+-", "1/2-1/2": "1/2-1/2", "--": "--"}
PARAMS = {"table": Dwz2026Parameters(), "float": Dwz2026Parameters(precision="float")}
FOREIGN_INDEX = PARAMS["table"].foreign_rating_index
FLOOR = PARAMS["table"].rating_floor
MARGIN = PARAMS["table"].exceptional_margin

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- strategy -----------------------------------------------------------------------------
@st.composite
def residual_games(draw: st.DrawFn, end: date, max_size: int) -> list[dict[str, Any]]:
    two_years_before = add_years(end, -2)
    games = []
    for _ in range(draw(st.integers(0, max_size))):
        played = draw(
            st.one_of(
                # valid: within the two years before the end
                st.dates(min_value=two_years_before + timedelta(days=1), max_value=end),
                # expired, the anniversary itself included
                st.dates(
                    min_value=two_years_before - timedelta(days=200), max_value=two_years_before
                ),
            )
        )
        games.append(
            {
                "opponent_rating": draw(st.integers(900, 2600)),
                "score": draw(st.sampled_from([0, 0.5, 1])),
                "date": played.isoformat(),
            }
        )
    return games


@st.composite
def tournaments(draw: st.DrawFn) -> dict[str, Any]:
    """A random valid tournament in the JSON form of ``ratingdb evaluate``."""
    end = draw(st.dates(min_value=date(2021, 1, 1), max_value=date(2030, 12, 31)))
    start = end - timedelta(days=draw(st.integers(0, 60)))
    birth_years = st.one_of(st.none(), st.integers(1940, min(2020, end.year)))
    n_players = draw(st.integers(2, 14))
    computer_at = draw(st.one_of(st.none(), st.integers(0, n_players - 1)))
    players: list[dict[str, Any]] = []
    for k in range(n_players):
        player: dict[str, Any] = {
            "id": f"P{k}",
            "birth_year": draw(birth_years),
            "member": draw(st.booleans()),
        }
        if draw(st.booleans()):  # rated
            source = draw(st.sampled_from(["dwz", "dwz", None, "fide", "national"]))
            index = draw(st.integers(0, 60))
            if source in ("fide", "national") and draw(st.booleans()):
                index = None  # a foreign rating without an index (WO 2.2.4)
            player.update(rating=draw(st.integers(1100, 2600)), index=index, rating_source=source)
            # residual games of a rated player are ignored; a few exercise that
            player["residual_games"] = draw(residual_games(end, 1))
        else:
            player.update(rating=None, index=None, rating_source=None)
            player["residual_games"] = draw(residual_games(end, 4))
        if k == computer_at:
            player["computer"] = True
        players.append(player)
    # an explicit count (st.lists would mostly give short lists): enough games for first
    # ratings, performances and Sonderwertung to occur; repeated pairings allowed
    games = []
    for _ in range(draw(st.integers(0, 40))):
        white = draw(st.integers(0, n_players - 1))
        black = (white + draw(st.integers(1, n_players - 1))) % n_players
        games.append(
            {
                "round": None,
                "white": players[white]["id"],
                "black": players[black]["id"],
                "result": draw(results),
            }
        )
    return {
        "tournament": {
            "id": "T",
            "name": "random",
            "start": start.isoformat(),
            "end": end.isoformat(),
            "vkz": "000",
            "kind": draw(st.sampled_from(["individual", "individual", "individual", "team"])),
        },
        "players": players,
        "games": games,
    }


precisions = st.sampled_from(["table", "table", "float"])


# -- helpers -------------------------------------------------------------------------------
def run(data: dict[str, Any], precision: str) -> TournamentResult | ConvergenceError:
    """Evaluate; a ConvergenceError is returned in float precision, raised in table."""
    t = parse_tournament(data)
    try:
        return evaluate(t, PARAMS[precision])
    except ConvergenceError as err:
        if precision == "table":
            raise AssertionError(f"table precision must always end, got: {err}") from err
        return err


def players_by_id(outcome: TournamentResult | ConvergenceError) -> Any:
    if isinstance(outcome, ConvergenceError):
        return ("error", sorted(outcome.players))
    return {p.id: p.to_dict() for p in outcome.players}, outcome.iterations


def full(outcome: TournamentResult | ConvergenceError) -> Any:
    if isinstance(outcome, ConvergenceError):
        return ("error", sorted(outcome.players), str(outcome))
    return outcome.to_dict(trace=True)


def residual_games_as_multiset(output: Any) -> Any:
    """The output with each player's new residual games sorted.

    A player's new residual games come out in the order of the games that created them;
    that order carries no meaning (they all have the tournament's end date), so a
    permutation of the games list may reorder them and nothing else.
    """
    if not isinstance(output, dict):
        return output
    players = [
        {
            **p,
            "new_residual_games": sorted(p["new_residual_games"], key=lambda g: sorted(g.items())),
        }
        for p in output["players"]
    ]
    return {**output, "players": players}


# -- symmetries ----------------------------------------------------------------------------
@pytest.mark.slow
@SETTINGS
@given(data=tournaments(), precision=precisions, rnd=st.randoms(use_true_random=False))
def test_player_order_does_not_matter(data: dict[str, Any], precision: str, rnd: Any) -> None:
    shuffled = dict(data, players=rnd.sample(data["players"], len(data["players"])))
    assert players_by_id(run(shuffled, precision)) == players_by_id(run(data, precision))


@SETTINGS
@given(data=tournaments(), precision=precisions, rnd=st.randoms(use_true_random=False))
def test_game_order_does_not_matter(data: dict[str, Any], precision: str, rnd: Any) -> None:
    shuffled = dict(data, games=rnd.sample(data["games"], len(data["games"])))
    assert residual_games_as_multiset(full(run(shuffled, precision))) == residual_games_as_multiset(
        full(run(data, precision))
    )


@pytest.mark.slow
@SETTINGS
@given(
    data=tournaments(),
    precision=precisions,
    flips=st.lists(st.booleans(), min_size=40, max_size=40),
)
def test_colours_do_not_matter(data: dict[str, Any], precision: str, flips: list[bool]) -> None:
    games = [
        {**g, "white": g["black"], "black": g["white"], "result": MIRROR[g["result"]]}
        if flip
        else g
        for g, flip in zip(data["games"], flips, strict=False)
    ]
    assert full(run(dict(data, games=games), precision)) == full(run(data, precision))


@SETTINGS
@given(data=tournaments(), precision=precisions)
def test_evaluation_is_deterministic(data: dict[str, Any], precision: str) -> None:
    t = parse_tournament(data)
    assert full(run(data, precision)) == full(run(data, precision))
    # and evaluating does not change its (frozen) input
    assert parse_tournament(data) == t


# -- table precision always ends ------------------------------------------------------------
@pytest.mark.slow
@SETTINGS
@given(data=tournaments())
def test_table_precision_always_ends(data: dict[str, Any]) -> None:
    t: TournamentInput = parse_tournament(data)
    try:
        evaluate(t, PARAMS["table"])
    except ConvergenceError as err:  # pragma: no cover - a failure is reported with its input
        raise AssertionError(f"ConvergenceError in table precision: {err}") from err


# -- invariants ------------------------------------------------------------------------------
@SETTINGS
@given(data=tournaments(), precision=precisions)
def test_invariants(data: dict[str, Any], precision: str) -> None:
    outcome = run(data, precision)
    if isinstance(outcome, ConvergenceError):
        assert precision == "float"
        assert outcome.players
        return
    inputs = {p["id"]: p for p in data["players"]}
    assert [p.id for p in outcome.players] == [p["id"] for p in data["players"]]
    for res in outcome.players:
        player = inputs[res.id]
        member = player["member"]
        computer = player.get("computer", False)
        if res.stored:
            assert member, res.id
        if not member:
            assert res.new_residual_games == [], res.id
            assert not res.stored, res.id
        if computer:
            assert res.group == "remaining", res.id
            assert res.rating_new is None, res.id
            assert not res.stored, res.id
            assert res.new_residual_games == [], res.id
        if res.group == "established":
            assert player["rating"] is not None, res.id
            assert res.rating_old == player["rating"]
            # a rating without an index (FIDE/national) reads as index 6 (WO 2.2.4)
            given = player["index"]
            assert res.index_old == (FOREIGN_INDEX if given is None else given)
            if res.games >= 1:
                assert res.index_new == res.index_old + 1, res.id
                assert res.rating_new is not None
                assert res.rating_new >= FLOOR, res.id
                assert res.k is not None
                assert res.expected is not None
                assert res.stored == member, res.id
            else:  # not evaluated: rating and index unchanged
                assert res.rating_new == res.rating_old, res.id
                assert res.index_new == res.index_old, res.id
                assert res.k is None
                assert res.expected is None
                assert res.performance is None
                assert not res.stored, res.id
        elif res.group in ("first_stage", "second_stage"):
            assert player["rating"] is None, res.id
            assert res.rating_new is not None
            assert res.rating_new >= FLOOR, res.id
            assert res.index_new == 1, res.id
            assert res.stored == member, res.id
        else:
            assert res.group == "remaining", res.id
            assert res.rating_new is None, res.id
            assert not res.stored, res.id
        if res.exceptional:
            assert res.group == "established", res.id
            assert res.performance is not None
            assert res.rating_old is not None
            assert res.performance > res.rating_old + MARGIN, res.id
        if res.performance is not None:
            assert res.performance >= 0
        for g in res.new_residual_games:
            assert g.date.isoformat() == data["tournament"]["end"]
            assert g.score in (Decimal("0.0"), Decimal("0.5"), Decimal("1.0"))


# -- the tables of WO Anhang 2.1 / 2.2 -------------------------------------------------------
D_RANGE = range(-2000, 2001)
D_TABLE = d_table(729, Decimal("0.005"))


def test_p_of_minus_d_is_one_minus_p_of_d() -> None:
    for d in D_RANGE:
        assert p_milli(d) + p_milli(-d) == 1000, d
    assert p_milli(0) == 500


def test_d_of_one_minus_p_is_minus_d_of_p() -> None:
    assert len(D_TABLE) == 1001
    for milli in range(1001):
        assert D_TABLE[milli] == -D_TABLE[1000 - milli], milli
    assert D_TABLE[500] == 0
    assert D_TABLE[1000] == 729
    assert D_TABLE[0] == -729


def test_p_is_non_decreasing_in_d() -> None:
    values = [p_milli(d) for d in D_RANGE]
    assert all(a <= b for a, b in pairwise(values))
    assert values[0] == 0
    assert values[-1] == 1000


def test_d_is_non_decreasing_in_p() -> None:
    assert all(a <= b for a, b in pairwise(D_TABLE))


@settings(max_examples=150, deadline=None)
@given(d=st.integers(-5000, 5000))
def test_p_table_symmetry_and_range_beyond_the_table(d: int) -> None:
    assert 0 <= p_milli(d) <= 1000
    assert p_milli(d) + p_milli(-d) == 1000
    assert p_milli(d) <= p_milli(d + 1)
