"""One solver for W = W_e: first-rating groups and performances of every DWZ version.

The rules define a first rating and a performance R_h as the rating at which the expected
score equals the score: classic DWZ 4.7.2.1.3 ("bis W und We gleich sind"), 4.7.4 (the
Gesamtiteration of a group) and 4.8 (R_h); WO 2026 3.4.4.1, 3.6 and Anhang 1.1. The rules
describe a step-by-step iteration to reach that point; this module finds the point itself,
so that neither a slow iteration nor a step cap decides the number:

* :func:`solve_one`: one unknown against constant opponents (a performance R_h, an
  individual Teiliteration). W_e(R) is strictly increasing, so a bracketing Newton
  iteration (Newton steps, bisection whenever a step leaves the bracket) always converges.
* :func:`solve`: a group of unknowns that play each other (the Gesamtiteration). The
  equations W_k = W_e,k(R) are the gradient of a strictly concave function when no player
  has an extreme result (P(-D) = 1 - P(D) makes the Jacobian symmetric), so the root is
  unique when it exists; damped Newton with a backtracking line search finds it, with
  scipy's ``root`` (Powell's hybrid method) as a second method. A group of up to
  :data:`COMPILED_GROUP` unknowns takes the Newton method in C (:func:`_newton_compiled`).
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
correctly rounded sum of the games' P (``math.fsum``, :func:`row_sums`): it does not
depend on the order of the games nor on the Python or numpy version that adds them.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from scipy.special import expit, ndtr

from ratingdb.rules.errors import ConvergenceError
from ratingdb.rules.rounding import float_half_up

try:  # the performances in C (setup.py builds it; optional: the same numbers in Python)
    from ratingdb.rules import _fastsolve
except ImportError:  # pragma: no cover - an install without a C compiler
    _fastsolve = None  # type: ignore[assignment]

Extreme = Literal["high", "low"]


#: numpy's ufunc objects as its C-API documents them (``_fastsolve.double_loop`` reads
#: their loops); another major version keeps the ufuncs themselves
_NUMPY_LAYOUT = np.__version__.split(".")[0] in ("1", "2")

#: where :func:`_twin` compares a compiled function with its ufunc: the tails, zero, the
#: steps of the rating scale and the exponent range of the normal density
_SAMPLE = np.concatenate(
    [
        np.linspace(-40.0, 40.0, 4001),
        -0.5 * np.linspace(-40.0, 40.0, 4001) ** 2,
        np.array([0.0, -0.0, 1e-300, -1e-300, 8.3, -38.4, -745.2, -800.0]),
    ]
)


def _twin(ufunc: np.ufunc) -> object:
    """What ``_fastsolve`` calls for ``ufunc`` without a round trip through Python per
    step: the C function scipy's ufunc applies to each element, as the capsule of
    ``scipy.special.cython_special`` (``ndtr``, ``expit``), or numpy's own float64 loop of
    the ufunc (``exp``); or the ufunc itself where neither exists or gives the ufunc's
    values to the bit on :data:`_SAMPLE`."""
    expected = ufunc(_SAMPLE).tobytes()
    for candidate in _twin_candidates(ufunc):
        try:
            if _fastsolve.scalar_values(candidate, _SAMPLE.tobytes()) == expected:
                return candidate
        except (ValueError, TypeError):  # another signature (complex, float, long double)
            continue
    return ufunc


def _twin_candidates(ufunc: np.ufunc) -> list[object]:
    found: list[object] = []
    try:
        from scipy.special import cython_special
    except ImportError:  # pragma: no cover - scipy without its Cython API
        cython_special = None
    name = ufunc.__name__
    for key, capsule in getattr(cython_special, "__pyx_capi__", {}).items():
        if key.endswith(name) and key.removesuffix(name)[-1:] in "0123456789":
            found.append(capsule)
    if _NUMPY_LAYOUT:  # numpy's own loop of the ufunc
        with contextlib.suppress(ValueError):  # no float64 loop
            found.append(_fastsolve.double_loop(ufunc, np.ufunc))
    return found


#: P of the normal and the logistic curve and the density's exponential as ``_fastsolve``
#: calls them (:func:`_twin`)
_NDTR = ndtr if _fastsolve is None else _twin(ndtr)
_EXPIT = expit if _fastsolve is None else _twin(expit)
_EXP = np.exp if _fastsolve is None else _twin(np.exp)


def _linear_algebra() -> tuple[object, object] | None:
    """The loops ``np.linalg.solve(a, b)`` and ``np.dot(a, b)`` run for a matrix and a
    vector of float64s (numpy's ``solve1`` and ``matmul``, read from the ufunc objects as
    :func:`_twin` reads ``exp``), for the compiled group method: the same LAPACK and BLAS
    calls on the same values, so its Newton steps are :func:`_newton`'s to the bit. None
    where numpy has no such loop or one gives other bits than numpy on random systems of
    every size the compiled method takes (it then stays in Python)."""
    if _fastsolve is None or not _NUMPY_LAYOUT:
        return None
    try:
        from numpy.linalg import _umath_linalg

        solve = _fastsolve.double_loop(_umath_linalg.solve1, np.ufunc)
        dot = _fastsolve.double_loop(np.matmul, np.ufunc)
    except (ImportError, AttributeError, ValueError):
        return None
    rng = np.random.default_rng(24)
    for m in range(1, COMPILED_GROUP + 1):
        a = rng.normal(size=(m, m)) + np.diag(rng.uniform(1.0, 9.0, m)) * m
        b = rng.normal(size=m) * 10.0 ** rng.integers(-12, 3)
        x = np.linalg.solve(a, b)
        found = _fastsolve.solve_and_dot(solve, dot, a.tobytes(), b.tobytes())
        if found is None or found != (x.tobytes(), float(np.dot(b, x))):
            return None
    return solve, dot


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
#: without the compiled extension :func:`solve_many` iterates rows with at most this many
#: games in all as Python floats (:func:`_solve_small_py`: a few calls into numpy per step
#: for all of them), more as the rows of numpy arrays (:func:`_solve_rows`: a dozen calls
#: per step and number of games); the compiled :func:`_solve_small` takes any number
SMALL_GAMES = 400
#: :func:`solve` takes groups of at most this many unknowns to the compiled Newton method
COMPILED_GROUP = 64
#: numpy's loops of ``linalg.solve`` and ``dot`` for the compiled group method
_LINEAR = _linear_algebra()


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
        normal = kind == "normal"
        #: what :func:`compiled_curve` gives
        self.compiled = (
            normal, sigma, self._scale, sigma * math.sqrt(2 * math.pi),
            _NDTR if normal else _EXPIT, _EXP,
        )  # fmt: skip

    def p(self, d: np.ndarray) -> np.ndarray:
        if self.kind == "normal":
            return ndtr(d / self.sigma)  # type: ignore[no-any-return]
        return expit(d * self._scale)  # type: ignore[no-any-return]

    def expected_and_slope(self, own: float, opponents: np.ndarray) -> tuple[float, float]:
        """W_e = sum P(own - opponent) and its derivative in ``own``, each the correctly
        rounded sum of its games' values (``math.fsum``, :func:`row_sums`)."""
        if self.kind == "normal":
            z = (own - opponents) / self.sigma
            density = math.fsum(np.exp(-0.5 * z * z).tolist())
            return math.fsum(ndtr(z).tolist()), density / (self.sigma * math.sqrt(2 * math.pi))
        p = expit((own - opponents) * self._scale)
        return math.fsum(p.tolist()), self._scale * math.fsum((p * (1 - p)).tolist())

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


def compiled_curve(curve: Curve) -> tuple[bool, float, float, float, object, object]:
    """The curve as ``_fastsolve`` takes it: normal or not, sigma, the logistic factor, the
    normal density's norm, P and the density's exponential (:func:`_twin`); made with the
    curve."""
    return curve.compiled


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


def _polish_rows(curve: Curve, x: np.ndarray, opponents: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``POLISH_STEPS`` Newton steps for the roots ``x[k]`` of W_e(x[k]) = w[k] against
    ``opponents[k]``, every value computed element by element (:func:`_expected_and_slope`),
    so a root comes out the same alone (:func:`solve_one`) or among others
    (:func:`solve_many`). A step that is not finite or longer than ``POLISH_REACH`` is not
    taken (the iterate was not near a root, e.g. an exit by bisection in P's flat tail)."""
    x = x.copy()
    active = np.ones(len(x), dtype=bool)
    with np.errstate(all="ignore"):
        for _ in range(POLISH_STEPS):
            we, slope = _expected_and_slope(curve, x, opponents)
            step = (w - we) / slope
            active &= np.isfinite(step) & (np.abs(step) <= POLISH_REACH)
            x = np.where(active, x + step, x)
    return x


# -- one unknown ---------------------------------------------------------------------------
def solve_one(eq: Equation, start: float, curve: Curve) -> Solution:
    """The root of W_e(R) = W against constant opponents (``eq.linked`` must be empty).

    W_e is strictly increasing in R, so the root is unique; it exists unless the score is
    0 % or 100 % (then the caller applies its rule, or ``eq.extreme`` is set). The R_h of
    tests/fixtures/dwz-classic-cases/slow-performance (1 point against 355 and four 2400s):

    >>> curve = Curve("normal", 200 * math.sqrt(2), 677)
    >>> x = Equation("X", (355.0, 2400.0, 2400.0, 2400.0, 2400.0), (2, 0, 0, 0, 0))
    >>> solve_one(x, 2000.0, curve).values
    [1326.711967173]

    Newton steps
    from ``start``; a step that leaves the bracket known so far, or jumps further than
    :data:`MAX_JUMP` (the slope underflows in P's flat tails), becomes a bisection (or, while
    one side is still open, a move of 1000 points, doubled each time), so the iteration
    converges from any start.
    """
    if eq.linked:
        raise ValueError("solve_one takes constant opponents only")
    if eq.extreme is not None:
        # the mean of no games is nan (no R_c)
        mean = math.fsum(eq.fixed) / len(eq.fixed) if eq.fixed else math.nan
        value = mean + _sign(eq.extreme) * curve.extreme
        return Solution([value], 1, [[start], [value]])
    opponents = np.asarray(eq.fixed, dtype=float)
    w = eq.w2 / 2
    sure = float(np.count_nonzero(opponents == -math.inf))  # P = 1 whatever R is
    if not sure < w < eq.n:
        raise ConvergenceError(
            f"{eq.id}: a score of {w} in {eq.n} games has no finite solution of W = W_e",
            [eq.id],
        )
    lo, hi = -math.inf, math.inf
    x = float(start)
    fx, slope = curve.expected_and_slope(x, opponents)
    fx -= w
    trace = [[x]]
    reach = 1000.0  # a move towards the open side of the bracket, doubled each time
    for step in range(1, MAX_BISECT + 1):
        if fx < 0:
            lo = x
        else:
            hi = x
        new = x - fx / slope if slope > 0 else math.nan
        if not lo < new < hi or abs(new - x) > MAX_JUMP:
            if math.isinf(hi):
                new, reach = lo + reach, 2 * reach
            elif math.isinf(lo):
                new, reach = hi - reach, 2 * reach
            else:
                new = (lo + hi) / 2
        f_new, slope = curve.expected_and_slope(new, opponents)
        f_new -= w
        trace.append([new])
        done = abs(f_new) <= TOLERANCE and _rounds_alike(new, x)
        x, fx = new, f_new
        if done or hi - lo < 1e-9:
            root = _polish_rows(curve, np.array([x]), opponents[None, :], np.array([w]))
            return Solution(_settled(root.tolist()), step, trace)
    raise ConvergenceError(f"{eq.id}: W = W_e was not reached", [eq.id])  # pragma: no cover


def solve_alone(eq: Equation, start: float, curve: Curve) -> Solution:
    """:func:`solve_one`, through :func:`solve_many`'s compiled rows where they apply:
    the same steps, values and trace to the bit (``tests/test_solver_small.py``), without
    the fixed cost of numpy's calls for one unknown."""
    if eq.extreme is None and not eq.linked:
        single = solve_many([(eq.fixed, eq.w2)], [start], curve)[0]
        if single is not None:
            return single.solution
    return solve_one(eq, start, curve)


# -- many single unknowns at once ----------------------------------------------------------
def _expected_and_slope(
    curve: Curve, x: np.ndarray, opponents: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Curve.expected_and_slope` for many unknowns at once (row k: ``x[k]`` against
    ``opponents[k]``), element by element and summed in the same order."""
    if curve.kind == "normal":
        z = (x[:, None] - opponents) / curve.sigma
        slope = row_sums(np.exp(-0.5 * z * z)) / (curve.sigma * math.sqrt(2 * math.pi))
        return row_sums(ndtr(z)), slope
    p = expit((x[:, None] - opponents) * curve._scale)
    return row_sums(p), curve._scale * row_sums(p * (1 - p))


def row_sums(values: np.ndarray) -> np.ndarray:
    """The correctly rounded sum of each row of a 2-D array (``math.fsum``): the one sum
    of the float precision (W_e, WO 3.3.2; docs/rules-dwz2026.md), whatever the order of
    the games and whichever Python or numpy adds them.

    >>> rows = np.array([[1e16, 1.0, -1e16, 0.0], [0.5, 0.25, 0.25, 0.0]])
    >>> row_sums(rows).tolist(), float(rows[0].sum())
    ([1.0, 1.0], 0.0)
    """
    return np.array([math.fsum(row) for row in values.tolist()], dtype=float).reshape(
        values.shape[:1]
    )


@dataclass(frozen=True, slots=True)
class Single:
    """:func:`solve_one`'s solution of one unknown, with W_e at every state after the
    start (``expected[k]`` belongs to ``solution.trace[k + 1]``)."""

    solution: Solution
    expected: list[float]


def solve_many(
    problems: Sequence[tuple[Sequence[float], int]], starts: Sequence[float], curve: Curve
) -> list[Single | None]:
    """:func:`solve_one` for many unknowns against constant opponents at once, step for
    step the same iteration: ``problems[k]`` = (opponent ratings, half-points scored),
    started from ``starts[k]``. The unknowns with the same number of games iterate
    together as the rows of arrays (every value computed element by element as
    :func:`solve_one` computes it, every W_e correctly rounded: :func:`row_sums`), so each
    solution, trace and W_e is identical to :func:`solve_one`'s. None where
    :func:`solve_one` would not end normally (a 0 % or 100 % score, an opponent at
    -infinity, no root within its step cap): the caller asks :func:`solve_one` itself."""
    out: list[Single | None] = [None] * len(problems)
    by_games = _solvable(problems)
    if _fastsolve is not None or sum(n * len(ks) for n, ks in by_games.items()) <= SMALL_GAMES:
        _solve_small(problems, starts, curve, [k for ks in by_games.values() for k in ks], out)
        return out
    for ks in by_games.values():
        _solve_rows(problems, starts, curve, ks, out)
    return out


def solve_roots(
    problems: Sequence[tuple[Sequence[float], int]], starts: Sequence[float], curve: Curve
) -> list[float | None]:
    """The root of each of :func:`solve_many`'s problems (its ``solution.values[0]``, None
    where it answers None), without the steps and W_e of each (for a caller that shows
    none: the replay's R_h): the compiled rows' roots as they come."""
    if _fastsolve is None:
        return [
            None if s is None else s.solution.values[0] for s in solve_many(problems, starts, curve)
        ]
    out: list[float | None] = [None] * len(problems)
    ks = [k for found in _solvable(problems).values() for k in found]
    for k, row in zip(ks, _compiled_rows(problems, starts, curve, ks), strict=True):
        if row is not None:
            out[k] = row[1]
    return out


def _solvable(problems: Sequence[tuple[Sequence[float], int]]) -> dict[int, list[int]]:
    """The problems :func:`solve_one` solves normally (neither 0 % nor 100 %, every
    opponent finite), by their number of games."""
    by_games: dict[int, list[int]] = {}
    for k, (opponents, w2) in enumerate(problems):
        n = len(opponents)
        # every opponent finite: their sum is (ratings are far from overflowing a float;
        # an infinite or nan opponent makes it inf or nan)
        if 0 < w2 < 2 * n and math.isfinite(sum(opponents)):
            by_games.setdefault(n, []).append(k)
    return by_games


def _expected_rows(
    curve: Curve, xs: Sequence[float], rows: Sequence[Sequence[float]]
) -> tuple[list[float], list[float]]:
    """:func:`_expected_and_slope` for rows of any lengths: ``xs[r]`` against ``rows[r]``.
    The differences are taken in Python (the same IEEE operations numpy applies element by
    element), P and its density in one numpy call each over all games, and each row is
    summed correctly rounded (``math.fsum``, :func:`row_sums`), so every value equals
    :func:`_expected_and_slope`'s to the last bit."""
    normal = curve.kind == "normal"
    if normal:
        sigma = curve.sigma
        z = np.array([(x - o) / sigma for x, row in zip(xs, rows, strict=True) for o in row])
        cdf: list[float] = ndtr(z).tolist()
        density: list[float] = np.exp(-0.5 * z * z).tolist()
        norm = curve.sigma * math.sqrt(2 * math.pi)
    else:
        factor = curve._scale
        p = expit(
            np.array([(x - o) * factor for x, row in zip(xs, rows, strict=True) for o in row])
        )
        cdf = p.tolist()
        density = [v * (1 - v) for v in cdf]
    expected: list[float] = []
    slopes: list[float] = []
    first = 0
    fsum = math.fsum
    for row in rows:
        n = len(row)
        expected.append(fsum(cdf[first : first + n]))
        total = fsum(density[first : first + n])
        slopes.append(total / norm if normal else factor * total)
        first += n
    return expected, slopes


def _solve_small(
    problems: Sequence[tuple[Sequence[float], int]],
    starts: Sequence[float],
    curve: Curve,
    ks: list[int],
    out: list[Single | None],
) -> None:
    """:func:`_solve_small_py` compiled (``ratingdb/rules/_fastsolve.c``) where the
    extension was built: the same IEEE operations in the same order, P and its density
    from the same ufuncs, so every value agrees to the last bit
    (``tests/test_fastsolve.py``)."""
    if _fastsolve is None:
        _solve_small_py(problems, starts, curve, ks, out)
        return
    for k, row in zip(ks, _compiled_rows(problems, starts, curve, ks), strict=True):
        if row is not None:  # the root settled (_settled) in C
            steps, root, trace, expected = row
            out[k] = Single(Solution([root], steps, trace), expected)


def _compiled_rows(
    problems: Sequence[tuple[Sequence[float], int]],
    starts: Sequence[float],
    curve: Curve,
    ks: list[int],
) -> list[tuple[int, float, list[list[float]], list[float]] | None]:
    """``_fastsolve.solve_small`` of the problems ``ks``: per row None or (steps, root,
    trace, W_e at every state after the start)."""
    assert _fastsolve is not None
    return _fastsolve.solve_small(
        [problems[k][0] for k in ks],
        [problems[k][1] / 2 for k in ks],
        [float(starts[k]) for k in ks],
        *compiled_curve(curve),
        np.frombuffer,
        _rounds_alike,
        TOLERANCE,
        MAX_BISECT,
        MAX_JUMP,
        POLISH_STEPS,
        POLISH_REACH,
        float_half_up,
        PLACES,
    )


def _solve_small_py(
    problems: Sequence[tuple[Sequence[float], int]],
    starts: Sequence[float],
    curve: Curve,
    ks: list[int],
    out: list[Single | None],
) -> None:
    """:func:`_solve_rows` for a few rows of any lengths at once, as Python floats: the same
    bracketing Newton iteration of :func:`solve_one` step for step, every value computed by
    the same IEEE operations (:func:`_expected_rows`), and the same polish
    (:func:`_polish_rows`), so each solution, trace and W_e is identical to theirs."""
    rows = [[float(v) for v in problems[k][0]] for k in ks]
    w = [problems[k][1] / 2 for k in ks]
    x = [float(starts[k]) for k in ks]
    we, slope = _expected_rows(curve, x, rows)
    fx = [a - b for a, b in zip(we, w, strict=True)]
    lo = [-math.inf] * len(ks)
    hi = [math.inf] * len(ks)
    reach = [1000.0] * len(ks)
    traces = [[[v]] for v in x]
    expected: list[list[float]] = [[] for _ in ks]
    active = list(range(len(ks)))
    for step in range(1, MAX_BISECT + 1):
        news: list[float] = []
        for r in active:
            xr, f, s = x[r], fx[r], slope[r]
            if f < 0:
                lo[r] = xr
            else:
                hi[r] = xr
            low, high = lo[r], hi[r]
            # slope >= 0; at 0 numpy's step is +-inf or nan: a jump, as here
            new = xr - f / s if s != 0 else math.nan
            if not low < new < high or abs(new - xr) > MAX_JUMP:
                if math.isinf(high):
                    new = low + reach[r]
                    reach[r] = 2 * reach[r]
                elif math.isinf(low):
                    new = high - reach[r]
                    reach[r] = 2 * reach[r]
                else:
                    new = (low + high) / 2
            news.append(new)
        we, slopes = _expected_rows(curve, news, [rows[r] for r in active])
        finished: list[int] = []
        at_root: tuple[list[float], list[float]] = ([], [])  # W_e and slope of finished
        still: list[int] = []
        for r, new, we_r, slope_r in zip(active, news, we, slopes, strict=True):
            f_new = we_r - w[r]
            traces[r].append([new])
            expected[r].append(we_r)
            done = abs(f_new) <= TOLERANCE and _rounds_alike(new, x[r])
            narrow = hi[r] - lo[r] < 1e-9
            x[r], fx[r], slope[r] = new, f_new, slope_r
            if done or narrow:
                finished.append(r)
                at_root[0].append(we_r)
                at_root[1].append(slope_r)
            else:
                still.append(r)
        if finished:
            roots = _polish_small(
                curve,
                [x[r] for r in finished],
                [rows[r] for r in finished],
                [w[r] for r in finished],
                at_root,
            )
            for r, root in zip(finished, roots, strict=True):
                out[ks[r]] = Single(Solution(_settled([root]), step, traces[r]), expected[r])
        if not still:
            return
        active = still


def _polish_small(
    curve: Curve,
    x: list[float],
    rows: list[list[float]],
    w: list[float],
    first: tuple[list[float], list[float]],
) -> list[float]:
    """:func:`_polish_rows` as Python floats; ``first``: W_e and slope at ``x`` (the last
    step computed them already, to the same bits)."""
    x = list(x)
    we, slope = first
    live = list(range(len(x)))
    for polish in range(POLISH_STEPS):
        if polish:
            we, slope = _expected_rows(curve, [x[r] for r in live], [rows[r] for r in live])
        moving: list[int] = []
        for r, we_r, slope_r in zip(live, we, slope, strict=True):
            change = (w[r] - we_r) / slope_r if slope_r != 0 else math.nan
            if math.isfinite(change) and abs(change) <= POLISH_REACH:
                x[r] = x[r] + change
                moving.append(r)
        live = moving
        if not live:
            break
    return x


def _solve_rows(
    problems: Sequence[tuple[Sequence[float], int]],
    starts: Sequence[float],
    curve: Curve,
    ks: list[int],
    out: list[Single | None],
) -> None:
    """The bracketing Newton iteration of :func:`solve_one` for the rows ``ks`` (all with
    the same number of games)."""
    rows = np.array(ks)
    opponents = np.array([[float(v) for v in problems[k][0]] for k in ks], dtype=float)
    w = np.array([problems[k][1] / 2 for k in ks])
    x = np.array([float(starts[k]) for k in ks])
    fx, slope = _expected_and_slope(curve, x, opponents)
    fx = fx - w
    lo = np.full(len(ks), -math.inf)
    hi = np.full(len(ks), math.inf)
    reach = np.full(len(ks), 1000.0)
    traces: dict[int, list[list[float]]] = {
        k: [[float(v)]] for k, v in zip(ks, x.tolist(), strict=True)
    }
    expected: dict[int, list[float]] = {k: [] for k in ks}
    with np.errstate(all="ignore"):
        for step in range(1, MAX_BISECT + 1):
            below = fx < 0
            lo = np.where(below, x, lo)
            hi = np.where(below, hi, x)
            # slope >= 0; at 0 the step is +-inf or nan, which leaves the bracket (a jump)
            # as solve_one's nan does
            new = x - fx / slope
            jump = ~((lo < new) & (new < hi)) | (np.abs(new - x) > MAX_JUMP)
            if jump.any():
                open_hi = jump & np.isinf(hi)
                open_lo = jump & ~np.isinf(hi) & np.isinf(lo)
                bisect = jump & ~np.isinf(hi) & ~np.isinf(lo)
                new = np.where(open_hi, lo + reach, new)
                new = np.where(open_lo, hi - reach, new)
                new = np.where(bisect, (lo + hi) / 2, new)
                reach = np.where(open_hi | open_lo, 2 * reach, reach)
            we, slope = _expected_and_slope(curve, new, opponents)
            f_new = we - w
            new_list, we_list, x_list = new.tolist(), we.tolist(), x.tolist()
            small = (np.abs(f_new) <= TOLERANCE).tolist()
            narrow = (hi - lo < 1e-9).tolist()
            finished = []
            for pos, k in enumerate(rows.tolist()):
                traces[k].append([new_list[pos]])
                expected[k].append(we_list[pos])
                done = small[pos] and _rounds_alike(new_list[pos], x_list[pos])
                if done or narrow[pos]:
                    finished.append(pos)
            x, fx = new, f_new
            if finished:
                roots = _polish_rows(curve, x[finished], opponents[finished], w[finished])
                for pos, root in zip(finished, roots.tolist(), strict=True):
                    k = int(rows[pos])
                    out[k] = Single(Solution(_settled([root]), step, traces[k]), expected[k])
                keep = np.ones(len(rows), dtype=bool)
                keep[finished] = False
                if not keep.any():
                    return
                rows, x, fx, slope = rows[keep], x[keep], fx[keep], slope[keep]
                lo, hi, reach, w = lo[keep], hi[keep], reach[keep], w[keep]
                opponents = opponents[keep]


# -- a group ---------------------------------------------------------------------------------
class _System:
    """The equations in array form: F(x) (W - W_e per normal row, the extreme rule's
    difference per extreme row) and its Jacobian."""

    def __init__(self, eqs: Sequence[Equation], curve: Curve) -> None:
        self.m = len(eqs)
        self.curve = curve
        fk, fo, lk, lj, ek, ej = [], [], [], [], [], []
        self.w = np.zeros(self.m)
        self.n = np.array([max(e.n, 1) for e in eqs], dtype=float)
        self.extreme_sign = np.zeros(self.m)
        self.fixed_sum = np.zeros(self.m)
        for k, e in enumerate(eqs):
            if e.extreme is not None:
                self.extreme_sign[k] = _sign(e.extreme)
                self.fixed_sum[k] = sum(e.fixed)
                ek += [k] * len(e.linked)
                ej += list(e.linked)
            else:
                self.w[k] = e.w2 / 2
                fk += [k] * len(e.fixed)
                fo += list(e.fixed)
                lk += [k] * len(e.linked)
                lj += list(e.linked)
        self.is_extreme = self.extreme_sign != 0
        self.any_extreme = bool(self.is_extreme.any())
        self.fk, self.fo = np.array(fk, dtype=int), np.array(fo, dtype=float)
        self.lk, self.lj = np.array(lk, dtype=int), np.array(lj, dtype=int)
        self.ek, self.ej = np.array(ek, dtype=int), np.array(ej, dtype=int)
        #: scale of each row in the merit function: points per game / rating points
        self.scale = np.where(self.is_extreme, 400.0, self.n)
        #: what every step uses and no step changes, made once
        self.limit = np.where(self.is_extreme, 1e-7, TOLERANCE)
        finite = np.isfinite(self.fo)
        self.fk_finite, self.fo_finite = self.fk[finite], self.fo[finite]
        self.fk_sure = self.fk[~finite]
        self.own_weight = self.w - np.bincount(self.lk, None, self.m) / 2
        self.diagonal = (np.arange(self.m), np.arange(self.m))
        #: every game's position among the fixed then the linked games, row by row, and
        #: where each row's games end: W_e of a row is the correctly rounded sum of its P
        owner = np.concatenate([self.fk, self.lk])
        self.by_row = np.argsort(owner, kind="stable")
        self.row_ends = np.bincount(owner, minlength=self.m).cumsum().tolist()

    def residual(self, x: np.ndarray) -> np.ndarray:
        m, c = self.m, self.curve
        games = np.concatenate([c.p(x[self.fk] - self.fo), c.p(x[self.lk] - x[self.lj])])
        p: list[float] = games[self.by_row].tolist()
        fsum, we, first = math.fsum, np.empty(m), 0
        for k, last in enumerate(self.row_ends):
            we[k] = fsum(p[first:last])
            first = last
        f: np.ndarray = self.w - we
        if self.any_extreme:
            mean = (self.fixed_sum + np.bincount(self.ek, x[self.ej], m)) / self.n
            target = mean + self.extreme_sign * c.extreme
            f = np.where(self.is_extreme, target - x, f)
        return f

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        m, c = self.m, self.curve
        jac = np.zeros((m, m))
        fixed_density = c.density(x[self.fk] - self.fo)
        linked_density = c.density(x[self.lk] - x[self.lj])
        diagonal = np.bincount(self.fk, fixed_density, m) + np.bincount(self.lk, linked_density, m)
        np.add.at(jac, (self.lk, self.lj), linked_density)
        jac[self.diagonal] -= diagonal
        if self.any_extreme:
            rows = np.flatnonzero(self.is_extreme)
            jac[rows, :] = 0.0
            np.add.at(jac, (self.ek, self.ej), 1.0 / self.n[self.ek])
            jac[rows, rows] -= 1.0
        return jac

    @property
    def has_potential(self) -> bool:
        """W - W_e is the gradient of a concave function when no row is extreme and every
        game between two unknowns is in both players' equations."""
        return not self.any_extreme and _both_ways(
            list(zip(self.lk.tolist(), self.lj.tolist(), strict=True))
        )

    def potential(self, x: np.ndarray) -> float:
        """G(x) = sum (W_k - L_k / 2) x_k - sum Psi(x_k - o) - 1/2 sum Psi(x_k - x_j) over
        the games (the linked ones in both directions), Psi' = P; dG/dx_k = W_k - W_e,k.
        A constant opponent at -infinity (P = 1) contributes -x_k."""
        c = self.curve
        value = float(np.dot(self.own_weight, x))
        value -= float(np.sum(c.integral(x[self.fk_finite] - self.fo_finite)))
        value -= float(np.sum(x[self.fk_sure]))
        value -= 0.5 * float(np.sum(c.integral(x[self.lk] - x[self.lj])))
        return value

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
        return solve_alone(eqs[0], float(start[0]), curve)
    compiled = _newton_compiled(eqs, start, curve)
    if compiled is not None:
        return compiled
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


def _newton_compiled(
    eqs: Sequence[Equation], start: Sequence[float], curve: Curve
) -> Solution | None:
    """Step 1 of :func:`solve` compiled (``_fastsolve.newton_group``) for a group of at
    most :data:`COMPILED_GROUP` unknowns whose constant opponents are all finite: the same
    Newton steps, line search (on the potential where :attr:`_System.has_potential`, else
    on the squared residuals), stop rule and polish; the extreme rule's rows (classic
    4.7.2.1.2) as :class:`_System` has them; P and its density from the same functions,
    the sums of W_e and of the merit in the same order, the Newton direction and the dot
    products from numpy's own loops (:func:`_linear_algebra`): every iterate, step count
    and settled root is :func:`_newton`'s to the bit (``tests/test_fast_group.py``, the
    differential test against the reference core). None where the compiled method does
    not apply or leaves Newton (numpy's solve would raise, no progress): :func:`solve`
    then takes the group from the start in Python."""
    if _fastsolve is None or _LINEAR is None or len(eqs) > COMPILED_GROUP:
        return None
    pairs: list[tuple[int, int]] = []
    signs: list[int] = []
    for k, e in enumerate(eqs):
        if not math.isfinite(sum(e.fixed)):
            return None
        signs.append(0 if e.extreme is None else _sign(e.extreme))
        pairs += [(k, j) for j in e.linked]
    potential = not any(signs) and _both_ways(pairs)  # _System.has_potential
    found = _fastsolve.newton_group(
        tuple(tuple(float(v) for v in e.fixed) for e in eqs),
        tuple(e.linked for e in eqs),
        tuple(e.w2 / 2 for e in eqs),
        tuple(float(v) for v in start),
        tuple(signs),
        float(curve.extreme),
        potential,
        *compiled_curve(curve),
        np.logaddexp,
        *_LINEAR,
        np.frombuffer,
        _rounds_alike,
        TOLERANCE,
        MAX_NEWTON,
        MAX_STEP,
        POLISH_STEPS,
        POLISH_REACH,
        float_half_up,
        PLACES,
    )
    if found is None:
        return None
    values, steps, trace = found
    return Solution(values, steps, trace)


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
    :func:`_polish_rows` for one unknown); a step that is not finite or longer than
    ``POLISH_REACH`` is not taken."""
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
