"""The two precisions of every DWZ version as one protocol with two implementations.

WO 2026 Anhang 2.1 (last paragraphs) and the classic rules' Anhang 2.1 allow the hand
calculation with the printed tables ("table") or the unrounded functions ("float"). The
DWZ families differ only in which tables and functions they pass in (:mod:`ratingdb.rules.
dwz2026.probability`, :mod:`tests.reference_dwz.dwz_classic.tables`):

* :class:`TableArithmetic`: P(D) is an integer number of ``scale``-ths (thousandths in WO
  2026 Anhang 2.1, hundredths in the classic Anhang 2.1), read for an integer D, with
  P(-D) = 1 - P(D); D(p) is read for p rounded half-up to the same unit (Anhang 2.2).
  W_e, W - W_e and p' = 0.5 + (W - W_e)/n are computed exactly (integers of the unit)
  before rounding: binary floats round 0.4595 down and the trace of WO Anhang 3.1.4 then
  differs. An average R_c is rounded half-up to an integer (DESIGN rule 3).
* :class:`FloatArithmetic`: P and its inverse unrounded; only a final rating is rounded.

Scores are passed as half-points (``w2`` = 2 W) so that the table arithmetic stays in
integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

import numpy as np

from ratingdb.rules.parameters import Precision
from ratingdb.rules.rounding import decimal_half_up, div_half_up, round_half_up

Num = int | float


class Arithmetic(Protocol):
    """What the grouping, the iterations and the rating formulas need from a precision."""

    @property
    def precision(self) -> Precision: ...

    def mean(self, total: Num, n: int) -> Num:
        """The average opponent rating R_c = total / n (WO 3.4.4.1, classic 4.7.2.1.1)."""

    def start_value(self, opponents: Sequence[Num], w2: int) -> Num:
        """R_p = R_c + D(W/n) (WO Anhang 1.1.1, classic 4.7.2.1.1)."""

    def expected(self, own: Num, opponents: Sequence[Num]) -> Num:
        """W_e = sum of P(own - opponent) (WO 3.3.2, classic 4.6), in the precision's unit."""

    def expectations(self, own: Num, opponents: Sequence[Num]) -> tuple[Num, list[Num]]:
        """W_e and the P(D) of every game; W_e is exactly what :meth:`expected` gives."""

    def probability(self, value: Num) -> float:
        """One game's P(D) from :meth:`expectations` as a number of points (0.638)."""

    def correction(self, w2: int, expected: Num, n: int) -> Num:
        """D' = D(0.5 + (W - W_e)/n), the iteration step (WO Anhang 1.1.2, classic
        4.7.2.1.3)."""

    def extreme_value(self, opponents: Sequence[Num], high: bool) -> Num:
        """R_c + / - the extreme difference for a 100 % / 0 % result (classic 4.7.2.1.2)."""

    def converged(self, old: Sequence[Num], new: Sequence[Num]) -> bool:
        """The stop rule: no value moved (table: every D' = 0, WO Anhang 1.1.3; classic
        4.7.4 "Konstanz der Einerstellen"), or every step below the tolerance (float)."""

    def final(self, value: Num) -> int:
        """An iteration value as an integer rating."""

    def difference(self, w2: int, expected: Num) -> Fraction | float:
        """W - W_e (exact in table precision)."""

    def expected_decimal(self, expected: Num) -> Decimal:
        """W_e as shown: the table's decimals, or 3 decimals rounded half-up (float)."""


def better_table(p: Callable[[int], int], scale: int) -> tuple[int, ...]:
    """P(D) in units of 1/``scale`` for D = 0, 1, ... up to the first D where it reaches
    ``scale`` (every larger D reads ``scale`` as well)."""
    values: list[int] = []
    d = 0
    while True:
        values.append(p(d))
        if values[-1] >= scale:
            return tuple(values)
        d += 1


class TableArithmetic:
    """The printed tables: ``better[D]`` is P(D) for D >= 0 in units of 1/``scale``,
    ``inverse[p]`` is D(p) for p = 0 .. ``scale`` units; ``extreme`` the difference of a
    100 % / 0 % result.

    >>> from tests.reference_dwz.dwz2026.probability import d_table, p_table
    >>> arith = TableArithmetic(p_table(), d_table(729, Decimal("0.005")), 1000, 729)
    >>> arith.expected(1300, [1950, 1700]), arith.expected_decimal(90)
    (90, Decimal('0.090'))
    """

    precision: Precision = "table"

    def __init__(
        self, better: tuple[int, ...], inverse: tuple[int, ...], scale: int, extreme: int
    ) -> None:
        self._p = better
        self._d = inverse
        self._scale = scale
        self._half = scale // 2
        self._places = len(str(scale)) - 1
        self._extreme = extreme

    def mean(self, total: Num, n: int) -> int:
        return div_half_up(int(total), n)

    def start_value(self, opponents: Sequence[Num], w2: int) -> int:
        n = len(opponents)
        p = div_half_up(self._half * w2, n)
        return self.mean(sum(opponents), n) + self._d[min(max(p, 0), self._scale)]

    def expected(self, own: Num, opponents: Sequence[Num]) -> int:
        tab, scale = self._p, self._scale
        size = len(tab)
        total = 0
        for opp in opponents:
            d = int(own - opp)
            if d >= 0:
                total += tab[d] if d < size else scale
            else:
                total += scale - (tab[-d] if -d < size else scale)
        return total

    def expectations(self, own: Num, opponents: Sequence[Num]) -> tuple[int, list[Num]]:
        tab, scale = self._p, self._scale
        size = len(tab)
        games: list[int] = []
        for opp in opponents:
            d = int(own - opp)
            if d >= 0:
                games.append(tab[d] if d < size else scale)
            else:
                games.append(scale - (tab[-d] if -d < size else scale))
        return sum(games), list[Num](games)

    def probability(self, value: Num) -> float:
        return int(value) / self._scale

    def correction(self, w2: int, expected: Num, n: int) -> int:
        p = div_half_up(self._half * n + self._half * w2 - int(expected), n)
        return self._d[min(max(p, 0), self._scale)]

    def extreme_value(self, opponents: Sequence[Num], high: bool) -> int:
        return self.mean(sum(opponents), len(opponents)) + (
            self._extreme if high else -self._extreme
        )

    def converged(self, old: Sequence[Num], new: Sequence[Num]) -> bool:
        return list(old) == list(new)

    def final(self, value: Num) -> int:
        return int(value)

    def difference(self, w2: int, expected: Num) -> Fraction:
        return Fraction(self._half * w2 - int(expected), self._scale)

    def expected_decimal(self, expected: Num) -> Decimal:
        return Decimal(int(expected)).scaleb(-self._places)


class FloatArithmetic:
    """Unrounded P(D) (``p``; ``p_vector`` evaluates it on an array of differences, and
    its sum is then numpy's) and D(p) (``d``, clamped by the family); converged when every
    step is below ``tolerance``."""

    precision: Precision = "float"

    def __init__(
        self,
        p: Callable[[float], float],
        d: Callable[[float], float],
        tolerance: float,
        extreme: float,
        p_vector: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self._p = p
        self._d = d
        self._tolerance = tolerance
        self._extreme = extreme
        self._p_vector = p_vector

    def mean(self, total: Num, n: int) -> float:
        return float(total) / n

    def start_value(self, opponents: Sequence[Num], w2: int) -> float:
        n = len(opponents)
        return self.mean(sum(opponents), n) + self._d(w2 / (2 * n))

    def expected(self, own: Num, opponents: Sequence[Num]) -> float:
        if self._p_vector is not None:
            return math.fsum(self._p_vector(own - np.asarray(opponents, dtype=float)).tolist())
        return math.fsum(self._p(float(own - opp)) for opp in opponents)

    def expectations(self, own: Num, opponents: Sequence[Num]) -> tuple[float, list[Num]]:
        if self._p_vector is not None:
            values = self._p_vector(own - np.asarray(opponents, dtype=float))
            return math.fsum(values.tolist()), [float(v) for v in values]
        games: list[Num] = [self._p(float(own - opp)) for opp in opponents]
        return math.fsum(games), games

    def probability(self, value: Num) -> float:
        return float(value)

    def correction(self, w2: int, expected: Num, n: int) -> float:
        return self._d(0.5 + (w2 / 2 - expected) / n)

    def extreme_value(self, opponents: Sequence[Num], high: bool) -> float:
        return self.mean(sum(opponents), len(opponents)) + (
            self._extreme if high else -self._extreme
        )

    def converged(self, old: Sequence[Num], new: Sequence[Num]) -> bool:
        steps = (abs(b - a) for a, b in zip(old, new, strict=True))
        return max(steps, default=0.0) < self._tolerance

    def final(self, value: Num) -> int:
        return round_half_up(value)

    def difference(self, w2: int, expected: Num) -> float:
        return w2 / 2 - float(expected)

    def expected_decimal(self, expected: Num) -> Decimal:
        return decimal_half_up(expected, 3)
