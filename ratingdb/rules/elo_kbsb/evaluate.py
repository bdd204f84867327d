"""One rating period under the KBSB Elo rules (spec kbsb-elo.txt).

Spec sections and how they are implemented:

* "Formule van het prestatiecijfer" (formula 1): R = R_c + D(P), R_c the average of the
  opponents' ratings, P the score as a fraction, D(P) from table 1. It applies "as long as
  a player has not played 20 games" and, as the spec's example shows (12 games -> 1879,
  then 8 more -> 1883 "over 20 games"), it is cumulative over all the player's rated games:
  a player with ``games_before`` < 20 is rated by formula 1 over his history plus the
  period's games, also when that takes him to 20 or more. The player is listed from 10
  games ("voorlopig gerangschikt na 10 partijen"), provisionally until 20.
* "Gewone kwotering" (formula 2): R_n = R_o + K (W - W_e) for ``games_before`` >= 20,
  W_e the sum over the games of table 2's winning chance for the rating difference, K by
  games played and rating. The spec's example line "1760 = 1.16 K" is read as
  "1760 + 1.16 K" (1797 / 1788 / 1779 for K = 32 / 24 / 16).
* Improvement rule ("verbeteringssysteem"): a formula-2 change of more than 150 points
  for a player with more than 25 games is replaced by formula 1 on the period's games
  (example: 1801 rejected, 1685 kept). The garbled "zij 3/3 van sigma" is ignored.
* "Every game of a period is rated from the ratings of the list before it": every
  opponent rating is the ``rating`` of the input, never a rating computed in the period.

Choices where the spec is silent (all listed in docs/rules-elo.md):

1. A game counts for a player only when his opponent has a rating on the list before the
   period (``rating`` not null) and it was played (forfeits ``+-``, ``-+``, ``--`` are
   not rated for anybody). So a game between a listed and an unlisted player counts for
   the unlisted one only. ``games``, ``games_after`` and every "number of games" below
   count rated games only.
2. Formula 1 history: ``history`` (sum of opponents' ratings and points over the games
   before) is used when given; without it a player with a rating and 0 < games_before <
   20 is taken to have scored 50 % against opponents at his own rating in those games
   (which reproduces his rating). A player without rating and with games before needs the
   history (RulesError otherwise).
3. Below 10 games after the period no rating is formed: ``rating_new`` stays
   ``rating_old`` (null for a new player) while the games and the history are carried.
   ``provisional`` is true for a player with a rating and fewer than 20 games after.
4. Table precision rounding: P = points / games rounded half-up to hundredths (4/12 ->
   0.33), R_c rounded half-up to an integer before D(P) is added (1918.6 -> 1919, as the
   example does), W_e exact in hundredths, R_n = R_o + K (W - W_e) rounded half-up
   (1787.84 -> 1788). Float precision: the normal model (see :mod:`.tables`), R_c and
   D(P) unrounded, only the rating is rounded half-up.
5. Table 1's "X" (P = 1 or 0): formula 1 gives no value (``performance`` null, rating
   unchanged; the improvement rule is not applied) unless the parameter ``d_extreme``
   sets +-D for it.
6. K is chosen once per period from ``games_before`` and R_o: K = 10 if R_o > 2200 ("in
   all cases"), else 32 while games_before < 100 (the period starts within the first 100
   games), 24 while games_before < 300, then 12 if R_o > 2000 and 16 otherwise (a rating
   of exactly 2000 gets 16, exactly 2200 gets 12: "hoger dan" is read as strictly above).
7. Improvement rule: "change" is |R_n(formula 2) - R_o| with R_n rounded, "more than 150"
   is strictly more; "more than 25 games" counts the period's rated games (parameter
   ``improvement_count`` = "total" counts games_after instead). Only formula-2 players
   are concerned (formula-1 players are rated by formula 1 anyway).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ratingdb.errors import RulesError
from ratingdb.rules.elo_kbsb.model import (
    KbsbHistory,
    KbsbPeriodInput,
    KbsbPlayerInput,
    KbsbPlayerResult,
    KbsbResult,
)
from ratingdb.rules.elo_kbsb.params import KbsbParameters
from ratingdb.rules.elo_kbsb.tables import (
    d_float,
    d_hundredths,
    expected_float,
    expected_hundredths,
)
from ratingdb.rules.model import RESULTS
from ratingdb.rules.rounding import (
    decimal_half_up,
    div_half_up,
    round_half_up,
    to_decimal,
)

RULES_NAME = "elo-kbsb"


@dataclass(frozen=True, slots=True)
class _RatedGame:
    opponent: str
    opponent_rating: int
    half_points: int


@dataclass(frozen=True, slots=True)
class Performance:
    """Formula 1 over ``games`` games: R_c (exact), P, D(P) and R = R_c + D(P)."""

    opponents_avg: Fraction
    p: Fraction
    d: Fraction | None
    rating: int | None


def k_factor(games_before: int, rating: int, params: KbsbParameters) -> int:
    """K of formula 2 (choice 6 in the module docstring)."""
    if rating > params.k_top_threshold:
        return params.k_top
    if games_before < params.k_first_games:
        return params.k_first
    if games_before < params.k_second_games:
        return params.k_second
    return params.k_high if rating > params.k_low_threshold else params.k_low


def performance(
    opponents_sum: int, games: int, half_points: int, params: KbsbParameters
) -> Performance:
    """Formula 1, R = R_c + D(P), in the parameters' precision (choices 4 and 5)."""
    if games <= 0:
        raise ValueError("formula 1 needs at least one game")
    extreme = params.d_extreme
    if params.precision == "table":
        rc = Fraction(div_half_up(opponents_sum, games))
        p = Fraction(div_half_up(half_points * 100, 2 * games), 100)
        d_int = d_hundredths(int(p * 100))
        d = Fraction(d_int) if d_int is not None else None
    else:
        rc = Fraction(opponents_sum, games)
        p = Fraction(half_points, 2 * games)
        d_value = d_float(float(p), params.float_sigma)
        d = Fraction(d_value) if d_value is not None else None
    if d is None and extreme is not None and p in (0, 1):
        d = Fraction(extreme if p == 1 else -extreme)
    return Performance(rc, p, d, None if d is None else round_half_up(rc + d))


def expected_score(own: int, opponent: int, params: KbsbParameters) -> Fraction:
    """W_e of one game from table 2 (exact hundredths) or the normal model (float)."""
    if params.precision == "table":
        return Fraction(expected_hundredths(own - opponent), 100)
    return Fraction(expected_float(own - opponent, params.float_sigma))


def evaluate(period: KbsbPeriodInput, params: KbsbParameters | None = None) -> KbsbResult:
    """Rate one period; raises RulesError for input the rules cannot evaluate."""
    params = params or KbsbParameters()
    players = {p.id: p for p in period.players}
    if len(players) != len(period.players):
        raise RulesError("duplicate player id")
    for p in period.players:
        _check_player(p, params)

    rated: dict[str, list[_RatedGame]] = {p.id: [] for p in period.players}
    for k, g in enumerate(period.games):
        if g.white not in players or g.black not in players:
            raise RulesError(f"game {k}: unknown player")
        if g.white == g.black:
            raise RulesError(f"game {k}: player {g.white!r} cannot play against himself")
        if g.result not in RESULTS:
            raise RulesError(f"game {k}: unknown result {g.result!r}")
        halves = RESULTS[g.result]
        if halves is None:
            continue
        white, black = players[g.white], players[g.black]
        if black.rating is not None:
            rated[white.id].append(_RatedGame(black.id, black.rating, halves[0]))
        if white.rating is not None:
            rated[black.id].append(_RatedGame(white.id, white.rating, halves[1]))

    results: list[KbsbPlayerResult] = []
    trace: dict[str, Any] = {}
    for p in period.players:
        result, player_trace = _rate_player(p, rated[p.id], params)
        results.append(result)
        trace[p.id] = player_trace
    return KbsbResult(
        period=period.period,
        rules=RULES_NAME,
        precision=params.precision,
        parameters=params.to_dict(),
        players=results,
        trace={"players": trace},
    )


def _check_player(p: KbsbPlayerInput, params: KbsbParameters) -> None:
    if p.games_before < 0:
        raise RulesError(f"player {p.id!r}: games_before cannot be negative")
    if p.rating is None:
        if p.games_before >= params.formula1_games:
            raise RulesError(
                f"player {p.id!r}: {p.games_before} games before but no rating (formula 2 "
                "needs one)"
            )
        if p.games_before > 0 and p.history is None:
            raise RulesError(
                f"player {p.id!r}: no rating and {p.games_before} games before: formula 1 "
                "needs the history (opponents_sum, score)"
            )


def _history_before(p: KbsbPlayerInput) -> tuple[int, int]:
    """(sum of opponents' ratings, half points) over the games before (choice 2)."""
    if p.history is not None:
        return p.history.opponents_sum, int(p.history.score * 2)
    if p.games_before == 0:
        return 0, 0
    assert p.rating is not None  # _check_player
    return p.games_before * p.rating, p.games_before


def _rate_player(
    p: KbsbPlayerInput, games: list[_RatedGame], params: KbsbParameters
) -> tuple[KbsbPlayerResult, dict[str, Any]]:
    n = len(games)
    halves = sum(g.half_points for g in games)
    opp_sum = sum(g.opponent_rating for g in games)
    res = KbsbPlayerResult(
        id=p.id,
        rating_old=p.rating,
        rating_new=p.rating,
        games_before=p.games_before,
        games=n,
        games_after=p.games_before + n,
        score=Decimal(halves) / 2,
    )
    expected_each = [
        None if p.rating is None else expected_score(p.rating, g.opponent_rating, params)
        for g in games
    ]
    trace: dict[str, Any] = {
        "games": [
            {
                "opponent": g.opponent,
                "opponent_rating": g.opponent_rating,
                "score": g.half_points / 2,
                "expected": None if e is None else float(_show(e, params, 2)),
            }
            for g, e in zip(games, expected_each, strict=True)
        ],
        "formula1": None,
    }

    if p.games_before < params.formula1_games:
        sum_before, halves_before = _history_before(p)
        total_sum, total_halves = sum_before + opp_sum, halves_before + halves
        res.history = KbsbHistory(total_sum, Decimal(total_halves) / 2)
        if n:
            perf = performance(total_sum, res.games_after, total_halves, params)
            res.formula = 1
            res.opponents_avg = round_half_up(perf.opponents_avg)
            res.performance = perf.rating
            if res.games_after >= params.provisional_games and perf.rating is not None:
                res.rating_new = perf.rating
            trace["formula1"] = _perf_trace(perf, total_sum, res.games_after, params)
    elif n:
        assert p.rating is not None  # _check_player
        k = k_factor(p.games_before, p.rating, params)
        w_e = sum((e for e in expected_each if e is not None), Fraction(0))
        formula2 = round_half_up(p.rating + k * (Fraction(halves, 2) - w_e))
        perf = performance(opp_sum, n, halves, params)
        res.formula = 2
        res.k = k
        res.expected = _show(w_e, params, 2)
        res.formula2_rating = formula2
        res.opponents_avg = round_half_up(perf.opponents_avg)
        res.performance = perf.rating
        counted = n if params.improvement_count == "period" else res.games_after
        res.improvement = (
            abs(formula2 - p.rating) > params.improvement_change
            and counted > params.improvement_games
            and perf.rating is not None
        )
        res.rating_new = perf.rating if res.improvement else formula2
        trace["formula1"] = _perf_trace(perf, opp_sum, n, params)
    res.provisional = res.rating_new is not None and res.games_after < params.formula1_games
    return res, trace


def _show(value: Fraction, params: KbsbParameters, table_places: int) -> Decimal:
    """Exact in table precision (a multiple of 10**-table_places), 3 decimals in float."""
    if params.precision == "table":
        return to_decimal(value, table_places)
    return decimal_half_up(value, 3)


def _perf_trace(
    perf: Performance, opponents_sum: int, games: int, params: KbsbParameters
) -> dict[str, Any]:
    return {
        "games": games,
        "opponents_sum": opponents_sum,
        "opponents_avg": float(_show(perf.opponents_avg, params, 0)),
        "p": float(_show(perf.p, params, 2)),
        "d": None if perf.d is None else float(_show(perf.d, params, 0)),
        "performance": perf.rating,
    }
