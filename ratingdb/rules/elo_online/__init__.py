"""Online Elo: the logistic Elo of an online chess site (spec online-elo.txt).

``evaluate(OnlineInput, OnlineEloParameters) -> OnlineResult`` rates a list of games, each
with the ratings current at its end, K = 32 / 24 / 16 by rating band. Choices where the
spec is silent: :mod:`.evaluate` and docs/rules-elo.md.
"""

from ratingdb.rules.elo_online.evaluate import (
    RULES_NAME,
    evaluate,
    k_factor,
    win_expectancy,
)
from ratingdb.rules.elo_online.model import (
    OnlineGameInput,
    OnlineGameResult,
    OnlineInput,
    OnlinePlayerInput,
    OnlinePlayerResult,
    OnlineResult,
)
from ratingdb.rules.elo_online.params import OnlineEloParameters

__all__ = [
    "RULES_NAME",
    "OnlineEloParameters",
    "OnlineGameInput",
    "OnlineGameResult",
    "OnlineInput",
    "OnlinePlayerInput",
    "OnlinePlayerResult",
    "OnlineResult",
    "evaluate",
    "k_factor",
    "win_expectancy",
]
