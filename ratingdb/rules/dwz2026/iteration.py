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
    """

    id: str
    fixed: tuple[Num, ...]
    linked: tuple[int, ...]
    w2: int
    n: int


@dataclass(frozen=True, slots=True)
class IterationOutcome:
    values: list[Num]
    steps: int
    trace: list[list[Num]]


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
    corrections: list[Num] = []
    for step in range(1, max_steps + 1):
        corrections = [
            arithmetic.correction(
                it.w2,
                arithmetic.expected(
                    current[pos], (*it.fixed, *(current[j] for j in it.linked))
                ),
                it.n,
            )
            for pos, it in enumerate(iterants)
        ]
        new = [value + d for value, d in zip(current, corrections, strict=True)]
        trace.append(list(new))
        if arithmetic.converged(corrections):
            return IterationOutcome(new, step, trace)
        if table:
            key = tuple(new)
            if key in seen:
                return IterationOutcome(_cycle_end(trace, seen[key], iterants), step, trace)
            seen[key] = step
        current = new
    unsettled = [
        it.id
        for it, d in zip(iterants, corrections, strict=True)
        if not arithmetic.converged([d])
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
