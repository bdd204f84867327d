"""Winning expectation P(D) and rating difference D(P) of the classic DWZ (4.5, Anhang 2).

``table`` precision (the default) uses the two-digit tables of the rules as printed:

* Anhang 2.1 (4.5): P(D) for the better player, in hundredths, for ranges of |D|; the
  worse player gets the complement 1 - P(D); |D| > 735 gives 1.00 / 0.00.
* Anhang 2.2: D for P = 0.50 .. 0.99, the inverse of Anhang 2.1; D(1 - P) = -D(P).

The tables are typed in from the rules (they are the FIDE tables, not a rounding of the
normal distribution: e.g. |D| = 25 reads 0.53 where Phi gives 0.535 -> 0.54), so nothing
here is generated. 4.7.2.1.1 also names a "Tabelle Anhang 2.3", which the text does
not contain; Anhang 2.2 is used everywhere. Anhang 2.2 stops at 0.99; P = 1.00 / 0.00
is read as +-677, the value 4.7.2.1.2 prescribes for a 100 % / 0 % result (parameter
``extreme_difference``).

``float`` precision uses the approximation printed under Anhang 2.1,
P(D) = 1 / (1 + 10^(-D/400)), and its inverse D(P) = 400 * log10(P / (1 - P)), which is
clamped to +-``extreme_difference`` (the largest D either table knows). With the
parameter ``probability`` "normal" it uses the normal distribution the text of 4.5 names
as the basis of the table, P(D) = Phi(D / (200 sqrt 2)) (the sigma of WO 2026 3.3.1) and
its inverse, clamped the same way. ``table`` precision with ``probability`` "normal" reads
the normal distribution in thousandths (WO 2026 Anhang 2.1's table, σ = 200 sqrt 2, which
ELOBASE used for the published values of the 2000s) and its inverse D(P) in thousandths.
"""

from __future__ import annotations

import math
from functools import lru_cache

from scipy.special import ndtr, ndtri

from ratingdb.rules.dwz.arithmetic import (
    Arithmetic,
    FloatArithmetic,
    TableArithmetic,
    better_table,
)
from ratingdb.rules.dwz2026.probability import p_milli, p_table
from ratingdb.rules.dwz_classic.params import DwzClassicParameters
from ratingdb.rules.elo_tables import D_ABOVE_HALF, P_UPPER, p_hundredths
from ratingdb.rules.rounding import round_half_up

__all__ = [
    "D_ABOVE_HALF",
    "P_UPPER",
    "arithmetic_for",
    "d_logistic",
    "d_normal",
    "d_of_hundredths",
    "d_of_thousandths",
    "p_hundredths",
    "p_logistic",
    "p_normal",
    "p_thousandths",
]  # fmt: skip


def d_of_hundredths(p: int, extreme: int) -> int:
    """Table D(P) for P in hundredths (Anhang 2.2); P is clamped to 0..100 and
    P = 1.00 / 0.00 gives +-``extreme`` (4.7.2.1.2)."""
    p = min(max(p, 0), 100)
    upper = max(p, 100 - p)
    d = extreme if upper == 100 else D_ABOVE_HALF[upper - 50]
    return d if p >= 50 else -d


def p_logistic(d: float) -> float:
    """The approximation of Anhang 2.1: P(D) = 1 / (1 + 10^(-D/400))."""
    return 1.0 / (1.0 + float(10.0 ** (-d / 400.0)))


def d_logistic(p: float, extreme: int) -> float:
    """Inverse of :func:`p_logistic`, clamped to +-``extreme`` (also for P <= 0, P >= 1)."""
    if p <= 0.0:
        return -float(extreme)
    if p >= 1.0:
        return float(extreme)
    d = 400.0 * math.log10(p / (1.0 - p))
    return min(max(d, -float(extreme)), float(extreme))


def p_normal(d: float, sigma: float) -> float:
    """P(D) of the normal distribution with standard deviation ``sigma``."""
    return float(ndtr(d / sigma))


@lru_cache(maxsize=8192)
def d_normal(p: float, sigma: float, extreme: int) -> float:
    """Inverse of :func:`p_normal`, clamped to +-``extreme`` (also for P <= 0, P >= 1).
    Kept per value: a start value R_c + D(W/n) asks it for a few hundred distinct W/n,
    and ``ndtri`` on one number costs 0.3 µs, a kept value 0.07 µs."""
    if p <= 0.0:
        return -float(extreme)
    if p >= 1.0:
        return float(extreme)
    return min(max(float(ndtri(p)) * sigma, -float(extreme)), float(extreme))


def p_thousandths(d: int) -> int:
    """P(D) of the normal distribution (sigma 200 sqrt 2) in thousandths, rounded half-up:
    the table of WO 2026 Anhang 2.1 (:func:`ratingdb.rules.dwz2026.probability.p_milli`)."""
    return p_milli(d)


def d_of_thousandths(p: int, sigma_over_sqrt2: int, extreme: int) -> int:
    """D(P) for P in thousandths: the inverse normal distribution rounded half-up, clamped
    to +-``extreme``; P = 1.000 / 0.000 gives +-``extreme`` (4.7.2.1.2)."""
    return _d_thousandths(sigma_over_sqrt2, extreme)[min(max(p, 0), 1000)]


@lru_cache(maxsize=4)
def _d_thousandths(sigma_over_sqrt2: int, extreme: int) -> tuple[int, ...]:
    sigma = sigma_over_sqrt2 * math.sqrt(2)
    upper = [0] * 1001
    for milli in range(500, 1001):
        d = extreme if milli == 1000 else round_half_up(float(ndtri(milli / 1000)) * sigma)
        upper[milli] = min(d, extreme)
    for milli in range(500):
        upper[milli] = -upper[1000 - milli]
    return tuple(upper)


@lru_cache(maxsize=8)
def _hundredths(extreme: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Anhang 2.1 as P(D) for D >= 0 and Anhang 2.2 as D(P) for P = 0 .. 100."""
    return better_table(p_hundredths, 100), tuple(d_of_hundredths(p, extreme) for p in range(101))


def arithmetic_for(params: DwzClassicParameters) -> Arithmetic:
    """The precision of ``params``: the tables (hundredths of Anhang 2.1/2.2, or with
    ``probability`` "normal" the normal distribution in thousandths), or the unrounded
    logistic (normal) P(D) and its inverse."""
    extreme = params.extreme_difference
    if params.precision == "table":
        if params.probability == "normal":
            inverse = _d_thousandths(params.normal_sigma_over_sqrt2, extreme)
            return TableArithmetic(p_table(), inverse, 1000, extreme)
        better, inverse = _hundredths(extreme)
        return TableArithmetic(better, inverse, 100, extreme)
    tolerance = float(params.float_tolerance)
    if params.probability == "normal":
        sigma = params.normal_sigma_over_sqrt2 * math.sqrt(2)
        return FloatArithmetic(
            lambda d: p_normal(d, sigma),
            lambda p: d_normal(p, sigma, extreme),
            tolerance,
            extreme,
            p_array=lambda d: ndtr(d / sigma),  # p_normal element by element
        )
    return FloatArithmetic(p_logistic, lambda p: d_logistic(p, extreme), tolerance, extreme)
