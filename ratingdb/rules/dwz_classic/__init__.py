"""Classic DWZ: the rules of the DSB rating system with the development coefficient E.

``evaluate(TournamentInput, DwzClassicParameters) -> TournamentResult`` is the whole
single-tournament evaluation of chapter 4 (4.3-4.9) of the classic rules, with the tables
of Anhang 2. The result names its coefficient ``e`` (``PlayerResult.k`` holds E).
See docs/rules-dwz-classic.md for the choices where the rules are silent or garbled.
"""

from ratingdb.rules.dwz_classic.evaluate import RULES_NAME, evaluate
from ratingdb.rules.dwz_classic.params import DwzClassicParameters

__all__ = ["RULES_NAME", "DwzClassicParameters", "evaluate"]
