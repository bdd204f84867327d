"""The solver's first-rating groups (classic 4.7.4, WO 2026 3.4.4.1): each root makes
W = W_e, a group's settled values keep the symmetry of its games, and the extreme rule's
value is R_c -+ 677 over the opponents (classic 4.7.2.1.2)."""

from __future__ import annotations

import math

import numpy as np

from ratingdb.rules import solver
from ratingdb.rules.solver import Curve, Equation

SIGMA = 200 * math.sqrt(2)


def ndtr_of(d: float) -> float:
    return 0.5 * math.erfc(-d / SIGMA / math.sqrt(2))


def test_a_group_of_three_newcomers_makes_every_w_equal_w_e() -> None:
    """Three newcomers who drew each other, each against two established players."""
    eqs = [
        Equation("A", (1600.0, 1700.0), (2, 0), (1, 2), (1, 1)),
        Equation("B", (1500.0, 1800.0), (2, 1), (0, 2), (1, 1)),
        Equation("C", (1400.0, 1900.0), (0, 2), (0, 1), (1, 1)),
    ]
    found = solver.solve(eqs, [1650.0, 1700.0, 1600.0], Curve("normal", SIGMA, 677))
    assert found.trace[0] == [1650.0, 1700.0, 1600.0]
    for eq, value in zip(eqs, found.values, strict=True):
        others = [*eq.fixed, *(found.values[j] for j in eq.linked)]
        assert abs(math.fsum(ndtr_of(value - o) for o in others) - eq.w2 / 2) < 1e-8


def test_a_group_without_a_constant_opponent_in_an_equation_row() -> None:
    """N0 played only N1, whose result is extreme (no row W = W_e has a constant
    opponent): a draw between them gives both the same value, R_c + 677 of N1."""
    eqs = [
        Equation("N0", (), (), (1,), (1,)),
        Equation("N1", (1200.0, 1300.0), (2, 2), (0,), (1,), "high"),
    ]
    found = solver.solve(eqs, [1500.0, 1500.0], Curve("normal", SIGMA, 677))
    assert found.values[0] == found.values[1]


def test_a_group_of_numpy_positions_is_solved_as_python_ints() -> None:
    curve = Curve("normal", SIGMA, 677)
    as_numpy = [
        Equation("A", (1600.0,), (1,), (np.int64(1),), (2,)),  # type: ignore[arg-type]
        Equation("B", (1500.0,), (1,), (np.int64(0),), (0,)),  # type: ignore[arg-type]
    ]
    plain = [Equation("A", (1600.0,), (1,), (1,), (2,)), Equation("B", (1500.0,), (1,), (0,), (0,))]
    assert repr(solver.solve(as_numpy, [1600.0, 1500.0], curve)) == repr(
        solver.solve(plain, [1600.0, 1500.0], curve)
    )


def test_the_extreme_rule_takes_the_exact_mean() -> None:
    """R_c + 677 over the opponents: their correctly rounded sum over their number."""
    curve = Curve("normal", SIGMA, 677)
    fixed = tuple(1000.0 + 0.1 * k for k in range(19))
    eq = Equation("X", fixed, (2,) * 19, extreme="high")
    assert solver.solve_one(eq, 1500.0, curve).values == [math.fsum(fixed) / 19 + 677]


def _group(seed: int, curve_kind: str) -> tuple[list[Equation], np.ndarray, Curve]:
    """Four newcomers who played each other (both ways) and some rated players."""
    rng = np.random.default_rng(seed)
    pairs = [(0, 1), (1, 2), (2, 3), (0, 2)]
    linked: list[list[int]] = [[] for _ in range(4)]
    scores: list[list[int]] = [[] for _ in range(4)]
    for a, b in pairs:
        s = int(rng.integers(0, 3))
        linked[a].append(b), scores[a].append(s)
        linked[b].append(a), scores[b].append(2 - s)
    eqs = []
    for k in range(4):
        fixed = tuple(float(v) for v in rng.integers(1000, 2200, size=int(rng.integers(1, 4))))
        w2 = tuple(int(v) for v in rng.integers(0, 3, size=len(fixed)))
        eqs.append(Equation(f"N{k}", fixed, w2, tuple(linked[k]), tuple(scores[k])))
    x = rng.uniform(1100, 2100, size=4)
    return eqs, x, Curve(curve_kind, SIGMA, 677)  # type: ignore[arg-type]


def test_the_jacobian_is_the_derivative_of_the_residuals_and_the_potential_their_source() -> None:
    """Newton's method steers by these: dF/dx from the compiled terms against central
    differences of F, and dG/dx of the potential against F itself (F = W - W_e)."""
    h = 1e-4
    for seed in range(20):
        for kind in ("normal", "logistic"):
            eqs, x, curve = _group(seed, kind)
            system = solver._System(eqs, curve)
            jac = system.jacobian(x)
            for j in range(len(x)):
                step = np.zeros(len(x))
                step[j] = h
                numeric = (system.residual(x + step) - system.residual(x - step)) / (2 * h)
                assert np.allclose(jac[:, j], numeric, rtol=1e-5, atol=1e-9), (seed, kind, j)
                slope = (system.potential(x + step) - system.potential(x - step)) / (2 * h)
                assert math.isclose(slope, system.residual(x)[j], rel_tol=1e-5, abs_tol=1e-6)
