"""W = W_e solved exactly for DWZ 2026 (WO 3.4.4, 3.6, Anhang 1.1), with the WO's answers
where no finite solution exists.

Float precision does not iterate step by step (Anhang 1.1.3 lets it stop when the largest
D' falls below a tolerance, which a slow iteration reaches points away from W = W_e): it
solves for the point itself (:mod:`ratingdb.rules.solver`). Table precision keeps the
iteration of Anhang 1.1.2 with its tables; where that iteration does not end (a cycle
wider than the +-1 of Anhang 1.1.3, or the step cap), the exact solution is taken and
rounded half-up: the value the table iteration approximates.

Groups without a finite solution (the WO is silent; docs/rules-dwz2026.md):

* a group of first-rating players that won every game against everybody outside it is a
  100 % result of the group: each member gets the fictitious draw of 3.4.1.3 against his
  R_c (residual games and Auswahl II, stage players at their start values), which makes
  the solution finite, as it does for a single 100 % scorer;
* a group that lost every such game has R_i -> -infinity: R_i is taken as 0 (3.4.4.2,
  "Sollte R_i negativ sein, wird dies auf 0 heraufgesetzt"), so each member gets the
  minimal first rating R_1 = 1100; the other first-rating players count their games
  against the group as won against an infinitely weak opponent (P = 1), which is what
  any finite iteration approaches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from ratingdb.rules.dwz.arithmetic import Arithmetic, Num
from ratingdb.rules.dwz.iteration import PLUS_MINUS_ONE, Iterant, IterationOutcome, settle
from ratingdb.rules.rounding import round_half_up
from ratingdb.rules.solver import Curve, Equation, solve, unbounded

#: R_i of a member of a group that lost every game against the outside
MINUS_INFINITY = -math.inf


def run(
    iterants: Sequence[Iterant],
    start: Sequence[Num],
    draws: Sequence[int],
    arith: Arithmetic,
    curve: Curve,
    max_steps: int,
) -> IterationOutcome:
    """The end values R_i: the table iteration (with the exact fallback) or, in float
    precision, the exact solution. ``draws[k]`` is iterant k's R_c for a fictitious draw."""

    def exact(its: Sequence[Iterant], begin: Sequence[Num], fallback: bool) -> IterationOutcome:
        outcome = solve_exact(its, begin, draws, arith, curve)
        if not fallback:
            return outcome
        values: list[Num] = [v if v == MINUS_INFINITY else round_half_up(v) for v in outcome.values]
        return replace(outcome, values=values, method="fallback")

    return settle(iterants, start, arith, max_steps, PLUS_MINUS_ONE, exact)


def solve_exact(
    iterants: Sequence[Iterant],
    start: Sequence[Num],
    draws: Sequence[int],
    arith: Arithmetic,
    curve: Curve,
) -> IterationOutcome:
    """W = W_e for every iterant; groups without a finite solution as the module says."""
    its = list(iterants)
    low: set[int] = set()
    forced: dict[str, list[str]] = {"up": [], "down": []}
    for _ in range(len(its)):
        free = [k for k in range(len(its)) if k not in low]
        up, down = unbounded(_equations(its, free))
        if not up and not down:
            break
        forced["up"] += [its[free[pos]].id for pos in up]
        forced["down"] += [its[free[pos]].id for pos in down]
        for pos in up:
            k = free[pos]
            it = its[k]
            its[k] = replace(it, fixed=(*it.fixed, draws[k]), fixed_w2=(*it.fixed_w2, 1))
        low |= {free[pos] for pos in down}
    free = [k for k in range(len(its)) if k not in low]
    values: list[float] = [MINUS_INFINITY] * len(its)
    trace: list[list[Num]] = [list(start)]
    steps = 0
    if free:
        solution = solve(_equations(its, free), [float(start[k]) for k in free], curve)
        steps = solution.steps
        for pos, k in enumerate(free):
            values[k] = solution.values[pos]
        trace = []
        for state in solution.trace:
            full: list[Num] = [MINUS_INFINITY] * len(its)
            for pos, k in enumerate(free):
                full[k] = state[pos]
            trace.append(full)
    expected = _expected(its, trace[1:], arith)
    corrections = [
        [b - a if math.isfinite(b) else 0.0 for a, b in zip(before, after, strict=True)]
        for before, after in pairwise(trace)
    ]
    return IterationOutcome(
        list(values),
        steps,
        trace,
        expected,
        corrections,
        method="solver",
        unbounded=forced if forced["up"] or forced["down"] else None,
    )


def _equations(its: Sequence[Iterant], free: Sequence[int]) -> list[Equation]:
    slot = {k: pos for pos, k in enumerate(free)}
    eqs = []
    for k in free:
        it = its[k]
        fixed = [float(v) for v in it.fixed]
        fixed_w2 = list(it.fixed_w2)
        linked: list[int] = []
        linked_w2: list[int] = []
        for j, w2 in zip(it.linked, it.linked_w2, strict=True):
            if j in slot:
                linked.append(slot[j])
                linked_w2.append(w2)
            else:  # a member of a group rated at R_i = -infinity
                fixed.append(MINUS_INFINITY)
                fixed_w2.append(w2)
        eqs.append(Equation(it.id, tuple(fixed), tuple(fixed_w2), tuple(linked), tuple(linked_w2)))
    return eqs


def _expected(
    its: Sequence[Iterant], states: Sequence[Sequence[Num]], arith: Arithmetic
) -> list[list[Num]]:
    """W_e of each iterant at each of ``states`` (for the trace), 0 for a member at
    -infinity; all of them computed at once (:meth:`Arithmetic.expectations_many`)."""
    table = arith.precision == "table"

    def value(v: Num) -> Num:
        return round_half_up(v) if table else v

    unit = 1000 if table else 1  # P = 1 against an opponent at -infinity
    out: list[list[Num]] = [[0] * len(its) for _ in states]
    owns: list[Num] = []
    lists: list[list[Num]] = []
    where: list[tuple[int, int, int]] = []  # (state, iterant, opponents at -infinity)
    isfinite = math.isfinite
    for s, state in enumerate(states):
        for k, it in enumerate(its):
            own = state[k]
            if not isfinite(own):
                continue
            opponents = [*it.fixed, *[state[j] for j in it.linked]]
            if table:
                finite = [value(v) for v in opponents if isfinite(v)]
            else:
                finite = [v for v in opponents if isfinite(v)]
            owns.append(value(own))
            lists.append(finite)
            where.append((s, k, len(opponents) - len(finite)))
    for (s, k, missing), (we, _) in zip(where, arith.expectations_many(owns, lists), strict=True):
        out[s][k] = we + unit * missing
    return out
