"""Tables 1 and 2 of the KBSB Elo spec and their float counterparts.

Table 1 ("Verschillen in klassementsindex") gives D(P) for a score P in hundredths;
"X" at P = 1 and P = 0 means undetermined. It is antisymmetric, D(1 - P) = -D(P), so only
P = 0.50 .. 0.99 is stored. Table 2 ("Winstkansen") gives the winning chance H of the
higher-rated and L = 1 - H of the lower-rated player for bands of the rating difference;
a difference above 735 gives 1 / 0 ("+ 735  1  00"). Both are stored as the spec prints
them (Elo's tables, the same as FIDE's old tables 8.1a/8.1b); tests/data/kbsb_table*.tsv
holds the spec's text, compared cell by cell in tests/test_rules_elo_kbsb.py.

``float`` precision uses the normal model behind the tables: W_e = Phi(D / (sigma*sqrt 2))
and D(P) = sigma*sqrt(2)*Phi^-1(P), sigma = 200. Table 2 agrees with it to within 0.006;
table 1 does not follow it exactly (0.75 -> 193 where the normal model gives 190.8,
0.99 -> 677 against 658): the published table is what ``table`` precision uses.
"""

from __future__ import annotations

import math

from scipy.special import ndtr, ndtri

from ratingdb.rules.elo_tables import D_ABOVE_HALF as D_UPPER
from ratingdb.rules.elo_tables import p_hundredths


def d_hundredths(p: int) -> int | None:
    """Table 1: D(P) for P = p/100 (0 <= p <= 100); None for the "X" at P = 1 and P = 0."""
    if not 0 <= p <= 100:
        raise ValueError(f"P must be 0..100 hundredths, got {p}")
    if p in (0, 100):
        return None
    return D_UPPER[p - 50] if p >= 50 else -D_UPPER[50 - p]


def expected_hundredths(difference: int) -> int:
    """Table 2: winning chance in hundredths for own rating minus opponent's rating.

    A positive difference reads column H, a negative one column L (= 100 - H).
    """
    return p_hundredths(difference)


def expected_float(difference: float, sigma: int) -> float:
    """Unrounded W_e of one game (normal model, difference sd = sigma*sqrt(2))."""
    return float(ndtr(difference / (sigma * math.sqrt(2))))


def d_float(p: float, sigma: int) -> float | None:
    """Unrounded D(P); None at P = 0 or 1 (infinite)."""
    if p <= 0 or p >= 1:
        return None
    return float(ndtri(p)) * sigma * math.sqrt(2)
