"""The first-rating iteration of the classic rules (4.7.2.1.3, 4.7.4) and R_h (4.8).

Every iterating player ("runner") moves from R to R + D(0.5 + (W - W_e)/n) (4.7.2.1.3),
W_e taken against the opponents' values of the previous step: all runners move at once,
as the Gesamtiteration of 4.7.4 ("bei jedem Iterationsschritt [koennen sich] die
Wertungszahlen jedes einzelnen Spielers ohne DWZ aendern") describes. A single runner
against constant opponents is the individual Teiliteration of 4.7.2.1.3 and the
performance R_h of 4.8.

A runner with 0 % or 100 % of the points does not iterate (4.7.2.1.2: its strength "ist
... nicht bestimmbar"): its value is R_c -+ 677 over the opponents' current values.

This module is the table precision's iteration. Its stop rule, "bis zur Konstanz der
Einerstellen" (4.7.4): every value is an integer, so the units digits are constant when a
step changes no value (every D = 0, which is also the "W und We gleich" of 4.7.2.1.3 to
the two digits of the tables).

With table values the iteration can oscillate instead (the smallest non-zero D is 7). The
rules are silent; when a state repeats, each runner takes the mean of its values over the
cycle, rounded half-up, if no runner's values in the cycle span more than
``max_cycle_span``; a wider cycle, or reaching the step cap, raises ConvergenceError (the
evaluation then takes the exact solution, see :mod:`.evaluate`).

Float precision does not iterate: the point where W = W_e is solved for directly
(:mod:`ratingdb.rules.solver`), so that no step size decides where a slow iteration stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratingdb.rules.dwz_classic.arithmetic import Arithmetic, Num
from ratingdb.rules.errors import ConvergenceError
from ratingdb.rules.rounding import div_half_up
from ratingdb.rules.solver import Equation


@dataclass(frozen=True, slots=True)
class Runner:
    """One iterating player: games against constant ratings (``fixed``) and against other
    runners (``linked``, positions, repeats allowed), with the half-points of each game."""

    id: str
    fixed: tuple[Num, ...]
    fixed_w2: tuple[int, ...]
    linked: tuple[int, ...] = ()
    linked_w2: tuple[int, ...] = ()

    @property
    def n(self) -> int:
        return len(self.fixed) + len(self.linked)

    @property
    def w2(self) -> int:
        return sum(self.fixed_w2) + sum(self.linked_w2)

    @property
    def extreme(self) -> bool | None:
        """True for 100 %, False for 0 %, None otherwise (4.7.2.1.2)."""
        if self.w2 == 0:
            return False
        return True if self.w2 == 2 * self.n else None

    def equation(self) -> Equation:
        """The runner as an equation of the solver (:mod:`ratingdb.rules.solver`)."""
        extreme = self.extreme
        return Equation(
            self.id,
            tuple(float(v) for v in self.fixed),
            self.fixed_w2,
            self.linked,
            self.linked_w2,
            None if extreme is None else ("high" if extreme else "low"),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """End values, number of steps, all states (``trace[0]`` = start), whether the end
    came from a cycle, and how it was found: ``"iteration"`` (the table iteration),
    ``"solver"`` (W = W_e solved exactly, float precision) or ``"fallback"`` (a table
    iteration that did not end, replaced by the exact solution, rounded half-up)."""

    values: list[Num]
    steps: int
    trace: list[list[Num]]
    cycle: bool = False
    method: str = "iteration"
    #: members of groups without a finite solution, rated like a 100 % ("up") or 0 %
    #: ("down") result
    unbounded: dict[str, list[str]] | None = None


def iterate(
    runners: Sequence[Runner],
    start: Sequence[Num],
    arith: Arithmetic,
    max_steps: int,
    max_cycle_span: int,
) -> Outcome:
    current = list(start)
    trace = [current]
    seen = {tuple(current): 0}
    for step in range(1, max_steps + 1):
        new = [_next_value(pos, r, current, arith) for pos, r in enumerate(runners)]
        trace.append(new)
        if arith.settled(current, new):
            return Outcome(new, step, trace)
        if arith.precision == "table":
            key = tuple(new)
            if key in seen:
                cycle = trace[seen[key] : -1]
                return Outcome(_cycle_mean(cycle, runners, max_cycle_span), step, trace, True)
            seen[key] = step
        current = new
    moving = [r.id for pos, r in enumerate(runners) if trace[-1][pos] != trace[-2][pos]]
    raise ConvergenceError(
        f"the iteration did not settle within {max_steps} steps (still moving: "
        f"{', '.join(moving)})",
        moving,
    )


def _next_value(pos: int, runner: Runner, current: Sequence[Num], arith: Arithmetic) -> Num:
    opponents = (*runner.fixed, *(current[j] for j in runner.linked))
    if runner.extreme is not None:
        return arith.extreme_value(opponents, runner.extreme)
    own = current[pos]
    return own + arith.correction(runner.w2, arith.expected(own, opponents), runner.n)


def _cycle_mean(cycle: list[list[Num]], runners: Sequence[Runner], max_span: int) -> list[Num]:
    means: list[Num] = []
    wide: list[str] = []
    for pos, runner in enumerate(runners):
        values = [int(state[pos]) for state in cycle]
        if max(values) - min(values) > max_span:
            wide.append(runner.id)
        means.append(div_half_up(sum(values), len(values)))
    if wide:
        raise ConvergenceError(
            f"the iteration oscillates by more than {max_span} points for {', '.join(wide)}",
            wide,
        )
    return means
