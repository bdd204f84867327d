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

from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from typing import Any

from ratingdb.rules.lifecycle import Lifecycle
from ratingdb.rules.parameters import Precision, from_dict

#: C IV: counted games -> (weight of the old F, largest change in degrees)
DEFAULT_SHORT_TOURNAMENTS: dict[int, tuple[int, int]] = {3: (7, 4), 4: (5, 5), 5: (4, 6)}


@dataclass(frozen=True)
class IngoParameters(Lifecycle):
    """All numbers of one Ingo Rechenmodul version (defaults: Regelblatt of 1960)."""

    precision: Precision = "table"
    # A, B I 2: %d = average_percent - 100 (W + score_offset) / (n + games_offset)
    average_percent: int = 50
    score_offset: Decimal = Decimal("0.5")
    games_offset: int = 1
    # table precision: decimals of %d, levels and H (tables; B III 3 shows 170,6)
    decimals: int = 1
    # B I 4 / C I: weight of the old F is min(index, full_weight)
    full_weight: int = 3
    # fewest counted games for a calculation (the %d tables start at 3 games)
    min_games: int = 3
    # C IV: games -> (weight of the old F, cap of the change in degrees)
    short_tournaments: dict[int, tuple[int, int]] = field(
        default_factory=lambda: dict(DEFAULT_SHORT_TOURNAMENTS)
    )
    # C V: matches ("Einzel-Wettkämpfe") of at least match_min_games games; (7 F + H) / 8
    match_min_games: int = 4
    match_weight: int = 7
    # C IV / C V apply from this index on; below it C I's averaging applies
    special_min_index: int = 3
    # C III: large improvements of juniors, (F + 2 H) / 3; off by default
    junior_deviation: bool = False
    junior_deviation_degrees: int = 25
    junior_h_weight: int = 2
    junior_max_age: int = 20
    # C VI: the 50-degree limit
    limit_degrees: int = 50
    # a number given without an index is taken to stem from this many calculations
    assumed_index: int = 3
    # cap of the newcomers' passes (B III 3)
    max_iterations: int = 1000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.precision not in ("table", "float"):
            raise ValueError(f"precision must be 'table' or 'float', got {self.precision!r}")
        positive: dict[str, int | Decimal] = {
            "average_percent": self.average_percent, "full_weight": self.full_weight,
            "min_games": self.min_games, "match_min_games": self.match_min_games,
            "limit_degrees": self.limit_degrees, "max_iterations": self.max_iterations,
            "junior_h_weight": self.junior_h_weight,
        }  # fmt: skip
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        non_negative: dict[str, int | Decimal] = {
            "score_offset": self.score_offset, "games_offset": self.games_offset,
            "match_weight": self.match_weight, "special_min_index": self.special_min_index,
            "junior_deviation_degrees": self.junior_deviation_degrees,
            "junior_max_age": self.junior_max_age, "assumed_index": self.assumed_index,
        }  # fmt: skip
        for name, value in non_negative.items():
            if value < 0:
                raise ValueError(f"{name} cannot be negative, got {value}")
        if not 0 <= self.decimals <= 6:
            raise ValueError(f"decimals must be between 0 and 6, got {self.decimals}")
        if self.score_offset > self.games_offset:
            raise ValueError("score_offset cannot exceed games_offset")
        for games, rule in self.short_tournaments.items():
            if (
                not isinstance(games, int)
                or games <= 0
                or len(rule) != 2
                or any(not isinstance(v, int) or v < 0 for v in rule)
            ):
                raise ValueError(
                    f"short_tournaments[{games!r}] must map a positive number of games to "
                    f"[weight, cap] (non-negative integers), got {rule!r}"
                )

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
        return from_dict(cls, data, "Ingo", special={"short_tournaments": _short_tournaments})


def _short_tournaments(value: Any) -> dict[int, tuple[int, int]]:
    if not isinstance(value, dict):
        raise TypeError
    out: dict[int, tuple[int, int]] = {}
    for games, rule in value.items():
        if isinstance(games, bool) or not isinstance(rule, list | tuple) or len(rule) != 2:
            raise TypeError
        if any(isinstance(v, bool) or not isinstance(v, int) for v in rule):
            raise TypeError
        out[int(games)] = (rule[0], rule[1])
    return out
