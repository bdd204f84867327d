"""The sums of the fast DWZ core add in numpy's order (ratingdb/rules/numpy_sums.py): equal
to ``ndarray.sum`` to the last bit, so that batched and list-based paths reproduce the
values the rules computed with numpy before."""

from __future__ import annotations

import random

import numpy as np

from ratingdb.rules.numpy_sums import numpy_sum, row_sums


def test_sums_equal_numpy_bit_for_bit() -> None:
    rng = random.Random(7)
    for n in [*range(1, 40), 63, 64, 65, 127, 128, 129, 130, 200, 255, 256, 257, 300]:
        for _ in range(20):
            rows = np.array(
                [[rng.random() * 10 ** rng.randint(-6, 4) for _ in range(n)] for _ in range(3)]
            )
            expected = [float(row.sum()) for row in rows]
            assert row_sums(rows).tolist() == expected, n
            assert [numpy_sum(row.tolist()) for row in rows] == expected, n


def test_a_plain_left_to_right_sum_differs() -> None:
    """The order matters: the check above would catch a sum in Python's order."""
    rng = random.Random(1)
    rows = [[rng.random() * 10 ** rng.randint(-6, 4) for _ in range(17)] for _ in range(200)]
    assert any(sum(row) != float(np.asarray(row).sum()) for row in rows)
