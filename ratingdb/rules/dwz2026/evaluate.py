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
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ratingdb.rules.dwz2026 import exact
from ratingdb.rules.dwz2026.arithmetic import Arithmetic, Num, arithmetic_for
from ratingdb.rules.dwz2026.development import (
    age_class,
    development_factor,
    first_rating,
    new_rating,
)
from ratingdb.rules.dwz2026.groups import (
    Adjacency,
    Groups,
    classify,
    half_points,
    rated_adjacency,
)
from ratingdb.rules.dwz2026.iteration import Iterant
from ratingdb.rules.dwz2026.params import Dwz2026Parameters
from ratingdb.rules.dwz2026.probability import SIGMA
from ratingdb.rules.errors import ConvergenceError
from ratingdb.rules.model import (
    NewResidualGame,
    PlayerInput,
    PlayerResult,
    ResidualGame,
    TournamentInput,
    TournamentResult,
)
from ratingdb.rules.rounding import div_half_up, round_half_up, to_decimal
from ratingdb.rules.solver import Curve

RULES_NAME = "dwz2026"


def rounded_mean(values: Sequence[Num]) -> int | None:
    """Average rounded half-up to an integer (None for no values)."""
    if not values:
        return None
    if all(type(v) is int for v in values):
        return div_half_up(sum(values), len(values))  # type: ignore[arg-type]
    return round_half_up(sum(Fraction(v) for v in values) / len(values))


def _score(w2: int) -> Decimal:
    return Decimal(w2) / 2


def evaluate(t: TournamentInput, params: Dwz2026Parameters | None = None) -> TournamentResult:
    """Evaluate one tournament; the input must already be validated."""
    params = params or Dwz2026Parameters()
    return _Evaluation(t, params).run()


class _Evaluation:
    def __init__(self, t: TournamentInput, params: Dwz2026Parameters) -> None:
        self.t = t
        self.params = params
        self.arith: Arithmetic = arithmetic_for(params)
        #: the continuous P(D) of the exact solver (WO 3.3.1); no extreme rule in 2026
        self.curve = Curve("normal", SIGMA, params.d_limit)
        self.players: tuple[PlayerInput, ...] = t.players
        self.position = {p.id: i for i, p in enumerate(t.players)}
        end_year = t.tournament.end.year
        self.ages = [age_class(p.birth_year, end_year, params) for p in t.players]
        self.results = [
            PlayerResult(
                id=p.id,
                group="remaining",
                age_class=self.ages[i],
                rating_old=None if p.computer else p.rating,
                index_old=self._index_of(p),
            )
            for i, p in enumerate(t.players)
        ]
        self.trace: dict[str, Any] = {"first_rating": None, "performance": {}}
        self.iterations = 0

    # -- driver -----------------------------------------------------------------------
    def run(self) -> TournamentResult:
        adjacency = rated_adjacency(self.t, self.position)
        is_match = self.t.tournament.kind == "match"
        unrated_in_match = any(p.rating is None and not p.computer for p in self.players)
        groups = classify(self.t, adjacency, self.params)
        if is_match and unrated_in_match:
            self._not_evaluated(groups)
        else:
            r1 = self._first_ratings(groups, adjacency)
            performances = self._performances(groups, adjacency, r1)
            exceptional = set() if is_match else self._exceptional(groups, performances)
            self._established(groups, adjacency, r1, performances, exceptional)
            self._remaining(groups, adjacency, r1)
        return TournamentResult(
            tournament=self.t.tournament,
            rules=RULES_NAME,
            precision=self.params.precision,
            parameters=self.params.to_dict(),
            iterations=self.iterations,
            players=self.results,
            trace=self.trace,
        )

    def _rating(self, i: int) -> int:
        rating = self.players[i].rating
        assert rating is not None
        return rating

    def _w(self, expected: Num) -> float:
        """A W_e for the trace, as shown in the WO: 3 decimals."""
        return float(self.arith.expected_3(expected))

    def _index_of(self, p: PlayerInput) -> int | None:
        """The index used: a rating without one (FIDE/national) reads as index 6 (WO 2.2.4)."""
        if p.computer or p.rating is None:
            return None
        return self.params.foreign_rating_index if p.index is None else p.index

    def _index(self, i: int) -> int:
        index = self._index_of(self.players[i])
        assert index is not None
        return index

    # -- 4.2.4.5: a match with an unrated player is not evaluated ----------------------
    def _not_evaluated(self, groups: Groups) -> None:
        for i, p in enumerate(self.players):
            res = self.results[i]
            if p.rating is not None and not p.computer:
                res.group = "established"
                res.rating_new, res.index_new = p.rating, res.index_old
            elif not p.computer:  # remaining: show the residual games still held
                self._hold_residual(res, groups.residual[i], [])

    # -- 3.4.1 / 3.4.4 / Anhang 1.1: first ratings --------------------------------------
    def _first_ratings(self, groups: Groups, adjacency: Adjacency) -> dict[int, int]:
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
                for j, points in adjacency[i]:
                    if j in against:
                        opponents.append(start[j] if j in start else self._rating(j))
                        w2 += points
                start[i] = arith.start_value(opponents, w2)

        slot = {i: k for k, i in enumerate(stage_players)}
        selection_2 = groups.selection_2
        iterants: list[Iterant] = []
        fictitious: dict[str, int] = {}
        draws: list[int] = []
        real_games: dict[int, tuple[list[int], int]] = {}
        for i in stage_players:
            fixed: list[Num] = [g.opponent_rating for g in groups.residual[i]]
            fixed_w2 = [half_points(g.score) for g in groups.residual[i]]
            linked: list[int] = []
            linked_w2: list[int] = []
            seen_at_start: list[Num] = list(fixed)
            for j, points in adjacency[i]:
                if j not in selection_2:
                    continue
                if j in slot:
                    linked.append(slot[j])
                    linked_w2.append(points)
                    seen_at_start.append(start[j])
                else:
                    fixed.append(self._rating(j))
                    fixed_w2.append(points)
                    seen_at_start.append(self._rating(j))
            w2, n = sum(fixed_w2) + sum(linked_w2), len(seen_at_start)
            real_games[i] = (linked, w2)
            draw = rounded_mean(seen_at_start)
            assert draw is not None
            draws.append(draw)
            if w2 == 2 * n:  # 3.4.1.3: 100 % -> fictitious draw against R_c
                fictitious[self.players[i].id] = draw
                fixed.append(draw)
                fixed_w2.append(1)
                w2, n = w2 + 1, n + 1
            iterants.append(
                Iterant(
                    self.players[i].id,
                    tuple(fixed),
                    tuple(linked),
                    w2,
                    n,
                    linked_w2=tuple(linked_w2),
                    fixed_w2=tuple(fixed_w2),
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
            "steps": [[_plain(v) for v in state] for state in outcome.trace],
            "expected": [[self._w(v) for v in state] for state in outcome.expected],
            "corrections": [[_plain(v) for v in state] for state in outcome.corrections],
            "method": outcome.method,
            "unbounded": outcome.unbounded,
        }

        r1: dict[int, int] = {}
        for k, i in enumerate(stage_players):
            # R_i = -infinity (a group that lost every outside game) is taken as 0 (3.4.4.2)
            r1[i] = first_rating(_finite(outcome.values[k]), params)
        for k, i in enumerate(stage_players):
            res = self.results[i]
            p = self.players[i]
            res.group = "first_stage" if i in groups.first_stage else "second_stage"
            res.start_value = arith.final(start[i])
            res.iteration_value = max(arith.final(_finite(outcome.values[k])), 0)
            res.rating_new, res.index_new = r1[i], 1
            res.stored = p.member
            linked, w2 = real_games[i]
            seen = [g.opponent_rating for g in groups.residual[i]]
            seen += [
                r1[j] if j in r1 else self._rating(j) for j, _ in adjacency[i] if j in selection_2
            ]
            res.games, res.score = len(seen), _score(w2)
            res.opponents_avg = rounded_mean(seen)
        return r1

    # -- 3.6 / Anhang 1.1.4: performance R_h -------------------------------------------
    def _performances(
        self, groups: Groups, adjacency: Adjacency, r1: dict[int, int]
    ) -> dict[int, int]:
        arith, params = self.arith, self.params
        selection_2 = groups.selection_2
        performances: dict[int, int] = {}
        for i in sorted(groups.established):
            opponents: list[Num] = []
            w2 = 0
            for j, points in adjacency[i]:
                if j in selection_2:
                    opponents.append(r1[j] if j in r1 else self._rating(j))
                    w2 += points
            n = len(opponents)
            if n < params.min_games_performance or w2 == 0:
                continue
            draw = None
            if w2 == 2 * n:  # 3.6.2: 100 % -> fictitious draw against R_c
                draw = rounded_mean(opponents)
                assert draw is not None
                opponents.append(draw)
                w2, n = w2 + 1, n + 1
            start = arith.start_value(opponents, w2)
            pid = self.players[i].id
            fixed_w2 = tuple(points for j, points in adjacency[i] if j in selection_2)
            if draw is not None:
                fixed_w2 = (*fixed_w2, 1)
            performer = Iterant(pid, tuple(opponents), (), w2, n, fixed_w2=fixed_w2)
            try:
                outcome = exact.run(
                    [performer], [start], [0], arith, self.curve, params.max_iterations
                )
            except ConvergenceError as err:
                raise ConvergenceError(f"performance of {pid}: {err}", [pid]) from err
            performances[i] = max(arith.final(outcome.values[0]), 0)
            self.trace["performance"][pid] = {
                "fictitious_draw": draw,
                "steps": [_plain(state[0]) for state in outcome.trace],
                "expected": [self._w(state[0]) for state in outcome.expected],
                "corrections": [_plain(state[0]) for state in outcome.corrections],
            }
        return performances

    def _exceptional(self, groups: Groups, performances: dict[int, int]) -> set[int]:
        margin = self.params.exceptional_margin
        return {i for i, rh in performances.items() if rh > self._rating(i) + margin}

    # -- 3.5: established players --------------------------------------------------------
    def _established(
        self,
        groups: Groups,
        adjacency: Adjacency,
        r1: dict[int, int],
        performances: dict[int, int],
        exceptional: set[int],
    ) -> None:
        arith, params = self.arith, self.params
        selection_2 = groups.selection_2
        for i in sorted(groups.established):
            p, res = self.players[i], self.results[i]
            rating = self._rating(i)
            res.group = "established"
            res.performance = performances.get(i)
            res.exceptional = i in exceptional
            opponents: list[Num] = []
            w2 = 0
            for j, points in adjacency[i]:
                if j not in selection_2:
                    continue
                w2 += points
                if j in r1:
                    opponents.append(r1[j])
                elif j in exceptional:
                    opponents.append(performances[j])
                else:
                    opponents.append(self._rating(j))
            res.games, res.score = len(opponents), _score(w2)
            if not opponents:  # not evaluated: rating and index unchanged
                res.rating_new, res.index_new = rating, res.index_old
                continue
            expected = arith.expected(rating, opponents)
            difference = arith.difference(w2, expected)
            k = development_factor(rating, self._index(i), self.ages[i], difference >= 0, params)
            res.k = to_decimal(k, 1)
            res.expected = arith.expected_3(expected)
            res.opponents_avg = rounded_mean(opponents)
            res.rating_new = new_rating(rating, k, difference, params)
            res.index_new = self._index(i) + 1
            res.stored = p.member

    # -- 3.4.2: remaining players and their residual games ------------------------------
    def _remaining(self, groups: Groups, adjacency: Adjacency, r1: dict[int, int]) -> None:
        selection_1 = groups.selection_1
        end = self.t.tournament.end
        for i in sorted(groups.remaining):
            p, res = self.players[i], self.results[i]
            if p.computer:
                continue
            new = [
                NewResidualGame(r1[j] if j in r1 else self._rating(j), _score(points), end)
                for j, points in adjacency[i]
                if j in selection_1
            ]
            self._hold_residual(res, groups.residual[i], new)
            res.new_residual_games = new if p.member else []

    @staticmethod
    def _hold_residual(
        res: PlayerResult, old: list[ResidualGame], new: list[NewResidualGame]
    ) -> None:
        """games/score/R_c of a remaining player: all residual games held afterwards."""
        games: list[ResidualGame | NewResidualGame] = [*old, *new]
        held = [(g.opponent_rating, half_points(g.score)) for g in games]
        res.games = len(held)
        res.score = _score(sum(w for _, w in held))
        res.opponents_avg = rounded_mean([r for r, _ in held])


def _finite(value: Num) -> Num:
    """An end value R_i, with -infinity (no finite solution downwards) as 0 (3.4.4.2)."""
    return value if math.isfinite(value) else 0


def _plain(value: Num) -> Num | None:
    """Trace values: integers stay integers, floats keep 3 decimals, -infinity is None."""
    if isinstance(value, int):
        return value
    return float(f"{value:.3f}") if math.isfinite(value) else None
