"""The development factor K, the new rating R_n and the first-rating correction of DWZ 2026.

WO 3.5.1 / Anhang 1.3 (K = K_0 * b + a, rounded half-up to one decimal, capped at K_max),
3.5.2 (R_n = R_0 + K * (W - W_e), rounded half-up, floor 1100) and 3.4.4.2 / Anhang 1.2.2
(R_i -> R_1). Age classes (WO 3.2) are shared: :func:`ratingdb.rules.dwz.groups.age_class`.
All arithmetic is exact (Fractions); only the rounding steps the WO names round.
"""

from __future__ import annotations

from fractions import Fraction

from ratingdb.rules.dwz2026.params import Dwz2026Parameters
from ratingdb.rules.model import AgeClass
from ratingdb.rules.rounding import div_half_up, round_half_up


def base_value(rating: int, index: int, age: AgeClass, params: Dwz2026Parameters) -> int:
    """K_0 from the table of Anhang 1.3 (index 1..10, >10; index 0 reads column 1)."""
    if age in ("youth", "junior"):
        row = "young" if rating < params.k0_young_threshold else "strong"
    else:
        row = "adult" if rating < params.k0_adult_threshold else "strong"
    column = min(max(index, 1), 11) - 1
    return params.k0[row][column]


def success_bonus(rating: int, age: AgeClass, params: Dwz2026Parameters) -> Fraction:
    """Erfolgsaufschlag a, applied only when W >= W_e (Anhang 1.3)."""
    return Fraction(*_bonus(rating, age, params))


def _bonus(rating: int, age: AgeClass, params: Dwz2026Parameters) -> tuple[int, int]:
    """a as (numerator, denominator)."""
    if age == "youth":
        if rating < params.youth_bonus_pivot:
            return params.youth_bonus_pivot - rating, params.t
        return 0, 1
    if rating < params.low_rating_threshold:
        return (params.a1 if age == "junior" else params.a2).as_integer_ratio()
    return 0, 1


def brake_factor(rating: int, params: Dwz2026Parameters) -> Fraction:
    """Bremsfaktor b, applied only when W < W_e (Anhang 1.3), independent of age."""
    return Fraction(*_brake(rating, params))


def _brake(rating: int, params: Dwz2026Parameters) -> tuple[int, int]:
    """b as (numerator, denominator)."""
    if rating < params.low_rating_threshold:
        return rating + params.u, params.low_rating_threshold + params.u
    return 1, 1


def development_factor(
    rating: int,
    index: int,
    age: AgeClass,
    score_at_least_expected: bool,
    params: Dwz2026Parameters,
) -> Fraction:
    """K = K_0 * b + a, rounded half-up to 1 decimal, then capped at K_max (Anhang 1.3).
    Computed on the integer ratios of a and b (exact); the result is a Fraction."""
    return Fraction(*factor_ratio(rating, index, age, score_at_least_expected, params))


def factor_ratio(
    rating: int,
    index: int,
    age: AgeClass,
    score_at_least_expected: bool,
    params: Dwz2026Parameters,
    cap: tuple[int, int] | None = None,
) -> tuple[int, int]:
    """:func:`development_factor` as an integer ratio (tenths / 10, or K_max's ratio);
    ``cap`` is ``params.k_max.as_integer_ratio()`` when the caller has it at hand."""
    k0 = base_value(rating, index, age, params)
    if score_at_least_expected:
        num, den = _bonus(rating, age, params)
        num += k0 * den
    else:
        num, den = _brake(rating, params)
        num *= k0
    tenths = div_half_up(10 * num, den)
    cap_num, cap_den = cap or params.k_max.as_integer_ratio()
    if tenths * cap_den > 10 * cap_num:
        return cap_num, cap_den
    return tenths, 10


def new_rating(
    rating: int, k: Fraction, difference: Fraction | float, params: Dwz2026Parameters
) -> int:
    """R_n = R_0 + K * (W - W_e), rounded half-up, at least the floor (WO 3.5.2).

    With ``round_change_first`` the change is rounded (half away from zero) before it is
    added; see :class:`Dwz2026Parameters`.
    """
    if isinstance(difference, float):
        return new_rating_float(rating, float(k), difference, params)
    return new_rating_exact(
        rating, k.numerator, k.denominator, difference.numerator, difference.denominator, params
    )


def new_rating_exact(
    rating: int, k_num: int, k_den: int, num: int, den: int, params: Dwz2026Parameters
) -> int:
    """:func:`new_rating` for K = ``k_num / k_den`` and W - W_e = ``num / den`` (exact,
    denominators positive; the ratios need not be reduced)."""
    num *= k_num  # K (W - W_e) = num / den
    den *= k_den
    if params.round_change_first:
        return max(rating + div_half_up(num, den), params.rating_floor)
    return max(div_half_up(rating * den + num, den), params.rating_floor)


def new_rating_float(rating: int, k: float, difference: float, params: Dwz2026Parameters) -> int:
    """:func:`new_rating` in float precision: ``k`` is ``float(K)``."""
    change = k * difference
    if params.round_change_first:
        return max(rating + round_half_up(change), params.rating_floor)
    return max(round_half_up(rating + change), params.rating_floor)


def first_rating(iteration_value: Fraction | float | int, params: Dwz2026Parameters) -> int:
    """R_1 from the iteration end value R_i (WO 3.4.4.2, Anhang 1.2.2).

    >>> from ratingdb.rules.dwz2026.params import Dwz2026Parameters
    >>> [first_rating(r, Dwz2026Parameters()) for r in (2329, 1430, 1100, 550, 0, -50)]
    [2329, 1476, 1172, 1136, 1100, 1100]


    R_i >= pivot: unchanged; floor <= R_i < pivot: R_i + r*(pivot - R_i);
    R_i < floor: floor + 9*r*R_i/11, with a negative R_i taken as 0 (so R_1 >= floor).
    The WO's 9/11 is (pivot - floor)/floor = 900/1100; written that way here so that the
    two pieces still meet at R_i = floor when a Rechenmodul changes pivot or floor.
    """
    r_num, r_den = params.r.as_integer_ratio()
    num, den = max(iteration_value, 0).as_integer_ratio()  # R_i = num / den, exactly
    pivot, floor = params.first_rating_pivot, params.rating_floor
    if num >= pivot * den:  # R_1 = R_i
        return div_half_up(num, den)
    if num >= floor * den:  # R_i + r (pivot - R_i)
        return div_half_up(num * (r_den - r_num) + r_num * pivot * den, den * r_den)
    # floor + r (pivot - floor) R_i / floor
    return div_half_up(
        floor * floor * den * r_den + r_num * (pivot - floor) * num, floor * den * r_den
    )
