"""The DWZ rules core as it was before the fast core: the reference of the
differential test (tests/test_rules_differential.py, scripts/diff_rules.py).

A frozen copy of ``ratingdb/rules/dwz``, the evaluation modules of ``dwz2026`` and
``dwz_classic`` and ``ratingdb/rules/solver.py``; the parameter classes, the model, the
rounding helpers and the printed tables are the package's own. Do not change these files:
they define the numbers the fast core must reproduce to the last digit.
"""

from tests.reference_dwz.dwz2026.evaluate import evaluate as evaluate_dwz2026
from tests.reference_dwz.dwz_classic.evaluate import evaluate as evaluate_classic

__all__ = ["evaluate_classic", "evaluate_dwz2026"]
