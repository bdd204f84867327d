"""The performances R_h in C (``ratingdb/rules/_fastsolve.c``) against the Python
iteration they replace (``solver._solve_small_py``): every root, step count, trace state and
W_e must be the same float to the last bit (compared by ``repr``: -0.0 and nan included),
for both curves, rows of every length (numpy's pairwise sums change at 8 and 128 games),
starts far from the root, and 0 % / 100 % rows mixed in."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.rules import solver
from ratingdb.rules.rounding import float_half_up
from ratingdb.rules.solver import Curve, Single

SIGMA = 200 * math.sqrt(2)
Problem = tuple[tuple[float, ...], int]



def test_the_install_builds_the_extension() -> None:
    """The extensions are part of every install (setup.py): the replay uses the compiled
    solver."""
    assert solver._fastsolve is not None


def both(problems: list[Problem], starts: list[float], curve: Curve) -> tuple[str, str]:
    ks = [k for k, (o, w2) in enumerate(problems) if 0 < w2 < 2 * len(o)]
    compiled: list[Single | None] = [None] * len(problems)
    python: list[Single | None] = [None] * len(problems)
    solver._solve_small(problems, starts, curve, ks, compiled)
    solver._solve_small_py(problems, starts, curve, ks, python)
    return repr(compiled), repr(python)


@st.composite
def rows(draw: st.DrawFn) -> tuple[list[Problem], list[float], Curve]:
    problems: list[Problem] = []
    starts: list[float] = []
    for _ in range(draw(st.integers(1, 25))):
        n = draw(st.sampled_from([1, 2, 5, 7, 8, 9, 15, 16, 17, 127, 128, 129, 200, 300]))
        base = draw(st.integers(100, 2800))
        spread = draw(st.sampled_from([0, 20, 300, 900]))
        opponents = tuple(float(base + draw(st.integers(-spread, spread))) for _ in range(n))
        problems.append((opponents, draw(st.integers(0, 2 * n))))
        starts.append(draw(st.sampled_from([float(base), 1500.0, -30000.0, 40000.0, 2000.5])))
    return problems, starts, Curve(draw(st.sampled_from(["normal", "logistic"])), SIGMA, 677)


@settings(max_examples=300, deadline=None)
@given(rows())
def test_the_compiled_performances_are_the_python_ones_to_the_bit(
    case: tuple[list[Problem], list[float], Curve],
) -> None:
    compiled, python = both(*case)
    assert compiled == python


def test_a_root_on_a_half_settles_the_same_way() -> None:
    """50 % against 1941 and 1942: R_h is 1941.5 exactly; both paths settle it there (the
    stop rule's slow case near a half runs in Python for both)."""
    curve = Curve("normal", SIGMA, 677)
    problems: list[Problem] = [((1941.0, 1942.0), 2), ((1941.0, 1942.0, 1941.0, 1942.0), 4)]
    compiled, python = both(problems, [1500.0, 2600.0], curve)
    assert compiled == python
    out: list[Single | None] = [None, None]
    solver._solve_small(problems, [1500.0, 2600.0], curve, [0, 1], out)
    assert [s.solution.values for s in out if s is not None] == [[1941.5], [1941.5]]


def call_compiled(rows: list[list[Any]], cdf: Any) -> object:
    """``_fastsolve.solve_small`` on ``rows`` (one point in each) with ``cdf`` as P."""
    assert solver._fastsolve is not None
    return solver._fastsolve.solve_small(
        rows, [1.0] * len(rows), [1500.0] * len(rows), True, SIGMA, 0.0, 1.0, cdf, np.exp,
        np.frombuffer, solver._rounds_alike, solver.TOLERANCE, 10, 5000.0, 2, 1e-3,
        float_half_up, 9,
    )  # fmt: skip


def test_an_error_in_the_ufunc_is_raised_not_swallowed() -> None:
    """A failing P (here: a cdf that raises) reaches the caller as the Python error, and
    an opponent that is not a number is a TypeError, not a crash."""

    def broken(values: np.ndarray) -> np.ndarray:
        raise ArithmeticError("no P today")

    with pytest.raises(ArithmeticError, match="no P today"):
        call_compiled([[1500.0, 1600.0]], broken)
    with pytest.raises(TypeError):
        call_compiled([["1500"]], np.exp)


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=True),
        st.floats(-5000, 5000),
        st.integers(-(10**11), 10**11).map(lambda k: k / 2 / 10**9),  # halves at 9 places
        st.integers(-(10**7), 10**7).map(lambda k: k / 2 / 10**6),
    ),
    st.sampled_from([0, 6, 9, 15, 16]),
)
def test_the_compiled_settling_is_float_half_up(value: float, places: int) -> None:
    """The roots are settled in C (``_settled``): the exact half-up of the binary value,
    -0.0 and the range beyond 2^53 (taken by the Python function) included."""
    assert solver._fastsolve is not None
    got = solver._fastsolve.settled(value, places, float_half_up)
    expected = float_half_up(value, places) if math.isfinite(value) else value
    assert repr(got) == repr(expected)


def test_rows_that_lie_about_their_length_and_a_p_of_the_wrong_type() -> None:
    """A row whose ``len`` is not what it iterates (read as what it iterates, never past
    the memory it was given) and a P that is not float64 (refused, not read past its end):
    the review's two memory cases."""

    class Liar:
        def __len__(self) -> int:
            return 1

        def __iter__(self) -> Any:
            return iter([1500.0] * 5000)

    got = call_compiled([Liar()], solver.ndtr)  # type: ignore[list-item]
    assert isinstance(got, list) and len(got) == 1
    with pytest.raises(TypeError, match="float64"):
        call_compiled([[1500.0] * 40], lambda a: solver.ndtr(a).astype(np.float32))


def test_p_is_scipys_own_c_function_and_gives_its_values_to_the_bit() -> None:
    """The compiled solvers call the C function behind scipy's ``ndtr`` and ``expit``
    (``solver._twin``: the capsule of ``scipy.special.cython_special``) and numpy's own
    float64 loop of ``exp`` instead of the ufuncs once per step; on 300,000 values from
    the tails to zero each agrees with its ufunc to the bit, and with them the
    performances are the Python ones to the bit."""
    assert solver._fastsolve is not None
    from scipy.special import expit, ndtr

    rng = np.random.default_rng(24)
    values = np.concatenate(
        [rng.normal(0, 3, 200_000), rng.uniform(-45, 45, 100_000), [0.0, -0.0, 5e-324, -40.0]]
    )
    for ufunc, twin in ((ndtr, solver._NDTR), (expit, solver._EXPIT), (np.exp, solver._EXP)):
        if ufunc is np.exp:
            values = -0.5 * values * values
        assert not callable(twin), f"scipy exports no C function for {ufunc.__name__}"
        got = solver._fastsolve.scalar_values(twin, values.tobytes())
        assert got == ufunc(values).tobytes()
    curve = Curve("normal", SIGMA, 677)
    problems: list[Problem] = [((1500.0, 1720.0, 1980.0), 3), ((2100.0,) * 9, 5)]
    compiled, python = both(problems, [1500.0, 1500.0], curve)
    assert compiled == python


def test_a_capsule_of_another_signature_is_refused() -> None:
    """scipy exports float and long double variants too: only ``double (double)`` is
    taken, and a ufunc scipy exports no C function for stays the ufunc."""
    assert solver._fastsolve is not None
    from scipy.special import cython_special

    single = next(
        capsule
        for key, capsule in cython_special.__pyx_capi__.items()
        if key.endswith("expit") and "float (" in repr(capsule)
    )
    with pytest.raises(ValueError):
        solver._fastsolve.scalar_values(single, np.zeros(3).tobytes())
    assert solver._twin(np.logical_not) is np.logical_not  # no float64 -> float64 loop


def test_numpys_loop_is_taken_from_ufuncs_of_one_float64_only() -> None:
    assert solver._fastsolve is not None
    for wrong in (np.logical_not, np.divmod, math.exp, "exp"):
        with pytest.raises(ValueError):
            solver._fastsolve.double_loop(wrong, np.ufunc)
    with pytest.raises(ValueError):  # a loop of two operands is no function of one
        add = solver._fastsolve.double_loop(np.add, np.ufunc)
        solver._fastsolve.scalar_values(add, np.zeros(2).tobytes())
    with pytest.raises(TypeError):
        solver._fastsolve.double_loop(np.exp, object())
    loop = solver._fastsolve.double_loop(np.sqrt, np.ufunc)
    data = np.array([0.0, 2.0, 1e300, 5e-324])
    assert solver._fastsolve.scalar_values(loop, data.tobytes()) == np.sqrt(data).tobytes()


def test_numpys_loop_leaves_no_floating_point_flag_behind() -> None:
    """An underflow inside the loop is not reported by numpy's next operation."""
    assert solver._fastsolve is not None
    with np.errstate(all="raise"):
        solver._fastsolve.scalar_values(solver._EXP, np.array([-800.0, -1e5]).tobytes())
        assert float(np.add(np.array([1.0]), 1.0)[0]) == 2.0
