"""The fast JSON of the snapshot columns (ratingdb/db/snapshot_json.py) is the text
``json.dumps(value, separators=(",", ":"))`` gives, character for character."""

from __future__ import annotations

import json
import math
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.db import snapshot_json
from ratingdb.db.snapshot_json import compact, floats_json, residual_json
from ratingdb.engine.history import History
from ratingdb.engine.model import ResidualEntry
from tests.test_engine_replay import ADJUSTMENTS, SETTINGS, TIMELINE, histories


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def test_edge_floats_and_what_is_not_a_float():
    values: list[Any] = [0.0, -0.0, 1e-7, 1e16, 1e22, 0.1, 1 / 3, 2.5, None, 5e-324]
    assert floats_json(values) == dumps(values)
    assert floats_json(values) == dumps(values)  # now from the cache, -0.0 still "-0.0"
    assert floats_json([-0.0, 0.0]) == "[-0.0,0.0]"
    assert floats_json([]) == "[]" and floats_json([None]) == "[null]"
    for odd in ([1.0, 1], [True, 0.5], [0.5, math.inf], [math.nan], [-math.inf, None]):
        assert floats_json(odd) == dumps(odd)
    assert floats_json([1.0, 1]) == "[1.0,1]"  # an int is not the float it equals


def test_the_float_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(snapshot_json, "FLOAT_CACHE_SIZE", 10)
    values = [k / 7 for k in range(1, 40)]
    assert floats_json(values) == dumps(values)
    assert len(snapshot_json.FLOAT_TEXT) <= 10


@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))))
def test_random_floats(values):
    assert floats_json(values) == dumps(values)


def test_residual_games_and_other_values():
    entries = (
        ResidualEntry(12, 0, 1977, Decimal("0.0"), date(2022, 4, 28)),
        ResidualEntry(12, 1, 1167, Decimal("0.5"), date(2022, 4, 28)),
        ResidualEntry(3456789, 17, 2410, Decimal("1"), date(1999, 12, 31)),
    )
    assert residual_json(entries) == dumps([r.as_json() for r in entries])
    assert residual_json(()) == "[]"
    new = [{"opponent_rating": 1810, "score": 0.5, "date": "2022-04-28"}]
    assert compact(new) == dumps(new) and compact([]) == "[]"
    assert compact({"a": ["ü", None, True]}) == dumps({"a": ["ü", None, True]})


@pytest.mark.slow
@SETTINGS
@given(histories())
def test_every_snapshot_of_a_replayed_history(history):
    """The three JSON columns of every snapshot of random histories (residual games held
    and created, first ratings, both Rechenmodul versions)."""
    players, tournaments, _ = history
    replayed = History(TIMELINE, dict(players), list(tournaments), adjustments=tuple(ADJUSTMENTS))
    replayed.full_replay()
    for by_part in replayed.snapshots.values():
        for s in by_part.values():
            assert residual_json(s.input.residual) == dumps([r.as_json() for r in s.input.residual])
            assert compact(s.output.new_residual_games) == dumps(s.output.new_residual_games)
            assert floats_json(s.output.expected_games) == dumps(s.output.expected_games)
