"""The parameters of the KBSB Elo rules (spec kbsb-elo.txt, "Het Elosysteem ... KBSB").

Every fixed number of the spec lives here, so a new Rechenmodul version can change any
of them without touching code. The defaults are the spec's values for two lists a year.
Tables 1 and 2 are data of the spec, not parameters (see :mod:`.tables`).

Spec sections:

* "Formule van het prestatiecijfer": formula 1 applies while a player has played fewer
  than ``formula1_games`` (20) games; a player is listed (provisionally) from
  ``provisional_games`` (10) games.
* "Gewone kwotering": K = ``k_first`` (32) for the first ``k_first_games`` (100) games,
  ``k_second`` (24) for games 101..``k_second_games`` (300), then ``k_low`` (16) when the
  rating is not above ``k_low_threshold`` (2000) and ``k_high`` (12) above it;
  ``k_top`` (10) "in all cases" above ``k_top_threshold`` (2200).
* Improvement rule: a change of more than ``improvement_change`` (150) points for a
  player with more than ``improvement_games`` (25) games (counted as ``improvement_count``
  says) replaces formula 2 by formula 1 over the period's games.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Literal

from ratingdb.rules.lifecycle import Lifecycle
from ratingdb.rules.parameters import Precision, from_dict

ImprovementCount = Literal["period", "total"]


@dataclass(frozen=True)
class KbsbParameters(Lifecycle):
    """All numbers of one KBSB Elo Rechenmodul version (defaults: two lists a year).

    ``precision``: ``table`` reads W_e from table 2 (two decimals) and D(P) from table 1
    with P rounded half-up to hundredths and R_c rounded half-up to an integer; ``float``
    uses the normal distribution behind both tables (sigma ``float_sigma``*sqrt(2) for a
    rating difference) unrounded, and rounds only the resulting rating.
    ``d_extreme``: D(P) for a score of 100 % / 0 % (table 1 says "X", undetermined). None
    (default) keeps that literal: no formula-1 rating can be formed from such a score. An
    integer uses +-d_extreme instead.
    """

    #: parameters that may be null (JSON null)
    NULLABLE: ClassVar[tuple[str, ...]] = ("d_extreme",)

    # "Formule van het prestatiecijfer"
    formula1_games: int = 20
    provisional_games: int = 10
    # "Gewone kwotering van een speler": K by games played before the period and rating
    k_first: int = 32
    k_first_games: int = 100
    k_second: int = 24
    k_second_games: int = 300
    k_low: int = 16
    k_high: int = 12
    k_low_threshold: int = 2000
    k_top: int = 10
    k_top_threshold: int = 2200
    # improvement rule ("verbeteringssysteem")
    improvement_change: int = 150
    improvement_games: int = 25
    improvement_count: ImprovementCount = "period"
    # table 1 "X" at P = 1 and P = 0
    d_extreme: int | None = None
    precision: Precision = "table"
    # float precision: per-player sigma of the normal model behind tables 1 and 2
    float_sigma: int = 200
    # as a Rechenmodul in the replay engine: lists on the 1st of January and July ("two
    # lists a year"; 1, 2, 3, 4, 6 or 12); of the life cycles (ratingdb.rules.lifecycle)
    # the games a formula-1 player has played are kept until his 20th game
    lists_per_year: int = 2
    residual_validity_years: int = 100

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.precision not in ("table", "float"):
            raise ValueError(f"precision must be 'table' or 'float', got {self.precision!r}")
        if self.improvement_count not in ("period", "total"):
            raise ValueError(
                f"improvement_count must be 'period' or 'total', got {self.improvement_count!r}"
            )
        positive = {
            "formula1_games": self.formula1_games, "provisional_games": self.provisional_games,
            "k_first": self.k_first, "k_second": self.k_second, "k_low": self.k_low,
            "k_high": self.k_high, "k_top": self.k_top, "float_sigma": self.float_sigma,
        }  # fmt: skip
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        non_negative = {
            "k_first_games": self.k_first_games, "k_second_games": self.k_second_games,
            "k_low_threshold": self.k_low_threshold, "k_top_threshold": self.k_top_threshold,
            "improvement_change": self.improvement_change,
            "improvement_games": self.improvement_games,
        }  # fmt: skip
        for name, value in non_negative.items():
            if value < 0:
                raise ValueError(f"{name} cannot be negative, got {value}")
        if self.provisional_games > self.formula1_games:
            raise ValueError("provisional_games cannot exceed formula1_games")
        if self.k_second_games < self.k_first_games:
            raise ValueError("k_second_games cannot be below k_first_games")
        if self.lists_per_year not in (1, 2, 3, 4, 6, 12):
            raise ValueError(f"lists_per_year must divide 12, got {self.lists_per_year}")
        if self.d_extreme is not None and self.d_extreme <= 0:
            raise ValueError(f"d_extreme must be positive or null, got {self.d_extreme}")

    def with_precision(self, precision: Precision) -> KbsbParameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KbsbParameters:
        """Build from a (partial) dict such as a stored Rechenmodul's JSONB parameters."""
        params: KbsbParameters = parameters_from_dict(cls, data, "KBSB Elo")
        return params


def parameters_from_dict(cls: Any, data: dict[str, Any], label: str) -> Any:
    """Shared by the Elo families (:func:`ratingdb.rules.parameters.from_dict`)."""
    return from_dict(cls, data, label, nullable=tuple(getattr(cls, "NULLABLE", ())))
