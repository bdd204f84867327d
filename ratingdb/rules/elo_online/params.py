"""The parameters of the online Elo rules (spec online-elo.txt, the site's FAQ formula).

"New Rating = Old Rating + K * (Score - Win Expectancy)", "K is a constant (32 for
0-2099, 24 for 2100-2399, 16 for 2400 and above)", "Win Expectancy = 1 /
(10^((OpponentRating-YourRating)/400)+1)". Every one of these numbers is a parameter.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Annotated, Any

from pydantic.dataclasses import dataclass

from ratingdb.rules.lifecycle import Lifecycle
from ratingdb.rules.parameters import RATING, SCHEMA, In, K, Precision, from_dict


@dataclass(frozen=True, config=SCHEMA)
class OnlineEloParameters(Lifecycle):
    """``k_low`` below ``k_mid_from``, ``k_mid`` below ``k_high_from``, ``k_high`` from it
    on (the player's own rating before the game); ``scale`` the logistic 400.

    ``precision``: ``table`` (default) holds every rating as an integer, rounded half-up
    after each game, as the site displays them and as the spec's SciLab code computes
    (``round(my + K*(score - WE))``); ``float`` carries the unrounded ratings from game to
    game within one evaluation and rounds only what it reports. Both compute W_e unrounded.
    """

    k_low: Annotated[int, K] = 32
    k_mid: Annotated[int, K] = 24
    k_high: Annotated[int, K] = 16
    k_mid_from: Annotated[int, In(1, 4000, RATING.why)] = 2100
    k_high_from: Annotated[int, In(1, 4000, RATING.why)] = 2400
    scale: Annotated[int, In(100, 4000, "the spec: 400")] = 400
    precision: Precision = "table"
    # as a Rechenmodul in the replay engine (ratingdb.rules.elo_online.tournament): the
    # rating a player without one starts from (the spec names none; 1200 as on the site the
    # spec describes); the life cycles are ratingdb.rules.lifecycle's
    initial_rating: Annotated[int, In(1, 4000, RATING.why)] = 1200

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.k_high_from < self.k_mid_from:
            raise ValueError("k_high_from cannot be below k_mid_from")

    def with_precision(self, precision: Precision) -> OnlineEloParameters:
        return replace(self, precision=precision)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OnlineEloParameters:
        """Build from a (partial) dict such as a stored Rechenmodul's JSONB parameters."""
        return from_dict(cls, data, "online Elo")
