"""Rating adjustments: formulas that map every stored rating at once (WO Anhang 4).

WO Anhang 4 (the one-off DWZ conversion of 2026):

* DWZ_new = DWZ_old + 400            if 0 < DWZ_old <= 1000
* DWZ_new = 0.64 * DWZ_old + 760     if 1000 < DWZ_old <= 2110  (rounded half-up)
* DWZ_new = DWZ_old                  if DWZ_old > 2110

The pieces meet: 1000 -> 1400 both ways, 2110 -> 2110.4 -> 2110.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ratingdb.rules.rounding import round_half_up


def dwz_2026_conversion(rating: int) -> int:
    if rating <= 1000:
        return rating + 400
    if rating <= 2110:
        return round_half_up(Fraction(64, 100) * rating + 760)
    return rating


FORMULAS: dict[str, Callable[[int], int]] = {
    "dwz-2026-umstufung": dwz_2026_conversion,
}


def formula(name: str) -> Callable[[int], int]:
    try:
        return FORMULAS[name]
    except KeyError:
        known = ", ".join(FORMULAS)
        raise KeyError(f"unknown adjustment formula {name!r} (known: {known})") from None
