"""Differential test of the fast DWZ core: every random tournament gives, under
every DWZ version in both precisions, exactly what the frozen reference implementation
(``tests/reference_dwz``, the core before the speed-up) gives - every output, every trace
value, every error. ``scripts/diff_rules.py`` runs the same comparison on 10,000
tournaments per parameter set."""

from __future__ import annotations

import random

import pytest

from tests.dwz_random import PARAMETER_SETS, compare, random_tournament

#: tournaments per parameter set in the suite (the script runs 10,000)
PER_SET = 30


@pytest.mark.parametrize("name", sorted(PARAMETER_SETS))
def test_fast_core_equals_reference(name: str) -> None:
    params = PARAMETER_SETS[name]
    for k in range(PER_SET):
        seed = k * 7919 + len(name)
        t = random_tournament(random.Random(seed), f"{name}-{k}")
        difference = compare(t, params)
        assert difference is None, f"{name}, seed {seed}: {difference}"


def test_the_generator_reaches_every_group() -> None:
    """The random tournaments reach what the comparison must cover."""
    from tests.dwz_random import evaluate_reference

    seen: set[str] = set()
    for k in range(400):
        t = random_tournament(random.Random(k), f"T{k}")
        seen.add(t.tournament.kind)
        result = evaluate_reference(t, PARAMETER_SETS["dwz-2016-float"])
        for p in result.players:
            seen.add(p.group)
            if p.exceptional:
                seen.add("exceptional")
            if p.new_residual_games:
                seen.add("residual")
        if any(g.result in ("+-", "-+", "--") for g in t.games):
            seen.add("forfeit")
        if any(p.residual_games for p in t.players):
            seen.add("held residual")
    assert seen >= {
        "individual", "team", "match", "established", "first_stage", "second_stage",
        "remaining", "exceptional", "residual", "forfeit", "held residual",
    }  # fmt: skip


def test_the_untraced_evaluation_builds_no_trace() -> None:
    """The replay's evaluation (``traced=False``) leaves the trace empty; everything else
    is compared with the reference by ``compare``."""
    from ratingdb.errors import ConvergenceError
    from tests.dwz_random import evaluate_untraced

    looked = 0
    for name, params in sorted(PARAMETER_SETS.items()):
        for k in range(6):
            t = random_tournament(random.Random(k + 101), f"{name}-{k}")
            try:
                result = evaluate_untraced(t, params)
            except ConvergenceError:
                continue
            assert result.trace.get("first_rating") is None
            assert not result.trace.get("performance") and not result.trace.get("sonderwertung")
            looked += 1
    assert looked > 50


def test_the_sonderwertung_reuses_first_ratings_only_where_no_newcomer_met_it() -> None:
    """4.7.6's second pass takes the first pass's first ratings when no first-rating
    player met an exceptional one, and computes them again when one did: both cases
    occur among the random tournaments, and each gives the reference's evaluation."""
    import importlib

    classic = importlib.import_module("ratingdb.rules.dwz_classic.evaluate")

    met: list[bool] = []
    original = classic._Evaluation._newcomers_met

    def recorded(self: object, players: dict[int, int]) -> bool:
        answer = original(self, players)
        met.append(answer)
        return answer

    params = PARAMETER_SETS["dwz-2016-float"]  # WO 2002 and WO 2014 have no Sonderwertung
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(classic._Evaluation, "_newcomers_met", recorded)
        for k in range(600):
            t = random_tournament(random.Random(k * 31 + 5), f"S{k}")
            before = len(met)
            difference = compare(t, params)
            assert difference is None, f"seed {k * 31 + 5}: {difference}"
            if len(met) > before and True in met and False in met:
                break
    assert True in met and False in met
