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

from dataclasses import asdict, replace
from typing import Annotated, Any, Literal

from pydantic.dataclasses import dataclass

from ratingdb.rules.lifecycle import YEARS, Lifecycle
from ratingdb.rules.parameters import DIFFERENCE, RATING, SCHEMA, In, K, Precision, from_dict

ImprovementCount = Literal["period", "total"]

#: a count of a player's games over his career (the spec's thresholds: 10 to 300)
CAREER_GAMES = In(0, 10_000, "games of a career; the spec: 10 to 300")


@dataclass(frozen=True, config=SCHEMA)
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

    # "Formule van het prestatiecijfer"
    formula1_games: Annotated[int, In(1, 10_000, CAREER_GAMES.why)] = 20
    provisional_games: Annotated[int, In(1, 10_000, CAREER_GAMES.why)] = 10
    # "Gewone kwotering van een speler": K by games played before the period and rating
    k_first: Annotated[int, K] = 32
    k_first_games: Annotated[int, CAREER_GAMES] = 100
    k_second: Annotated[int, K] = 24
    k_second_games: Annotated[int, CAREER_GAMES] = 300
    k_low: Annotated[int, K] = 16
    k_high: Annotated[int, K] = 12
    k_low_threshold: Annotated[int, RATING] = 2000
    k_top: Annotated[int, K] = 10
    k_top_threshold: Annotated[int, RATING] = 2200
    # improvement rule ("verbeteringssysteem")
    improvement_change: Annotated[int, DIFFERENCE] = 150
    improvement_games: Annotated[int, CAREER_GAMES] = 25
    improvement_count: ImprovementCount = "period"
    # table 1 "X" at P = 1 and P = 0
    d_extreme: Annotated[int, In(1, 4000, DIFFERENCE.why)] | None = None
    precision: Precision = "table"
    # float precision: per-player sigma of the normal model behind tables 1 and 2
    float_sigma: Annotated[int, In(10, 1000, "tables 1 and 2: 200")] = 200
    # as a Rechenmodul in the replay engine: lists on the 1st of January and July ("two
    # lists a year"; 1, 2, 3, 4, 6 or 12); of the life cycles (ratingdb.rules.lifecycle)
    # the games a formula-1 player has played are kept until his 20th game
    lists_per_year: Annotated[int, In(1, 12, "a divisor of 12")] = 2
    residual_validity_years: Annotated[int, YEARS] = 100

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.provisional_games > self.formula1_games:
            raise ValueError("provisional_games cannot exceed formula1_games")
        if self.k_second_games < self.k_first_games:
            raise ValueError("k_second_games cannot be below k_first_games")
        if 12 % self.lists_per_year:
            raise ValueError(f"lists_per_year must divide 12, got {self.lists_per_year}")

    def with_precision(self, precision: Precision) -> KbsbParameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KbsbParameters:
        """Build from a (partial) dict such as a stored Rechenmodul's JSONB parameters."""
        return from_dict(cls, data, "KBSB Elo")
