"""KBSB Elo: the rating rules of the Koninklijke Belgische Schaakbond (spec kbsb-elo.txt).

Periodic (two lists a year): ``evaluate(KbsbPeriodInput, KbsbParameters) -> KbsbResult``
rates every game between two lists from the ratings of the list before. Formula 1
(performance R_c + D(P)) while a player has fewer than 20 games, provisional from 10;
formula 2 (R_o + K (W - W_e)) afterwards, with the improvement rule. Choices where the
spec is silent: :mod:`.evaluate` and docs/rules-elo.md.
"""

from ratingdb.rules.elo_kbsb.evaluate import RULES_NAME, evaluate, k_factor, performance
from ratingdb.rules.elo_kbsb.model import (
    KbsbGameInput,
    KbsbHistory,
    KbsbPeriodInput,
    KbsbPlayerInput,
    KbsbPlayerResult,
    KbsbResult,
    PeriodInfo,
)
from ratingdb.rules.elo_kbsb.params import KbsbParameters

__all__ = [
    "RULES_NAME",
    "KbsbGameInput",
    "KbsbHistory",
    "KbsbParameters",
    "KbsbPeriodInput",
    "KbsbPlayerInput",
    "KbsbPlayerResult",
    "KbsbResult",
    "PeriodInfo",
    "evaluate",
    "k_factor",
    "performance",
]
