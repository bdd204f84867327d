"""Exact half-up rounding (WO 3.5.2, Anhang 1.3, Anhang 2.1/2.2).

The WO rounds "kaufmännisch": halves go away from zero (12.5 -> 13, -12.5 -> -13, as the
loss column of Anhang 2.4 shows). Python's ``round`` rounds half to even and must not be
used for ratings. Every helper here works on exact values (int, Fraction, Decimal); a
float is converted exactly (its binary value) before rounding.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

Number = int | Fraction | Decimal | float


def div_half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half away from zero, in integer arithmetic.

    The loss column of WO Anhang 2.4 rounds -12.5 to -13:

    >>> div_half_up(25, 2), div_half_up(-25, 2), div_half_up(24, 10)
    (13, -13, 2)
    """
    if denominator <= 0:
        raise ValueError("denominator must be positive")
    if numerator >= 0:
        return (2 * numerator + denominator) // (2 * denominator)
    return -((-2 * numerator + denominator) // (2 * denominator))


def round_half_up(value: Number) -> int:
    """Round to an integer, halves away from zero (Python's ``round`` gives 12 here).

    >>> round_half_up(Fraction(25, 2)), round_half_up(-12.5), round_half_up(Decimal("0.4999"))
    (13, -13, 0)
    """
    if isinstance(value, int):
        return value
    if type(value) is float and math.isfinite(value):
        # exact without the integer ratio: x - floor(x) is computed without rounding
        # (for x >= 1 floor(x) >= x / 2, Sterbenz), so the comparison with 0.5 is exact
        size = -value if value < 0 else value
        whole = math.floor(size)
        rounded = whole + 1 if size - whole >= 0.5 else whole
        return -rounded if value < 0 else rounded
    if isinstance(value, Fraction):
        return div_half_up(value.numerator, value.denominator)
    numerator, denominator = value.as_integer_ratio()  # exact, like Fraction(value)
    return div_half_up(numerator, denominator)


def round_half_up_to(value: Number, places: int) -> Fraction:
    """Round to ``places`` decimals (halves away from zero), returned exactly as a Fraction."""
    scale = 10**places
    return Fraction(round_half_up(Fraction(value) * scale), scale)


def to_decimal(value: Fraction, places: int) -> Decimal:
    """A Fraction that is already a multiple of 10**-places, as a Decimal with ``places``."""
    scale = 10**places
    if scale % value.denominator == 0:  # the usual case: the same Decimal, directly
        return Decimal(value.numerator * (scale // value.denominator)).scaleb(-places)
    quantum = Decimal(1).scaleb(-places)
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(quantum, rounding=ROUND_HALF_UP)


def float_half_up(value: float, places: int) -> float:
    """``float(decimal_half_up(value, places))`` without Decimals: the binary value rounded
    half away from zero to ``places`` decimals, then the nearest float (an int division is
    correctly rounded, as ``float(Decimal)`` is); -0.0 and a small negative value that
    rounds to zero give -0.0, as the Decimal does.

    >>> float_half_up(1941.4999999999, 6), float_half_up(-2.5, 0), float_half_up(-1e-9, 6)
    (1941.5, -3.0, -0.0)
    """
    numerator, denominator = value.as_integer_ratio()
    scale: int = 10**places
    q = div_half_up(numerator * scale, denominator)
    if q == 0 and math.copysign(1.0, value) < 0:
        return -0.0
    return q / scale


def decimal_half_up(value: Number, places: int) -> Decimal:
    """``value`` rounded to ``places`` decimals (halves away from zero), as a Decimal."""
    return to_decimal(round_half_up_to(value, places), places)
