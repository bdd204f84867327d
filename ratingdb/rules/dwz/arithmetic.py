"""The two precisions of every DWZ version as one protocol with two implementations.

WO 2026 Anhang 2.1 (last paragraphs) and the classic rules' Anhang 2.1 allow the hand
calculation with the printed tables ("table") or the unrounded functions ("float"). The
DWZ families differ only in which tables and functions they pass in (:mod:`ratingdb.rules.
dwz2026.probability`, :mod:`ratingdb.rules.dwz_classic.tables`):

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
from functools import lru_cache
from itertools import chain
from typing import Any, Protocol

import numpy as np

from ratingdb.rules.parameters import Precision
from ratingdb.rules.rounding import div_half_up, round_half_up

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

    def expectations_many(
        self, owns: Sequence[Num], opponents: Sequence[Sequence[Num]]
    ) -> list[tuple[Num, list[Num]]]:
        """:meth:`expectations` of many players at once (``owns[k]`` against
        ``opponents[k]``), each value exactly what :meth:`expectations` gives."""

    def probability(self, value: Num) -> float:
        """One game's P(D) from :meth:`expectations` as a number of points (0.638)."""

    def probabilities(self, values: Sequence[Num]) -> list[float | None]:
        """:meth:`probability` of each value."""

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


#: the arrays of :meth:`TableArithmetic._tables` per pair of table tuples (id, with the
#: tuples themselves, so that an id is not reused while its entry exists)
_TABLE_ARRAYS: dict[tuple[int, int, int], tuple[tuple[int, ...], tuple[int, ...], Any, Any]] = {}


class TableArithmetic:
    """The printed tables: ``better[D]`` is P(D) for D >= 0 in units of 1/``scale``,
    ``inverse[p]`` is D(p) for p = 0 .. ``scale`` units; ``extreme`` the difference of a
    100 % / 0 % result.

    >>> from ratingdb.rules.dwz2026.probability import d_table, p_table
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
        self._scale = self.scale = scale
        self._half = self.half = scale // 2
        self._places = len(str(scale)) - 1
        self._extreme = self.extreme_difference = extreme
        self._reach = len(better)
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None

    def _tables(self) -> tuple[np.ndarray, np.ndarray]:
        """P(D) for D = -reach .. reach at index D + reach (|D| >= reach reads 0 / scale),
        and D(p), as arrays; built on first use (only the steps for many players need them)
        and kept for the same printed tables (the families' table tuples are made once)."""
        if self._arrays is None:
            key = (id(self._p), id(self._d), self._scale)
            kept = _TABLE_ARRAYS.get(key)
            if kept is None or kept[0] is not self._p or kept[1] is not self._d:
                scale, better = self._scale, self._p
                negative = [scale - better[-d] for d in range(-self._reach + 1, 0)]
                full = np.array([0, *negative, *better, scale], dtype=np.int64)
                if len(_TABLE_ARRAYS) >= 32:
                    _TABLE_ARRAYS.clear()
                kept = _TABLE_ARRAYS[key] = (
                    self._p,
                    self._d,
                    full,
                    np.array(self._d, dtype=np.int64),
                )
            self._arrays = kept[2], kept[3]
        return self._arrays

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

    def expectations_many(
        self, owns: Sequence[Num], opponents: Sequence[Sequence[Num]]
    ) -> list[tuple[Num, list[Num]]]:
        if not all(type(v) is int for v in owns) or not all(
            type(v) is int for o in opponents for v in o
        ):
            return [self.expectations(own, o) for own, o in zip(owns, opponents, strict=True)]
        lengths = [len(o) for o in opponents]
        total = sum(lengths)
        if total < 64:  # one array step costs more than a few table look-ups
            return [self.expectations(own, o) for own, o in zip(owns, opponents, strict=True)]
        own = np.repeat(np.asarray(owns, dtype=np.int64), lengths)
        flat = np.fromiter(chain.from_iterable(opponents), dtype=np.int64, count=total)
        reach, full = self._reach, self._tables()[0]
        values: list[int] = np.take(full, own + reach - flat, mode="clip").tolist()
        out: list[tuple[Num, list[Num]]] = []
        start = 0
        for n in lengths:
            games: list[Num] = list(values[start : start + n])
            out.append((sum(values[start : start + n]), games))
            start += n
        return out

    def steps_many(
        self, values: np.ndarray, opponents: np.ndarray, n: np.ndarray, w2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """W_e and D' (:meth:`expected`, :meth:`correction`) of many players at once:
        ``values[k]`` against the ratings ``opponents[k]`` (int64 arrays; a row padded
        with ratings so high that P(D) reads 0), ``n[k]`` games, ``w2[k]`` half-points."""
        return self.stepper(n, w2)(values, opponents)

    def stepper(
        self, n: np.ndarray, w2: np.ndarray
    ) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """:meth:`steps_many` for fixed ``n`` and ``w2``, the constants computed once.

        Integers throughout, so the sums are exact in any order. A difference D is read
        at index D + reach of the table, the index clipped to the table (``take``'s
        "clip"): every |D| >= reach reads 0 or ``scale``. D' = D(p) with p = 0.5 +
        (W - W_e)/n in units, rounded half-up: ``(2 half (n + w2) + n - 2 W_e) // (2 n)``,
        clipped to 0 .. ``scale`` (a negative numerator gives p <= 0, read as 0 as the
        clamp of :meth:`correction` does)."""
        reach, (full, inverse) = self._reach, self._tables()
        top = 2 * self._half * (n + w2) + n
        twice_n = 2 * n

        def step(values: np.ndarray, opponents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            index = (values + reach)[:, None] - opponents
            expected = np.take(full, index, mode="clip").sum(axis=1)
            p = (top - 2 * expected) // twice_n
            return expected, np.take(inverse, p, mode="clip")

        return step

    def probability(self, value: Num) -> float:
        return int(value) / self._scale

    def probabilities(self, values: Sequence[Num]) -> list[float | None]:
        scale = self._scale
        return [int(v) / scale for v in values]

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
        return _scaled(int(expected), self._places)


class FloatArithmetic:
    """Unrounded P(D) (``p``; ``p_array``, where given, evaluates it on an array of
    differences, element by element the same values) and D(p) (``d``, clamped by the
    family); converged when every step is below ``tolerance``.

    W_e is the correctly rounded sum of the games' P(D) (``math.fsum``): the float nearest
    to the exact sum of the floats P gives, whatever the order of the games and whichever
    Python or numpy adds them.

    >>> arith = FloatArithmetic(lambda d: 0.1 if d > 0 else 0.2, lambda p: 0.0, 1e-9, 677)
    >>> arith.expected(1500, [1400] * 10), sum([0.1] * 10)
    (1.0, 0.9999999999999999)
    """

    precision: Precision = "float"

    def __init__(
        self,
        p: Callable[[float], float],
        d: Callable[[float], float],
        tolerance: float,
        extreme: float,
        p_array: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self._p = p
        self._d = d
        self._tolerance = tolerance
        self._extreme = extreme
        self._p_array = p_array

    def mean(self, total: Num, n: int) -> float:
        return float(total) / n

    def start_value(self, opponents: Sequence[Num], w2: int) -> float:
        n = len(opponents)
        return self.mean(sum(opponents), n) + self._d(w2 / (2 * n))

    def expected(self, own: Num, opponents: Sequence[Num]) -> float:
        return self.expectations(own, opponents)[0]

    def expectations(self, own: Num, opponents: Sequence[Num]) -> tuple[float, list[Num]]:
        return self.expectations_many([own], [opponents])[0]

    def expectations_many(
        self, owns: Sequence[Num], opponents: Sequence[Sequence[Num]]
    ) -> list[tuple[Num, list[Num]]]:
        lengths = [len(o) for o in opponents]
        total = sum(lengths)
        vector = self._p_array
        values: list[float]
        if vector is None:
            p = self._p
            values = [
                p(float(own - opp)) for own, row in zip(owns, opponents, strict=True) for opp in row
            ]
        elif total:
            own = np.repeat(np.asarray(owns, dtype=float), lengths)
            flat = np.fromiter(chain.from_iterable(opponents), dtype=float, count=total)
            values = vector(own - flat).tolist()
        else:
            values = []
        out: list[tuple[Num, list[Num]]] = []
        start = 0
        for n in lengths:
            games: list[Num] = values[start : start + n]
            out.append((math.fsum(games), games))
            start += n
        return out

    def probability(self, value: Num) -> float:
        return float(value)

    def probabilities(self, values: Sequence[Num]) -> list[float | None]:
        return [float(v) for v in values]

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
        """:func:`~ratingdb.rules.rounding.decimal_half_up` to 3 places, in integers."""
        return _scaled(thousandths(expected), 3)


@lru_cache(maxsize=65536)
def _scaled(value: int, places: int) -> Decimal:
    """``value`` units of 10^-``places`` as a Decimal with ``places`` places, made once."""
    return Decimal(value).scaleb(-places)


def thousandths(value: Num) -> int:
    """``value`` in thousandths, its binary value rounded half-up (exact)."""
    numerator, denominator = value.as_integer_ratio()
    return div_half_up(numerator * 1000, denominator)


def three_places(value: float) -> float:
    """``thousandths(value) / 1000``: the float nearest to ``value`` rounded half-up to
    3 decimals. Python's ``round(value, 3)`` rounds the same binary value correctly, but
    half to even; a binary value exactly halfway between two thousandths is an odd
    multiple of 1/16, so every other positive value takes ``round``."""
    if value > 0 and not (value * 16).is_integer():
        return round(value, 3)
    return thousandths(value) / 1000
