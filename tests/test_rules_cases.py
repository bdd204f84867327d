"""Rule cases beyond the worked example: matches, computers, non-members, residual-game
expiry, the first-rating correction, the +-1 rule and non-convergence."""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from typing import Any

import pytest

from ratingdb.dates import add_years, residual_valid
from ratingdb.errors import ConvergenceError
from ratingdb.io.evaluate_json import parse_tournament
from ratingdb.rules.dwz.iteration import Iterant, iterate
from ratingdb.rules.dwz2026 import Dwz2026Parameters, evaluate
from ratingdb.rules.dwz2026.development import first_rating, new_rating
from ratingdb.rules.dwz2026.probability import arithmetic_for
from ratingdb.rules.rounding import round_half_up
from tests import builders

PARAMS = Dwz2026Parameters()


tournament = builders.tournament
rated = builders.rated_with(index=20)
unrated = builders.player


def run(doc: dict[str, Any], params: Dwz2026Parameters = PARAMS) -> dict[str, dict[str, Any]]:
    result = evaluate(parse_tournament(doc), params)
    return {p.id: p.to_dict() for p in result.players}


# -- matches (WO 4.2.4.5) ---------------------------------------------------------------------
def test_match_between_rated_players_is_evaluated_without_sonderwertung():
    games = [("A", "B", "1-0")] * 6
    out = run(tournament([rated("A", 1500), rated("B", 1700)], games, kind="match"))
    a = out["A"]
    assert a["performance"] is not None and a["performance"] > 1500 + 300
    assert a["exceptional"] is False
    assert out["B"]["rating_new"] < 1700 and a["rating_new"] > 1500
    assert a["index_new"] == 21 and a["stored"] is True


def test_match_with_unrated_player_changes_nothing():
    games = [("A", "B", "1-0")] * 6
    out = run(tournament([rated("A", 1500), unrated("B")], games, kind="match"))
    assert (out["A"]["rating_new"], out["A"]["index_new"], out["A"]["stored"]) == (1500, 20, False)
    assert out["B"]["group"] == "remaining"
    assert out["B"]["new_residual_games"] == []


def test_match_with_foreign_rating_counts_as_rated():
    games = [("A", "B", "1/2-1/2")] * 2
    doc = tournament(
        [rated("A", 1500), {"id": "B", "rating": 1600, "index": None, "rating_source": "fide"}],
        games,
        kind="match",
    )
    out = run(doc)
    assert out["B"]["index_new"] == PARAMS.foreign_rating_index + 1
    assert out["A"]["rating_new"] > 1500


# -- computers and forfeits (WO 4.1.4, 2.2.5.2) -------------------------------------------------
def test_computer_games_are_struck():
    players = [
        rated("A", 1800),
        rated("B", 1800),
        {"id": "X", "rating": 2500, "index": 5, "computer": True},
    ]
    out = run(tournament(players, [("A", "X", "1-0"), ("A", "B", "1/2-1/2")]))
    assert out["A"]["games"] == 1 and out["A"]["rating_new"] == 1800
    assert out["X"]["group"] == "remaining"
    assert (out["X"]["rating_new"], out["X"]["stored"]) == (None, False)


def test_forfeits_are_never_rated():
    out = run(tournament([rated("A", 1800), rated("B", 1800)], [("A", "B", "+-")]))
    assert out["A"]["games"] == 0
    assert (out["A"]["rating_new"], out["A"]["index_new"], out["A"]["stored"]) == (1800, 20, False)
    assert out["A"]["k"] is None and out["A"]["expected"] is None


# -- first ratings, groups --------------------------------------------------------------------
def five_opponents() -> list[dict[str, Any]]:
    return [rated(f"O{k}", 1500 + 50 * k) for k in range(5)]


def test_first_rating_needs_half_a_point():
    games = [("U", f"O{k}", "0-1") for k in range(5)]
    out = run(tournament([*five_opponents(), unrated("U")], games))
    assert out["U"]["group"] == "remaining"
    assert len(out["U"]["new_residual_games"]) == 5


def test_residual_games_complete_the_five_games():
    residual = [{"opponent_rating": 1400, "score": 1, "date": "2025-06-01"}]
    games = [("U", f"O{k}", "0-1") for k in range(4)]
    out = run(tournament([*five_opponents(), unrated("U", residual_games=residual)], games))
    assert out["U"]["group"] == "first_stage"
    assert out["U"]["games"] == 5 and out["U"]["score"] == 1.0
    assert out["U"]["rating_new"] >= 1100 and out["U"]["index_new"] == 1


def test_expired_residual_games_do_not_count():
    residual = [{"opponent_rating": 1400, "score": 1, "date": "2024-12-12"}]  # exactly 2 years
    games = [("U", f"O{k}", "0-1") for k in range(4)]
    out = run(tournament([*five_opponents(), unrated("U", residual_games=residual)], games))
    assert out["U"]["group"] == "remaining"
    assert out["U"]["games"] == 4  # only the new residual games are held


def test_non_member_gets_computed_values_but_no_residual_games():
    games = [("U", f"O{k}", "0-1") for k in range(3)]
    out = run(tournament([*five_opponents(), unrated("U", member=False)], games))
    assert out["U"]["new_residual_games"] == [] and out["U"]["games"] == 3


def test_rated_players_residual_games_are_ignored():
    residual = [{"opponent_rating": 1400, "score": 1, "date": "2026-06-01"}]
    games = [("A", "O0", "1-0")]
    out = run(tournament([*five_opponents(), rated("A", 1500, residual_games=residual)], games))
    assert out["A"]["games"] == 1


def test_group_of_perfect_newcomers_ends_in_table_precision():
    """Two unrated players beat everybody else and draw each other (DESIGN.md, last rule)."""
    players = [*five_opponents(), unrated("U"), unrated("V")]
    games = [(u, f"O{k}", "1-0") for u in "UV" for k in range(5)] + [("U", "V", "1/2-1/2")]
    out = run(tournament(players, games))
    assert out["U"]["group"] == out["V"]["group"] == "first_stage"
    assert out["U"]["rating_new"] == out["V"]["rating_new"] > 2500


def test_group_of_perfect_newcomers_gets_fictitious_draws_in_float_precision():
    """No finite ratings make W = W_e hold for U and V (they beat everybody else and drew
    each other). Float precision rates the group as a 100 % result (3.4.1.3): each gets a
    fictitious draw against his R_c, residual games and Auswahl II with the stage players
    at their start values: R_p(V) = 1600 + 729 = 2329, R_c(U) = (8000 + 2329) / 6 =
    1721.5 -> 1722. Then U = V = x with sum P(x - O_k) + P(0) + P(x - 1722) = 6."""
    from scipy.optimize import brentq
    from scipy.special import ndtr

    from ratingdb.rules.dwz2026.probability import SIGMA

    players = [*five_opponents(), unrated("U"), unrated("V")]
    games = [(u, f"O{k}", "1-0") for u in "UV" for k in range(5)] + [("U", "V", "1/2-1/2")]
    out = run(tournament(players, games), PARAMS.with_precision("float"))
    opponents = [1500, 1550, 1600, 1650, 1700, 1722]

    def surplus(x: float) -> float:
        return sum(float(ndtr((x - o) / SIGMA)) for o in opponents) + 0.5 - 6

    x = brentq(surplus, 1000, 4000, xtol=1e-12)
    assert out["U"]["iteration_value"] == out["V"]["iteration_value"] == round_half_up(x)
    assert out["U"]["rating_new"] == round_half_up(x) > 2000
    assert (out["U"]["games"], out["U"]["score"]) == (6, 5.5)  # the draw is not shown


# -- Anhang 1.2.2 first-rating correction ----------------------------------------------------
@pytest.mark.parametrize(
    ("r_i", "r_1"),
    [
        (2329, 2329),
        (2000, 2000),
        (1999, 1999),
        (1430, 1476),
        (1100, 1172),
        (1099, 1172),
        (550, 1136),
        (0, 1100),
        (-50, 1100),
        (1108, 1179),
    ],
)
def test_first_rating_correction(r_i, r_1):
    # 1999 + 0.08 = 1999.08 -> 1999; 1099: 1100 + 0.72 * 1099/11 = 1171.93 -> 1172
    assert first_rating(r_i, PARAMS) == r_1


def test_new_rating_floor_and_half_up():
    assert new_rating(1110, Fraction(40), Fraction(-1), PARAMS) == 1100
    assert new_rating(2000, Fraction(25), Fraction(1, 50), PARAMS) == 2001  # 2000.5 -> 2001


# -- Anhang 1.1.3: the +-1 rule and the step cap ----------------------------------------------
def test_plus_minus_one_cycle_takes_the_higher_value():
    """A player whose correction alternates between +1 and -1 ends at the higher value."""
    arith = arithmetic_for(PARAMS)
    # find an opponent set where the single-player iteration alternates
    for opp in range(1400, 1700):
        it = Iterant("X", (1500, opp, 1450), (1, 1, 1))  # W = 1.5 of 3
        for start in range(1550, 1700):
            outcome = iterate([it], [start], arith, 50)
            if len(outcome.trace) > 2 and outcome.trace[-1][0] != outcome.trace[-2][0]:
                cycle = {state[0] for state in outcome.trace[-3:]}
                assert max(cycle) - min(cycle) == 1
                assert outcome.values == [max(cycle)]
                return
    pytest.fail("no alternating case found")  # the search is deterministic


def test_step_cap_is_an_error():
    arith = arithmetic_for(PARAMS)
    it = Iterant("X", (1500, 1600, 1700, 1800, 1900), (1, 1, 1, 1, 1))  # W = 2.5 of 5
    with pytest.raises(ConvergenceError):
        iterate([it], [1000], arith, 3)


# -- WO 4.1.1 residual validity --------------------------------------------------------------
@pytest.mark.parametrize(
    ("created", "end", "valid"),
    [
        ("2024-12-12", "2026-12-11", True),
        ("2024-12-12", "2026-12-12", False),
        ("2024-02-29", "2026-02-28", True),
        ("2024-02-29", "2026-03-01", False),
    ],
)
def test_residual_validity(created, end, valid):
    assert residual_valid(date.fromisoformat(created), date.fromisoformat(end), 2) is valid


def test_feb_29_plus_two_years_is_march_1():
    assert add_years(date(2024, 2, 29), 2) == date(2026, 3, 1)


# -- WO 3.5.2: a loss of exactly half a point (review finding) --------------------------------
def _half_loss() -> dict[str, Any]:
    players = [rated(p, 2000, 20, birth_year=1970) for p in ("X", "O1", "O2", "O3")]
    games = [("X", "O1", "1-0"), ("X", "O2", "0-1"), ("X", "O3", "0-1")]
    return tournament(players, games)


def test_half_point_loss_rounds_the_new_rating_half_up_by_default():
    """DESIGN.md rule 8: R_n = round_half_up(2000 + 25 * (1 - 1.5)) = round(1987.5) = 1988."""
    out = run(_half_loss())
    assert (out["X"]["k"], out["X"]["expected"], out["X"]["rating_new"]) == (25.0, 1.5, 1988)
    assert out["O2"]["rating_new"] == 2013


def test_half_point_loss_with_the_change_rounded_first():
    """WO Anhang 3.1.10 rounds the change: -12.5 -> -13 -> 1987 (Rechenmodul choice)."""
    params = Dwz2026Parameters(round_change_first=True)
    out = run(_half_loss(), params)
    assert out["X"]["rating_new"] == 1987
    assert out["O2"]["rating_new"] == 2013


def test_unevaluated_match_shows_the_residual_games_held():
    residual = [
        {"opponent_rating": 1500, "score": 1, "date": "2026-01-01"},
        {"opponent_rating": 1600, "score": 0.5, "date": "2026-01-01"},
    ]
    doc = tournament(
        [rated("X", 1500), unrated("Y", residual_games=residual)],
        [("X", "Y", "1-0")],
        kind="match",
    )
    out = run(doc)
    assert (out["Y"]["games"], out["Y"]["score"], out["Y"]["opponents_avg"]) == (2, 1.5, 1550)
    assert out["Y"]["new_residual_games"] == []


def test_foreign_rating_without_index_shows_index_6():
    doc = tournament(
        [rated("A", 1500), {"id": "B", "rating": 2000, "index": None, "rating_source": "fide"}],
        [("A", "B", "1/2-1/2")],
    )
    out = run(doc)
    assert (out["B"]["index_old"], out["B"]["index_new"]) == (6, 7)
