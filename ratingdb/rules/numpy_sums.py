"""Sums in exactly the order numpy adds (its pairwise summation), for the fast DWZ core.

A rules path that summed with ``ndarray.sum`` before must give the same float to the last
bit when it sums in another way (many rows at once, or Python lists). numpy adds a 1-D
float64 array pairwise: fewer than 8 values one by one starting from -0.0; up to 128 in
eight running sums (element i into sum i mod 8) combined as ((s0+s1)+(s2+s3))+((s4+s5)+
(s6+s7)), the rest added one by one; a longer array as two halves (the first a multiple
of 8 long) summed separately. :func:`numpy_sum` does this for a list; :func:`row_sums`
sums every row of a 2-D array at once (tests/test_numpy_sums.py compares both with
``ndarray.sum`` on random arrays of every length up to 300).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import add

import numpy as np


def numpy_sum(values: Sequence[float]) -> float:
    """``float(np.asarray(values, dtype=float).sum())`` without building the array.

    >>> values = [0.1, 0.2, 0.3] * 5
    >>> numpy_sum(values) == float(np.asarray(values).sum()), numpy_sum([]), numpy_sum([2.5])
    (True, -0.0, 2.5)
    """
    return _list_pairwise(values, 0, len(values))


def numpy_sum_at(values: Sequence[float], first: int, n: int) -> float:
    """:func:`numpy_sum` of ``values[first : first + n]`` without the slice: the sum of one
    row of a flat list of rows, as ``ndarray.sum`` adds that row.

    >>> numpy_sum_at([9.0, 0.1, 0.2, 0.3, 9.0], 1, 3) == float(np.array([0.1, 0.2, 0.3]).sum())
    True
    """
    return _list_pairwise(values, first, n)


def _list_pairwise(a: Sequence[float], first: int, n: int) -> float:
    if n < 8:  # one by one from -0.0 (reduce: the loop in C)
        return reduce(add, a[first : first + n], -0.0)
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = (float(v) for v in a[first : first + 8])
        i = 8
        while i < n - n % 8:
            j = first + i
            r0 += a[j]
            r1 += a[j + 1]
            r2 += a[j + 2]
            r3 += a[j + 3]
            r4 += a[j + 4]
            r5 += a[j + 5]
            r6 += a[j + 6]
            r7 += a[j + 7]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for k in range(first + i, first + n):
            total += a[k]
        return total
    half = n // 2
    half -= half % 8
    return _list_pairwise(a, first, half) + _list_pairwise(a, first + half, n - half)


def row_sums(values: np.ndarray) -> np.ndarray:
    """The sum of each row of a 2-D array, equal to ``values[k].sum()`` to the last bit:
    numpy reduces the contiguous last axis row by row with the same pairwise summation
    (tests/test_numpy_sums.py checks this for every row length up to 300).

    >>> rows = np.array([[0.1, 0.2, 0.3] * 5, [1e16, 1.0, -1e16] * 5])
    >>> row_sums(rows).tolist() == [float(r.sum()) for r in rows]
    True
    """
    total: np.ndarray = np.ascontiguousarray(values).sum(axis=1)
    return total
