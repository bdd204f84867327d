"""DWZ 2026: the rules of the DSB Wertungsordnung valid from the second half of 2026.

``evaluate(TournamentInput, Dwz2026Parameters) -> TournamentResult`` is the whole
single-tournament evaluation of WO chapter 3 and Anhang 1-2.
"""

from ratingdb.rules.dwz2026.evaluate import RULES_NAME, evaluate
from ratingdb.rules.dwz2026.params import Dwz2026Parameters

__all__ = ["RULES_NAME", "Dwz2026Parameters", "evaluate"]
