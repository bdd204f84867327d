"""A DWZ result becomes a snapshot output without a dictionary between
(``snapshots.of_result``, issue 24): exactly what ``SnapshotOutput.from_dict`` of the
result's ``to_dict`` gives (with its P(D) per game), for random tournaments of every group
under every DWZ version in both precisions."""

from __future__ import annotations

import random

import pytest

from ratingdb.rules.errors import RulesError
from ratingdb.rules.snapshots import SnapshotOutput, of_result
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
