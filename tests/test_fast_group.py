"""The first-rating groups' Newton method in C (``_fastsolve.newton_group``)
against the Python method it replaces (``solver._newton``, then ``solver._polished``),
and ``solver.solve_alone`` against ``solver.solve_one``.

The compiled group method computes W_e, its sums, P and the density as the Python one
does, and takes the Newton direction and the dot products from numpy's own loops of
``linalg.solve`` and ``matmul``: every settled root, step count and trace state must be
the same float to the last bit (compared by ``repr``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr

from ratingdb.rules import solver
from ratingdb.rules.rounding import float_half_up
from ratingdb.rules.solver import Curve, Equation, Extreme, Solution

try:
    from ratingdb.rules import _fastsolve
except ImportError:  # pragma: no cover - an install without a C compiler
    _fastsolve = None  # type: ignore[assignment]

SIGMA = 200 * math.sqrt(2)



def python_solution(eqs: list[Equation], start: list[float], curve: Curve) -> Solution:
    """What :func:`solver.solve` gives without the compiled group method."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver, "_newton_compiled", lambda *args: None)
        return solver.solve(eqs, start, curve)


@st.composite
def groups(draw: st.DrawFn) -> tuple[list[Equation], list[float], Curve]:
    """Newcomers who play each other (every linked game in both rows) and established
    opponents, scores strictly between 0 % and 100 % against the outside."""
    m = draw(st.integers(2, 9))
    base = draw(st.integers(300, 2400))
    fixed: list[list[float]] = [[] for _ in range(m)]
    fixed_w2: list[list[int]] = [[] for _ in range(m)]
    linked: list[list[int]] = [[] for _ in range(m)]
    linked_w2: list[list[int]] = [[] for _ in range(m)]
    for a in range(m):
        for b in range(a + 1, m):
            if draw(st.booleans()):
                w2 = draw(st.integers(0, 2))
                linked[a].append(b)
                linked_w2[a].append(w2)
                linked[b].append(a)
                linked_w2[b].append(2 - w2)
    one_sided = draw(st.booleans())  # a game only in one row (a 2nd-stage opponent)
    if one_sided and linked[0]:
        j = linked[0][0]
        at = linked[j].index(0)
        del linked[j][at], linked_w2[j][at]
    extremes: list[Extreme | None] = [None] * m
    for k in range(m):
        n = draw(st.integers(1, 9))
        for _ in range(n):
            fixed[k].append(float(base + draw(st.integers(-400, 400))))
            fixed_w2[k].append(draw(st.integers(0, 2)))
        if not 0 < sum(fixed_w2[k]) < 2 * n:  # a finite solution: neither 0 % nor 100 %
            fixed_w2[k][0] = 1
        if k and draw(st.integers(0, 4)) == 0:  # the extreme rule (classic 4.7.2.1.2)
            extremes[k] = draw(st.sampled_from(["high", "low"]))
    eqs = [
        Equation(
            f"N{k}",
            tuple(fixed[k]),
            tuple(fixed_w2[k]),
            tuple(linked[k]),
            tuple(linked_w2[k]),
            extremes[k],
        )
        for k in range(m)
    ]
    start = [float(base + draw(st.integers(-600, 600))) for _ in range(m)]
    curve = Curve(draw(st.sampled_from(["normal", "logistic"])), SIGMA, 677)
    return eqs, start, curve


@settings(max_examples=400, deadline=None)
@given(groups())
def test_the_compiled_group_settles_where_python_settles(
    group: tuple[list[Equation], list[float], Curve],
) -> None:
    eqs, start, curve = group
    compiled = solver._newton_compiled(eqs, start, curve)
    python = python_solution(eqs, start, curve)
    if compiled is None:  # the Python method left Newton too (Gauss-Seidel, scipy)
        assert python.steps > 0
        return
    assert repr(compiled) == repr(python)


def test_a_group_of_three_newcomers_is_solved_in_c() -> None:
    """Three newcomers who drew each other, each against two established players: the
    compiled method takes the group and its roots are the Python ones."""
    eqs = [
        Equation("A", (1600.0, 1700.0), (2, 0), (1, 2), (1, 1)),
        Equation("B", (1500.0, 1800.0), (2, 1), (0, 2), (1, 1)),
        Equation("C", (1400.0, 1900.0), (0, 2), (0, 1), (1, 1)),
    ]
    curve = Curve("normal", SIGMA, 677)
    compiled = solver._newton_compiled(eqs, [1650.0, 1700.0, 1600.0], curve)
    assert compiled is not None
    assert repr(compiled) == repr(python_solution(eqs, [1650.0, 1700.0, 1600.0], curve))
    assert compiled.trace[0] == [1650.0, 1700.0, 1600.0]
    # each root makes W = W_e to the solver's accuracy
    for eq, value in zip(eqs, compiled.values, strict=True):
        others = [*eq.fixed, *(compiled.values[j] for j in eq.linked)]
        expected = float(sum(ndtr_of(value - o) for o in others))
        assert abs(expected - eq.w2 / 2) < 1e-8


def ndtr_of(d: float) -> float:
    return 0.5 * math.erfc(-d / SIGMA / math.sqrt(2))


def test_groups_with_extreme_rows_and_one_sided_games_take_the_squared_residuals() -> None:
    """An extreme row (R_c - 677 over the opponents' current values) and a game that
    stands in one row only leave no potential: both methods search on the squared
    residuals, and the values agree."""
    curve = Curve("normal", SIGMA, 677)
    pair = [
        Equation("A", (1600.0, 1700.0), (1, 2), (1,), (2,)),
        Equation("B", (1500.0,), (0,), (0,), (0,), "low"),
    ]
    compiled = solver._newton_compiled(pair, [1600.0, 1500.0], curve)
    assert compiled is not None
    assert repr(compiled) == repr(python_solution(pair, [1600.0, 1500.0], curve))
    assert compiled.values[1] == float_half_up((1500.0 + compiled.values[0]) / 2 - 677, 9)
    one_sided = [pair[0], Equation("B", (1500.0,), (1,))]  # A's game is not in B's row
    compiled = solver._newton_compiled(one_sided, [1600.0, 1500.0], curve)
    assert compiled is not None
    assert repr(compiled) == repr(python_solution(one_sided, [1600.0, 1500.0], curve))


def test_groups_the_compiled_method_leaves_to_python() -> None:
    curve = Curve("normal", SIGMA, 677)
    pair = [
        Equation("A", (1600.0,), (1,), (1,), (2,)),
        Equation("B", (1500.0,), (1,), (0,), (0,)),
    ]
    assert solver._newton_compiled(pair, [1600.0, 1500.0], curve) is not None
    sure = [Equation("A", (-math.inf, 1600.0), (2, 1), (1,), (2,)), pair[1]]
    assert solver._newton_compiled(sure, [1600.0, 1500.0], curve) is None
    many = [
        Equation(f"N{k}", (1500.0,), (1,), ((k + 1) % 70, (k - 1) % 70), (1, 1)) for k in range(70)
    ]
    assert solver._newton_compiled(many, [1500.0] * 70, curve) is None  # LAPACK's size


def call_newton_group(eqs: list[Equation], w: tuple[float, ...], cdf: object) -> object:
    """``_fastsolve.newton_group`` on ``eqs`` (no extreme row) with ``cdf`` as P."""
    assert _fastsolve is not None and solver._LINEAR is not None
    curve = Curve("normal", SIGMA, 677)
    return _fastsolve.newton_group(
        tuple(e.fixed for e in eqs), tuple(e.linked for e in eqs), w, (1600.0, 1500.0),
        (0, 0), 677.0, True, True, SIGMA, curve._scale, SIGMA * math.sqrt(2 * math.pi), cdf,
        np.exp, np.logaddexp, *solver._LINEAR, np.frombuffer, solver._rounds_alike,
        solver.TOLERANCE, solver.MAX_NEWTON, solver.MAX_STEP, solver.POLISH_STEPS,
        solver.POLISH_REACH, float_half_up, solver.PLACES,
    )  # fmt: skip


def test_an_error_in_p_is_raised_not_swallowed() -> None:
    def broken(values: object) -> object:
        raise RuntimeError("P failed")

    eqs = [Equation("A", (1600.0,), (1,), (1,), (2,)), Equation("B", (1500.0,), (1,), (0,), (0,))]
    with pytest.raises(RuntimeError, match="P failed"):
        call_newton_group(eqs, (1.5, 0.5), broken)


def test_a_linked_position_outside_the_group_is_an_error() -> None:
    eqs = [Equation("A", (1600.0,), (1,), (5,), (2,)), Equation("B", (1500.0,), (1,), (0,), (0,))]
    with pytest.raises(IndexError):
        call_newton_group(eqs, (1.5, 0.5), ndtr)


@st.composite
def singles(draw: st.DrawFn) -> tuple[Equation, float, Curve]:
    n = draw(st.integers(1, 40))
    base = draw(st.integers(100, 2700))
    fixed = tuple(float(base + draw(st.integers(-500, 500))) for _ in range(n))
    w2 = tuple(draw(st.integers(0, 2)) for _ in range(n))
    total = sum(w2)
    extreme: Extreme | None = draw(st.sampled_from([None, "high", "low"]))
    if extreme is None and not 0 < total < 2 * n:
        extreme = "high" if total else "low"
    start = float(base + draw(st.integers(-3000, 3000)))
    curve = Curve(draw(st.sampled_from(["normal", "logistic"])), SIGMA, 677)
    return Equation("X", fixed, w2, extreme=extreme), start, curve


@settings(max_examples=400, deadline=None)
@given(singles())
def test_solve_alone_is_solve_one_to_the_bit(single: tuple[Equation, float, Curve]) -> None:
    eq, start, curve = single
    assert repr(solver.solve_alone(eq, start, curve)) == repr(solver.solve_one(eq, start, curve))


def test_the_extreme_rule_takes_numpys_mean() -> None:
    """R_c +- 677 over the opponents: the mean as ndarray.mean adds (pairwise from 8 on)."""
    curve = Curve("normal", SIGMA, 677)
    fixed = tuple(1000.0 + 0.1 * k for k in range(19))
    eq = Equation("X", fixed, (2,) * 19, extreme="high")
    value = float(np.asarray(fixed).mean()) + 677
    assert solver.solve_one(eq, 1500.0, curve).values == [value]


def test_numpys_solve_and_dot_loops_give_numpys_bits() -> None:
    """The loops the compiled group method calls: np.linalg.solve and np.dot to the bit on
    systems of every size it takes, and None where np.linalg.solve raises LinAlgError."""
    assert solver._LINEAR is not None
    solve, dot = solver._LINEAR
    rng = np.random.default_rng(7)
    for m in (1, 2, 3, 5, 8, 15, 16, 17, 33, 64):
        for _ in range(20):
            a = rng.normal(size=(m, m)) * 10.0 ** rng.integers(-3, 3)
            b = rng.normal(size=m)
            x = np.linalg.solve(a, b)
            assert _fastsolve.solve_and_dot(solve, dot, a.tobytes(), b.tobytes()) == (
                x.tobytes(),
                float(np.dot(b, x)),
            )
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.solve(singular, np.ones(2))
    assert _fastsolve.solve_and_dot(solve, dot, singular.tobytes(), np.ones(2).tobytes()) is None
    with pytest.raises(ValueError):  # the loop of a function of one float64 is not solve
        _fastsolve.solve_and_dot(solver._EXP, dot, singular.tobytes(), np.ones(2).tobytes())


def test_a_group_of_numpy_positions_is_taken_as_python_ints() -> None:
    curve = Curve("normal", SIGMA, 677)
    eqs = [
        Equation("A", (1600.0,), (1,), (np.int64(1),), (2,)),  # type: ignore[arg-type]
        Equation("B", (1500.0,), (1,), (np.int64(0),), (0,)),  # type: ignore[arg-type]
    ]
    compiled = solver._newton_compiled(eqs, [1600.0, 1500.0], curve)
    assert repr(compiled) == repr(python_solution(eqs, [1600.0, 1500.0], curve))


def test_a_group_without_a_constant_opponent_in_an_equation_row() -> None:
    """N0 played only N1, whose result is extreme (no row W = W_e has a constant
    opponent): the Python method's W_e starts from integers there (a bincount of nothing)
    and must still give the compiled method's values."""
    curve = Curve("normal", SIGMA, 677)
    eqs = [
        Equation("N0", (), (), (1,), (1,)),
        Equation("N1", (1200.0, 1300.0), (2, 2), (0,), (1,), "high"),
    ]
    compiled = solver._newton_compiled(eqs, [1500.0, 1500.0], curve)
    assert compiled is not None
    assert repr(compiled) == repr(python_solution(eqs, [1500.0, 1500.0], curve))
    assert compiled.values[0] == compiled.values[1]  # a draw: the same value
