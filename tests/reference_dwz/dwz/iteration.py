"""The simultaneous first-rating iteration and the performance iteration of every DWZ.

WO 2026 Anhang 1.1.2 (classic 4.7.2.1.3, 4.7.4): every iterating player moves from R_z to
R_z + D(p'), p' = 0.5 + (W - W_e)/n, where W_e uses the opponents' values of the
*previous* step (a Jacobi iteration: all players move at once). A single iterant against
constant opponents is the performance R_h (WO Anhang 1.1.4, classic 4.8) and the classic
individual Teiliteration (4.7.2.1.3).

The procedure ends when no value moves (:meth:`Arithmetic.converged
<tests.reference_dwz.dwz.arithmetic.Arithmetic.converged>`). With table values it can end in a
cycle instead; :class:`IterationRules` says what a family makes of one:

* WO 2026 Anhang 1.1.3 (footnote 12): a cycle spanning at most 1 point ends with each
  player's highest value (:data:`PLUS_MINUS_ONE`);
* the classic rules are silent: a cycle spanning at most ``max_cycle_span`` ends with each
  player's mean, rounded half-up (docs/rules-dwz-classic.md);
* the classic 4.7.2.1.2: an iterant with 0 % or 100 % does not iterate, its value is
  R_c -+ 677 over the opponents' current values (``extremes``).

A wider cycle, or reaching the step cap, raises :class:`ConvergenceError`; :func:`settle`
then asks the family's exact solution (:mod:`tests.reference_dwz.solver`), which float
precision uses directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ratingdb.errors import ConvergenceError
from ratingdb.rules.rounding import div_half_up
from tests.reference_dwz.dwz.arithmetic import Arithmetic, Num
from tests.reference_dwz.solver import Equation


@dataclass(frozen=True, slots=True)
class Iterant:
    """One iterating player: games against constant ratings (``fixed``: residual games,
    established opponents, a fictitious draw) and against other iterants (``linked``,
    positions, repeats allowed), with the half-points scored in each game."""

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
        """True for 100 %, False for 0 %, None otherwise (classic 4.7.2.1.2)."""
        w2 = self.w2
        if w2 == 0:
            return False
        return True if w2 == 2 * self.n else None

    def equation(self, extremes: bool = False) -> Equation:
        """The iterant as an equation of the solver; with ``extremes`` a 0 % / 100 %
        result is R_c -+ the extreme difference (classic 4.7.2.1.2)."""
        extreme = self.extreme if extremes else None
        return Equation(
            self.id,
            tuple(float(v) for v in self.fixed),
            self.fixed_w2,
            self.linked,
            self.linked_w2,
            None if extreme is None else ("high" if extreme else "low"),
        )


@dataclass(frozen=True, slots=True)
class IterationRules:
    """How a family ends a table cycle and whether extreme results iterate (see module)."""

    cycle_span: int
    cycle_value: Literal["highest", "mean"]
    extremes: bool = False


#: WO 2026 Anhang 1.1.3: alternating by +-1 ends with the higher value
PLUS_MINUS_ONE = IterationRules(1, "highest")


@dataclass(frozen=True, slots=True)
class IterationOutcome:
    """End values R_i, the number of steps, and per step: values, W_e and D'.

    ``trace[0]`` holds the start values; ``trace[k]``, ``expected[k - 1]`` and
    ``corrections[k - 1]`` belong to step k. ``cycle``: the end came from a cycle.
    ``method``: "iteration" (the table iteration), "solver" (W = W_e solved exactly, float
    precision) or "fallback" (a table iteration that did not end, replaced by the exact
    solution rounded half-up). ``unbounded``: members of groups without a finite solution
    ("up": won, "down": lost every game against the outside), as the family rated them.
    """

    values: list[Num]
    steps: int
    trace: list[list[Num]]
    expected: list[list[Num]]
    corrections: list[list[Num]]
    cycle: bool = False
    method: str = "iteration"
    unbounded: dict[str, list[str]] | None = None


def iterate(
    iterants: Sequence[Iterant],
    start: Sequence[Num],
    arithmetic: Arithmetic,
    max_steps: int,
    rules: IterationRules = PLUS_MINUS_ONE,
) -> IterationOutcome:
    """Run the simultaneous iteration from ``start`` (step 0) to its end values."""
    current = list(start)
    trace: list[list[Num]] = [current]
    seen: dict[tuple[Num, ...], int] = {tuple(current): 0}
    table = arithmetic.precision == "table"
    w2s = [it.w2 for it in iterants]
    ns = [it.n for it in iterants]
    extremes = [it.extreme if rules.extremes else None for it in iterants]
    expected_trace: list[list[Num]] = []
    correction_trace: list[list[Num]] = []
    for step in range(1, max_steps + 1):
        expected: list[Num] = []
        corrections: list[Num] = []
        new: list[Num] = []
        for pos, it in enumerate(iterants):
            own = current[pos]
            opponents = (*it.fixed, *(current[j] for j in it.linked)) if it.linked else it.fixed
            we = arithmetic.expected(own, opponents)
            extreme = extremes[pos]
            if extreme is None:
                d = arithmetic.correction(w2s[pos], we, ns[pos])
                value = own + d
            else:
                value = arithmetic.extreme_value(opponents, extreme)
                d = value - own
            expected.append(we)
            corrections.append(d)
            new.append(value)
        trace.append(new)
        expected_trace.append(expected)
        correction_trace.append(corrections)
        if arithmetic.converged(current, new):
            return IterationOutcome(new, step, trace, expected_trace, correction_trace)
        if table:
            key = tuple(new)
            if key in seen:
                end = _cycle_end(trace[seen[key] : -1], iterants, rules)
                return IterationOutcome(
                    end, step, trace, expected_trace, correction_trace, cycle=True
                )
            seen[key] = step
        current = new
    moving = [it.id for pos, it in enumerate(iterants) if trace[-1][pos] != trace[-2][pos]]
    raise ConvergenceError(
        f"the iteration did not settle within {max_steps} steps "
        f"(still moving: {', '.join(moving)})",
        moving,
    )


def _cycle_end(
    cycle: list[list[Num]], iterants: Sequence[Iterant], rules: IterationRules
) -> list[Num]:
    """Each iterant's value at the end of a cycle (the states of ``cycle`` repeat)."""
    result: list[Num] = []
    wide: list[str] = []
    for pos, it in enumerate(iterants):
        values = [state[pos] for state in cycle]
        if max(values) - min(values) > rules.cycle_span:
            wide.append(it.id)
        if rules.cycle_value == "highest":
            result.append(max(values))
        else:
            result.append(div_half_up(sum(int(v) for v in values), len(values)))
    if wide:
        raise ConvergenceError(
            f"the iteration cycles with a span of more than {rules.cycle_span} points "
            f"for {', '.join(wide)}",
            wide,
        )
    return result


#: a family's exact solution of W = W_e: (iterants, start values, fallback) -> outcome;
#: ``fallback`` is True when a table iteration did not end
Solve = Callable[[Sequence[Iterant], Sequence[Num], bool], IterationOutcome]


def settle(
    iterants: Sequence[Iterant],
    start: Sequence[Num],
    arithmetic: Arithmetic,
    max_steps: int,
    rules: IterationRules,
    solve: Solve,
) -> IterationOutcome:
    """The values where W = W_e: in float precision solved exactly; in table precision
    the iteration, and where it does not end the family's exact solution (the value the
    table iteration approximates)."""
    if arithmetic.precision == "float":
        return solve(iterants, start, False)
    try:
        return iterate(iterants, start, arithmetic, max_steps, rules)
    except ConvergenceError:
        return solve(iterants, start, True)
