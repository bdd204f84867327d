"""Ingo: the Ingo rating system (Hößlinger; spec ingo-rules.txt, Regelblatt of 1960).

``evaluate(TournamentInput, IngoParameters, *, flags=None) -> IngoResult`` is the whole
single-tournament evaluation of sections A, B I-V and C I-VI. Ingo numbers are lower for
stronger players; ``PlayerInput.rating`` is the old number F, ``PlayerInput.index`` the
number of calculations behind it. See docs/rules-ingo.md.
"""

from ratingdb.rules.ingo.evaluate import RULES_NAME, evaluate
from ratingdb.rules.ingo.games import FLAG_OR_BETTER, FLAG_OR_WORSE, FLAGS
from ratingdb.rules.ingo.params import IngoParameters
from ratingdb.rules.ingo.result import IngoPlayerResult, IngoResult

__all__ = [
    "FLAGS",
    "FLAG_OR_BETTER",
    "FLAG_OR_WORSE",
    "RULES_NAME",
    "IngoParameters",
    "IngoPlayerResult",
    "IngoResult",
    "evaluate",
]
