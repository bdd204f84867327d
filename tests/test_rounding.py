"""Half-up rounding of floats (ratingdb/rules/rounding.py): the short way for a float
(``x - floor(x)`` against 0.5) equals the exact rounding of its binary value."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import example, given
from hypothesis import strategies as st

from ratingdb.rules.rounding import div_half_up, round_half_up


def _exact(value: float) -> int:
    ratio = Fraction(value)
    return div_half_up(ratio.numerator, ratio.denominator)


@given(st.floats(allow_nan=False, allow_infinity=False))
@example(0.49999999999999994)  # 0.5 - 2^-54: x + 0.5 would round up to 1.0
@example(-0.49999999999999994)
@example(2047.4999999999998)  # the last float below a half at the top of a binade
@example(1853.5)
@example(-12.5)
@example(4503599627370495.5)  # 2^52 - 0.5
@example(2.0**60)
@example(-0.0)
@example(5e-324)
def test_a_float_rounds_as_its_binary_value(value: float) -> None:
    assert round_half_up(value) == _exact(value)


def test_non_finite_values_fail_as_before() -> None:
    cases = ((math.inf, OverflowError), (-math.inf, OverflowError), (math.nan, ValueError))
    for value, error in cases:
        try:
            round_half_up(value)
        except error:
            continue
        raise AssertionError(f"{value} was rounded")
