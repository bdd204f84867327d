"""Single-tournament evaluation under the DWZ 2026 rules (WO chapter 3, Anhang 1).

Order of the work, as in the worked example WO Anhang 3.1:

1. groups (3.4.1, see :mod:`.groups`);
2. start values R_p of the 1st, then the 2nd Zusatzstufe (Anhang 1.1.1; stage-2 players
   see stage-1 opponents at their R_p);
3. the simultaneous first-rating iteration over residual games and all games within
   Auswahl II, with a fictitious draw for a 100 % scorer (3.4.1.3), then the correction
   R_i -> R_1 (3.4.4.2);
4. performances R_h of established players with >= 5 games and W > 0, opponents at R_0
   and R_1, a fictitious draw at 100 % (3.6, Anhang 1.1.4); negative R_h shown as 0;
5. Sonderwertung (3.6.3): R_h > R_0 + 300 makes a player exceptional, seen by established
   opponents at R_h (never in a match, 4.2.4.5);
6. W_e, K and R_n of established players with >= 1 game against Auswahl II (3.5);
7. residual games of remaining members against Auswahl I (3.4.2).

Non-members (3.4.3) are computed like everybody else but nothing is stored for them and
they never receive residual games. A match (4.2.4.5) is evaluated only when every player
has a rating before it. Choices where the WO is silent are listed in docs/DESIGN.md and
docs/rules-dwz2026.md.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise
from typing import Any

from ratingdb.errors import ConvergenceError
from ratingdb.rules.dwz.arithmetic import Num, TableArithmetic, three_places
from ratingdb.rules.dwz.evaluation import (
    DwzEvaluation,
    Row,
    plain,
    rounded_mean,
    score,
)
from ratingdb.rules.dwz.groups import counted_games, half_points
from ratingdb.rules.dwz.iteration import Alone, Iterant, iterate_singles
from ratingdb.rules.dwz2026 import exact
from ratingdb.rules.dwz2026.development import (
    factor_ratio,
    first_rating,
    new_rating_exact,
    new_rating_float,
)
from ratingdb.rules.dwz2026.params import Dwz2026Parameters
from ratingdb.rules.dwz2026.probability import SIGMA, arithmetic_for
from ratingdb.rules.model import TournamentInput, TournamentResult
from ratingdb.rules.rounding import div_half_up, to_decimal
from ratingdb.rules.solver import Curve, Single, solve_many, solve_roots

RULES_NAME = "dwz2026"


def evaluate(
    t: TournamentInput, params: Dwz2026Parameters | None = None, *, traced: bool = True
) -> TournamentResult:
    """Evaluate one tournament; the input must already be validated. ``traced=False``:
    without the trace of the iterations (every other value the same)."""
    params = params or Dwz2026Parameters()
    return _Evaluation(t, params, traced).run()


class _Evaluation(DwzEvaluation):
    rules_name = RULES_NAME

    def __init__(self, t: TournamentInput, params: Dwz2026Parameters, traced: bool = True) -> None:
        super().__init__(t, params, arithmetic_for(params), traced)
        self.params = params
        #: the continuous P(D) of the exact solver (WO 3.3.1); no extreme rule in 2026
        self.curve = Curve("normal", SIGMA, params.d_limit)
        #: WO 3.4.4, 3.5: every game within Auswahl II counts
        self.games = counted_games(self.groups, self.adjacency, second_stage_pairs=True)
        self.count_points(self.games)
        self.trace: dict[str, Any] = {"first_rating": None, "performance": {}}
        self.iterations = 0

    # -- driver -----------------------------------------------------------------------
    def run(self) -> TournamentResult:
        if self.unevaluated_match:
            self.not_evaluated()
        else:
            r1 = self._first_ratings()
            performances = self._performances(r1)
            exceptional = set() if self.is_match else self._exceptional(performances)
            self._established(r1, performances, exceptional)
            self.remaining(r1)
        return self.result(self.iterations, self.trace)

    def _w(self, expected: Num) -> float:
        """A W_e for the trace, as shown in the WO: 3 decimals (the float nearest to
        :meth:`~ratingdb.rules.dwz.arithmetic.Arithmetic.expected_decimal`: an integer of
        thousandths divided by 1000, correctly rounded as ``float(Decimal)`` is)."""
        if type(expected) is int:  # table precision: thousandths
            return expected / 1000
        return three_places(expected)

    # -- 3.4.1 / 3.4.4 / Anhang 1.1: first ratings --------------------------------------
    def _first_ratings(self) -> dict[int, int]:
        groups = self.groups
        stage_players = sorted(groups.first_stage | groups.second_stage)
        if not stage_players:
            return {}
        arith, params = self.arith, self.params
        start: dict[int, Num] = {}
        for stage, against in (
            (groups.first_stage, groups.established),
            (groups.second_stage, groups.selection_1),
        ):
            for i in sorted(stage):
                opponents: list[Num] = [g.opponent_rating for g in groups.residual[i]]
                w2 = sum(half_points(g.score) for g in groups.residual[i])
                for j, points, _ in self.adjacency[i]:
                    if j in against:
                        opponents.append(start[j] if j in start else self.rating(j))
                        w2 += points
                start[i] = arith.start_value(opponents, w2)

        slot = {i: k for k, i in enumerate(stage_players)}
        iterants: list[Iterant] = []
        fictitious: dict[str, int] = {}
        draws: list[int] = []
        for i in stage_players:
            fixed: list[Num] = [g.opponent_rating for g in groups.residual[i]]
            fixed_w2 = [half_points(g.score) for g in groups.residual[i]]
            linked: list[int] = []
            linked_w2: list[int] = []
            seen_at_start: list[Num] = list(fixed)
            for j, points, _ in self.games[i]:
                if j in slot:
                    linked.append(slot[j])
                    linked_w2.append(points)
                    seen_at_start.append(start[j])
                else:
                    fixed.append(self.rating(j))
                    fixed_w2.append(points)
                    seen_at_start.append(self.rating(j))
            draw = rounded_mean(seen_at_start)
            assert draw is not None
            draws.append(draw)
            if sum(fixed_w2) + sum(linked_w2) == 2 * len(seen_at_start):
                # 3.4.1.3: 100 % -> fictitious draw against R_c
                fictitious[self.players[i].id] = draw
                fixed.append(draw)
                fixed_w2.append(1)
            iterants.append(
                Iterant(
                    self.players[i].id,
                    tuple(fixed),
                    tuple(fixed_w2),
                    tuple(linked),
                    tuple(linked_w2),
                )
            )

        try:
            outcome = exact.run(
                iterants,
                [start[i] for i in stage_players],
                draws,
                arith,
                self.curve,
                params.max_iterations,
            )
        except ConvergenceError as err:
            raise ConvergenceError(
                f"no first rating can be found for {', '.join(err.players)}: {err}",
                err.players,
            ) from err
        self.iterations = outcome.steps
        w = self._w
        if self.traced:
            self.trace["first_rating"] = {
                "order": [self.players[i].id for i in stage_players],
                "fictitious_draw": fictitious,
                "steps": _plain_rows(outcome.trace, outcome.method),
                "expected": [[w(v) for v in state] for state in outcome.expected],
                "corrections": _plain_rows(outcome.corrections, outcome.method),
                "method": outcome.method,
                "unbounded": outcome.unbounded,
            }

        r1: dict[int, int] = {}
        for k, i in enumerate(stage_players):
            # R_i = -infinity (a group that lost every outside game) is taken as 0 (3.4.4.2)
            r1[i] = first_rating(_finite(outcome.values[k]), params)
        for k, i in enumerate(stage_players):
            res = self.results[i]
            res.group = "first_stage" if i in groups.first_stage else "second_stage"
            res.start_value = arith.final(start[i])
            res.iteration_value = max(arith.final(_finite(outcome.values[k])), 0)
            res.rating_new, res.index_new = r1[i], 1
            res.stored = self.players[i].member
            seen = [g.opponent_rating for g in groups.residual[i]]
            seen += [r1[j] if j in r1 else self.rating(j) for j, _, _ in self.games[i]]
            w2 = sum(half_points(g.score) for g in groups.residual[i])
            res.games = len(seen)
            res.score = score(w2 + self.w2[i])
            res.opponents_avg = rounded_mean(seen)
        return r1

    # -- 3.6 / Anhang 1.1.4: performance R_h -------------------------------------------
    def _performances(self, r1: dict[int, int]) -> dict[int, int]:
        """R_h of every established player with >= 5 games and W > 0."""
        fewest = self.params.min_games_performance
        performers = [
            i
            for i in sorted(self.groups.established)
            if len(self.games[i]) >= fewest and self.w2[i] != 0
        ]
        return self._performances_of(performers, r1)

    def _performances_of(self, players: list[int], r1: dict[int, int]) -> dict[int, int]:
        """R_h of the established ``players`` (>= 5 games and W > 0 each); in
        float precision solved for all of them at once (:func:`ratingdb.rules.solver.
        solve_many`, the same steps as one by one)."""
        arith, params = self.arith, self.params
        jobs: list[tuple[int, str, list[Num], list[int], int | None, Num]] = []
        ratings = self.ratings
        for i in players:
            games = self.games[i]
            n = len(games)
            fixed_w2 = list(self.points(i))
            w2 = self.w2[i]
            opponents: list[Num] = [r1[j] if j in r1 else ratings[j] for j, _, _ in games]  # type: ignore[misc]
            draw = None
            if w2 == 2 * n:  # 3.6.2: 100 % -> fictitious draw against R_c
                draw = rounded_mean(opponents)
                assert draw is not None
                opponents.append(draw)
                fixed_w2.append(1)
                w2 += 1
            start = arith.start_value(opponents, w2)
            jobs.append((i, self.players[i].id, opponents, fixed_w2, draw, start))
        solved: list[Single | None] = [None] * len(jobs)
        iterated: list[Alone | None] = [None] * len(jobs)
        roots: list[float | None] = [None] * len(jobs)
        if isinstance(arith, TableArithmetic):
            performers = [Iterant(job[1], tuple(job[2]), tuple(job[3])) for job in jobs]
            starts = [int(job[5]) for job in jobs]
            iterated = iterate_singles(performers, starts, arith, params.max_iterations)
        elif arith.precision == "float" and jobs:
            problems = [(opponents, sum(w2s)) for _, _, opponents, w2s, _, _ in jobs]
            if self.traced:
                solved = solve_many(problems, [job[5] for job in jobs], self.curve)
            else:  # the roots alone: no trace shows the steps
                roots = solve_roots(problems, [job[5] for job in jobs], self.curve)
        performances: dict[int, int] = {}
        for (i, pid, opponents, fixed_w2, draw, start), single, alone, root in zip(
            jobs, solved, iterated, roots, strict=True
        ):
            states: list[Num]
            expected: list[Num]
            corrections: list[Num]
            if root is not None:  # solve_many's root, without the trace
                performances[i] = max(arith.final(root), 0)
                continue
            if alone is not None:  # the table iteration, as exact.run runs it: integers
                performances[i] = max(int(alone.value), 0)
                if not self.traced:
                    continue
                self.trace["performance"][pid] = {
                    "fictitious_draw": draw,
                    "steps": alone.states,
                    "expected": [v / 1000 for v in alone.expected],
                    "corrections": alone.corrections,
                }
                continue
            if single is None:
                performer = Iterant(pid, tuple(opponents), tuple(fixed_w2))
                try:
                    outcome = exact.run(
                        [performer], [start], [0], arith, self.curve, params.max_iterations
                    )
                except ConvergenceError as err:
                    raise ConvergenceError(f"performance of {pid}: {err}", [pid]) from err
                value = outcome.values[0]
                states = [state[0] for state in outcome.trace]
                expected = [state[0] for state in outcome.expected]
                corrections = [state[0] for state in outcome.corrections]
            else:  # what exact.run gives for one player: solver.solve_one's steps
                value = single.solution.values[0]
                states = [state[0] for state in single.solution.trace]
                expected = single.expected
                corrections = [b - a for a, b in pairwise(states)]
            performances[i] = max(arith.final(value), 0)
            if not self.traced:
                continue
            self.trace["performance"][pid] = {
                "fictitious_draw": draw,
                "steps": [plain(v) for v in states],
                "expected": [self._w(v) for v in expected],
                "corrections": [plain(v) for v in corrections],
            }
        return performances

    def _exceptional(self, performances: dict[int, int]) -> set[int]:
        """3.6.3: R_h > R_0 + margin."""
        margin = self.params.exceptional_margin
        return {i for i, rh in performances.items() if rh > self.rating(i) + margin}

    # -- 3.5: established players --------------------------------------------------------
    def _established(
        self, r1: dict[int, int], performances: dict[int, int], exceptional: set[int]
    ) -> None:
        """W_e, K and R_n of every established player with >= 1 game (3.5); the others
        keep rating and index. Opponents are seen at R_0, first ratings at R_1 and
        exceptional players at R_h (3.6.3), the rows computed by :meth:`established_rows`."""
        results, ratings = self.results, self.ratings
        seen_as: dict[int, int] = {j: performances[j] for j in exceptional}
        seen_as.update(r1)
        order = sorted(self.groups.established)
        rated = [i for i in order if self.games[i]]
        rows = self.established_rows(rated, seen_as)
        k_decimal, expected_decimal = _k_decimal, self.arith.expected_decimal
        games_of, w2, indexes, players = self.games, self.w2, self.indexes, self.players
        computed = iter(rows)  # the rows of ``rated``: the players of ``order`` with games
        for i in order:
            res, games = results[i], games_of[i]
            res.group = "established"
            res.performance = performances.get(i)
            res.exceptional = i in exceptional
            res.games = len(games)
            res.score = score(w2[i])
            if not games:  # not evaluated: rating and index unchanged
                res.rating_new, res.index_new = ratings[i], res.index_old
                continue
            expected, k_num, k_den, rating_new, _, average, probabilities, _ = next(computed)
            res.k = k_decimal(k_num, k_den)
            res.expected = expected_decimal(expected)
            res.expected_games = self.expected_games(i, games, probabilities)
            res.opponents_avg = average
            res.rating_new = rating_new
            res.index_new = indexes[i] + 1  # type: ignore[operator]
            res.stored = players[i].member

    def established_rows(self, players: list[int], seen_as: dict[int, int]) -> list[Row]:
        """W_e, K and R_n of the established ``players`` (>= 1 game each): (W_e, K's
        numerator and denominator, R_n, None, the opponents' rounded mean, P(D) per game,
        the ratings seen)."""
        arith, params, ratings = self.arith, self.params, self.ratings
        seen = self.seen_lists(players, seen_as)
        expectations = arith.expectations_many([ratings[i] for i in players], seen)  # type: ignore[misc]
        table = isinstance(arith, TableArithmetic)
        half, unit = (arith.half, arith.scale) if isinstance(arith, TableArithmetic) else (0, 1)
        cap = params.k_max.as_integer_ratio()
        rows: list[Row] = []
        for i, opponents, (expected, probabilities) in zip(
            players, seen, expectations, strict=True
        ):
            rating, index, w2 = self.rating(i), self.index(i), self.w2[i]
            if table:  # W - W_e = num / unit, exact
                num = half * w2 - int(expected)
                reached = num >= 0
            else:
                difference = w2 / 2 - float(expected)
                reached = difference >= 0
            k_num, k_den = factor_ratio(rating, index, self.ages[i], reached, params, cap)
            if table:
                rating_new = new_rating_exact(rating, k_num, k_den, num, unit, params)
            else:
                rating_new = new_rating_float(rating, k_num / k_den, difference, params)
            average = div_half_up(sum(opponents), len(opponents))  # ratings: integers
            floats = arith.probabilities(probabilities)
            rows.append((expected, k_num, k_den, rating_new, None, average, floats, opponents))
        return rows


#: K as a Decimal with one place, per (numerator, denominator)
_K_DECIMALS: dict[tuple[int, int], Decimal] = {}


def _k_decimal(num: int, den: int) -> Decimal:
    """``to_decimal(Fraction(num, den), 1)``, made once per value."""
    key = (num, den)
    value = _K_DECIMALS.get(key)
    if value is None:
        value = _K_DECIMALS[key] = to_decimal(Fraction(num, den), 1)
    return value


def _plain_rows(rows: list[list[Num]], method: str) -> list[list[Num | None]]:
    """:func:`plain` of every value; the table iteration's integers are plain already."""
    if method == "iteration" and all(type(v) is int for row in rows for v in row):
        return [list(row) for row in rows]
    return [[plain(v) for v in row] for row in rows]


def _finite(value: Num) -> Num:
    """An end value R_i, with -infinity (no finite solution downwards) as 0 (3.4.4.2)."""
    return value if math.isfinite(value) else 0
