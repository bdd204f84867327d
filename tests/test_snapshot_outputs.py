"""A DWZ result becomes a snapshot output without a dictionary between
(``snapshots.of_result``): exactly what ``SnapshotOutput.from_dict`` of the
result's ``to_dict`` gives (with its P(D) per game), for random tournaments of every group
under every DWZ version in both precisions."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.errors import RulesError
from ratingdb.rules.snapshots import SnapshotOutput, as_float, of_result
from tests.dwz_random import PARAMETER_SETS, evaluate_fast, random_tournament


@pytest.mark.parametrize("name", sorted(PARAMETER_SETS))
def test_of_result_is_the_dictionary_route(name: str) -> None:
    rng = random.Random(name)
    params = PARAMETER_SETS[name]
    compared = 0
    for k in range(25):
        try:
            result = evaluate_fast(random_tournament(rng, f"T{k}"), params)
        except RulesError:  # a group without a finite solution: the rules refuse it
            continue
        for p in result.players:
            row = p.to_dict()
            row["expected_games"] = p.expected_games
            expected = SnapshotOutput.from_dict(row)
            got = of_result(p)
            assert got == expected and repr(got) == repr(expected)
            compared += 1
    assert compared > 100


@given(
    st.lists(
        st.one_of(
            st.decimals(allow_nan=True, allow_infinity=True),
            st.decimals(places=3, min_value=-10, max_value=10),
            st.sampled_from([Decimal("-0"), Decimal("0"), Decimal("0.000"), Decimal("2.5")]),
            st.floats(allow_nan=False),
            st.integers(-(10**6), 10**6),
        ),
        max_size=30,
    )
)
def test_decimals_become_the_floats_float_gives(values):
    """The converted Decimals are remembered (ratingdb/rules/snapshots.py): asked twice,
    each value gives what ``float()`` gives, sign of a zero and NaN included."""
    for value in [*values, *values]:
        if isinstance(value, Decimal) and value.is_snan():
            with pytest.raises(ValueError):  # as float() refuses it
                as_float(value)
            continue
        assert repr(as_float(value)) == repr(float(value))
