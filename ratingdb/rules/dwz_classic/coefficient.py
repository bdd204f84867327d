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

A rating below ``rating_floor`` (the rules have none; ratings must stay positive) is
raised to it.
"""

from __future__ import annotations

from fractions import Fraction

from ratingdb.rules.dwz_classic.params import DwzClassicParameters
from ratingdb.rules.model import AgeClass
from ratingdb.rules.rounding import round_half_up


def age_offset(age: AgeClass, params: DwzClassicParameters) -> int:
    """J of 4.9.2."""
    if age == "youth":
        return params.j_youth
    return params.j_junior if age == "junior" else params.j_adult


def development_coefficient(
    rating: int, index: int, age: AgeClass, params: DwzClassicParameters
) -> int:
    """E of 4.9.2 (an integer)."""
    raw = Fraction(rating, params.e_rating_scale) ** params.e_exponent + age_offset(age, params)
    cap = min(params.e_max, params.e_index_factor * max(index, 1))
    return max(params.e_min, min(round_half_up(raw), cap))


def change_constant(e: int, n: int, params: DwzClassicParameters) -> Fraction:
    """K = 800 / (E + n) of Anhang 1.2.2, exact."""
    return Fraction(params.change_factor, e + n)


def new_rating(
    rating: int, e: int, n: int, difference: Fraction | float, params: DwzClassicParameters
) -> int:
    """R_n = R_o + 800 (W - W_e) / (E + n) (4.9.1), rounded half-up."""
    change = change_constant(e, n, params) * Fraction(difference)
    return max(round_half_up(rating + change), params.rating_floor)


def success_value(
    rating: int, n: int, difference: Fraction | float, params: DwzClassicParameters
) -> int:
    """R_p = R_o + 800 (W - W_e) / n (4.7.6, Anhang 1.2.1), rounded half-up."""
    return round_half_up(rating + Fraction(params.change_factor, n) * Fraction(difference))
