"""Fuzzing every parser a user's file or request reaches: real files
mutated (tests/fuzz_targets.py), and JSON documents with any JSON value in any place. Only
the project's own input error (or a RulesError where the document is evaluated) may escape:
a traceback of anything else is a bug. About 4,500 cases, derandomized so CI is stable;
``scripts/fuzz.py`` runs the same targets for 100,000 inputs and more.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz_targets as F

#: cases per target: the slow readers (SWT, TournamentReport with its XSD) get fewer
BUDGET = {
    "tournament-file": 500,
    "trf": 700,
    "swt": 250,
    "swi": 500,
    "dsb-xml": 200,
    "dewis-xml": 500,
    "dsb-lists": 600,
    "submission-json": 600,
    "evaluate-json": 500,
}


def test_every_target_has_a_budget_and_seeds():
    assert set(BUDGET) == set(F.TARGETS)
    for name in F.TARGETS:
        assert F.seeds(name)
        for seed in F.seeds(name):  # the real files themselves read without a crash
            assert F.check(name, seed) is None, name


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(F.TARGETS))
def test_mutated_files_raise_only_input_errors(name):
    @settings(
        max_examples=BUDGET[name],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(seed=st.sampled_from(F.seeds(name)), rng=st.randoms(use_true_random=False))
    def run(seed: bytes, rng: random.Random) -> None:
        data = F.mutate(seed, rng)
        found = F.check(name, data)
        assert found is None, f"{name}: {type(found).__name__}: {found} on {data[:300]!r}"

    run()


# -- any JSON value in any place of a document -------------------------------------------------
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["2026-02-30", "9999-12-31", "0001-01-01", "1-0", "+-", "fide", "000"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)  # fmt: skip


def _places(doc: object, path: tuple = ()) -> list[tuple]:
    """Every path (keys and indexes) of ``doc``."""
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_places(v, (*path, k)))
    elif isinstance(doc, list):
        for k, v in enumerate(doc):
            out.extend(_places(v, (*path, k)))
    return out


def _replace(doc: object, path: tuple, value: object) -> object:
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = json.loads(json.dumps(doc))
    copy[head] = _replace(copy[head], rest, value)
    return copy


@pytest.mark.slow
@pytest.mark.parametrize("name", ["evaluate-json", "submission-json"])
def test_any_value_anywhere_in_a_document(name):
    seeds = [json.loads(s) for s in F.seeds(name)[:2]]

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(data=st.data(), value=JSON_VALUES)
    def run(data: st.DataObject, value: object) -> None:
        doc = data.draw(st.sampled_from(seeds))
        path = data.draw(st.sampled_from(_places(doc)))
        raw = json.dumps(_replace(doc, path, value)).encode()
        found = F.check(name, raw)
        assert found is None, f"{name}: {type(found).__name__}: {found} at {path} = {value!r}"

    run()
