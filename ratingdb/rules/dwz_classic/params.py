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

from dataclasses import asdict, replace
from decimal import Decimal
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import StrictBool
from pydantic.dataclasses import dataclass

from ratingdb.rules.lifecycle import YEARS, Lifecycle
from ratingdb.rules.parameters import (
    AGE,
    DIFFERENCE,
    GAMES,
    INDEX,
    ITERATIONS,
    RATING,
    SCHEMA,
    In,
    Precision,
    from_dict,
)

EFormula = Literal["classic", "2014"]
Probability = Literal["logistic", "normal"]
Sonderwertung = Literal["success", "performance", "off"]

#: a development coefficient E or one of its parts (4.9.2: 5 <= E <= 30; 2014: up to 150)
E = In(0, 1000, "4.9.2: E 5 to 30 (2014: up to 150)")
#: a positive scale, divisor or pivot on the rating scale
SCALE = In(1, 4000, RATING.why)


@dataclass(frozen=True, config=SCHEMA)
class DwzClassicParameters(Lifecycle):
    """All numbers of one classic-DWZ Rechenmodul version."""

    # 4.9.2: E = (R_o / e_rating_scale) ** e_exponent + J, J by age class
    e_rating_scale: Annotated[int, In(100, 4000, "4.9.2: 1000")] = 1000
    e_exponent: Annotated[int, In(1, 10, "4.9.2: 4")] = 4
    j_youth: Annotated[int, E] = 5
    j_junior: Annotated[int, E] = 10
    j_adult: Annotated[int, E] = 15
    # 4.9.2: e_min <= E <= e_max and E <= e_index_factor * index (index 0 counts as 1)
    e_min: Annotated[int, In(1, 1000, E.why)] = 5
    e_max: Annotated[int, In(1, 1000, E.why)] = 30
    e_index_factor: Annotated[int, In(1, 1000, E.why)] = 5
    # 4.9.1 / 4.7.6 / Anhang 1.2: the 800 of R_n = R_o + 800 (W - W_e) / (E + n) and of
    # R_p = R_o + 800 (W - W_e) / n
    change_factor: Annotated[int, In(1, 4000, DIFFERENCE.why)] = 800
    # 4.7.6: Sonderwertung when R_p >= R_o + margin, for players with >= min games
    exceptional_margin: Annotated[int, DIFFERENCE] = 200
    min_games_exceptional: Annotated[int, GAMES] = 5
    exceptional_in_match: StrictBool = True
    # 4.7.2.1.2: R_p = R_c -+ 677 for a 0 % / 100 % result; also D(P = 1.00)
    extreme_difference: Annotated[int, In(1, 4000, DIFFERENCE.why)] = 677
    # 4.3.2 / 4.7.3: games ("Gegner") needed for a first rating, and the points (none)
    min_games: Annotated[int, GAMES] = 5
    min_score: Annotated[Decimal, In(0, 100, "points of one evaluation")] = Decimal("0")
    # 4.8: games needed for a performance R_h (as for a first rating, R_h "entspricht dem
    # R_n eines bisher DWZ-losen Spielers")
    min_games_performance: Annotated[int, GAMES] = 5
    rating_floor: Annotated[int, RATING] = 1
    # 4.9.2 age classes (age = end year - birth year)
    youth_max_age: Annotated[int, AGE] = 20
    junior_max_age: Annotated[int, AGE] = 25
    # 4.9.3: a foreign rating used as R_o has index 0 before the evaluation
    foreign_rating_index: Annotated[int, INDEX] = 0
    # Anhang 2.1: the printed tables ("table") or the logistic approximation ("float")
    precision: Precision = "table"
    # 4.7.4: step cap of every iteration (non-convergence is an error, never a loop)
    max_iterations: Annotated[int, ITERATIONS] = 1000
    # 4.7.4 in float precision: the iteration has settled when every step is below this
    float_tolerance: Annotated[Decimal, In("0.001", "1", "4.7.4: 0.01")] = Decimal("0.01")
    # 4.7.4 in table precision: widest cycle settled by its mean (else an error)
    max_cycle_span: Annotated[int, DIFFERENCE] = 14
    # -- switches of the DSB's later versions (docs/rules-dwz-classic.md, "Versions") --
    # E: "classic" (4.9.2) or "2014" (WO 2014 4.9.2: E = E0 * fB + SBr, see .coefficient)
    e_formula: EFormula = "classic"
    # 2014: youth acceleration fB = R_o / acceleration_pivot within [acceleration_min, 1]
    acceleration_pivot: Annotated[int, SCALE] = 2000
    acceleration_min: Annotated[Decimal, In("0.01", "1", "2014: fB 0.5 to 1")] = Decimal("0.5")
    # 2014: braking supplement SBr = e^((braking_threshold - R_o) / braking_scale) - 1
    braking_threshold: Annotated[int, RATING] = 1300
    braking_scale: Annotated[int, In(10, 4000, "2014: 150")] = 150
    # 2014: E <= e_max_braking when SBr > 0 (instead of e_max and the index cap)
    e_max_braking: Annotated[int, In(1, 1000, E.why)] = 150
    # 2014: a first rating R_i below first_rating_floor becomes base + R_i / divisor
    # (0 = no floor, the classic text)
    first_rating_floor: Annotated[int, RATING] = 0
    first_rating_floor_base: Annotated[int, RATING] = 700
    first_rating_floor_divisor: Annotated[int, In(1, 100, "2014: 8")] = 8
    # float precision: P(D) by the logistic formula of Anhang 2.1 or the normal
    # distribution (sigma = normal_sigma_over_sqrt2 * sqrt 2) the text names as its basis
    probability: Probability = "logistic"
    normal_sigma_over_sqrt2: Annotated[int, In(10, 1000, "Anhang 2.1: 200")] = 200
    # Sonderwertung: "success" (classic 4.7.6: R_p >= R_o + margin), "performance" (2016:
    # R_h > R_o + margin, opponents rated against R_h) or "off"
    sonderwertung: Sonderwertung = "success"
    # 6.1.1 classic: a DWZ without an evaluation for this many years is void (0 = never);
    # residual games are discarded after 2 years (ratingdb.rules.lifecycle)
    rating_expiry_years: Annotated[int, YEARS] = 5
    # float precision: a group of first-rating players without a finite solution (they won
    # every game against everybody else) is an error (False) or rated like a 100 % result,
    # R_c + 677 (True: a whole history must not stop at one tournament)
    unbounded_as_extreme: StrictBool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.e_max < self.e_min:
            raise ValueError(f"e_max ({self.e_max}) is below e_min ({self.e_min})")
        if self.junior_max_age < self.youth_max_age:
            raise ValueError("junior_max_age is below youth_max_age")

    def with_precision(self, precision: Precision) -> DwzClassicParameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: Decimals as int or float, everything else as is; a fresh copy
        of a value computed once per parameter object (it is frozen)."""
        return dict(self._as_dict)

    @cached_property
    def _as_dict(self) -> dict[str, Any]:
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
