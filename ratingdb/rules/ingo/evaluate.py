"""Single-tournament evaluation under the Ingo rules (spec ingo-rules.txt, Regelblatt 1960).

Ingo numbers: lower is stronger. ``PlayerInput.rating`` is the old Ingo number F (None
for a newcomer), ``PlayerInput.index`` the number of calculations behind it. Order of the
work:

1. counted games (B IV: no forfeits; no computer games) and the 50-degree rule (C VI) for
   every game between two players with a usable number (:mod:`.games`);
2. C II: numberless players who won or lost everything are unseen by the others, with
   cascade; numberless players with too few games or no link to a known number get no
   number (choices, :mod:`.games`);
3. %d of everybody (A, B I 2), the newcomers' H: the general level of B II for a complete
   round robin, else B III 2 / B III 3 (:mod:`.newcomers`);
4. C VI for players without a number uses their H ("sinngemäß auf deren H-Zahl"): the
   rule is judged once on the H of steps 1-3 (where all their games counted), and steps
   1-3 are repeated with its verdicts. The H of that second round is not judged again:
   repeating until the verdicts settle need not end (a struck win makes the H worse,
   which can bring the opponent back within 50 degrees, and so on);
5. levels of the players with a number: own number plus one opponent number per counted
   game (B III 1, B IV, B V, C V); newcomers enter with their final H (preface: "Bei
   erstberechneten Gegnern wird ersatzweise die H-Zahl eingesetzt"). In a complete round
   robin this is the general level of B I (computed once, B I 1);
6. new numbers: newcomers F/1 = H (C I), C II follow-up for flagged numbers, everybody
   else :func:`.arithmetic.new_number` (B I 4, C I, C III, C IV, C V).

Choices where the spec is silent or garbled (also in docs/rules-ingo.md):

* "Complete round robin" is derived from the games: the players with a counted game
  (minus those C II makes unseen) met each other exactly once and no game was capped by
  C VI. Then the general level of B I / B II is used for all of them, else every player
  gets an individual level (B III, B IV, B V).
* The flag of C II cannot be expressed by ``PlayerInput``: ``evaluate`` takes it as the
  keyword ``flags`` {player id: "or_better" | "or_worse"}. A flagged player counts as
  numberless for every level (C II: "der Spieler gilt dabei als zahlenlos"). His new
  number: H if it is worse ("or_worse") / better ("or_better") than the flagged number
  (index 1, "gilt diese als erste F"), else the usual formula with his index (F/2 from
  F/1). The new number carries a flag only if C II applies in this tournament again.
* A player with a number and fewer than ``min_games`` counted games (``match_min_games``
  in a match) is not calculated: number and index unchanged, nothing stored.
* Levels, %d and H keep one decimal in table precision (B III 3: 170,6); a newcomer's
  F/1 is his H rounded half up; new numbers are rounded half up (B I: 167.5 -> 168).
* A number without index counts as ``assumed_index`` calculations; an index 0 with a
  number gives the new number H (C I's weighting with weight 0).
* Non-members are calculated but nothing is stored for them; their numbers count in
  the levels of the others (as in the other families).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ratingdb.errors import RulesError
from ratingdb.rules.ingo.arithmetic import Arithmetic, new_number
from ratingdb.rules.ingo.games import (
    FLAG_OR_BETTER,
    FLAG_OR_WORSE,
    FLAGS,
    Decisions,
    Exclusions,
    Game,
    View,
    decide,
    exclude,
    views_of,
)
from ratingdb.rules.ingo.newcomers import NewcomerSolution, NewcomerSolver
from ratingdb.rules.ingo.params import IngoParameters
from ratingdb.rules.ingo.result import IngoPlayerResult, IngoResult
from ratingdb.rules.model import RESULTS, TournamentInput
from ratingdb.rules.rounding import round_half_up

RULES_NAME = "ingo"


def evaluate(
    t: TournamentInput,
    params: IngoParameters | None = None,
    *,
    flags: Mapping[str, str] | None = None,
) -> IngoResult:
    """Evaluate one tournament; ``flags`` marks old numbers carrying a C II flag."""
    params = params or IngoParameters()
    return _Evaluation(t, params, flags or {}).run()


@dataclass(slots=True)
class _Round:
    """Everything computed for one set of 50-degree verdicts."""

    decisions: Decisions
    views: list[list[View]]
    exclusions: Exclusions
    percent_diff: dict[int, Fraction]
    level: dict[int, Fraction]
    performance: dict[int, Fraction]
    #: players of the general level (complete round robin), empty otherwise
    general: set[int]
    general_level: Fraction | None
    solution: NewcomerSolution
    solver: NewcomerSolver


class _Evaluation:
    def __init__(self, t: TournamentInput, params: IngoParameters, flags: Mapping[str, str]):
        self.t = t
        self.params = params
        self.arith = Arithmetic(params)
        self.players = t.players
        self.names = [p.id for p in t.players]
        position = {p.id: i for i, p in enumerate(t.players)}
        self.computers = {i for i, p in enumerate(t.players) if p.computer}
        self.flags_old = self._flags(flags, position)
        self.known: dict[int, int] = {
            i: p.rating
            for i, p in enumerate(t.players)
            if p.rating is not None and i not in self.computers and i not in self.flags_old
        }
        self.numberless = [
            i for i in range(len(t.players)) if i not in self.computers and i not in self.known
        ]
        self.is_match = t.tournament.kind == "match"
        self.min_games = params.match_min_games if self.is_match else params.min_games
        self.games = self._games(position)

    def _flags(self, flags: Mapping[str, str], position: dict[str, int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for pid, flag in flags.items():
            if pid not in position:
                raise RulesError(f"flag for unknown player {pid!r}")
            if flag not in FLAGS:
                raise RulesError(f"flag of {pid}: expected {' or '.join(FLAGS)}, got {flag!r}")
            i = position[pid]
            if self.players[i].rating is None:
                raise RulesError(f"flag of {pid}: a flag needs an Ingo number")
            if i not in self.computers:
                out[i] = flag
        return out

    def _games(self, position: dict[str, int]) -> list[Game]:
        games: list[Game] = []
        for g in self.t.games:
            if g.result not in RESULTS:
                raise RulesError(f"unknown result {g.result!r}")
            points = RESULTS[g.result]
            if points is None:  # B IV: forfeits are not counted
                continue
            white, black = position.get(g.white), position.get(g.black)
            if white is None or black is None or white == black:
                raise RulesError(f"game {g.white} - {g.black}: unknown or identical players")
            if white in self.computers or black in self.computers:
                continue
            games.append(Game(len(games), white, black, points[0]))
        return games

    def _index(self, i: int) -> int:
        index = self.players[i].index
        return self.params.assumed_index if index is None else index

    # -- driver -------------------------------------------------------------------------
    def run(self) -> IngoResult:
        limit = self.params.limit_degrees
        decisions = decide(self.games, self.known, limit)
        current = self._round(decisions)
        rounds = 1
        # C VI for numberless players: judged once on their H from the first round
        reference: dict[int, Fraction | int] = dict(self.known)
        reference.update((i, h) for i, h in current.performance.items() if i not in self.known)
        verdicts = decide(self.games, reference, limit)
        if verdicts != decisions:
            current = self._round(verdicts)
            rounds = 2
        players = [self._player(i, current) for i in range(len(self.players))]
        return IngoResult(
            tournament=self.t.tournament,
            rules=RULES_NAME,
            precision=self.params.precision,
            parameters=self.params.to_dict(),
            iterations=len(current.solution.passes),
            players=players,
            trace=self._trace(current, rounds),
        )

    def _round(self, decisions: Decisions) -> _Round:
        count = len(self.players)
        limit = self.params.limit_degrees
        base = views_of(self.games, count, decisions)
        ex = exclude(base, self.numberless, self.known, self.min_games)
        views = [[v for v in base[i] if v.opponent not in ex.unseen] for i in range(count)]
        d = {
            i: self.arith.percent_diff(sum(v.half_points for v in views[i]), len(views[i]))
            for i in range(count)
            if views[i]
        }
        rated = [i for i in self.numberless if i not in ex.dropped]
        solver = NewcomerSolver(
            views, self.known, d, self.arith, limit, self.params.max_iterations, self.names
        )
        members = {i for i in range(count) if views[i] and i not in ex.unseen}
        level: dict[int, Fraction] = {}
        performance: dict[int, Fraction] = {}
        general_level: Fraction | None = None
        if self._complete(members, views):
            # B I / B II: one general level
            general_level = solver.general_level(members)
            for i in members:
                level[i] = general_level
                performance[i] = general_level + d[i]
            solution = NewcomerSolution({}, {})
            for i in rated:  # unseen by C II: an individual level of their own
                if i in members:
                    continue
                n = solver.level(i, performance)
                if n is None:  # cannot happen: linked via known numbers (games.exclude)
                    raise RulesError(f"no level can be formed for {self.names[i]}")
                level[i], performance[i] = n, n + d[i]
        else:
            members = set()
            solution = solver.solve(rated)
            level.update(solution.level)
            performance.update(solution.performance)
        for i, rating in self.known.items():
            if not views[i] or i in level:
                continue
            total = Fraction(rating)
            for v in views[i]:
                if v.mode:
                    total += rating + v.mode * limit
                elif v.opponent in self.known:
                    total += self.known[v.opponent]
                else:
                    total += performance[v.opponent]
            level[i] = self.arith.q(total / (len(views[i]) + 1))
            performance[i] = level[i] + d[i]
        return _Round(
            decisions, views, ex, d, level, performance, members, general_level, solution, solver
        )

    def _complete(self, members: set[int], views: list[list[View]]) -> bool:
        """Every member met every other member exactly once, nothing capped (C VI)."""
        if len(members) < 2 or not any(i in self.known for i in members):
            return False
        for i in members:
            opponents = [v.opponent for v in views[i]]
            if any(v.mode for v in views[i]):
                return False
            if len(opponents) != len(members) - 1 or set(opponents) != members - {i}:
                return False
        return True

    # -- per player -------------------------------------------------------------------
    def _player(self, i: int, r: _Round) -> IngoPlayerResult:
        p = self.players[i]
        has_number = p.rating is not None and i not in self.computers
        res = IngoPlayerResult(
            id=p.id,
            group="remaining",
            rating_old=p.rating if has_number else None,
            index_old=self._index(i) if has_number else None,
            flag_old=self.flags_old.get(i),
        )
        if i in self.computers:
            return res
        views = r.views[i]
        res.games = len(views)
        res.score = Decimal(sum(v.half_points for v in views)) / 2
        calculated = i in r.performance and (i not in self.known or len(views) >= self.min_games)
        if calculated:
            res.level = self.arith.shown(r.level[i])
            res.level_type = "general" if i in r.general else "individual"
            res.percent_diff = self.arith.shown(r.percent_diff[i])
            res.performance = self.arith.shown(r.performance[i])
        if i in self.known:
            res.group = "established"
            rating, index = self.known[i], self._index(i)
            if not calculated:
                res.rating_new, res.index_new = rating, index
                return res
            res.rating_new, res.method = new_number(
                rating,
                r.performance[i],
                index,
                len(views),
                self.is_match,
                self._junior(i),
                self.params,
            )
            res.index_new = index + 1
            res.stored = p.member
            return res
        if not calculated:  # dropped: no number (a flagged number stays as it was)
            if i in self.flags_old:
                res.rating_new, res.index_new = p.rating, self._index(i)
                res.flag = self.flags_old[i]
            return res
        res.group = "first_stage"
        h = r.performance[i]
        res.flag = r.exclusions.flags.get(i)
        res.stored = p.member
        old_flag = self.flags_old.get(i)
        if old_flag is None:  # C I: F/1 = H
            res.rating_new, res.index_new, res.method = round_half_up(h), 1, "C I"
            return res
        old = self.players[i].rating
        assert old is not None  # flags need a number (_flags)
        if (old_flag == FLAG_OR_WORSE and h > old) or (old_flag == FLAG_OR_BETTER and h < old):
            res.rating_new, res.index_new, res.method = round_half_up(h), 1, "C II"
            return res
        res.rating_new, res.method = new_number(
            old, h, self._index(i), len(views), self.is_match, self._junior(i), self.params
        )
        res.index_new = self._index(i) + 1
        return res

    def _junior(self, i: int) -> bool:
        birth = self.players[i].birth_year
        if birth is None:
            return False
        return self.t.tournament.end.year - birth <= self.params.junior_max_age

    # -- trace ----------------------------------------------------------------------------
    def _trace(self, r: _Round, rounds: int) -> dict[str, Any]:
        """Rounds of C VI, the general level (B II sums), the 50-degree verdicts, the
        exclusions and the newcomers' passes (B III 3: F-%d-Summen, levels, H)."""
        names = self.names
        games = {g.number: g for g in self.games}
        sol = r.solution

        def num(value: Fraction | None) -> float | None:
            return None if value is None else float(self.arith.shown(value))

        general = None
        if r.general_level is not None:
            known_sum, newcomers_d, count = r.solver.general_sums(r.general)
            general = {
                "known_sum": known_sum,
                "newcomers_percent_diff": num(newcomers_d),
                "known_numbers": count,
                "level": num(r.general_level),
            }
        newcomers = None
        if sol.order:
            sums = {names[i]: r.solver.f_d_sum(i) for i in sol.order}
            newcomers = {
                "order": [names[i] for i in sol.order],
                "f_d_sums": {pid: num(total) for pid, (total, _) in sums.items()},
                "known_numbers": {pid: count for pid, (_, count) in sums.items()},
                "levels": [[num(v) for v in state] for state in sol.level_passes],
                "passes": [[num(h) for h in state] for state in sol.passes],
            }
        return {
            "rounds": rounds,
            "general": general,
            "limit": {
                "struck": [
                    [names[games[k].white], names[games[k].black]]
                    for k in sorted(r.decisions.struck)
                ],
                "capped": [
                    [names[games[k].white], names[games[k].black], names[better]]
                    for k, better in r.decisions.capped
                ],
            },
            "excluded": {names[i]: reason for i, reason in sorted(r.exclusions.reasons.items())},
            "newcomers": newcomers,
        }
