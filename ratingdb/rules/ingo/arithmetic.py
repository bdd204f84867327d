"""Numbers of the Ingo rules: %d, rounding and the formulas of the new Ingo number.

Spec sections:

* A / B I 2: %d = 50 - 100 (W + 1/2) / (n + 1): "die Zahl der tatsächlich erzielten
  Punkte um 1/2 und die Zahl der tatsächlich gespielten Partien um 1 zu erhöhen". A
  positive %d is a worse (higher) number, H = level + %d (B I 3).
* The %d tables (3-22 games) print one decimal. In table precision %d is the exact value
  rounded half away from zero to ``decimals`` places. 498 of the 520 printed cells agree;
  the other 22 are rounding slips or misprints of the printed table (no single rounding
  rule reproduces them, see docs/rules-ingo.md), so the formula is followed.
* B I 4 / C I: new F = (w F + H) / (w + 1), w = min(index, 3).
* C III: (F + 2 H) / 3 for juniors improving by 25 or more degrees (parameter, off).
* C IV: 3 / 4 / 5 games: (7F + H)/8 cap 4, (5F + H)/6 cap 5, (4F + H)/5 cap 6.
* C V: matches (7 F + H) / 8.

Rounding: Python's ``round`` is never used. A new Ingo number is the exact weighted mean
rounded half up (B I: Gehl (3*170 + 160)/4 = 167.5 -> 168); a C IV cap is applied to
the rounded number.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from ratingdb.rules.ingo.params import IngoParameters
from ratingdb.rules.rounding import decimal_half_up, round_half_up, round_half_up_to

#: decimals shown for unrounded (float precision) levels, %d and H
FLOAT_DISPLAY_PLACES = 3


class Arithmetic:
    """Table precision rounds %d, levels and H to ``decimals``; float keeps them exact."""

    def __init__(self, params: IngoParameters) -> None:
        self.params = params
        self.table = params.precision == "table"
        self.places = params.decimals

    def q(self, value: Fraction) -> Fraction:
        """An intermediate value (%d, level, H) as the spec writes it down."""
        return round_half_up_to(value, self.places) if self.table else value

    def percent_diff(self, half_points: int, games: int) -> Fraction:
        """%d of W = half_points / 2 in ``games`` games (A, B I 2, the %d tables)."""
        p = self.params
        return self.q(exact_percent_diff(half_points, games, p))

    def shown(self, value: Fraction) -> Decimal:
        """A level, %d or H for the output: its table decimals, or 3 in float precision."""
        places = self.places if self.table else FLOAT_DISPLAY_PLACES
        return decimal_half_up(value, places)


def exact_percent_diff(half_points: int, games: int, params: IngoParameters) -> Fraction:
    """50 - 100 (W + 1/2) / (n + 1), exact."""
    score = Fraction(half_points, 2) + Fraction(params.score_offset)
    return params.average_percent - 100 * score / (games + params.games_offset)


def weighted(old: int, performance: Fraction, weight: int, h_weight: int = 1) -> int:
    """(weight F + h_weight H) / (weight + h_weight), rounded half up."""
    return round_half_up((weight * old + h_weight * performance) / (weight + h_weight))


def new_number(
    old: int,
    performance: Fraction,
    index: int,
    games: int,
    is_match: bool,
    junior: bool,
    params: IngoParameters,
) -> tuple[int, str]:
    """The new Ingo number of a player with number ``old`` from ``index`` calculations
    and the section whose formula gave it.

    Precedence where the spec is silent: C I (index below ``special_min_index``) before
    C V (match) before C IV (short tournament) before C III (junior) before B I 4.
    """
    weight = min(index, params.full_weight)
    regular = weighted(old, performance, weight), ("C I" if weight < params.full_weight else "B I")
    if index < params.special_min_index:
        return regular
    if is_match:
        return weighted(old, performance, params.match_weight), "C V"
    short = params.short_tournaments.get(games)
    if short is not None:
        short_weight, cap = short
        value = weighted(old, performance, short_weight)
        return min(max(value, old - cap), old + cap), "C IV"
    if params.junior_deviation and junior and old - performance >= params.junior_deviation_degrees:
        return weighted(old, performance, 1, params.junior_h_weight), "C III"
    return regular
