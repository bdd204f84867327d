"""The Rechenmodul parameters of the classic DWZ rules (rule family ``dwz-classic``).

Every fixed number of the rules is a field, so a Rechenmodul version can change it without
touching code; the defaults are the values of the rules text. The two probability tables
(Anhang 2.1/2.2) are not parameters: they are the rules' tables (see :mod:`.tables`).

Fields the rules do not name but the engine and the evaluation need, with the choice made:

* ``min_score`` 0: unlike DWZ 2026 a first rating needs no points (4.7.2.1.2 rates a 0 %
  result as R_c - 677);
* ``rating_floor`` 1: the rules know no floor; ratings must stay positive (the input
  contract accepts 1..4000), so R_n, first ratings and R_h below 1 become 1;
* ``exceptional_in_match`` True: 6.2.3.5 evaluates a Zweikampf "in analoger Anwendung der
  Regeln" and names no exception, so the Sonderwertung applies (DWZ 2026 excludes it);
* ``late_member_years`` 1 and ``retention_years`` 5 are read by the engine (membership
  life cycle, as DWZ 2026; the classic text is silent); ``rating_expiry_years`` 5 is
  6.1.1 ("DWZ verlieren ihre Gueltigkeit nach 5 Jahren"), also applied by the engine;
* ``foreign_rating_index`` 0: 4.9.3 marks a foreign rating used as R_0 with index 0;
* ``max_cycle_span``: the widest oscillation of the table iteration that is still settled
  by its mean (see :mod:`.iteration`); wider cycles are an error.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from typing import Any, Literal

from ratingdb.rules.lifecycle import Lifecycle
from ratingdb.rules.parameters import Precision, from_dict

EFormula = Literal["classic", "2014"]
Probability = Literal["logistic", "normal"]
Sonderwertung = Literal["success", "performance", "off"]


@dataclass(frozen=True)
class DwzClassicParameters(Lifecycle):
    """All numbers of one classic-DWZ Rechenmodul version."""

    # 4.9.2: E = (R_o / e_rating_scale) ** e_exponent + J, J by age class
    e_rating_scale: int = 1000
    e_exponent: int = 4
    j_youth: int = 5
    j_junior: int = 10
    j_adult: int = 15
    # 4.9.2: e_min <= E <= e_max and E <= e_index_factor * index (index 0 counts as 1)
    e_min: int = 5
    e_max: int = 30
    e_index_factor: int = 5
    # 4.9.1 / 4.7.6 / Anhang 1.2: the 800 of R_n = R_o + 800 (W - W_e) / (E + n) and of
    # R_p = R_o + 800 (W - W_e) / n
    change_factor: int = 800
    # 4.7.6: Sonderwertung when R_p >= R_o + margin, for players with >= min games
    exceptional_margin: int = 200
    min_games_exceptional: int = 5
    exceptional_in_match: bool = True
    # 4.7.2.1.2: R_p = R_c -+ 677 for a 0 % / 100 % result; also D(P = 1.00)
    extreme_difference: int = 677
    # 4.3.2 / 4.7.3: games ("Gegner") needed for a first rating, and the points (none)
    min_games: int = 5
    min_score: Decimal = Decimal("0")
    # 4.8: games needed for a performance R_h (as for a first rating, R_h "entspricht dem
    # R_n eines bisher DWZ-losen Spielers")
    min_games_performance: int = 5
    rating_floor: int = 1
    # 4.9.2 age classes (age = end year - birth year)
    youth_max_age: int = 20
    junior_max_age: int = 25
    # 4.9.3: a foreign rating used as R_o has index 0 before the evaluation
    foreign_rating_index: int = 0
    # Anhang 2.1: the printed tables ("table") or the logistic approximation ("float")
    precision: Precision = "table"
    # 4.7.4: step cap of every iteration (non-convergence is an error, never a loop)
    max_iterations: int = 1000
    # 4.7.4 in float precision: the iteration has settled when every step is below this
    float_tolerance: Decimal = Decimal("0.01")
    # 4.7.4 in table precision: widest cycle settled by its mean (else an error)
    max_cycle_span: int = 14
    # -- switches of the DSB's later versions (docs/rules-dwz-classic.md, "Versions") --
    # E: "classic" (4.9.2) or "2014" (WO 2014 4.9.2: E = E0 * fB + SBr, see .coefficient)
    e_formula: EFormula = "classic"
    # 2014: youth acceleration fB = R_o / acceleration_pivot within [acceleration_min, 1]
    acceleration_pivot: int = 2000
    acceleration_min: Decimal = Decimal("0.5")
    # 2014: braking supplement SBr = e^((braking_threshold - R_o) / braking_scale) - 1
    braking_threshold: int = 1300
    braking_scale: int = 150
    # 2014: E <= e_max_braking when SBr > 0 (instead of e_max and the index cap)
    e_max_braking: int = 150
    # 2014: a first rating R_i below first_rating_floor becomes base + R_i / divisor
    # (0 = no floor, the classic text)
    first_rating_floor: int = 0
    first_rating_floor_base: int = 700
    first_rating_floor_divisor: int = 8
    # float precision: P(D) by the logistic formula of Anhang 2.1 or the normal
    # distribution (sigma = normal_sigma_over_sqrt2 * sqrt 2) the text names as its basis
    probability: Probability = "logistic"
    normal_sigma_over_sqrt2: int = 200
    # Sonderwertung: "success" (classic 4.7.6: R_p >= R_o + margin), "performance" (2016:
    # R_h > R_o + margin, opponents rated against R_h) or "off"
    sonderwertung: Sonderwertung = "success"
    # 6.1.1 classic: a DWZ without an evaluation for this many years is void (0 = never);
    # residual games are discarded after 2 years (ratingdb.rules.lifecycle)
    rating_expiry_years: int = 5
    # float precision: a group of first-rating players without a finite solution (they won
    # every game against everybody else) is an error (False) or rated like a 100 % result,
    # R_c + 677 (True: a whole history must not stop at one tournament)
    unbounded_as_extreme: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        choices = {
            "precision": ("table", "float"),
            "e_formula": ("classic", "2014"),
            "probability": ("logistic", "normal"),
            "sonderwertung": ("success", "performance", "off"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}"
                )
        positive = (
            "e_rating_scale", "e_exponent", "e_min", "e_index_factor", "change_factor",
            "min_games", "min_games_exceptional", "min_games_performance", "max_iterations",
            "float_tolerance", "extreme_difference", "acceleration_pivot", "acceleration_min",
            "braking_scale", "e_max_braking", "first_rating_floor_divisor",
            "normal_sigma_over_sqrt2",
        )  # fmt: skip
        non_negative = (
            "j_youth", "j_junior", "j_adult", "exceptional_margin", "min_score",
            "rating_floor", "youth_max_age", "junior_max_age", "foreign_rating_index",
            "max_cycle_span",
            "braking_threshold", "first_rating_floor", "first_rating_floor_base",
            "rating_expiry_years",
        )  # fmt: skip
        for name in positive:
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in non_negative:
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative, got {getattr(self, name)}")
        if self.e_max < self.e_min:
            raise ValueError(f"e_max ({self.e_max}) is below e_min ({self.e_min})")
        if self.junior_max_age < self.youth_max_age:
            raise ValueError("junior_max_age is below youth_max_age")

    def with_precision(self, precision: Precision) -> DwzClassicParameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: Decimals as int or float, everything else as is."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if isinstance(value, Decimal):
                value = int(value) if value == value.to_integral_value() else float(value)
            out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DwzClassicParameters:
        """Build from a (partial) dict such as a stored Rechenmodul's JSON parameters
        (:func:`ratingdb.rules.parameters.from_dict`); ValueError names a bad key."""
        return from_dict(cls, data, "classic DWZ")
