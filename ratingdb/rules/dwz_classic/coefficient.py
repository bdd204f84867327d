"""The development coefficient E, the change constant K, R_n and R_p of the classic rules.

* 4.9.2: E = (R_o/1000)^4 + J, J = 5 / 10 / 15 for youth (<= 20) / juniors (21-25) /
  adults (>= 26), rounded half-up to an integer ("stets ganzzahlig gerundet"), then
  5 <= E <= 30 and E <= 5 * index, index 0 counting as 1. The text's "E<5 x Index" and
  "E 30" are garbled "<=": the table Anhang 2.4 reaches both bounds. Rounding before or
  after the integer caps gives the same E. Anhang 2.4 equals this formula in every cell.
* 4.9.1: R_n = R_o + 800 (W - W_e) / (E + n), computed exactly, rounded half-up.
* Anhang 1.2.2: K = 800 / (E + n). The printed table Anhang 2.5 never shows K below 26
  (and has one misprint, E = 16, n = 9: 33 for 32); 4.9.1 has no such floor and Anhang
  1.2.2 says K gives "the same" R_n, so no floor is applied (see tests/test_rules_dwz_classic).
* 4.7.6 / Anhang 1.2.1: R_p = R_o + 800 (W - W_e) / n, rounded half-up.

* WO 2014 4.9.2 (``e_formula`` "2014"): E = E0 * fB + SBr with E0 = (R_o/1000)^4 + J;
  the youth acceleration fB = R_o/2000 within [0.5, 1] for a youth (age <= 20) with
  W >= W_e, else 1; the braking supplement SBr = e^((1300 - R_o)/150) - 1 for R_o < 1300
  and W < W_e, else 0. E is rounded half-up, E >= 5; E <= 30 and E <= 5 * index when
  SBr = 0, E <= 150 when SBr > 0. (The 2014 text writes "W <= W_e" for SBr; at W = W_e
  R_n = R_o whatever E is, so "<" and "<=" give the same rating.)
* WO 2014 (``first_rating_floor`` 800): a first rating R_i < 800 becomes 700 + R_i/8,
  rounded half-up.

A rating below ``rating_floor`` (the rules have none; ratings must stay positive) is
raised to it.
"""

from __future__ import annotations

from decimal import Context, Decimal
from fractions import Fraction

from ratingdb.rules.dwz_classic.params import DwzClassicParameters
from ratingdb.rules.model import AgeClass
from ratingdb.rules.rounding import div_half_up, round_half_up


def age_offset(age: AgeClass, params: DwzClassicParameters) -> int:
    """J of 4.9.2."""
    if age == "youth":
        return params.j_youth
    return params.j_junior if age == "junior" else params.j_adult


def development_coefficient(
    rating: int,
    index: int,
    age: AgeClass,
    params: DwzClassicParameters,
    reached: bool = True,
) -> int:
    """E of 4.9.2 (an integer); ``reached`` is W >= W_e (used by the 2014 formula only).
    E0 = top / scale exactly, in integers (a Fraction only where fB or SBr apply)."""
    scale = params.e_rating_scale**params.e_exponent
    top = rating**params.e_exponent + age_offset(age, params) * scale
    cap = min(params.e_max, params.e_index_factor * max(index, 1))
    if params.e_formula == "2014" and (
        (age == "youth" and reached) or (not reached and rating < params.braking_threshold)
    ):  # otherwise fB = 1 and SBr = 0: the classic formula
        key = (rating, top, scale, cap, age == "youth", reached, params.acceleration_min,
               params.acceleration_pivot, params.braking_threshold, params.braking_scale,
               params.e_min, params.e_max_braking)  # fmt: skip
        e = _E_2014.get(key)
        if e is None:
            if len(_E_2014) >= _E_2014_SIZE:
                _E_2014.clear()
            e = _E_2014[key] = _coefficient_2014(rating, top, scale, cap, age, reached, params)
        if e >= 0:
            return e
    return max(params.e_min, min(div_half_up(top, scale), cap))


#: E of the 2014 formula where fB or SBr apply, by everything it depends on (made once:
#: with a Fraction for fB and a 40-digit exponential for SBr it costs 6-16 µs)
_E_2014: dict[tuple[object, ...], int] = {}
_E_2014_SIZE = 1 << 16


def _coefficient_2014(
    rating: int, top: int, scale: int, cap: int, age: AgeClass, reached: bool,
    params: DwzClassicParameters,
) -> int:  # fmt: skip
    """E of WO 2014 4.9.2 with fB and SBr; -1 where both leave the classic formula."""
    factor = acceleration_factor(rating, age, reached, params)
    braking = braking_supplement(rating, reached, params)
    if braking > 0:
        raw = Fraction(top, scale) * factor + braking
        return max(params.e_min, min(round_half_up(raw), params.e_max_braking))
    if factor != 1:
        return max(params.e_min, min(round_half_up(Fraction(top, scale) * factor), cap))
    return -1


def acceleration_factor(
    rating: int, age: AgeClass, reached: bool, params: DwzClassicParameters
) -> Fraction:
    """fB of WO 2014 4.9.2: R_o/2000 within [0.5, 1] for a youth with W >= W_e, else 1."""
    if age != "youth" or not reached:
        return Fraction(1)
    low = Fraction(params.acceleration_min)
    return min(max(Fraction(rating, params.acceleration_pivot), low), Fraction(1))


_EXP = Context(prec=40)


def braking_supplement(rating: int, reached: bool, params: DwzClassicParameters) -> Fraction:
    """SBr of WO 2014 4.9.2: e^((1300 - R_o)/150) - 1 for R_o < 1300 and W < W_e, else 0
    (computed to 40 digits, exact enough for the half-up rounding of E)."""
    if reached or rating >= params.braking_threshold:
        return Fraction(0)
    gap = Decimal(params.braking_threshold - rating)
    exponent = _EXP.divide(gap, Decimal(params.braking_scale))
    return Fraction(_EXP.exp(exponent)) - 1


def first_rating_floor(value: int, params: DwzClassicParameters) -> int:
    """WO 2014: a first rating R_i below ``first_rating_floor`` (800) becomes
    ``first_rating_floor_base`` + R_i / ``first_rating_floor_divisor`` (700 + R_i/8),
    rounded half-up; with ``first_rating_floor`` 0 (the classic text) R_i stays."""
    if value >= params.first_rating_floor:
        return value
    return round_half_up(
        params.first_rating_floor_base + Fraction(value, params.first_rating_floor_divisor)
    )


def change_constant(e: int, n: int, params: DwzClassicParameters) -> Fraction:
    """K = 800 / (E + n) of Anhang 1.2.2, exact."""
    return Fraction(params.change_factor, e + n)


def new_rating(
    rating: int, e: int, n: int, difference: Fraction | float, params: DwzClassicParameters
) -> int:
    """R_n = R_o + 800 (W - W_e) / (E + n) (4.9.1), rounded half-up (exact: the
    difference's integer ratio, so a float difference counts with its binary value)."""
    return new_rating_exact(rating, e, n, *difference.as_integer_ratio(), params)


def new_rating_exact(
    rating: int, e: int, n: int, num: int, den: int, params: DwzClassicParameters
) -> int:
    """:func:`new_rating` for W - W_e = ``num / den`` (``den`` > 0, not necessarily
    reduced: the half-up rounding depends on the value only)."""
    den *= e + n
    value = div_half_up(rating * den + params.change_factor * num, den)
    return max(value, params.rating_floor)


def success_value(
    rating: int, n: int, difference: Fraction | float, params: DwzClassicParameters
) -> int:
    """R_p = R_o + 800 (W - W_e) / n (4.7.6, Anhang 1.2.1), rounded half-up (exact)."""
    return success_value_exact(rating, n, *difference.as_integer_ratio(), params)


def success_value_exact(
    rating: int, n: int, num: int, den: int, params: DwzClassicParameters
) -> int:
    """:func:`success_value` for W - W_e = ``num / den`` (``den`` > 0)."""
    den *= n
    return div_half_up(rating * den + params.change_factor * num, den)
