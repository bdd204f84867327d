"""The root of W_e(R) = W for one unknown against constant opponents: a performance R_h
(WO 2026 3.6, Anhang 1.1; classic DWZ 4.8) and an individual Teiliteration of a first
rating (WO 2026 3.4.4.1; classic 4.7.2.1.3).

W_e(R) is strictly increasing in R, so the root is unique; it exists unless the score is
0 % or 100 %. The iteration is a bracketing Newton method: Newton steps from the start, a
step that leaves the bracket known so far or jumps further than ``max_jump`` (the slope
underflows in P's flat tails) becomes a bisection (or, while one side is still open, a
move of 1000 points, doubled each time), so it converges from any start. It stops when
|W - W_e| is below ``tolerance`` and the last step no longer changes the value's half-up
rounding (``rounds_alike``), or when the bracket is narrower than 1e-9 points; then
``polish_steps`` Newton steps take the root to the floating-point limit.

The numbers (docs/rules-dwz2026.md, "Float precision"): P(D) is the normal distribution
``scipy.special.ndtr`` (or the logistic ``scipy.special.expit`` of classic Anhang 2.1),
called through scipy's documented Cython interface ``scipy.special.cython_special`` (the
very function the ufunc applies to each element); W_e is the correctly rounded sum of
the games' P (``math.fsum``); the slope, which only steers the steps, is the correctly
rounded sum of the densities, with the C library's ``exp``.

This module is compiled by Cython (``setup.py``; the annotations are Cython's pure-Python
mode): it is the only implementation of the iteration, and it is not importable
uncompiled (``tests/test_compiled.py`` checks the build).
"""

from __future__ import annotations

import math

import cython
from cython.cimports.libc.math import exp, fabs, isinf, isnan, sqrt
from cython.cimports.scipy.special.cython_special import expit, ndtr

#: a root's steps, value, trace (``[[start], [x_1], ...]``) and W_e at every state after
#: the start
Found = tuple[int, float, list[list[float]], list[float]]


@cython.cfunc
@cython.locals(n=cython.Py_ssize_t, j=cython.Py_ssize_t, d=cython.double, z=cython.double,
               p=cython.double)  # fmt: skip
def _expected_and_slope(
    x: cython.double,
    opponents: list[float],
    normal: cython.bint,
    sigma: cython.double,
    factor: cython.double,
) -> tuple[float, float]:
    """W_e at ``x`` against ``opponents`` and its derivative in ``x``."""
    n = len(opponents)
    values: list[float] = [0.0] * n
    densities: list[float] = [0.0] * n
    for j in range(n):
        d = x - cython.cast(cython.double, opponents[j])
        if normal:
            z = d / sigma
            values[j] = ndtr(z)
            densities[j] = exp(-0.5 * z * z)
        else:
            p = expit(d * factor)
            values[j] = p
            densities[j] = p * (1 - p)
    if normal:
        return math.fsum(values), math.fsum(densities) / (sigma * sqrt(2 * math.pi))
    return math.fsum(values), factor * math.fsum(densities)


@cython.locals(x=cython.double, fx=cython.double, slope=cython.double, lo=cython.double,
               hi=cython.double, reach=cython.double, new=cython.double, f_new=cython.double,
               we=cython.double, change=cython.double, step=cython.int, polish=cython.int,
               normal=cython.bint, sigma=cython.double, factor=cython.double)  # fmt: skip
def find_root(
    opponents: list[float],
    w: float,
    start: float,
    kind: str,
    sigma: float,
    factor: float,
    rounds_alike: object,
    tolerance: float,
    max_bisect: int,
    max_jump: float,
    polish_steps: int,
    polish_reach: float,
) -> Found | None:
    """The root of W_e(R) = ``w`` against ``opponents`` (floats, -inf for a game P = 1
    whatever R is) from ``start``, P of the curve ``kind`` ("normal" with ``sigma``, or
    "logistic" with ``factor`` = ln 10 / 400); None when ``max_bisect`` steps do not reach
    it. The root is polished, not yet settled to the solver's decimals."""
    normal = kind == "normal"
    x = start
    we, slope = _expected_and_slope(x, opponents, normal, sigma, factor)
    fx = we - w
    lo, hi, reach = -math.inf, math.inf, 1000.0
    trace: list[list[float]] = [[x]]
    expected: list[float] = []
    for step in range(1, max_bisect + 1):
        if fx < 0:
            lo = x
        else:
            hi = x
        # the slope is >= 0; at 0 there is no Newton step: a bracketing move
        new = x - fx / slope if slope != 0 else math.nan
        if isnan(new) or not (lo < new < hi) or fabs(new - x) > max_jump:
            if isinf(hi):
                new = lo + reach
                reach = 2 * reach
            elif isinf(lo):
                new = hi - reach
                reach = 2 * reach
            else:
                new = (lo + hi) / 2
        we, slope = _expected_and_slope(new, opponents, normal, sigma, factor)
        f_new = we - w
        trace.append([new])
        expected.append(we)
        done = fabs(f_new) <= tolerance and rounds_alike(new, x)  # type: ignore[operator]
        x, fx = new, f_new
        if done or hi - lo < 1e-9:
            for polish in range(polish_steps):
                if polish:
                    we, slope = _expected_and_slope(x, opponents, normal, sigma, factor)
                change = (w - we) / slope if slope != 0 else math.nan
                if isnan(change) or isinf(change) or fabs(change) > polish_reach:
                    break
                x = x + change
            return step, x, trace, expected
    return None
