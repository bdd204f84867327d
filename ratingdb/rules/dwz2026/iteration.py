"""The simultaneous first-rating iteration and the performance iteration (WO Anhang 1.1).

Anhang 1.1.2: every iterating player moves from R_z to R_z + D(p'), p' = 0.5 + (W - W_e)/n,
where W_e uses the opponents' values of the *previous* step (a Jacobi iteration: all
players move at once). Anhang 1.1.3: the procedure ends when every D' = 0 (table precision)
or max |D'| falls below the tolerance (float precision).

With table values the iteration can end in a cycle of +-1 instead of a fixed point
(Anhang 1.1.3, footnote 12): when a state repeats and every player's values in that cycle
span at most 1, each player takes the highest value of the cycle. Any other cycle, or
reaching ``max_steps``, raises :class:`ConvergenceError`.

Anhang 1.1.4: the performance R_h of an established player is the same iteration with one
player and constant opponents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratingdb.rules.dwz2026.arithmetic import Arithmetic, Num
from ratingdb.rules.errors import ConvergenceError


@dataclass(frozen=True, slots=True)
class Iterant:
    """One iterating player: games against constant ratings and against other iterants.

    ``fixed`` holds the constant opponent ratings (residual games, established opponents,
    a fictitious draw), ``linked`` the positions of iterating opponents (repeats allowed);
    ``w2`` is the score in half-points over all of them, ``n`` the number of games.
    ``linked_w2`` holds the half-points scored in each ``linked`` game and ``fixed_w2``
    those of each ``fixed`` game (needed by the exact solver, :mod:`ratingdb.rules.solver`).
    """

    id: str
    fixed: tuple[Num, ...]
    linked: tuple[int, ...]
    w2: int
    n: int
    linked_w2: tuple[int, ...] = ()
    fixed_w2: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class IterationOutcome:
    """End values R_i, the number of steps, and per step: values, W_e and D'.

    ``trace[0]`` holds the start values; ``trace[k]``, ``expected[k - 1]`` and
    ``corrections[k - 1]`` belong to step k. ``method``: "iteration" (Anhang 1.1.2),
    "solver" (W = W_e solved exactly, float precision) or "fallback" (a table iteration
    that did not end, replaced by the exact solution rounded half-up).
    """

    values: list[Num]
    steps: int
    trace: list[list[Num]]
    expected: list[list[Num]]
    corrections: list[list[Num]]
    method: str = "iteration"
    #: members of groups without a finite solution: "up" got fictitious draws, "down"
    #: R_i = -infinity (ratingdb/rules/dwz2026/exact.py)
    unbounded: dict[str, list[str]] | None = None


def iterate(
    iterants: Sequence[Iterant],
    start: Sequence[Num],
    arithmetic: Arithmetic,
    max_steps: int,
) -> IterationOutcome:
    """Run the simultaneous iteration from ``start`` (step 0) to its end value R_i."""
    current = list(start)
    trace: list[list[Num]] = [list(current)]
    seen: dict[tuple[Num, ...], int] = {tuple(current): 0}
    table = arithmetic.precision == "table"
    expected_trace: list[list[Num]] = []
    correction_trace: list[list[Num]] = []
    corrections: list[Num] = []
    for step in range(1, max_steps + 1):
        expected = [
            arithmetic.expected(current[pos], (*it.fixed, *(current[j] for j in it.linked)))
            for pos, it in enumerate(iterants)
        ]
        corrections = [
            arithmetic.correction(it.w2, we, it.n)
            for it, we in zip(iterants, expected, strict=True)
        ]
        new = [value + d for value, d in zip(current, corrections, strict=True)]
        trace.append(new)
        expected_trace.append(expected)
        correction_trace.append(corrections)
        if arithmetic.converged(corrections):
            return IterationOutcome(new, step, trace, expected_trace, correction_trace)
        if table:
            key = tuple(new)
            if key in seen:
                end = _cycle_end(trace, seen[key], iterants)
                return IterationOutcome(end, step, trace, expected_trace, correction_trace)
            seen[key] = step
        current = new
    unsettled = [
        it.id for it, d in zip(iterants, corrections, strict=True) if not arithmetic.converged([d])
    ]
    raise ConvergenceError(
        f"the iteration did not converge within {max_steps} steps "
        f"(still moving: {', '.join(unsettled)})",
        unsettled,
    )


def _cycle_end(trace: list[list[Num]], first: int, iterants: Sequence[Iterant]) -> list[Num]:
    """Apply the +-1 rule to the cycle trace[first:] (the last state repeats trace[first])."""
    cycle = trace[first:-1]
    result: list[Num] = []
    wide: list[str] = []
    for pos, it in enumerate(iterants):
        values = [state[pos] for state in cycle]
        if max(values) - min(values) > 1:
            wide.append(it.id)
        result.append(max(values))
    if wide:
        raise ConvergenceError(
            f"the iteration cycles with a span of more than 1 point for {', '.join(wide)}",
            wide,
        )
    return result
