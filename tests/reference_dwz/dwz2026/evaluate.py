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
from typing import Any

from ratingdb.errors import ConvergenceError
from ratingdb.rules.dwz2026.params import Dwz2026Parameters
from ratingdb.rules.model import TournamentInput, TournamentResult
from ratingdb.rules.rounding import to_decimal
from tests.reference_dwz.dwz.arithmetic import Num
from tests.reference_dwz.dwz.evaluation import DwzEvaluation, plain, rounded_mean, score
from tests.reference_dwz.dwz.groups import counted_games, half_points
from tests.reference_dwz.dwz.iteration import Iterant
from tests.reference_dwz.dwz2026 import exact
from tests.reference_dwz.dwz2026.development import development_factor, first_rating, new_rating
from tests.reference_dwz.dwz2026.probability import SIGMA, arithmetic_for
from tests.reference_dwz.solver import Curve

RULES_NAME = "dwz2026"


def evaluate(t: TournamentInput, params: Dwz2026Parameters | None = None) -> TournamentResult:
    """Evaluate one tournament; the input must already be validated."""
    params = params or Dwz2026Parameters()
    return _Evaluation(t, params).run()


class _Evaluation(DwzEvaluation):
    rules_name = RULES_NAME

    def __init__(self, t: TournamentInput, params: Dwz2026Parameters) -> None:
        super().__init__(t, params, arithmetic_for(params))
        self.params = params
        #: the continuous P(D) of the exact solver (WO 3.3.1); no extreme rule in 2026
        self.curve = Curve("normal", SIGMA, params.d_limit)
        #: WO 3.4.4, 3.5: every game within Auswahl II counts
        self.games = counted_games(self.groups, self.adjacency, second_stage_pairs=True)
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
        """A W_e for the trace, as shown in the WO: 3 decimals."""
        return float(self.arith.expected_decimal(expected))

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
        self.trace["first_rating"] = {
            "order": [self.players[i].id for i in stage_players],
            "fictitious_draw": fictitious,
            "steps": [[plain(v) for v in state] for state in outcome.trace],
            "expected": [[self._w(v) for v in state] for state in outcome.expected],
            "corrections": [[plain(v) for v in state] for state in outcome.corrections],
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
            res.score = score(w2 + sum(points for _, points, _ in self.games[i]))
            res.opponents_avg = rounded_mean(seen)
        return r1

    # -- 3.6 / Anhang 1.1.4: performance R_h -------------------------------------------
    def _performances(self, r1: dict[int, int]) -> dict[int, int]:
        arith, params = self.arith, self.params
        performances: dict[int, int] = {}
        for i in sorted(self.groups.established):
            games = self.games[i]
            opponents: list[Num] = [r1[j] if j in r1 else self.rating(j) for j, _, _ in games]
            fixed_w2 = [points for _, points, _ in games]
            w2, n = sum(fixed_w2), len(opponents)
            if n < params.min_games_performance or w2 == 0:
                continue
            draw = None
            if w2 == 2 * n:  # 3.6.2: 100 % -> fictitious draw against R_c
                draw = rounded_mean(opponents)
                assert draw is not None
                opponents.append(draw)
                fixed_w2.append(1)
                w2 += 1
            start = arith.start_value(opponents, w2)
            pid = self.players[i].id
            performer = Iterant(pid, tuple(opponents), tuple(fixed_w2))
            try:
                outcome = exact.run(
                    [performer], [start], [0], arith, self.curve, params.max_iterations
                )
            except ConvergenceError as err:
                raise ConvergenceError(f"performance of {pid}: {err}", [pid]) from err
            performances[i] = max(arith.final(outcome.values[0]), 0)
            self.trace["performance"][pid] = {
                "fictitious_draw": draw,
                "steps": [plain(state[0]) for state in outcome.trace],
                "expected": [self._w(state[0]) for state in outcome.expected],
                "corrections": [plain(state[0]) for state in outcome.corrections],
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
        arith, params = self.arith, self.params
        for i in sorted(self.groups.established):
            res = self.results[i]
            rating = self.rating(i)
            res.group = "established"
            res.performance = performances.get(i)
            res.exceptional = i in exceptional
            games = self.games[i]
            opponents: list[Num] = []
            for j, _, _ in games:
                if j in r1:
                    opponents.append(r1[j])
                elif j in exceptional:
                    opponents.append(performances[j])
                else:
                    opponents.append(self.rating(j))
            w2 = sum(points for _, points, _ in games)
            res.games, res.score = len(opponents), score(w2)
            if not opponents:  # not evaluated: rating and index unchanged
                res.rating_new, res.index_new = rating, res.index_old
                continue
            expected, probabilities = arith.expectations(rating, opponents)
            difference = arith.difference(w2, expected)
            k = development_factor(rating, self.index(i), self.ages[i], difference >= 0, params)
            res.k = to_decimal(k, 1)
            res.expected = arith.expected_decimal(expected)
            res.expected_games = self.expected_games(i, games, probabilities)
            res.opponents_avg = rounded_mean(opponents)
            res.rating_new = new_rating(rating, k, difference, params)
            res.index_new = self.index(i) + 1
            res.stored = self.players[i].member


def _finite(value: Num) -> Num:
    """An end value R_i, with -infinity (no finite solution downwards) as 0 (3.4.4.2)."""
    return value if math.isfinite(value) else 0
