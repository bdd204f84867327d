"""One solver for W = W_e: first-rating groups and performances of every DWZ version.

The rules define a first rating and a performance R_h as the rating at which the expected
score equals the score: classic DWZ 4.7.2.1.3 ("bis W und We gleich sind"), 4.7.4 (the
Gesamtiteration of a group) and 4.8 (R_h); WO 2026 3.4.4.1, 3.6 and Anhang 1.1. The rules
describe a step-by-step iteration to reach that point; this module finds the point itself,
so that neither a slow iteration nor a step cap decides the number:

* :func:`solve_one`: one unknown against constant opponents (a performance R_h, an
  individual Teiliteration). W_e(R) is strictly increasing, so a bracketing Newton
  iteration (Newton steps, bisection whenever a step leaves the bracket) always converges
  (:mod:`ratingdb.rules.single_root`, compiled).
* :func:`solve`: a group of unknowns that play each other (the Gesamtiteration). The
  equations W_k = W_e,k(R) are the gradient of a strictly concave function when no player
  has an extreme result (P(-D) = 1 - P(D) makes the Jacobian symmetric), so the root is
  unique when it exists; damped Newton with a backtracking line search finds it, with
  scipy's ``root`` (Powell's hybrid method) as a second method.
* :func:`unbounded`: the groups for which no root exists, in both directions: a group that
  won every game against everybody outside it (its summed W - W_e stays positive for any
  finite ratings) or lost every such game (it stays negative).

A player with an extreme result under the classic rules (0 % or 100 %, 4.7.2.1.2) has no
equation W = W_e; his value is R_c -+ 677 over the opponents' current values, an equation
the solver takes as it is (``Equation.extreme``).

The stop rule is taken from the result, not from the step size: the solver stops when
every |W - W_e| is below ``TOLERANCE`` (in points) and the last step no longer changes a
value's half-up rounding. That leaves a root accurate to about 1e-7 points; before it is
rounded, :data:`POLISH_STEPS` more Newton steps take it to the floating-point limit
(about 1e-12 points), and it is settled to :data:`PLACES` decimals. So a root the exact
equations put on a half (1853.5) rounds up, and a root just below one (1073.4999996742)
rounds down, whichever way the iteration came.

Every W_e here, as the established players' W_e (``rules/dwz/arithmetic.py``), is the
correctly rounded sum of the games' P (``math.fsum``): it does not
depend on the order of the games nor on the Python or numpy version that adds them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from scipy.special import expit, ndtr

from ratingdb.errors import ConvergenceError
from ratingdb.rules import group_terms
from ratingdb.rules.rounding import float_half_up
from ratingdb.rules.single_root import find_root

Extreme = Literal["high", "low"]


#: |W - W_e| (in points) below which an equation holds
TOLERANCE = 1e-9
#: Newton steps before the second method is tried (each step at least halves the error
#: near the root, so a solvable group needs far fewer)
MAX_NEWTON = 100
#: the largest change of a value in one Newton step (keeps a step out of P's flat tails)
MAX_STEP = 400.0
#: bisection steps of :func:`solve_one` (the bracket is a few thousand points wide)
MAX_BISECT = 200
#: a Newton step of :func:`solve_one` longer than this comes from P's flat tail (the slope
#: underflows far from the opponents) and is replaced by a bracketing move: no rating
#: difference in a real evaluation is this large
MAX_JUMP = 5000.0
#: decimals of a settled solution: far below a rating point, far above the error of a
#: polished root (a few 1e-12 points: the sums of P carry about 1e-16 per game)
PLACES = 9
#: decimals of the stop rule's comparison of two iterates (:func:`_rounds_alike`)
STOP_PLACES = 6
#: Newton steps that polish a root found to ``TOLERANCE``: the error of about 1e-7 points
#: is squared by each step, so one reaches the floating-point limit and the second checks it
POLISH_STEPS = 2
#: a polishing step longer than this means the iterate was not yet near the root: the
#: polish stops and the iterate stays as it is
POLISH_REACH = 1e-3
#: nonlinear Gauss-Seidel sweeps before Newton takes over again
MAX_SWEEPS = 500


@dataclass(frozen=True, slots=True)
class Equation:
    """One unknown: games against constant ratings (``fixed``) and against other unknowns
    (``linked``, positions, repeats allowed), with the half-points scored in each game.
    ``extreme`` "high"/"low": the value is R_c + / - the extreme difference over the
    opponents' current values instead of a root of W = W_e (classic 4.7.2.1.2)."""

    id: str
    fixed: tuple[float, ...]
    fixed_w2: tuple[int, ...]
    linked: tuple[int, ...] = ()
    linked_w2: tuple[int, ...] = ()
    extreme: Extreme | None = None

    @property
    def n(self) -> int:
        return len(self.fixed) + len(self.linked)

    @property
    def w2(self) -> int:
        return sum(self.fixed_w2) + sum(self.linked_w2)


class Curve:
    """The winning expectation P(D) and its derivative: the normal distribution with
    standard deviation ``sigma`` (WO 2026 3.3.1; classic 4.5 names it as the table's basis)
    or the logistic approximation 1 / (1 + 10^(-D/400)) (classic Anhang 2.1).
    ``extreme`` is the difference of a 0 % / 100 % result (classic 4.7.2.1.2: 677)."""

    def __init__(self, kind: Literal["normal", "logistic"], sigma: float, extreme: float) -> None:
        self.kind = kind
        self.sigma = sigma
        self.extreme = extreme
        self._scale = math.log(10) / 400

    def p(self, d: np.ndarray) -> np.ndarray:
        if self.kind == "normal":
            return ndtr(d / self.sigma)  # type: ignore[no-any-return]
        return expit(d * self._scale)  # type: ignore[no-any-return]

    def integral(self, d: np.ndarray) -> np.ndarray:
        """Psi(d) with Psi' = P: d Phi(d/sigma) + sigma phi(d/sigma) (normal),
        ln(1 + e^(s d)) / s with s = ln 10 / 400 (logistic)."""
        if self.kind == "normal":
            z = d / self.sigma
            pdf = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
            value: np.ndarray = d * ndtr(z) + self.sigma * pdf
            return value
        soft: np.ndarray = np.logaddexp(0.0, d * self._scale) / self._scale
        return soft

    def density(self, d: np.ndarray) -> np.ndarray:
        if self.kind == "normal":
            z = d / self.sigma
            return np.exp(-0.5 * z * z) / (self.sigma * math.sqrt(2 * math.pi))
        p = expit(d * self._scale)
        return self._scale * p * (1 - p)  # type: ignore[no-any-return]


def _sign(extreme: Extreme) -> int:
    """+1 for the extreme rule's "high" (100 %), -1 for "low" (0 %)."""
    return 1 if extreme == "high" else -1


def _both_ways(pairs: list[tuple[int, int]]) -> bool:
    """Whether every game (k, j) between two unknowns stands in j's row as (j, k) too."""
    return sorted(pairs) == sorted((j, k) for k, j in pairs)


@dataclass(frozen=True, slots=True)
class Solution:
    """The values where every W = W_e holds, the number of steps, and every state
    (``trace[0]`` = start)."""

    values: list[float]
    steps: int
    trace: list[list[float]]


def _settled(values: list[float]) -> list[float]:
    """The polished solution to the solver's accuracy: each value rounded half-up to
    ``PLACES`` decimals. A root the rules' exact equations put on a rounding boundary (a
    player with 50 % against opponents averaging 1941.5 has R_h = 1941.5 exactly) comes out
    of floating-point arithmetic as 1941.499999999999 or 1941.500000000001; settled, it is
    1941.5 and the half-up rounding of the rules gives 1942 whichever way the iteration
    came. A root 3e-7 below a half (1073.4999996742) stays below it: settling at fewer
    decimals would round it up."""
    return [float_half_up(v, PLACES) if math.isfinite(v) else v for v in values]


def _half_up(x: float) -> int:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _rounds_alike(a: float, b: float) -> bool:
    """Whether two iterates give the same rating once settled and rounded half-up: the
    stop rule. Compared raw, an iteration converging on an exact tie (1481.5) would flip
    between 1481.4999999 and 1481.5000001 and never stop."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    if a >= 0 and b >= 0 and abs(a % 1 - 0.5) > 1e-5 and abs(b % 1 - 0.5) > 1e-5:
        # far from a half: settling to STOP_PLACES decimals cannot move the rounding
        return math.floor(a + 0.5) == math.floor(b + 0.5)
    return _half_up(float_half_up(a, STOP_PLACES)) == _half_up(float_half_up(b, STOP_PLACES))


# -- one unknown ---------------------------------------------------------------------------
def solve_one(eq: Equation, start: float, curve: Curve) -> Solution:
    """The root of W_e(R) = W against constant opponents (``eq.linked`` must be empty),
    by the bracketing Newton iteration of :func:`~ratingdb.rules.single_root.find_root`.

    W_e is strictly increasing in R, so the root is unique; it exists unless the score is
    0 % or 100 % (then the caller applies its rule, or ``eq.extreme`` is set). The R_h of
    tests/fixtures/dwz-classic-cases/slow-performance (1 point against 355 and four 2400s):

    >>> curve = Curve("normal", 200 * math.sqrt(2), 677)
    >>> x = Equation("X", (355.0, 2400.0, 2400.0, 2400.0, 2400.0), (2, 0, 0, 0, 0))
    >>> solve_one(x, 2000.0, curve).values
    [1326.711967173]
    """
    if eq.linked:
        raise ValueError("solve_one takes constant opponents only")
    if eq.extreme is not None:
        # the mean of no games is nan (no R_c)
        mean = math.fsum(eq.fixed) / len(eq.fixed) if eq.fixed else math.nan
        value = mean + _sign(eq.extreme) * curve.extreme
        return Solution([value], 1, [[start], [value]])
    w = eq.w2 / 2
    sure = sum(1 for o in eq.fixed if o == -math.inf)  # P = 1 whatever R is
    if not sure < w < eq.n:
        raise ConvergenceError(
            f"{eq.id}: a score of {w} in {eq.n} games has no finite solution of W = W_e",
            [eq.id],
        )
    found = _root(curve, [float(o) for o in eq.fixed], w, float(start))
    if found is None:  # pragma: no cover - the bracket halves in every step
        raise ConvergenceError(f"{eq.id}: W = W_e was not reached", [eq.id])
    steps, root, trace, _ = found
    return Solution(_settled([root]), steps, trace)


def _root(
    curve: Curve, opponents: list[float], w: float, start: float
) -> tuple[int, float, list[list[float]], list[float]] | None:
    """:func:`~ratingdb.rules.single_root.find_root` with this module's limits."""
    return find_root(  # type: ignore[no-any-return]
        opponents, w, start, curve.kind, curve.sigma, curve._scale, _rounds_alike,
        TOLERANCE, MAX_BISECT, MAX_JUMP, POLISH_STEPS, POLISH_REACH,
    )  # fmt: skip


# -- many single unknowns at once ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Single:
    """:func:`solve_one`'s solution of one unknown, with W_e at every state after the
    start (``expected[k]`` belongs to ``solution.trace[k + 1]``)."""

    solution: Solution
    expected: list[float]


def solve_many(
    problems: Sequence[tuple[Sequence[float], int]], starts: Sequence[float], curve: Curve
) -> list[Single | None]:
    """:func:`solve_one` for many unknowns against constant opponents: ``problems[k]`` =
    (opponent ratings, half-points scored), started from ``starts[k]``, with W_e at every
    step. None where :func:`solve_one` would not end normally (a 0 % or 100 % score, an
    opponent at -infinity, no root within its step cap): the caller asks
    :func:`solve_one` itself."""
    out: list[Single | None] = [None] * len(problems)
    for k in _solvable(problems):
        found = _root(curve, [float(o) for o in problems[k][0]], problems[k][1] / 2, starts[k])
        if found is not None:
            steps, root, trace, expected = found
            out[k] = Single(Solution(_settled([root]), steps, trace), expected)
    return out


def solve_roots(
    problems: Sequence[tuple[Sequence[float], int]], starts: Sequence[float], curve: Curve
) -> list[float | None]:
    """The root of each of :func:`solve_many`'s problems (its ``solution.values[0]``, None
    where it answers None), for a caller that shows no steps (the replay's R_h)."""
    out: list[float | None] = [None] * len(problems)
    for k in _solvable(problems):
        found = _root(curve, [float(o) for o in problems[k][0]], problems[k][1] / 2, starts[k])
        if found is not None:
            out[k] = _settled([found[1]])[0]
    return out


def _solvable(problems: Sequence[tuple[Sequence[float], int]]) -> list[int]:
    """The problems :func:`solve_one` solves normally: neither 0 % nor 100 %, every
    opponent finite."""
    # every opponent finite: their sum is (ratings are far from overflowing a float; an
    # infinite or nan opponent makes it inf or nan)
    return [
        k
        for k, (opponents, w2) in enumerate(problems)
        if 0 < w2 < 2 * len(opponents) and math.isfinite(sum(opponents))
    ]


# -- a group ---------------------------------------------------------------------------------
class _System:
    """The equations in array form: F(x) (W - W_e per normal row, the extreme rule's
    difference per extreme row), its Jacobian and potential, computed by the compiled
    :mod:`ratingdb.rules.group_terms`."""

    def __init__(self, eqs: Sequence[Equation], curve: Curve) -> None:
        self.m = m = len(eqs)
        self.curve = curve
        fixed: list[float] = []
        linked: list[int] = []
        averaged: list[int] = []
        fixed_start, linked_start, averaged_start = [0], [0], [0]
        self.w = np.zeros(m)
        self.n = np.array([max(e.n, 1) for e in eqs], dtype=float)
        sign = np.zeros(m)
        base = np.zeros(m)
        for k, e in enumerate(eqs):
            if e.extreme is not None:
                sign[k] = _sign(e.extreme)
                base[k] = sum(e.fixed)
                averaged += e.linked
            else:
                self.w[k] = e.w2 / 2
                fixed += e.fixed
                linked += e.linked
            fixed_start.append(len(fixed))
            linked_start.append(len(linked))
            averaged_start.append(len(averaged))
        self.is_extreme = sign != 0
        self.any_extreme = bool(self.is_extreme.any())
        #: the rows' games and their ranges, as group_terms takes them
        index = np.int_
        self._games = (
            np.array(fixed, dtype=float), np.array(fixed_start, dtype=index),
            np.array(linked, dtype=index), np.array(linked_start, dtype=index),
        )  # fmt: skip
        self._averaged = (
            np.array(averaged, dtype=index), np.array(averaged_start, dtype=index), sign,
        )  # fmt: skip
        self._base = base
        self._curve = (curve.kind, curve.sigma, curve._scale)
        #: scale of each row in the merit function: points per game / rating points
        self.scale = np.where(self.is_extreme, 400.0, self.n)
        self.limit = np.where(self.is_extreme, 1e-7, TOLERANCE)
        #: W_k - L_k / 2, L_k the row's games against other unknowns
        self.own_weight = self.w - np.diff(self._games[3]) / 2
        self._pairs = [(k, j) for k, e in enumerate(eqs) if e.extreme is None for j in e.linked]

    def residual(self, x: np.ndarray) -> np.ndarray:
        return group_terms.residuals(  # type: ignore[no-any-return]
            np.ascontiguousarray(x, dtype=float), self.w, *self._games, *self._averaged,
            self._base, self.n, float(self.curve.extreme), *self._curve,
        )  # fmt: skip

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        return group_terms.jacobian(  # type: ignore[no-any-return]
            np.ascontiguousarray(x, dtype=float), *self._games, *self._averaged, self.n,
            *self._curve,
        )  # fmt: skip

    @property
    def has_potential(self) -> bool:
        """W - W_e is the gradient of a concave function when no row is extreme and every
        game between two unknowns is in both players' equations."""
        return not self.any_extreme and _both_ways(self._pairs)

    def potential(self, x: np.ndarray) -> float:
        """G(x), whose gradient is W - W_e (:func:`ratingdb.rules.group_terms.potential`)."""
        return group_terms.potential(  # type: ignore[no-any-return]
            np.ascontiguousarray(x, dtype=float), self.own_weight, *self._games, *self._curve
        )

    def merit(self, f: np.ndarray) -> float:
        return float(np.sum((f / self.scale) ** 2))

    def holds(self, f: np.ndarray) -> bool:
        return bool(np.all(np.abs(f) <= self.limit))


def solve(eqs: Sequence[Equation], start: Sequence[float], curve: Curve) -> Solution:
    """The values where every equation holds (see the module text); raises
    :class:`ConvergenceError` naming the equations that do not hold when no method finds
    the root (call :func:`unbounded` first: such a group has none).

    1. Newton's method with a backtracking line search: on the concave potential whose
       gradient is W - W_e when every row is an equation W = W_e (then every Newton step
       goes uphill and the iteration converges from any start), else on the sum of
       squared residuals;
    2. if that stalls: sweeps of nonlinear Gauss-Seidel, each value solved exactly against
       the others' current values (the system is an M-function: W - W_e falls with the own
       value and rises with the others', so the sweeps converge), then Newton again;
    3. scipy's ``root`` (Powell's hybrid method) with a Newton polish.
    """
    if len(eqs) == 1 and not eqs[0].linked:
        return solve_one(eqs[0], float(start[0]), curve)
    system = _System(eqs, curve)
    x = np.asarray(start, dtype=float).copy()
    trace = [x.tolist()]
    done = _newton(system, x, trace, potential=system.has_potential)
    if done is not None:
        return done
    x = _gauss_seidel(system, eqs, np.asarray(trace[-1]), trace)
    done = _newton(system, x, trace, potential=False)
    if done is not None:
        return done
    return _second_method(system, eqs, np.asarray(start, dtype=float), trace)


def _newton(
    system: _System, x: np.ndarray, trace: list[list[float]], *, potential: bool
) -> Solution | None:
    f = system.residual(x)
    if system.holds(f):
        return Solution(_polished(system, x), len(trace) - 1, trace)
    for _ in range(MAX_NEWTON):
        jac = system.jacobian(x)
        try:
            delta = np.linalg.solve(jac, -f)
        except np.linalg.LinAlgError:
            delta = np.linalg.lstsq(jac, -f, rcond=None)[0]
        largest = float(np.max(np.abs(delta))) if delta.size else 0.0
        if not math.isfinite(largest):
            return None
        if largest > MAX_STEP:
            delta *= MAX_STEP / largest
        t = 1.0
        if potential:  # ascent on the concave potential G, grad G = f
            value, slope = system.potential(x), float(f @ delta)
        else:
            value, slope = system.merit(f), -2.0 * system.merit(f)
        while t > 1e-10:
            candidate = x + t * delta
            f_new = system.residual(candidate)
            if system.holds(f_new):
                break
            if potential:
                if system.potential(candidate) >= value + 1e-4 * t * slope:
                    break
            elif system.merit(f_new) <= value + 1e-4 * t * slope:
                break
            t /= 2
        else:
            return None  # no progress along the Newton direction
        stable = all(_rounds_alike(a, b) for a, b in zip(x, candidate, strict=True))
        x, f = candidate, f_new
        trace.append(x.tolist())
        if system.holds(f) and stable:
            return Solution(_polished(system, x), len(trace) - 1, trace)
    return None


def _polished(system: _System, x: np.ndarray) -> list[float]:
    """The settled values of a group's root after ``POLISH_STEPS`` full Newton steps (as
    :func:`~ratingdb.rules.single_root.find_root` polishes one unknown); a step that is not
    finite or longer than ``POLISH_REACH`` is not taken."""
    for _ in range(POLISH_STEPS):
        try:
            delta = np.linalg.solve(system.jacobian(x), -system.residual(x))
        except np.linalg.LinAlgError:
            break
        if not (np.all(np.isfinite(delta)) and float(np.max(np.abs(delta))) <= POLISH_REACH):
            break
        x = x + delta
    return _settled(x.tolist())


def _gauss_seidel(
    system: _System, eqs: Sequence[Equation], x: np.ndarray, trace: list[list[float]]
) -> np.ndarray:
    """Sweeps of nonlinear Gauss-Seidel until the residuals are small (Newton finishes)."""
    x = x.copy()
    for _ in range(MAX_SWEEPS):
        for k, e in enumerate(eqs):
            fixed = (*e.fixed, *(float(x[j]) for j in e.linked))
            one = Equation(e.id, fixed, (*e.fixed_w2, *e.linked_w2), extreme=e.extreme)
            x[k] = solve_one(one, float(x[k]), system.curve).values[0]
        trace.append(x.tolist())
        if float(np.max(np.abs(system.residual(x)))) < 1e-4:
            break
    return x


def _second_method(
    system: _System, eqs: Sequence[Equation], start: np.ndarray, trace: list[list[float]]
) -> Solution:
    from scipy import optimize  # rarely needed: its import costs a tenth of a second

    result = optimize.root(
        lambda v: (system.residual(v), system.jacobian(v)), start, jac=True, method="hybr"
    )
    x = np.asarray(result.x, dtype=float)
    f = system.residual(x)
    # polish: a few Newton steps from scipy's answer
    for _ in range(5):
        if system.holds(f):
            break
        try:
            x = x + np.linalg.solve(system.jacobian(x), -f)
        except np.linalg.LinAlgError:
            break
        f = system.residual(x)
    if system.holds(f) and np.all(np.isfinite(x)):
        trace.append(x.tolist())
        return Solution(_polished(system, x), len(trace) - 1, trace)
    moving = [eqs[int(k)].id for k in np.flatnonzero(~(np.abs(f) <= system.limit))]
    raise ConvergenceError(
        f"W = W_e has no solution that could be found for {', '.join(moving)}", moving
    )


# -- groups without a solution -----------------------------------------------------------------
def unbounded(eqs: Sequence[Equation]) -> tuple[list[int], list[int]]:
    """Positions of the unknowns without a finite solution: (won every outside game, lost
    every outside game).

    If a group of unknowns won every game against everybody outside it, its summed W - W_e
    is positive for any finite values; if it lost every such game, negative. The largest
    such groups are found by peeling off every unknown with an outside game of the other
    kind. Unknowns with an extreme result have no equation W = W_e and count as outside
    opponents; a group needs at least one outside game.
    """
    free = [k for k, e in enumerate(eqs) if e.extreme is None]
    return _peel(eqs, free, 2), _peel(eqs, free, 0)


def _peel(eqs: Sequence[Equation], free: list[int], result: int) -> list[int]:
    group = set(free)
    changed = True
    while changed:
        changed = False
        for k in sorted(group):
            e = eqs[k]
            other = any(w != result for w in e.fixed_w2) or any(
                j not in group and w != result for j, w in zip(e.linked, e.linked_w2, strict=True)
            )
            if other:
                group.discard(k)
                changed = True
    outside = any(eqs[k].fixed or any(j not in group for j in eqs[k].linked) for k in group)
    return sorted(group) if outside else []


def force_extremes(eqs: Sequence[Equation]) -> tuple[list[Equation], dict[str, list[str]]]:
    """The classic rules' answer to groups without a finite solution (4.7.2.1.2 names 0 %
    and 100 % alike): every member of a group that won (lost) every outside game follows
    the extreme rule "high" ("low"), repeated until no such group is left. Returns the
    equations and the ids forced, by direction."""
    out = list(eqs)
    forced: dict[str, list[str]] = {"up": [], "down": []}
    for _ in range(len(out)):
        up, down = unbounded(out)
        if not up and not down:
            break
        forced["up"] += [out[k].id for k in up]
        forced["down"] += [out[k].id for k in down]
        out = [
            replace(e, extreme="high") if k in up else replace(e, extreme="low") if k in down else e
            for k, e in enumerate(out)
        ]
    return out, forced
