"""solve_many's two ways of iterating many single unknowns: few games in all as
Python floats (``_solve_small``), many as rows of numpy arrays (``_solve_rows``). Both are
solve_one's iteration step for step; every value, step count, trace and W_e must agree to
the last bit, whatever the rows' lengths (the performances R_h, WO 2026 3.6, classic 4.8)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.rules import solver
from ratingdb.rules.solver import Curve, Equation, Single, solve_many, solve_one

SIGMA = 200 * math.sqrt(2)
Problem = tuple[tuple[float, ...], int]


def by_rows(problems: list[Problem], starts: list[float], curve: Curve) -> list[Single | None]:
    """The numpy path for every row, whatever the number of games."""
    out: list[Single | None] = [None] * len(problems)
    lengths: dict[int, list[int]] = {}
    for k, (opponents, w2) in enumerate(problems):
        if 0 < w2 < 2 * len(opponents):
            lengths.setdefault(len(opponents), []).append(k)
    for ks in lengths.values():
        solver._solve_rows(problems, starts, curve, ks, out)
    return out


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


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(many())
def test_python_floats_and_numpy_rows_agree_to_the_bit(
    case: tuple[list[Problem], list[float], Curve],
) -> None:
    problems, starts, curve = case
    assert sum(len(o) for o, _ in problems) <= solver.SMALL_GAMES  # the Python path
    small = solve_many(problems, starts, curve)
    assert [fingerprint(s) for s in small] == [
        fingerprint(s) for s in by_rows(problems, starts, curve)
    ]
    for (opponents, w2), start, single in zip(problems, starts, small, strict=True):
        if single is not None:  # solve_one's own steps, values and trace
            alone = solve_one(
                Equation("X", opponents, (w2,) + (0,) * (len(opponents) - 1)), start, curve
            )
            assert (alone.values, alone.steps, alone.trace) == fingerprint(single)[:3]  # type: ignore[index]


def test_a_tournament_beyond_the_small_limit_takes_the_rows_and_agrees() -> None:
    """60 players with 9 games (540 > SMALL_GAMES): the numpy rows without the compiled
    extension, the compiled rows with it; the same numbers as each player alone."""
    problems = [
        (tuple(float(1200 + (37 * k + 101 * g) % 900) for g in range(9)), 1 + k % 17)
        for k in range(60)
    ]
    starts = [1500.0 + 7 * k for k in range(60)]
    curve = Curve("normal", SIGMA, 677)
    assert solver.SMALL_GAMES < 540
    together = solve_many(problems, starts, curve)
    one_by_one = [solve_many([p], [s], curve)[0] for p, s in zip(problems, starts, strict=True)]
    assert [fingerprint(s) for s in together] == [fingerprint(s) for s in one_by_one]
    assert all(s is not None for s in together)


def test_a_performance_at_zero_slope_jumps_as_numpy_does() -> None:
    """A start 29,000 points away: P's density underflows to 0, numpy's step is nan (a jump
    by the bracketing rule); the Python path must take the same jump, not divide by zero."""
    curve = Curve("normal", SIGMA, 677)
    problems: list[Problem] = [((1000.0, 1100.0, 1200.0), 3)]
    small = solve_many(problems, [30000.0], curve)
    assert fingerprint(small[0]) == fingerprint(by_rows(problems, [30000.0], curve)[0])
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
