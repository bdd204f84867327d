"""The Rechenmodul parameters of the Ingo rules (spec ingo-rules.txt, "INGO-Regeln" 1960).

Every fixed number the rules use lives here, so a new Rechenmodul version can change any
of them without touching code. The defaults are the values of the 1960 Regelblatt:

* A / B I 2 and the %d tables: %d = 50 - 100 (W + 1/2) / (n + 1) (``average_percent``,
  ``score_offset``, ``games_offset``), printed with one decimal (``decimals``).
* B I 4 / C I: new F = (w F + H) / (w + 1) with w = min(index, ``full_weight``): F/1 = H,
  F/2 = (F + H) / 2, F/3 = (2 F + H) / 3, then (3 F + H) / 4.
* C III: juniors improving by ``junior_deviation_degrees`` (25) or more degrees get
  (F + 2 H) / 3 (``junior_h_weight``); off by default (``junior_deviation``), because
  the spec makes its use a judgement of the Hauptbearbeiter in the other cases.
* C IV: short tournaments, games -> (weight of the old F, cap in degrees):
  3 -> (7, 4), 4 -> (5, 5), 5 -> (4, 6) (``short_tournaments``).
* C V: matches of at least ``match_min_games`` (4) games, (7 F + H) / 8 (``match_weight``).
* C VI: the 50-degree limit (``limit_degrees``).

Parameters of choices where the spec is silent (docs/rules-ingo.md):

* ``min_games`` (3): fewer counted games give no calculation (the %d tables start at 3).
* ``special_min_index`` (3): C IV and C V replace the formula of B I 4 only; a player
  with fewer calculations is computed by C I.
* ``junior_max_age`` (20): "Jugendliche" are players with end year - birth year <= 20.
* ``assumed_index`` (3): index of a number given without one.
* ``precision``: ``table`` rounds %d, every level and every H half-up to ``decimals``
  places as the tables and B III 3 do (170,6); ``float`` keeps all of them exact
  (fractions) and solves the newcomers' iteration for its exact fixed point. Both round
  the new Ingo numbers half-up to integers.
* ``max_iterations``: cap of the newcomers' passes (B III 3); exceeding it is a
  ConvergenceError.

The life-cycle fields are read by the engine, as for every family:
``retention_years``, ``residual_validity_years``, ``late_member_years``.
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
    GAMES,
    INDEX,
    ITERATIONS,
    SCHEMA,
    In,
    Precision,
    from_dict,
)

#: C IV: counted games -> (weight of the old F, largest change in degrees)
DEFAULT_SHORT_TOURNAMENTS: dict[int, tuple[int, int]] = {3: (7, 4), 4: (5, 5), 5: (4, 6)}

#: a weight of the old F against H (B I 4: 1 to 3, C IV: 4 to 7, C V: 7)
WEIGHT = In(0, 100, "B I 4, C IV, C V: 1 to 7")
#: a number of Ingo degrees (the scale runs from about 0 to 300; C VI limits to 50)
DEGREES = In(0, 300, "the Ingo scale, about 0 to 300")
#: games of a short tournament (C IV: 3 to 5), JSON object keys
SHORT_GAMES = In(1, 100, GAMES.why, keys=True)


@dataclass(frozen=True, config=SCHEMA)
class IngoParameters(Lifecycle):
    """All numbers of one Ingo Rechenmodul version (defaults: Regelblatt of 1960)."""

    precision: Precision = "table"
    # A, B I 2: %d = average_percent - 100 (W + score_offset) / (n + games_offset)
    average_percent: Annotated[int, In(1, 100, "A: a percentage, 50")] = 50
    score_offset: Annotated[Decimal, In(0, 10, "B I 2: 1/2")] = Decimal("0.5")
    games_offset: Annotated[int, In(0, 10, "B I 2: 1")] = 1
    # table precision: decimals of %d, levels and H (tables; B III 3 shows 170,6)
    decimals: Annotated[int, In(0, 6, "B III 3: one decimal")] = 1
    # B I 4 / C I: weight of the old F is min(index, full_weight)
    full_weight: Annotated[int, In(1, 100, WEIGHT.why)] = 3
    # fewest counted games for a calculation (the %d tables start at 3 games)
    min_games: Annotated[int, GAMES] = 3
    # C IV: games -> (weight of the old F, cap of the change in degrees)
    short_tournaments: dict[
        Annotated[int, SHORT_GAMES], tuple[Annotated[int, WEIGHT], Annotated[int, DEGREES]]
    ] = field(default_factory=lambda: dict(DEFAULT_SHORT_TOURNAMENTS))
    # C V: matches ("Einzel-Wettkämpfe") of at least match_min_games games; (7 F + H) / 8
    match_min_games: Annotated[int, GAMES] = 4
    match_weight: Annotated[int, WEIGHT] = 7
    # C IV / C V apply from this index on; below it C I's averaging applies
    special_min_index: Annotated[int, INDEX] = 3
    # C III: large improvements of juniors, (F + 2 H) / 3; off by default
    junior_deviation: StrictBool = False
    junior_deviation_degrees: Annotated[int, DEGREES] = 25
    junior_h_weight: Annotated[int, In(1, 100, "C III: 2")] = 2
    junior_max_age: Annotated[int, AGE] = 20
    # C VI: the 50-degree limit
    limit_degrees: Annotated[int, In(1, 300, DEGREES.why)] = 50
    # a number given without an index is taken to stem from this many calculations
    assumed_index: Annotated[int, INDEX] = 3
    # cap of the newcomers' passes (B III 3)
    max_iterations: Annotated[int, ITERATIONS] = 1000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.score_offset > self.games_offset:
            raise ValueError("score_offset cannot exceed games_offset")

    def with_precision(self, precision: Precision) -> IngoParameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: Decimals as numbers, ``short_tournaments`` with string keys."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if isinstance(value, Decimal):
                out[key] = int(value) if value == value.to_integral_value() else float(value)
            elif key == "short_tournaments":
                out[key] = {str(g): list(rule) for g, rule in sorted(value.items())}
            else:
                out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IngoParameters:
        """Build from a (partial) dict such as a stored Rechenmodul's JSONB parameters
        (:func:`ratingdb.rules.parameters.from_dict`); ValueError names a bad key."""
        return from_dict(cls, data, "Ingo")
