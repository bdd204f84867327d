"""The Rechenmodul parameters of the DWZ 2026 rules (WO Anhang 1.2).

WO Anhang 1.2.1 lists the adjustable constants r, t, u, a1, a2 and K_max; the WO says
the evaluation software "may provide further parameters". Every other fixed number the
rules use lives here as well, so a new Rechenmodul version can change any of them
without touching code. The defaults are the values valid from the second half of 2026.
"""

from __future__ import annotations

from dataclasses import asdict, field, replace
from decimal import Decimal
from typing import Annotated, Any

from pydantic import StrictBool
from pydantic.dataclasses import dataclass

from ratingdb.rules.lifecycle import Lifecycle
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
    Rows,
    from_dict,
)
from ratingdb.rules.parameters import K as K_RANGE

#: K_0 by index 1..10 and >10 (WO Anhang 1.3). Rows: youth/junior below the young-player
#: threshold, adults below the adult threshold, everybody else.
DEFAULT_K0: dict[str, tuple[int, ...]] = {
    "young": (60, 60, 48, 46, 44, 42, 40, 38, 36, 34, 32),
    "adult": (60, 60, 44, 42, 40, 38, 36, 34, 32, 30, 28),
    "strong": (60, 60, 41, 39, 37, 35, 33, 31, 29, 27, 25),
}

#: the K_0 table: the three rows of WO Anhang 1.3, 11 values each (index 1..10, >10)
K0Table = Annotated[dict[str, tuple[Annotated[int, K_RANGE], ...]], Rows(tuple(DEFAULT_K0), 11)]


@dataclass(frozen=True, config=SCHEMA)
class Dwz2026Parameters(Lifecycle):
    """All numbers of one DWZ 2026 Rechenmodul version.

    Anhang 1.2.1: ``r`` first-rating correction factor, ``t`` divisor of the youth bonus,
    ``u`` shift of the brake factor, ``a1``/``a2`` success bonus of juniors/adults,
    ``k_max`` cap of K.
    """

    # WO Anhang 1.2.1
    r: Annotated[Decimal, In(0, 1, "Anhang 1.2.2: a share of 2000 - R_i")] = Decimal("0.08")
    t: Annotated[int, In(1, 1000, "Anhang 1.3: divisor of 2000 - R_0")] = 30
    u: Annotated[int, In(0, 4000, "Anhang 1.3: b = (R_0 + u) / (1600 + u)")] = 800
    a1: Annotated[Decimal, In(0, 100, "Anhang 1.3: added to K, at most K_max")] = Decimal("4")
    a2: Annotated[Decimal, In(0, 100, "Anhang 1.3: added to K, at most K_max")] = Decimal("4")
    k_max: Annotated[Decimal, In(1, 200, K_RANGE.why)] = Decimal("80")
    # WO 3.4.1.1/3.4.1.2: games and points needed for the 1st/2nd Zusatzstufe
    min_games: Annotated[int, GAMES] = 5
    min_score: Annotated[Decimal, In(0, 100, "points of one evaluation")] = Decimal("0.5")
    # WO 3.6.1: games needed for a performance R_h
    min_games_performance: Annotated[int, GAMES] = 5
    # WO 3.6.3: Sonderwertung margin
    exceptional_margin: Annotated[int, DIFFERENCE] = 300
    # WO 3.4.4.2 / 3.5.2: floor of a first rating and of every new rating
    rating_floor: Annotated[int, In(1, 4000, RATING.why)] = 1100
    # WO 3.5.2: False rounds R_0 + K*(W - W_e) half-up (docs/DESIGN.md rule 8); True rounds the
    # change K*(W - W_e) half away from zero first and adds it, as the columns of WO
    # Anhang 3.1.10 do. They differ only for a loss of exactly x.5 points (-12.5: 1988 vs 1987).
    round_change_first: StrictBool = False
    # WO Anhang 1.2.2: pivot of the first-rating correction; Anhang 1.3: youth bonus pivot
    first_rating_pivot: Annotated[int, In(1, 4000, RATING.why)] = 2000
    youth_bonus_pivot: Annotated[int, RATING] = 2000
    # WO Anhang 1.3: bonus a1/a2 and brake b apply below this rating
    low_rating_threshold: Annotated[int, RATING] = 1600
    # WO Anhang 1.3: K_0 row thresholds (young players / adults)
    k0_young_threshold: Annotated[int, RATING] = 2200
    k0_adult_threshold: Annotated[int, RATING] = 2000
    # WO Anhang 1.3: K_0 by index 1..10 and >10, rows young/adult/strong (DEFAULT_K0)
    k0: K0Table = field(default_factory=lambda: dict(DEFAULT_K0))
    # WO 3.2 / Anhang 1.3 age classes (age = end year - birth year)
    youth_max_age: Annotated[int, AGE] = 20
    junior_max_age: Annotated[int, AGE] = 25
    # WO 2.2.4: index assumed for a foreign (FIDE/national) rating given without an index
    foreign_rating_index: Annotated[int, INDEX] = 6
    # WO Anhang 2.1: D(p) = +-d_limit outside [p_limit, 1 - p_limit]
    d_limit: Annotated[int, In(1, 4000, DIFFERENCE.why)] = 729
    p_limit: Annotated[Decimal, In("0.001", "0.1", "Anhang 2.1: 0.005")] = Decimal("0.005")
    # WO Anhang 2.1: table (Anhang 2.1/2.2 rounding) or float precision
    precision: Precision = "table"
    # WO Anhang 1.1.3: step cap of the iterations (non-convergence is an error)
    max_iterations: Annotated[int, ITERATIONS] = 1000
    # WO Anhang 1.1.3: float-precision convergence threshold for max |D'|
    float_tolerance: Annotated[Decimal, In("0.001", "1", "Anhang 1.1.3: e.g. 0.1")] = Decimal("0.1")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.first_rating_pivot <= self.rating_floor:
            raise ValueError("first_rating_pivot must be above rating_floor")

    def with_precision(self, precision: Precision) -> Dwz2026Parameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (Decimals as numbers, the K_0 table as lists); a fresh copy of a
        value computed once per parameter object (it is frozen)."""
        cached = self.__dict__.get("_as_dict")
        if cached is None:
            cached = self._build_dict()
            object.__setattr__(self, "_as_dict", cached)
        return {
            k: ({r: list(v) for r, v in cached[k].items()} if k == "k0" else cached[k])
            for k in cached
        }

    def _build_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if isinstance(value, Decimal):
                out[key] = int(value) if value == value.to_integral_value() else float(value)
            elif key == "k0":
                out[key] = {row: list(vals) for row, vals in value.items()}
            else:
                out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Dwz2026Parameters:
        """Build from a (partial) dict such as a stored Rechenmodul's JSONB parameters
        (:func:`ratingdb.rules.parameters.from_dict`); ValueError names a bad key."""
        return from_dict(cls, data, "DWZ 2026")
