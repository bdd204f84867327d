"""Single-tournament evaluation under the classic DWZ rules (chapter 4, 6.1, 6.2.3.5).

Order of the work:

1. groups (4.3, 4.7.3): players with a rating before the tournament are established
   ("Etablierte"; a FIDE or national rating used as R_o counts, 6.1.2); an unrated player
   with >= 5 games against established players, valid residual games included (4.4),
   is in the 1st Zusatzstufe; one with >= 5 games against established or 1st-stage
   players is in the 2nd Zusatzstufe; everybody else is remaining (4.7.7). No points are
   needed (a 0 % result is rated, 4.7.2.1.2). The grouping is the shared DWZ core's
   :func:`ratingdb.rules.dwz.groups.classify`.
2. Which games count (4.7.1.2, 4.7.3.2): every game between two players of Auswahl II
   (established + both stages) except a game between two 2nd-stage players: a 2nd-stage
   rating is used only by its "unmittelbaren DWZ-Gegnern" (established and 1st-stage
   opponents), and a 2nd-stage player counts only its games against those.
3. First ratings (4.7.2): for each 1st-stage player the start value R_c + D(W/n)
   (4.7.2.1.1; R_c -+ 677 for 0 % / 100 %, 4.7.2.1.2) and its individual Teiliteration
   against established opponents and residual games (4.7.2.1.3); then the same for each
   2nd-stage player, its 1st-stage opponents at their Teiliteration values (4.7.3.2
   allows non-iterated values; the iterated ones are used). Then the Gesamtiteration
   (4.7.4) of all of them together over every counted game, starting from the
   Teiliteration values (see :mod:`ratingdb.rules.dwz.iteration` for the stop and cycle
   rules). The end
   value is the first rating R_n = R_h (4.8), index 1 (4.9.3); there is no correction.
4. Established players with >= 1 counted game (4.3.1, 4.7.5): W_e against R_o of
   established opponents and the first ratings, E (4.9.2), R_n (4.9.1), index + 1
   (4.9.3). R_h (4.8): the formula after "Fuer Spieler mit vorher vorhandener DWZ gilt:"
   is missing from the text; its next sentence ("entspricht dem Rn eines bisher
   DWZ-losen Spielers") is followed: start value, extreme rule and iteration of a first
   rating against the fixed opponents, and, like a first rating, only with >= 5 games.
   First-rating players show R_h = R_n (4.8).
5. Sonderwertung (4.7.6): R_p = R_o + 800 (W - W_e)/n, rounded, for established players
   with >= 5 counted games; R_p >= R_o + 200 makes the player exceptional. If anybody is
   exceptional the whole tournament (steps 3 and 4) is computed again with the
   exceptional players' R_o replaced by R_p for their opponents - established and
   first-rating players alike, for R_n and R_h; their own R_o is unchanged. Exceptional
   results of the second pass are ignored.
6. Remaining players (4.7.7): games against established and 1st-stage players become
   residual games (opponent at R_o or first rating, never R_p: residual games are neither
   R_n nor R_h), dated on the tournament's end; games against 2nd-stage players are
   discarded.

Where the classic rules are silent the project's DWZ 2026 choices apply (docs/DESIGN.md):
forfeits are never rated; computers are struck (6.1.4) and listed as remaining; residual
games count for a tournament ending before their date + 2 years; residual games of a
rated player are ignored; "5 Gegner" counts games; non-members are computed but nothing
is stored and they get no residual games; a match (6.2.3.5) with an unrated player
changes nothing; age = end year - birth year (no birth year: adult); an established
player without a counted game keeps rating and index. All choices are listed in
docs/rules-dwz-classic.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ratingdb.errors import ConvergenceError
from ratingdb.rules.dwz.arithmetic import Num, TableArithmetic
from ratingdb.rules.dwz.evaluation import (
    DwzEvaluation,
    Row,
    plain,
    rounded_mean,
    score,
)
from ratingdb.rules.dwz.groups import counted_games, half_points
from ratingdb.rules.dwz.iteration import (
    Alone,
    Iterant,
    IterationOutcome,
    IterationRules,
    iterate_singles,
    settle,
)
from ratingdb.rules.dwz_classic.coefficient import (
    development_coefficient,
    first_rating_floor,
    new_rating_exact,
    success_value_exact,
)
from ratingdb.rules.dwz_classic.params import DwzClassicParameters
from ratingdb.rules.dwz_classic.tables import arithmetic_for
from ratingdb.rules.model import ResidualGame, TournamentInput, TournamentResult
from ratingdb.rules.rounding import div_half_up, round_half_up
from ratingdb.rules.solver import (
    Curve,
    Single,
    force_extremes,
    solve,
    solve_many,
    solve_one,
    solve_roots,
)

RULES_NAME = "dwz-classic"


def evaluate(
    t: TournamentInput, params: DwzClassicParameters | None = None, *, traced: bool = True
) -> TournamentResult:
    """Evaluate one tournament; the input must already be validated. ``traced=False``:
    without the trace of the iterations (every other value the same)."""
    return _Evaluation(t, params or DwzClassicParameters(), traced).run()


@dataclass(slots=True)
class _Rated:
    """An established player's values in one pass."""

    opponents: list[int]
    w2: int
    expected: Num | None = None
    #: P(D) of each game as points (Arithmetic.probabilities)
    probabilities: list[float | None] = field(default_factory=list)
    #: the opponents' rounded mean
    average: int | None = None
    e: int | None = None
    rating_new: int | None = None
    performance: int | None = None
    success: int | None = None


@dataclass(slots=True)
class _Pass:
    """Everything one computation of the tournament (4.7.2-4.7.5) yields."""

    first: dict[int, int] = field(default_factory=dict)
    start: dict[int, Num] = field(default_factory=dict)
    values: dict[int, Num] = field(default_factory=dict)
    iterants: dict[int, Iterant] = field(default_factory=dict)
    steps: int = 0
    rated: dict[int, _Rated] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)


#: E as a Decimal, made once
_E_DECIMALS = tuple(Decimal(e) for e in range(256))


def _residual_part(games: Sequence[ResidualGame]) -> tuple[list[Num], list[int]]:
    return [g.opponent_rating for g in games], [half_points(g.score) for g in games]


class _Evaluation(DwzEvaluation):
    rules_name = RULES_NAME
    coefficient = "e"

    def __init__(
        self, t: TournamentInput, params: DwzClassicParameters, traced: bool = True
    ) -> None:
        super().__init__(t, params, arithmetic_for(params), traced)
        self.params = params
        sigma = params.normal_sigma_over_sqrt2 * math.sqrt(2)
        self.curve = Curve(params.probability, sigma, params.extreme_difference)
        #: 4.7.4: a cycle settles at its mean; 4.7.2.1.2: 0 % / 100 % do not iterate
        self.rules = IterationRules(params.max_cycle_span, "mean", extremes=True)
        #: 4.7.1.2 / 4.7.3.2: the games that count, per player of Auswahl II
        self.games = counted_games(self.groups, self.adjacency, second_stage_pairs=False)
        self.count_points(self.games)

    # -- driver -----------------------------------------------------------------------
    def run(self) -> TournamentResult:
        iterations = 0
        trace: dict[str, Any] = {"first_rating": None, "performance": {}, "sonderwertung": {}}
        if self.unevaluated_match:  # 6.2.3.5: nothing is evaluated
            self.not_evaluated()
        else:
            computed = self._compute({})
            exceptional: dict[int, int] = {}
            if not self.is_match or self.params.exceptional_in_match:
                exceptional = self._exceptional(computed)
            if exceptional:  # 4.7.6: once more with R_p, new Sonderwertungen ignored
                computed = self._compute(exceptional, computed)
            self._fill(computed, set(exceptional))
            self.remaining(computed.first)
            iterations = computed.steps
            if self.traced:
                trace.update(computed.trace)
                trace["sonderwertung"] = {self.players[i].id: rp for i, rp in exceptional.items()}
        return self.result(iterations, trace)

    def _iterate(self, iterants: Sequence[Iterant], start: Sequence[Num]) -> IterationOutcome:
        """The values where W = W_e (4.7.2.1.3, 4.7.4, 4.8): in float precision solved
        exactly; in table precision the rules' iteration, and where that does not end
        (a cycle wider than ``max_cycle_span``, the step cap) the exact solution with the
        continuous P(D) of the same version, rounded half-up (the value the table
        iteration approximates)."""
        p = self.params
        return settle(iterants, start, self.arith, p.max_iterations, self.rules, self._exact)

    def _iterate_alone(self, iterants: Sequence[Iterant], start: Sequence[Num]) -> list[Num]:
        """The end value of each iterant against constant opponents (4.7.2.1.3): what
        :meth:`_iterate` gives for each alone, computed for all of them together."""
        arith, p = self.arith, self.params
        found: list[Num | None] = [None] * len(iterants)
        if isinstance(arith, TableArithmetic):
            ints = [int(v) for v in start]
            for k, alone in enumerate(
                iterate_singles(iterants, ints, arith, p.max_iterations, self.rules)
            ):
                if alone is not None:
                    found[k] = alone.value
        elif iterants:
            problems = [(it.fixed, it.w2) for it in iterants]
            for k, single in enumerate(solve_many(problems, start, self.curve)):
                if single is not None:
                    found[k] = single.solution.values[0]
        return [
            self._iterate([it], [v]).values[0] if value is None else value
            for it, v, value in zip(iterants, start, found, strict=True)
        ]

    def _exact(
        self, iterants: Sequence[Iterant], start: Sequence[Num], fallback: bool
    ) -> IterationOutcome:
        """Solve W = W_e; a group without a finite solution (it won, or lost, every game
        against everybody outside it) is rated like a 100 % / 0 % result (4.7.2.1.2:
        R_c +- 677 over the current values) with ``unbounded_as_extreme`` (always when
        the table iteration fell back here), else an error."""
        if len(iterants) == 1 and not iterants[0].linked:  # one value: always a root
            one = solve_one(iterants[0].equation(extremes=True), float(start[0]), self.curve)
            outcome = IterationOutcome(list(one.values), one.steps, list(one.trace), [], [])
        else:
            eqs, forced = force_extremes([it.equation(extremes=True) for it in iterants])
            ids = [*forced["up"], *forced["down"]]
            if ids and not (self.params.unbounded_as_extreme or fallback):
                raise ConvergenceError(
                    f"no finite first rating exists for {', '.join(ids)}: they won (or lost) "
                    "every game against players outside their group",
                    ids,
                )
            solution = solve(eqs, [float(v) for v in start], self.curve)
            outcome = IterationOutcome(
                list(solution.values),
                solution.steps,
                list(solution.trace),
                [],
                [],
                unbounded=forced if forced["up"] or forced["down"] else None,
            )
        if not fallback:
            return IterationOutcome(
                outcome.values,
                outcome.steps,
                outcome.trace,
                [],
                [],
                method="solver",
                unbounded=outcome.unbounded,
            )
        values: list[Num] = [round_half_up(v) for v in outcome.values]
        return IterationOutcome(
            values,
            outcome.steps,
            [*outcome.trace[:-1], values],
            [],
            [],
            method="fallback",
            unbounded=outcome.unbounded,
        )

    # -- one computation of 4.7.2-4.7.5 -------------------------------------------------
    def _compute(self, replaced: dict[int, int], before: _Pass | None = None) -> _Pass:
        """``replaced``: R_p of the exceptional players, seen by their opponents.
        ``before``: the first pass; an established player who sees every opponent as he
        did there has the same W_e, E, R_n, R_p and R_h (they depend on nothing else),
        which are taken from it."""
        ratings = self.ratings

        def seen(j: int) -> int:
            return replaced[j] if j in replaced else ratings[j]  # type: ignore[return-value]

        computed = _Pass(trace={"performance": {}})
        if before is not None and not self._newcomers_met(replaced):
            # no first-rating player met an exceptional one: the first pass's first
            # ratings come from the very same values (4.7.6)
            computed.first, computed.start = before.first, before.start
            computed.values, computed.iterants = before.values, before.iterants
            computed.steps = before.steps
            if "first_rating" in before.trace:
                computed.trace["first_rating"] = before.trace["first_rating"]
        else:
            self._first_ratings(seen, computed)
        seen_as = {**replaced, **computed.first}  # exceptional players, first ratings
        seen_now = self.seen_at(seen_as) if before is not None else []
        again: list[int] = []  # the players whose values are computed in this pass
        for i in sorted(self.groups.established):
            games = self.games[i]
            if before is None or not games:
                computed.rated[i] = _Rated([], self.w2[i])
                if games:
                    again.append(i)
                continue
            opponents = [seen_now[j] for j, _, _ in games]
            if before.rated[i].opponents == opponents:
                computed.rated[i] = before.rated[i]
            else:
                computed.rated[i] = _Rated(opponents, self.w2[i])  # type: ignore[arg-type]
                again.append(i)
        rated = [i for i in computed.rated if self.games[i]]
        performers: list[int] = []
        self._established(again, seen_as, computed, performers)
        self._performances(performers, computed)
        if before is not None and len(again) < len(rated):  # the trace in the players' order
            found, earlier = computed.trace["performance"], before.trace["performance"]
            redone = set(again)
            ordered: dict[str, Any] = {}
            for i in rated:
                pid = self.players[i].id
                if pid in found:
                    ordered[pid] = found[pid]
                elif i not in redone and pid in earlier:
                    ordered[pid] = earlier[pid]
            computed.trace["performance"] = ordered
        return computed

    def _newcomers_met(self, players: dict[int, int]) -> bool:
        """Whether a 1st- or 2nd-stage player has a game against one of ``players``."""
        groups, adjacency = self.groups, self.adjacency
        return any(
            j in players
            for stage in (groups.first_stage, groups.second_stage)
            for i in stage
            for j, _, _ in adjacency[i]
        )

    def _first_ratings(self, seen: Callable[[int], int], computed: _Pass) -> None:
        groups, arith = self.groups, self.arith
        order = sorted(groups.first_stage) + sorted(groups.second_stage)
        if not order:
            computed.trace["first_rating"] = None
            return
        # 4.7.2.1.1-4.7.2.1.3, 4.7.3: start values and individual Teiliterationen, the
        # 1st stage against established players, then the 2nd against Auswahl I
        partial: dict[int, Num] = {}
        for stage, against in (
            (groups.first_stage, groups.established),
            (groups.second_stage, groups.selection_1),
        ):
            members = sorted(stage)
            alone: list[Iterant] = []
            for i in members:
                fixed, fixed_w2 = _residual_part(groups.residual[i])
                for j, points, _ in self.adjacency[i]:
                    if j in against:
                        fixed.append(partial[j] if j in partial else seen(j))
                        fixed_w2.append(points)
                alone.append(Iterant(self.players[i].id, tuple(fixed), tuple(fixed_w2)))
                computed.start[i] = arith.start_value(fixed, alone[-1].w2)
            values = self._iterate_alone(alone, [computed.start[i] for i in members])
            partial.update(zip(members, values, strict=True))
        # 4.7.4: the Gesamtiteration over every counted game
        slot = {i: k for k, i in enumerate(order)}
        iterants: list[Iterant] = []
        for i in order:
            fixed, fixed_w2 = _residual_part(groups.residual[i])
            linked: list[int] = []
            linked_w2: list[int] = []
            for j, points, _ in self.games[i]:
                if j in slot:
                    linked.append(slot[j])
                    linked_w2.append(points)
                else:
                    fixed.append(seen(j))
                    fixed_w2.append(points)
            iterant = Iterant(
                self.players[i].id, tuple(fixed), tuple(fixed_w2), tuple(linked), tuple(linked_w2)
            )
            iterants.append(iterant)
            computed.iterants[i] = iterant
        outcome = self._iterate(iterants, [partial[i] for i in order])
        computed.steps = outcome.steps
        for k, i in enumerate(order):
            computed.values[i] = outcome.values[k]
            # WO 2014: the correction takes R_i as computed, negative included; the
            # database's floor (rating_floor, 1) comes after it
            r_i = first_rating_floor(arith.final(outcome.values[k]), self.params)
            computed.first[i] = max(r_i, self.params.rating_floor)
        if not self.traced:
            return
        computed.trace["first_rating"] = {
            "order": [self.players[i].id for i in order],
            "start": [plain(computed.start[i]) for i in order],
            "partial": [plain(partial[i]) for i in order],
            "steps": [[plain(v) for v in state] for state in outcome.trace],
            "cycle": outcome.cycle,
            "method": outcome.method,
            "unbounded": outcome.unbounded,
        }

    def _established(
        self, again: list[int], seen_as: dict[int, int], computed: _Pass, performers: list[int]
    ) -> None:
        """W_e, E, R_n and R_p of the established players ``again`` with >= 1 counted
        game (4.3.1: without one, no new DWZ), their opponents seen at ``seen_as`` or
        R_o; those with enough games are added to ``performers`` (R_h,
        :meth:`_performances`); the rows computed by :meth:`established_rows`."""
        params, games = self.params, self.games
        rows = self.established_rows(again, seen_as)
        fewest_exceptional = params.min_games_exceptional
        fewest_performance = params.min_games_performance
        for i, row in zip(again, rows, strict=True):
            rated = computed.rated[i]
            rated.expected, rated.e, _, rated.rating_new, success = row[:5]
            rated.average, rated.probabilities, rated.opponents = row[5:]
            n = len(games[i])
            if n >= fewest_exceptional:
                rated.success = success
            if n >= fewest_performance:  # 4.8: as the first rating of an unrated player
                performers.append(i)

    def established_rows(self, players: list[int], seen_as: dict[int, int]) -> list[Row]:
        """W_e, E, R_n and R_p of the established ``players`` (>= 1 game each): (W_e, E,
        1, R_n, R_p, the opponents' rounded mean, P(D) per game, the ratings seen)."""
        params, arith, ratings = self.params, self.arith, self.ratings
        seen = self.seen_lists(players, seen_as)
        expectations = arith.expectations_many([ratings[i] for i in players], seen)  # type: ignore[misc]
        table, half, unit = False, 0, 1
        if isinstance(arith, TableArithmetic):  # W - W_e in units of the table
            table, half, unit = True, arith.half, arith.scale
        rows: list[Row] = []
        for i, opponents, (expected, probabilities) in zip(
            players, seen, expectations, strict=True
        ):
            rating, index, n, w2 = self.rating(i), self.index(i), len(opponents), self.w2[i]
            if table:  # W - W_e = num / den, exactly
                num, den = half * w2 - int(expected), unit
            else:
                num, den = arith.difference(w2, expected).as_integer_ratio()
            e = development_coefficient(rating, index, self.ages[i], params, num >= 0)
            rows.append(
                (
                    expected,
                    e,
                    1,
                    new_rating_exact(rating, e, n, num, den, params),
                    success_value_exact(rating, n, num, den, params),
                    div_half_up(sum(opponents), n),  # ratings: integers
                    arith.probabilities(probabilities),
                    opponents,
                )
            )
        return rows

    def _performances(self, players: list[int], computed: _Pass) -> None:
        """R_h (4.8) of each of ``players`` against its fixed opponents; in float
        precision solved for all of them at once (:func:`ratingdb.rules.solver.
        solve_many`: the steps :func:`~ratingdb.rules.solver.solve_one` takes for each)."""
        params, arith, rated = self.params, self.arith, computed.rated
        starts = [arith.start_value(rated[i].opponents, self.w2[i]) for i in players]
        solved: list[Single | None] = [None] * len(players)
        iterated: list[Alone | None] = [None] * len(players)
        roots: list[float | None] = [None] * len(players)
        if isinstance(arith, TableArithmetic):
            ints = [int(s) for s in starts]
            alone = [self._performer(i, rated[i]) for i in players]
            iterated = iterate_singles(alone, ints, arith, params.max_iterations, self.rules)
        elif arith.precision == "float" and players:
            problems = [(rated[i].opponents, self.w2[i]) for i in players]
            if self.traced:
                solved = solve_many(problems, starts, self.curve)
            else:  # the roots alone: no trace shows the steps
                roots = solve_roots(problems, starts, self.curve)
        for i, start, single, alone_outcome, root in zip(
            players, starts, solved, iterated, roots, strict=True
        ):
            steps: Sequence[Sequence[Num]] | None = None  # float or exact steps, for the trace
            if alone_outcome is not None:  # table precision: integers, plain as they are
                value = alone_outcome.value
            elif root is not None:
                value = root
            elif single is None:
                outcome = self._iterate([self._performer(i, rated[i])], [start])
                value, steps = outcome.values[0], outcome.trace
            else:
                value, steps = single.solution.values[0], single.solution.trace
            rated[i].performance = max(arith.final(value), params.rating_floor)
            if self.traced:
                computed.trace["performance"][self.players[i].id] = (
                    list(alone_outcome.states)
                    if alone_outcome is not None
                    else [plain(s[0]) for s in steps or ()]
                )

    def _performer(self, i: int, rated: _Rated) -> Iterant:
        """Player ``i`` for R_h (4.8): his counted games against constant opponents."""
        return Iterant(self.players[i].id, tuple(rated.opponents), self.points(i))

    def _exceptional(self, computed: _Pass) -> dict[int, int]:
        """The rating the opponents of an exceptional player see instead of R_o:
        ``sonderwertung`` "success" (4.7.6): R_p when R_p >= R_o + 200; "performance"
        (WO 2016, in force 2016-08-01): R_h when R_h > R_o + 300 ("um mehr als"), R_h
        needing >= 5 counted games; "off": nobody."""
        margin, mode = self.params.exceptional_margin, self.params.sonderwertung
        if mode == "off":
            return {}
        if mode == "performance":
            return {
                i: rated.performance
                for i, rated in computed.rated.items()
                if rated.performance is not None and rated.performance - self.rating(i) > margin
            }
        return {
            i: rated.success
            for i, rated in computed.rated.items()
            if rated.success is not None and rated.success - self.rating(i) >= margin
        }

    # -- results ------------------------------------------------------------------------
    def _fill(self, computed: _Pass, exceptional: set[int]) -> None:
        arith = self.arith
        order = list(computed.iterants)  # the Gesamtiteration's positions
        for i, iterant in computed.iterants.items():
            res, p = self.results[i], self.players[i]
            res.group = "first_stage" if i in self.groups.first_stage else "second_stage"
            res.start_value = arith.final(computed.start[i])
            res.iteration_value = arith.final(computed.values[i])
            res.rating_new = res.performance = computed.first[i]
            res.index_new = 1
            res.stored = p.member
            res.games, res.score = iterant.n, score(iterant.w2)
            linked = [computed.first[order[k]] for k in iterant.linked]
            res.opponents_avg = rounded_mean([*iterant.fixed, *linked])
        for i, rated in computed.rated.items():
            res, p = self.results[i], self.players[i]
            res.group = "established"
            res.exceptional = i in exceptional
            res.games, res.score = len(rated.opponents), score(rated.w2)
            if rated.rating_new is None:  # not evaluated: rating and index unchanged
                res.rating_new, res.index_new = self.rating(i), res.index_old
                continue
            assert rated.expected is not None and rated.e is not None
            assert res.index_old is not None
            res.k = _E_DECIMALS[rated.e] if 0 <= rated.e < len(_E_DECIMALS) else Decimal(rated.e)
            res.expected = arith.expected_decimal(rated.expected)
            res.expected_games = self.expected_games(i, self.games[i], rated.probabilities)
            res.opponents_avg = rated.average
            res.performance = rated.performance
            res.rating_new, res.index_new = rated.rating_new, res.index_old + 1
            res.stored = p.member
