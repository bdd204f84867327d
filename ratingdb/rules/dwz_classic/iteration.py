"""The first-rating iteration of the classic rules (4.7.2.1.3, 4.7.4) and R_h (4.8).

Every iterating player ("runner") moves from R to R + D(0.5 + (W - W_e)/n) (4.7.2.1.3),
W_e taken against the opponents' values of the previous step: all runners move at once,
as the Gesamtiteration of 4.7.4 ("bei jedem Iterationsschritt [koennen sich] die
Wertungszahlen jedes einzelnen Spielers ohne DWZ aendern") describes. A single runner
against constant opponents is the individual Teiliteration of 4.7.2.1.3 and the
performance R_h of 4.8.

A runner with 0 % or 100 % of the points does not iterate (4.7.2.1.2: its strength "ist
... nicht bestimmbar"): its value is R_c -+ 677 over the opponents' current values.

Stop rule, "bis zur Konstanz der Einerstellen" (4.7.4), applied as follows:

* table precision: every value is an integer, so the units digits are constant when a
  step changes no value (every D = 0, which is also the "W und We gleich" of 4.7.2.1.3 to
  the two digits of the tables);
* float precision: every step is smaller than ``float_tolerance`` (0.01). Comparing the
  rounded values of two steps would stop a slowly converging iteration too early.

With table values the iteration can oscillate instead (the smallest non-zero D is 7). The
rules are silent; when a state repeats, each runner takes the mean of its values over the
cycle, rounded half-up, if no runner's values in the cycle span more than
``max_cycle_span``; a wider cycle, or reaching the step cap, raises ConvergenceError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratingdb.rules.dwz2026.iteration import Iterant, unbounded_group
from ratingdb.rules.dwz_classic.arithmetic import Arithmetic, Num
from ratingdb.rules.errors import ConvergenceError
from ratingdb.rules.rounding import div_half_up


@dataclass(frozen=True, slots=True)
class Runner:
    """One iterating player: games against constant ratings (``fixed``) and against other
    runners (``linked``, positions, repeats allowed), with the half-points of each game."""

    id: str
    fixed: tuple[Num, ...]
    fixed_w2: tuple[int, ...]
    linked: tuple[int, ...] = ()
    linked_w2: tuple[int, ...] = ()
    #: a member of a group without a finite first rating, rated as a 100 % result
    #: (parameter ``unbounded_as_extreme``)
    force_high: bool = False

    @property
    def n(self) -> int:
        return len(self.fixed) + len(self.linked)

    @property
    def w2(self) -> int:
        return sum(self.fixed_w2) + sum(self.linked_w2)

    @property
    def extreme(self) -> bool | None:
        """True for 100 %, False for 0 %, None otherwise (4.7.2.1.2)."""
        if self.force_high:
            return True
        if self.w2 == 0:
            return False
        return True if self.w2 == 2 * self.n else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """End values, number of steps, all states (``trace[0]`` = start) and whether the
    end came from a cycle."""

    values: list[Num]
    steps: int
    trace: list[list[Num]]
    cycle: bool = False


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


def unbounded(runners: Sequence[Runner], start: Sequence[Num]) -> list[str]:
    """Runners without a finite solution: a group that won every game against everybody
    outside it (DWZ 2026's check, :func:`ratingdb.rules.dwz2026.iteration.unbounded_group`).
    Runners with an extreme result do not iterate and count as outside opponents."""
    free = [pos for pos, r in enumerate(runners) if r.extreme is None]
    slot = {pos: k for k, pos in enumerate(free)}
    iterants = []
    for pos in free:
        r = runners[pos]
        fixed, fixed_w2 = list(r.fixed), list(r.fixed_w2)
        linked: list[int] = []
        linked_w2: list[int] = []
        for j, w2 in zip(r.linked, r.linked_w2, strict=True):
            if j in slot:
                linked.append(slot[j])
                linked_w2.append(w2)
            else:
                fixed.append(start[j])
                fixed_w2.append(w2)
        all_won = all(w == 2 for w in fixed_w2)
        iterants.append(
            Iterant(r.id, tuple(fixed), tuple(linked), r.w2, r.n, all_won, tuple(linked_w2))
        )
    return unbounded_group(iterants)
