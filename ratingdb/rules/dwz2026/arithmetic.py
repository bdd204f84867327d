"""The two precisions of the WO (Anhang 2.1, last paragraphs) as interchangeable strategies.

``TableArithmetic`` reproduces the hand calculation of WO Anhang 3.1 exactly: P(D) in
integer thousandths from Anhang 2.1, D(p) from Anhang 2.2 with p rounded half-up to 3
decimals, and W - W_e, p' = 0.5 + (W - W_e)/n computed exactly (integer arithmetic on
thousandths) before rounding. ``FloatArithmetic`` uses unrounded normal-distribution values.

Scores are passed as half-points (``w2`` = 2*W) so that every table computation stays
in integers.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

import numpy as np
from scipy.special import ndtr

from ratingdb.rules.dwz2026.params import Dwz2026Parameters
from ratingdb.rules.dwz2026.probability import SIGMA, d_float, d_table, p_table
from ratingdb.rules.rounding import decimal_half_up, div_half_up, round_half_up

Num = int | float


class Arithmetic(Protocol):
    """What the iterations and the K/R_n step need from a precision."""

    precision: str

    def mean(self, total: Num, n: int) -> Num:
        """Opponent average R_c as used in a start value."""

    def start_value(self, opponents: Sequence[Num], w2: int) -> Num:
        """R_p = R_c + D(p), p = W/n (Anhang 1.1.1)."""

    def expected(self, own: Num, opponents: Sequence[Num]) -> Num:
        """W_e = sum of P(own - opponent) (WO 3.3.2)."""

    def correction(self, w2: int, expected: Num, n: int) -> Num:
        """D' = D(0.5 + (W - W_e)/n) (Anhang 1.1.2)."""

    def converged(self, corrections: Sequence[Num]) -> bool:
        """Stop rule of Anhang 1.1.3."""

    def final(self, value: Num) -> int:
        """An iteration value as an integer rating."""

    def difference(self, w2: int, expected: Num) -> Fraction | float:
        """W - W_e."""

    def expected_3(self, expected: Num) -> Decimal:
        """W_e as shown: 3 decimals."""


class TableArithmetic:
    """Anhang 2.1/2.2 tables; all values integers (ratings) or thousandths (P)."""

    precision = "table"

    def __init__(self, params: Dwz2026Parameters) -> None:
        self._p = p_table()
        self._d = d_table(params.d_limit, params.p_limit)

    def mean(self, total: Num, n: int) -> int:
        return div_half_up(int(total), n)

    def start_value(self, opponents: Sequence[Num], w2: int) -> int:
        n = len(opponents)
        p = div_half_up(500 * w2, n)
        return self.mean(sum(opponents), n) + self._d[min(max(p, 0), 1000)]

    def expected(self, own: Num, opponents: Sequence[Num]) -> int:
        tab = self._p
        size = len(tab)
        total = 0
        for opp in opponents:
            d = int(own - opp)
            if d >= 0:
                total += tab[d] if d < size else 1000
            else:
                total += 1000 - (tab[-d] if -d < size else 1000)
        return int(total)

    def correction(self, w2: int, expected: Num, n: int) -> int:
        p = div_half_up(500 * n + 500 * w2 - int(expected), n)
        return self._d[min(max(p, 0), 1000)]

    def converged(self, corrections: Sequence[Num]) -> bool:
        return all(c == 0 for c in corrections)

    def final(self, value: Num) -> int:
        return int(value)

    def difference(self, w2: int, expected: Num) -> Fraction:
        return Fraction(500 * w2 - int(expected), 1000)

    def expected_3(self, expected: Num) -> Decimal:
        return Decimal(int(expected)).scaleb(-3)


class FloatArithmetic:
    """Unrounded Phi / Phi^-1; stop when max |D'| < tolerance."""

    precision = "float"

    def __init__(self, params: Dwz2026Parameters) -> None:
        self._d_limit = params.d_limit
        self._p_limit = float(params.p_limit)
        self._tolerance = float(params.float_tolerance)

    def mean(self, total: Num, n: int) -> float:
        return float(total) / n

    def start_value(self, opponents: Sequence[Num], w2: int) -> float:
        n = len(opponents)
        return self.mean(sum(opponents), n) + d_float(w2 / (2 * n), self._d_limit, self._p_limit)

    def expected(self, own: Num, opponents: Sequence[Num]) -> float:
        diffs = (own - np.asarray(opponents, dtype=float)) / SIGMA
        return float(ndtr(diffs).sum())

    def correction(self, w2: int, expected: Num, n: int) -> float:
        return d_float(0.5 + (w2 / 2 - expected) / n, self._d_limit, self._p_limit)

    def converged(self, corrections: Sequence[Num]) -> bool:
        return max((abs(c) for c in corrections), default=0.0) < self._tolerance

    def final(self, value: Num) -> int:
        return round_half_up(value)

    def difference(self, w2: int, expected: Num) -> float:
        return w2 / 2 - float(expected)

    def expected_3(self, expected: Num) -> Decimal:
        return decimal_half_up(expected, 3)


def arithmetic_for(params: Dwz2026Parameters) -> Arithmetic:
    if params.precision == "table":
        return TableArithmetic(params)
    return FloatArithmetic(params)
