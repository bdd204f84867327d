"""The two-digit Elo tables: the winning expectation P(D) for bands of the rating difference
and its inverse D(P), as printed in the classic DWZ rules (Anhang 2.1 and 2.2, "identical
with the tables FIDE uses") and in the KBSB Elo rules (tables 2 and 1). One copy serves
both families; each family's ``tables`` module adds what its rules say about the ends
(P = 1.00 / 0.00) and its float precision.
"""

from __future__ import annotations

from bisect import bisect_left

#: P(D) (classic DWZ Anhang 2.1, KBSB table 2): the upper end of the |D| range for
#: P = 0.50, 0.51, ..., 0.99 (the better player's expectation in hundredths is
#: 50 + position); |D| > 735 gives 1.00.
P_UPPER: tuple[int, ...] = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68,
    76, 83, 91, 98, 106, 113, 121, 129, 137, 145,
    153, 162, 170, 179, 188, 197, 206, 215, 225, 235,
    245, 256, 267, 278, 290, 302, 315, 328, 344, 357,
    374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
)  # fmt: skip

#: D(P) (classic DWZ Anhang 2.2, KBSB table 1): D for P = 0.50, 0.51, ..., 0.99
#: (position = hundredths - 50)
D_ABOVE_HALF: tuple[int, ...] = (
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65,
    72, 80, 87, 95, 102, 110, 117, 125, 133, 141,
    149, 158, 166, 175, 184, 193, 202, 211, 220, 230,
    240, 251, 262, 273, 284, 296, 309, 322, 336, 351,
    366, 383, 401, 422, 444, 470, 501, 538, 589, 677,
)  # fmt: skip


#: the better player's P in hundredths for |D| = 0 .. 736 (P_UPPER read once)
_BETTER: tuple[int, ...] = tuple(50 + bisect_left(P_UPPER, d) for d in range(P_UPPER[-1] + 2))


def p_hundredths(d: int) -> int:
    """Table P(D) in hundredths (Anhang 2.1): the better player's column for D >= 0, the
    worse player's complement for D < 0."""
    better = _BETTER[min(abs(d), len(_BETTER) - 1)]
    return better if d >= 0 else 100 - better
