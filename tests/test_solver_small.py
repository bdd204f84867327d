"""Many single unknowns at once (the performances R_h, WO 2026 3.6, classic 4.8):
``solve_many`` and ``solve_roots`` are ``solve_one``'s iteration for each row, every value,
step count, trace and W_e to the last bit, whatever the rows' lengths and the order of the
games; W_e is the correctly rounded sum of scipy's P (WO 3.3.2, docs/rules-dwz2026.md)."""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, ndtr

from ratingdb.rules import solver
from ratingdb.rules.solver import Curve, Equation, Single, solve_many, solve_one

SIGMA = 200 * math.sqrt(2)
Problem = tuple[tuple[float, ...], int]


def fingerprint(single: Single | None) -> object:
    if single is None:
        return None
    s = single.solution
    return (s.values, s.steps, s.trace, single.expected)


@st.composite
def many(draw: st.DrawFn) -> tuple[list[Problem], list[float], Curve]:
    """Up to 30 players with 1-12 games each against ratings 100-2800 (some against one
    rating only), any score, starts anywhere from -500 to 4000."""
    problems: list[Problem] = []
    starts: list[float] = []
    for _ in range(draw(st.integers(1, 30))):
        n = draw(st.integers(1, 12))
        base = draw(st.integers(100, 2800))
        spread = draw(st.sampled_from([0, 20, 300]))
        opponents = tuple(float(base + draw(st.integers(-spread, spread))) for _ in range(n))
        problems.append((opponents, draw(st.integers(0, 2 * n))))
        starts.append(float(draw(st.integers(-500, 4000))))
    return problems, starts, Curve(draw(st.sampled_from(["normal", "logistic"])), SIGMA, 677)


@settings(max_examples=200, deadline=None)
@given(many())
def test_each_of_many_rows_is_solve_ones_solution(
    case: tuple[list[Problem], list[float], Curve],
) -> None:
    problems, starts, curve = case
    for (opponents, w2), start, single in zip(
        problems, starts, solve_many(problems, starts, curve), strict=True
    ):
        if not 0 < w2 < 2 * len(opponents):
            assert single is None  # 0 % or 100 %: the caller's rule
            continue
        assert single is not None
        alone = solve_one(
            Equation("X", opponents, (w2,) + (0,) * (len(opponents) - 1)), start, curve
        )
        assert (alone.values, alone.steps, alone.trace) == fingerprint(single)[:3]  # type: ignore[index]


@settings(max_examples=100, deadline=None)
@given(many())
def test_every_expected_score_is_the_correctly_rounded_sum_of_scipys_p(
    case: tuple[list[Problem], list[float], Curve],
) -> None:
    """W_e at every step is ``math.fsum`` of ``scipy.special.ndtr`` (or ``expit``) of the
    rating differences: the float precision as docs/rules-dwz2026.md defines it."""
    problems, starts, curve = case
    for (opponents, _), single in zip(problems, solve_many(problems, starts, curve), strict=True):
        if single is None:
            continue
        for state, we in zip(single.solution.trace[1:], single.expected, strict=True):
            d = state[0] - np.asarray(opponents)
            p = ndtr(d / SIGMA) if curve.kind == "normal" else expit(d * (math.log(10) / 400))
            assert we == math.fsum(p.tolist())


def test_a_large_tournament_gives_each_player_his_own_solution() -> None:
    """60 players with 9 games: the same numbers together as each player alone."""
    problems = [
        (tuple(float(1200 + (37 * k + 101 * g) % 900) for g in range(9)), 1 + k % 17)
        for k in range(60)
    ]
    starts = [1500.0 + 7 * k for k in range(60)]
    curve = Curve("normal", SIGMA, 677)
    together = solve_many(problems, starts, curve)
    one_by_one = [solve_many([p], [s], curve)[0] for p, s in zip(problems, starts, strict=True)]
    assert [fingerprint(s) for s in together] == [fingerprint(s) for s in one_by_one]
    assert all(s is not None for s in together)


def test_a_performance_at_zero_slope_makes_a_bracketing_move() -> None:
    """A start 29,000 points away: P's density underflows to 0, so there is no Newton step;
    the iteration moves 1000 points towards the open side instead of dividing by zero."""
    curve = Curve("normal", SIGMA, 677)
    problems: list[Problem] = [((1000.0, 1100.0, 1200.0), 3)]
    small = solve_many(problems, [30000.0], curve)
    assert small[0] is not None and small[0].solution.trace[1] == [29000.0]


@settings(max_examples=100, deadline=None)
@given(many())
def test_the_roots_alone_are_solve_manys_roots(
    case: tuple[list[Problem], list[float], Curve],
) -> None:
    """``solve_roots`` (the untraced R_h) gives each of ``solve_many``'s roots to the bit,
    and None where it gives None (0 % / 100 %, no root within the step cap)."""
    problems, starts, curve = case
    roots = solver.solve_roots(problems, starts, curve)
    expected = [
        None if s is None else s.solution.values[0] for s in solve_many(problems, starts, curve)
    ]
    assert [None if r is None else r.hex() for r in roots] == [
        None if r is None else r.hex() for r in expected
    ]


@settings(max_examples=100, deadline=None)
@given(many(), st.randoms(use_true_random=False))
def test_a_root_does_not_depend_on_the_order_of_the_games(
    case: tuple[list[Problem], list[float], Curve], rng: random.Random
) -> None:
    """W_e is the correctly rounded sum of the games' P (math.fsum): the games of every
    row in another order give the same steps, W_e and root to the bit."""
    problems, starts, curve = case
    shuffled = [(tuple(rng.sample(o, len(o))), w2) for o, w2 in problems]
    assert [fingerprint(s) for s in solve_many(shuffled, starts, curve)] == [
        fingerprint(s) for s in solve_many(problems, starts, curve)
    ]
