"""The Rechenmodul parameters of the DWZ 2026 rules (WO Anhang 1.2).

WO Anhang 1.2.1 lists the adjustable constants r, t, u, a1, a2 and K_max; the WO says
the evaluation software "may provide further parameters". Every other fixed number the
rules use lives here as well, so a new Rechenmodul version can change any of them
without touching code. The defaults are the values valid from the second half of 2026.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from typing import Any

from ratingdb.rules.lifecycle import Lifecycle
from ratingdb.rules.parameters import Precision, coerce, from_dict

#: K_0 by index 1..10 and >10 (WO Anhang 1.3). Rows: youth/junior below the young-player
#: threshold, adults below the adult threshold, everybody else.
DEFAULT_K0: dict[str, tuple[int, ...]] = {
    "young": (60, 60, 48, 46, 44, 42, 40, 38, 36, 34, 32),
    "adult": (60, 60, 44, 42, 40, 38, 36, 34, 32, 30, 28),
    "strong": (60, 60, 41, 39, 37, 35, 33, 31, 29, 27, 25),
}


@dataclass(frozen=True)
class Dwz2026Parameters(Lifecycle):
    """All numbers of one DWZ 2026 Rechenmodul version.

    Anhang 1.2.1: ``r`` first-rating correction factor, ``t`` divisor of the youth bonus,
    ``u`` shift of the brake factor, ``a1``/``a2`` success bonus of juniors/adults,
    ``k_max`` cap of K.
    """

    # WO Anhang 1.2.1
    r: Decimal = Decimal("0.08")
    t: int = 30
    u: int = 800
    a1: Decimal = Decimal("4")
    a2: Decimal = Decimal("4")
    k_max: Decimal = Decimal("80")
    # WO 3.4.1.1/3.4.1.2: games and points needed for the 1st/2nd Zusatzstufe
    min_games: int = 5
    min_score: Decimal = Decimal("0.5")
    # WO 3.6.1: games needed for a performance R_h
    min_games_performance: int = 5
    # WO 3.6.3: Sonderwertung margin
    exceptional_margin: int = 300
    # WO 3.4.4.2 / 3.5.2: floor of a first rating and of every new rating
    rating_floor: int = 1100
    # WO 3.5.2: False rounds R_0 + K*(W - W_e) half-up (docs/DESIGN.md rule 8); True rounds the
    # change K*(W - W_e) half away from zero first and adds it, as the columns of WO
    # Anhang 3.1.10 do. They differ only for a loss of exactly x.5 points (-12.5: 1988 vs 1987).
    round_change_first: bool = False
    # WO Anhang 1.2.2: pivot of the first-rating correction; Anhang 1.3: youth bonus pivot
    first_rating_pivot: int = 2000
    youth_bonus_pivot: int = 2000
    # WO Anhang 1.3: bonus a1/a2 and brake b apply below this rating
    low_rating_threshold: int = 1600
    # WO Anhang 1.3: K_0 row thresholds (young players / adults)
    k0_young_threshold: int = 2200
    k0_adult_threshold: int = 2000
    k0: dict[str, tuple[int, ...]] = field(default_factory=lambda: dict(DEFAULT_K0))
    # WO 3.2 / Anhang 1.3 age classes (age = end year - birth year)
    youth_max_age: int = 20
    junior_max_age: int = 25
    # WO 2.2.4: index assumed for a foreign (FIDE/national) rating given without an index
    foreign_rating_index: int = 6
    # WO Anhang 2.1: D(p) = +-d_limit outside [p_limit, 1 - p_limit]
    d_limit: int = 729
    p_limit: Decimal = Decimal("0.005")
    # WO Anhang 2.1: table (Anhang 2.1/2.2 rounding) or float precision
    precision: Precision = "table"
    # WO Anhang 1.1.3: step cap of the iterations (non-convergence is an error)
    max_iterations: int = 1000
    # WO Anhang 1.1.3: float-precision convergence threshold for max |D'|
    float_tolerance: Decimal = Decimal("0.1")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.precision not in ("table", "float"):
            raise ValueError(f"precision must be 'table' or 'float', got {self.precision!r}")
        missing = sorted(set(DEFAULT_K0) - set(self.k0))
        if missing:  # development.py reads every row
            raise ValueError(f"parameter k0: rows missing: {', '.join(missing)}")
        for row, values in self.k0.items():
            if len(values) != 11:
                raise ValueError(f"k0 row {row!r} needs 11 values (index 1..10, >10)")
        positive: dict[str, int | Decimal] = {
            "t": self.t, "k_max": self.k_max, "min_games": self.min_games,
            "min_games_performance": self.min_games_performance,
            "rating_floor": self.rating_floor, "first_rating_pivot": self.first_rating_pivot,
            "max_iterations": self.max_iterations, "float_tolerance": self.float_tolerance,
            "d_limit": self.d_limit,
        }  # fmt: skip
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        non_negative: dict[str, int | Decimal] = {
            "u": self.u, "a1": self.a1, "a2": self.a2, "min_score": self.min_score,
            "exceptional_margin": self.exceptional_margin,
            "foreign_rating_index": self.foreign_rating_index,
        }  # fmt: skip
        for name, value in non_negative.items():
            if value < 0:
                raise ValueError(f"{name} cannot be negative, got {value}")
        if not 0 <= self.r <= 1:
            raise ValueError(f"r must be between 0 and 1, got {self.r}")
        if not 0 < self.p_limit < Decimal("0.5"):
            raise ValueError(f"p_limit must be between 0 and 0.5, got {self.p_limit}")
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
        return from_dict(cls, data, "DWZ 2026", special={"k0": _k0_table})


def _k0_table(value: Any) -> dict[str, tuple[int, ...]]:
    """The K_0 table (WO Anhang 1.3): rows of whole numbers."""
    out: dict[str, tuple[int, ...]] = {}
    for row, values in value.items():
        numbers = [coerce(f"k0.{row}", v, 0) for v in values]
        out[row] = tuple(numbers)
    return out
