"""The DWZ rules core as it was before the fast core: the reference of the
differential test (tests/test_rules_differential.py, scripts/diff_rules.py).

A frozen copy of ``ratingdb/rules/dwz``, the evaluation modules of ``dwz2026`` and
``dwz_classic`` and ``ratingdb/rules/solver.py``; the parameter classes, the model, the
rounding helpers and the printed tables are the package's own. Do not change these files:
they define the numbers the rules core must reproduce to the last digit. One definition
is the rules' own and not this copy's: in float precision every W_e (and the solver's sums
of P and its density) is the correctly rounded sum of the games' values, ``math.fsum``
(docs/rules-dwz2026.md, "Float precision"), in the copy as in the core.
"""

from tests.reference_dwz.dwz2026.evaluate import evaluate as evaluate_dwz2026
from tests.reference_dwz.dwz_classic.evaluate import evaluate as evaluate_classic

__all__ = ["evaluate_classic", "evaluate_dwz2026"]
