"""The two precisions of the classic rules (Anhang 2.1) as interchangeable strategies.

``TableArithmetic`` works like the hand calculation (with ``probability`` "normal": in
thousandths of the normal distribution instead of the hundredths of Anhang 2.1). Ratings
are integers, P(D) comes from Anhang 2.1 in hundredths, so W_e is an exact number of
hundredths and W - W_e is exact; an average opponent rating R_c is rounded half-up to an
integer; a score fraction W/n or 0.5 + (W - W_e)/n is rounded half-up to hundredths before
D is read from Anhang 2.2.
``FloatArithmetic`` uses the logistic approximation (or, with ``probability`` "normal", the
normal distribution) and its inverse, nothing rounded until a rating is final.

Scores are passed as half-points (``w2`` = 2 W) so that the table arithmetic stays in
integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

from ratingdb.rules.dwz_classic.params import DwzClassicParameters
from ratingdb.rules.dwz_classic.tables import (
    d_logistic,
    d_normal,
    d_of_hundredths,
    d_of_thousandths,
    p_hundredths,
    p_logistic,
    p_normal,
    p_thousandths,
)
from ratingdb.rules.rounding import (
    decimal_half_up,
    div_half_up,
    round_half_up,
)

Num = int | float


class Arithmetic(Protocol):
    precision: str

    def mean(self, opponents: Sequence[Num]) -> Num:
        """R_c = sum R_o / n (4.7.2.1.1)."""

    def expected(self, own: Num, opponents: Sequence[Num]) -> Num:
        """W_e = sum P(D) (4.6)."""

    def start_value(self, opponents: Sequence[Num], w2: int) -> Num:
        """R_c + D(W/n) (4.7.2.1.1); a 0 % / 100 % score gives R_c -+ 677 (4.7.2.1.2)."""

    def extreme_value(self, opponents: Sequence[Num], high: bool) -> Num:
        """R_c + 677 (100 %) or R_c - 677 (0 %) (4.7.2.1.2)."""

    def correction(self, w2: int, expected: Num, n: int) -> Num:
        """D(0.5 + (W - W_e)/n), the iteration step of 4.7.2.1.3."""

    def settled(self, old: Sequence[Num], new: Sequence[Num]) -> bool:
        """The stop rule of 4.7.4 ("Konstanz der Einerstellen")."""

    def final(self, value: Num) -> int:
        """An iteration value as an integer rating."""

    def difference(self, w2: int, expected: Num) -> Fraction | float:
        """W - W_e."""

    def expected_decimal(self, expected: Num) -> Decimal:
        """W_e as shown."""


class TableArithmetic:
    """Anhang 2.1/2.2; W_e in integer hundredths. With ``probability`` "normal" the table is
    the normal distribution in thousandths (the values ELOBASE published under the WO of
    2002; the same table as WO 2026 Anhang 2.1, :func:`.tables.p_thousandths`)."""

    precision = "table"

    def __init__(self, params: DwzClassicParameters) -> None:
        self._extreme = params.extreme_difference
        if params.probability == "normal":
            sigma = params.normal_sigma_over_sqrt2
            self._scale, self._places = 1000, 3
            self._p: Callable[[int], int] = p_thousandths
            self._d: Callable[[int], int] = lambda p: d_of_thousandths(p, sigma, self._extreme)
        else:
            self._scale, self._places = 100, 2
            self._p = p_hundredths
            self._d = lambda p: d_of_hundredths(p, self._extreme)
        self._half = self._scale // 2

    def mean(self, opponents: Sequence[Num]) -> int:
        return div_half_up(int(sum(opponents)), len(opponents))

    def expected(self, own: Num, opponents: Sequence[Num]) -> int:
        return sum(self._p(int(own - opp)) for opp in opponents)

    def start_value(self, opponents: Sequence[Num], w2: int) -> int:
        share = div_half_up(self._half * w2, len(opponents))
        return self.mean(opponents) + self._d(share)

    def extreme_value(self, opponents: Sequence[Num], high: bool) -> int:
        return self.mean(opponents) + (self._extreme if high else -self._extreme)

    def correction(self, w2: int, expected: Num, n: int) -> int:
        share = div_half_up(self._half * n + self._half * w2 - int(expected), n)
        return self._d(share)

    def settled(self, old: Sequence[Num], new: Sequence[Num]) -> bool:
        return list(old) == list(new)

    def final(self, value: Num) -> int:
        return int(value)

    def difference(self, w2: int, expected: Num) -> Fraction:
        return Fraction(self._half * w2 - int(expected), self._scale)

    def expected_decimal(self, expected: Num) -> Decimal:
        return Decimal(int(expected)).scaleb(-self._places)


class FloatArithmetic:
    """Logistic (or normal) P(D) and its inverse, unrounded; settled when every step <
    tolerance."""

    precision = "float"

    def __init__(self, params: DwzClassicParameters) -> None:
        self._extreme = params.extreme_difference
        self._tolerance = float(params.float_tolerance)
        self._sigma = params.normal_sigma_over_sqrt2 * math.sqrt(2)
        self._normal = params.probability == "normal"

    def _p(self, d: float) -> float:
        return p_normal(d, self._sigma) if self._normal else p_logistic(d)

    def _d(self, p: float) -> float:
        if self._normal:
            return d_normal(p, self._sigma, self._extreme)
        return d_logistic(p, self._extreme)

    def mean(self, opponents: Sequence[Num]) -> float:
        return float(sum(opponents)) / len(opponents)

    def expected(self, own: Num, opponents: Sequence[Num]) -> float:
        return sum(self._p(float(own - opp)) for opp in opponents)

    def start_value(self, opponents: Sequence[Num], w2: int) -> float:
        return self.mean(opponents) + self._d(w2 / (2 * len(opponents)))

    def extreme_value(self, opponents: Sequence[Num], high: bool) -> float:
        return self.mean(opponents) + (self._extreme if high else -self._extreme)

    def correction(self, w2: int, expected: Num, n: int) -> float:
        return self._d(0.5 + (w2 / 2 - expected) / n)

    def settled(self, old: Sequence[Num], new: Sequence[Num]) -> bool:
        steps = (abs(b - a) for a, b in zip(old, new, strict=True))
        return max(steps, default=0.0) < self._tolerance

    def final(self, value: Num) -> int:
        return round_half_up(value)

    def difference(self, w2: int, expected: Num) -> float:
        return w2 / 2 - float(expected)

    def expected_decimal(self, expected: Num) -> Decimal:
        return decimal_half_up(expected, 3)


def arithmetic_for(params: DwzClassicParameters) -> Arithmetic:
    if params.precision == "table":
        return TableArithmetic(params)
    return FloatArithmetic(params)
