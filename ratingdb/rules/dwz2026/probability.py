"""Winning expectation P(D) and its inverse D(p) (WO 3.3.1, Anhang 2.1 and 2.2).

P(D) is the normal distribution with sigma = 200*sqrt(2) evaluated at the rating difference
D. In ``table`` precision P(D) is rounded half-up to 3 decimals and handled as an integer
number of thousandths ("milli"), D(p) is an integer read for p in thousandths; outside
[p_limit, 1 - p_limit] D(p) is -+d_limit (WO Anhang 2.1). ``float`` precision uses the
unrounded functions (scipy.special.ndtr / ndtri).
"""

from __future__ import annotations

import math
from decimal import Decimal
from functools import lru_cache

from scipy.special import ndtr, ndtri

from ratingdb.rules.dwz.arithmetic import Arithmetic, FloatArithmetic, TableArithmetic
from ratingdb.rules.dwz2026.params import Dwz2026Parameters
from ratingdb.rules.rounding import round_half_up

SIGMA = 200 * math.sqrt(2)


def _p_float(d: float) -> float:
    return float(ndtr(d / SIGMA))


@lru_cache(maxsize=1)
def p_table() -> tuple[int, ...]:
    """P(D) in thousandths for D = 0, 1, ... up to the first D where it reaches 1000."""
    values: list[int] = []
    d = 0
    while True:
        milli = round_half_up(_p_float(d) * 1000)
        values.append(milli)
        if milli >= 1000:
            return tuple(values)
        d += 1


def p_milli(d: int) -> int:
    """Table P(D) in thousandths; P(-D) = 1 - P(D) (WO Anhang 2.1, example 2).

    >>> p_milli(0), p_milli(100), p_milli(-100), p_milli(800)
    (500, 638, 362, 998)
    """
    table = p_table()
    if d >= 0:
        return table[d] if d < len(table) else 1000
    return 1000 - (table[-d] if -d < len(table) else 1000)


@lru_cache(maxsize=8)
def d_table(d_limit: int, p_limit: Decimal) -> tuple[int, ...]:
    """D(p) for p = 0.000 .. 1.000 in thousandths (WO Anhang 2.2), D(p) = -D(1 - p).

    Row 0,56 column 3 of Anhang 2.2 reads 45 (the WO's text example says 44, a typo), row
    0,60 column 0 reads 72; outside [0.005, 0.995] D is -+729:

    >>> d = d_table(729, Decimal("0.005"))
    >>> d[563], d[600], d[437], d[996], d[4]
    (45, 72, -45, 729, -729)
    """
    limit_milli = int(p_limit * 1000)
    upper = [0] * 1001
    for milli in range(500, 1001):
        if milli > 1000 - limit_milli:
            upper[milli] = d_limit
        else:
            upper[milli] = round_half_up(float(ndtri(milli / 1000)) * SIGMA)
    for milli in range(500):
        upper[milli] = -upper[1000 - milli]
    return tuple(upper)


def p_float(d: float) -> float:
    """Unrounded P(D) for ``float`` precision."""
    return _p_float(d)


@lru_cache(maxsize=8192)
def d_float(p: float, d_limit: int, p_limit: float) -> float:
    """Unrounded D(p) for ``float`` precision, -+d_limit outside [p_limit, 1 - p_limit];
    kept per value (a start value asks it for a few hundred distinct W/n; ``ndtri`` on
    one number costs 0.3 µs, a kept value 0.07 µs)."""
    if p < p_limit:
        return -float(d_limit)
    if p > 1 - p_limit:
        return float(d_limit)
    return float(ndtri(p)) * SIGMA


def arithmetic_for(params: Dwz2026Parameters) -> Arithmetic:
    """The precision of ``params``: the tables of Anhang 2.1/2.2 in thousandths, or the
    unrounded normal distribution (W_e: the correctly rounded sum, WO 3.3.2)."""
    if params.precision == "table":
        d = d_table(params.d_limit, params.p_limit)
        return TableArithmetic(p_table(), d, 1000, params.d_limit)
    d_limit, p_limit = params.d_limit, float(params.p_limit)
    return FloatArithmetic(
        p_float,
        lambda p: d_float(p, d_limit, p_limit),
        float(params.float_tolerance),
        d_limit,
        p_array=lambda d: ndtr(d / SIGMA),  # p_float element by element
    )
