"""The simultaneous first-rating iteration and the performance iteration of every DWZ.

WO 2026 Anhang 1.1.2 (classic 4.7.2.1.3, 4.7.4): every iterating player moves from R_z to
R_z + D(p'), p' = 0.5 + (W - W_e)/n, where W_e uses the opponents' values of the
*previous* step (a Jacobi iteration: all players move at once). A single iterant against
constant opponents is the performance R_h (WO Anhang 1.1.4, classic 4.8) and the classic
individual Teiliteration (4.7.2.1.3).

The procedure ends when no value moves (:meth:`Arithmetic.converged
<ratingdb.rules.dwz.arithmetic.Arithmetic.converged>`). With table values it can end in a
cycle instead; :class:`IterationRules` says what a family makes of one:

* WO 2026 Anhang 1.1.3 (footnote 12): a cycle spanning at most 1 point ends with each
  player's highest value (:data:`PLUS_MINUS_ONE`);
* the classic rules are silent: a cycle spanning at most ``max_cycle_span`` ends with each
  player's mean, rounded half-up (docs/rules-dwz-classic.md);
* the classic 4.7.2.1.2: an iterant with 0 % or 100 % does not iterate, its value is
  R_c -+ 677 over the opponents' current values (``extremes``).

A wider cycle, or reaching the step cap, raises :class:`ConvergenceError`; :func:`settle`
then asks the family's exact solution (:mod:`ratingdb.rules.solver`), which float
precision uses directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Literal

import numpy as np

from ratingdb.errors import ConvergenceError
from ratingdb.rules.dwz.arithmetic import Arithmetic, Num, TableArithmetic
from ratingdb.rules.rounding import div_half_up
from ratingdb.rules.solver import Equation


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
    if (
        isinstance(arithmetic, TableArithmetic)
        and sum(it.n for it in iterants) >= MIN_GROUP_GAMES
        and all(it.n for it in iterants)
        and all(type(v) is int for v in start)
        and all(type(v) is int for it in iterants for v in it.fixed)
    ):
        return _iterate_table(iterants, start, arithmetic, max_steps, rules)  # type: ignore[arg-type]
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


#: from this many games (all iterants together) :func:`iterate` in table precision runs
#: on integer arrays (:func:`_iterate_table`)
MIN_GROUP_GAMES = 48


def _iterate_table(
    iterants: Sequence[Iterant],
    start: Sequence[int],
    arithmetic: TableArithmetic,
    max_steps: int,
    rules: IterationRules,
) -> IterationOutcome:
    """:func:`iterate` in table precision with integer values, each step for all iterants
    at once: every opponent is an entry of one array (the constant ratings, then the
    iterants' current values), each iterant a padded row of positions in it. Integers
    throughout, so every W_e, D' and value is the one :func:`iterate` computes."""
    m = len(iterants)
    lengths = [it.n for it in iterants]
    width = max(lengths)
    fixed_count = sum(len(it.fixed) for it in iterants)
    pool = np.empty(fixed_count + m + 1, dtype=np.int64)
    pool[:fixed_count] = [v for it in iterants for v in it.fixed]
    pool[-1] = PADDING
    positions: list[int] = []
    offset = 0
    for it in iterants:
        positions.extend(range(offset, offset + len(it.fixed)))
        positions.extend(fixed_count + j for j in it.linked)
        offset += len(it.fixed)
    n = np.array(lengths, dtype=np.int64)
    mask = np.arange(width) < n[:, None]
    index = np.full((m, width), fixed_count + m, dtype=np.int64)
    index[mask] = positions
    w2 = np.array([it.w2 for it in iterants], dtype=np.int64)
    extremes = [it.extreme if rules.extremes else None for it in iterants]
    extreme_rows = [k for k, e in enumerate(extremes) if e is not None]
    offsets = np.array(
        [arithmetic.extreme_difference * (1 if extremes[k] else -1) for k in extreme_rows],
        dtype=np.int64,
    )
    current: list[Num] = list(start)
    trace: list[list[Num]] = [current]
    seen: dict[tuple[Num, ...], int] = {tuple(current): 0}
    expected_trace: list[list[Num]] = []
    correction_trace: list[list[Num]] = []
    values = np.array(current, dtype=np.int64)
    for step in range(1, max_steps + 1):
        pool[fixed_count:-1] = values
        opponents = pool[index]
        we, d = arithmetic.steps_many(values, opponents, n, w2)
        new_values = values + d
        if extreme_rows:  # classic 4.7.2.1.2: R_c -+ the extreme difference
            totals = np.where(mask[extreme_rows], opponents[extreme_rows], 0).sum(axis=1)
            counts = n[extreme_rows]
            means = (2 * np.abs(totals) + counts) // (2 * counts)
            means = np.where(totals >= 0, means, -means)
            new_values[extreme_rows] = means + offsets
            d = new_values - values
        new: list[Num] = new_values.tolist()
        trace.append(new)
        expected_trace.append(we.tolist())
        correction_trace.append(d.tolist())
        if new == current:
            return IterationOutcome(new, step, trace, expected_trace, correction_trace)
        key = tuple(new)
        if key in seen:
            end = _cycle_end(trace[seen[key] : -1], iterants, rules)
            return IterationOutcome(end, step, trace, expected_trace, correction_trace, cycle=True)
        seen[key] = step
        current, values = new, new_values
    moving = [it.id for pos, it in enumerate(iterants) if trace[-1][pos] != trace[-2][pos]]
    raise ConvergenceError(
        f"the iteration did not settle within {max_steps} steps "
        f"(still moving: {', '.join(moving)})",
        moving,
    )


#: an opponent rating that pads the rows of :func:`iterate_singles`'s arrays: P(D) = 0
PADDING = 1 << 40

#: values (start, opponents) the integer arrays of :func:`iterate_singles` take; anything
#: larger, far beyond any rating, iterates with Python's integers
ARRAY_RANGE = 1 << 32

#: below this many iterants :func:`iterate_singles` iterates them one by one in plain
#: Python (a few table look-ups cost less than numpy's fixed cost per array step)
MIN_ROWS = 32


@dataclass(frozen=True, slots=True)
class Alone:
    """What :func:`iterate` gives for one iterant, flat: the end value, every state from
    the start (``states[k]`` = ``trace[k][0]``), and per step W_e and D'."""

    value: Num
    states: list[int]
    expected: list[int]
    corrections: list[int]


def iterate_singles(
    iterants: Sequence[Iterant],
    start: Sequence[int],
    arithmetic: TableArithmetic,
    max_steps: int,
    rules: IterationRules = PLUS_MINUS_ONE,
) -> list[Alone | None]:
    """:func:`iterate` of each of many iterants that play constant opponents only (a
    performance R_h, a classic Teiliteration), all at once in table precision: the W_e and
    D' of every step are computed for all of them together (integer arrays), the stop and
    cycle rules applied to each as :func:`iterate` applies them, so that each outcome is
    the one ``iterate([iterant], [start[k]], ...)`` gives. None where that call raises
    :class:`ConvergenceError` (a wide cycle, the step cap) and for an iterant without games,
    with linked ones or with a value that is not an integer: the caller runs that one
    alone. Fewer than :data:`MIN_ROWS` iterants, and any with a value beyond
    :data:`ARRAY_RANGE`, iterate one by one with Python's integers."""
    out: list[Alone | None] = [None] * len(iterants)
    rows = [
        k
        for k, it in enumerate(iterants)
        if it.fixed and not it.linked and type(start[k]) is int
        if set(map(type, it.fixed)) == {int}
    ]
    alone = rows
    if len(rows) >= MIN_ROWS:
        batch = [k for k in rows if _in_array_range(iterants[k], start[k])]
        found = _iterate_rows(
            [iterants[k] for k in batch], [start[k] for k in batch], arithmetic, max_steps, rules
        )
        for k, outcome in zip(batch, found, strict=True):
            out[k] = outcome
        alone = sorted(set(rows) - set(batch))
    for k in alone:
        it = iterants[k]
        w2, n = sum(it.fixed_w2), len(it.fixed)
        extreme = None  # classic 4.7.2.1.2: a 0 % / 100 % result is R_c -+ the difference
        if rules.extremes and (w2 == 0 or w2 == 2 * n):
            extreme = int(arithmetic.extreme_value(it.fixed, w2 != 0))
        out[k] = _finish_alone(
            [start[k]], [], [], it.fixed, w2, extreme, arithmetic, max_steps, rules
        )
    return out


def _in_array_range(iterant: Iterant, start: int) -> bool:
    return -ARRAY_RANGE < start < ARRAY_RANGE and all(
        -ARRAY_RANGE < v < ARRAY_RANGE for v in iterant.fixed
    )


def _iterate_rows(
    iterants: Sequence[Iterant],
    start: Sequence[int],
    arithmetic: TableArithmetic,
    max_steps: int,
    rules: IterationRules,
) -> list[Alone | None]:
    """:func:`iterate_singles` for iterants with at least one game, none linked. Every
    step's values, W_e and D' are kept as columns of arrays (rows that finished drop out
    of the computation); a row stops when its value does not move, or repeats an earlier
    value (a cycle, judged as :func:`iterate` judges it); the lists are read out at the
    end."""
    m = len(iterants)
    out: list[Alone | None] = [None] * m
    length_list = [len(it.fixed) for it in iterants]
    lengths = np.array(length_list, dtype=np.int64)
    flat = np.fromiter(
        chain.from_iterable(it.fixed for it in iterants), dtype=np.int64, count=sum(length_list)
    )
    opponents = np.full((m, max(length_list)), PADDING, dtype=np.int64)
    opponents[np.arange(opponents.shape[1]) < lengths[:, None]] = flat
    w2_list = [sum(it.fixed_w2) for it in iterants]
    w2 = np.array(w2_list, dtype=np.int64)
    # classic 4.7.2.1.2: a 0 % / 100 % result is R_c -+ the extreme difference
    extreme_rows: list[int] = []
    extreme_values: list[int] = []
    if rules.extremes:
        for k, it in enumerate(iterants):
            if w2_list[k] == 0 or w2_list[k] == 2 * length_list[k]:
                extreme_rows.append(k)
                extreme_values.append(int(arithmetic.extreme_value(it.fixed, w2_list[k] != 0)))
    extreme_by_row = dict(zip(extreme_rows, extreme_values, strict=True))
    tails: dict[int, Alone | None] = {}
    fixed = np.zeros(m, dtype=bool)
    fixed_value = np.zeros(m, dtype=np.int64)
    fixed[extreme_rows] = True
    fixed_value[extreme_rows] = extreme_values
    any_fixed = bool(extreme_rows)
    rows = np.arange(m)
    current = np.array([int(v) for v in start], dtype=np.int64)
    capacity = 32
    states = np.empty((capacity, m), dtype=np.int64)
    expected = np.empty((capacity, m), dtype=np.int64)
    corrections = np.empty((capacity, m), dtype=np.int64)
    states[0] = current
    steps = [0] * m
    ends: list[int | None] = [None] * m
    step_of = arithmetic.stepper(lengths, w2)
    alive = np.ones(m, dtype=bool)  # rows still iterating (among ``rows``)
    everyone = True  # ``rows`` is every row, in order
    for step in range(1, max_steps + 1):
        if step == capacity:
            states, expected, corrections = (
                np.concatenate([a, np.empty_like(a)]) for a in (states, expected, corrections)
            )
            capacity *= 2
        we, d = step_of(current, opponents)
        new = current + d
        if any_fixed:
            new = np.where(fixed, fixed_value, new)
            d = new - current
        if everyone:
            states[step], expected[step], corrections[step] = new, we, d
            earlier = states[:step] == new
        else:
            states[step, rows], expected[step, rows], corrections[step, rows] = new, we, d
            earlier = states[:step, rows] == new
        finished = earlier.any(axis=0) & alive
        if not finished.any():
            current = new
            continue
        stopped = (new == current).tolist()
        new_values, row_ids = new.tolist(), rows.tolist()
        for pos in np.flatnonzero(finished).tolist():
            k = row_ids[pos]
            steps[k] = step
            if stopped[pos]:
                ends[k] = new_values[pos]
                continue
            first = int(np.argmax(earlier[:, pos]))
            cycle = states[first:step, k].tolist()
            if max(cycle) - min(cycle) <= rules.cycle_span:  # a wide cycle stays None
                ends[k] = (
                    max(cycle)
                    if rules.cycle_value == "highest"
                    else div_half_up(sum(cycle), len(cycle))
                )
        alive &= ~finished
        left = int(alive.sum())
        if not left:
            break
        if left <= TAIL_ROWS:  # the last few rows one by one
            for pos in np.flatnonzero(alive).tolist():
                k = int(rows[pos])
                ends[k] = None
                steps[k] = -1
                tails[k] = _finish_alone(
                    states[: step + 1, k].tolist(),
                    expected[1 : step + 1, k].tolist(),
                    corrections[1 : step + 1, k].tolist(),
                    iterants[k].fixed,
                    w2_list[k],
                    extreme_by_row.get(k),
                    arithmetic,
                    max_steps,
                    rules,
                )
            break
        current = np.where(alive, new, current)  # finished rows stand still
        if 2 * left <= len(rows):  # compute the rows still iterating only
            rows, current, opponents = rows[alive], current[alive], opponents[alive]
            step_of = arithmetic.stepper(lengths[rows], w2[rows])
            if any_fixed:
                fixed, fixed_value = fixed[alive], fixed_value[alive]
            alive = np.ones(left, dtype=bool)
            everyone = False
    last = max(steps) + 1
    state_rows = states[:last].T.tolist()
    expected_rows = expected[1:last].T.tolist()
    correction_rows = corrections[1:last].T.tolist()
    for k, (end, length, states_k, expected_k, corrections_k) in enumerate(
        zip(ends, steps, state_rows, expected_rows, correction_rows, strict=True)
    ):
        if end is not None:
            out[k] = Alone(end, states_k[: length + 1], expected_k[:length], corrections_k[:length])
    for k, alone in tails.items():
        out[k] = alone
    return out


#: from this few rows still iterating, :func:`_iterate_rows` finishes them one by one
#: (a few table look-ups cost less than the array steps)
TAIL_ROWS = 8


def _finish_alone(
    states: list[int],
    expected: list[int],
    corrections: list[int],
    fixed: tuple[Num, ...],
    w2: int,
    extreme_value: int | None,
    arithmetic: TableArithmetic,
    max_steps: int,
    rules: IterationRules,
) -> Alone | None:
    """The rest of :func:`iterate` for one iterant against constant opponents, from the
    states, W_e and D' of its first steps: the same stop and cycle rules (None where
    :func:`iterate` raises)."""
    seen: dict[int, int] = {}
    for step, value in enumerate(states):
        seen.setdefault(value, step)
    own, n = states[-1], len(fixed)
    for step in range(len(states), max_steps + 1):
        we = int(arithmetic.expected(own, fixed))
        if extreme_value is None:
            d = int(arithmetic.correction(w2, we, n))
            value = own + d
        else:
            value = extreme_value
            d = value - own
        states.append(value)
        expected.append(we)
        corrections.append(d)
        if value == own:
            return Alone(value, states, expected, corrections)
        if value in seen:
            cycle = states[seen[value] : -1]
            if max(cycle) - min(cycle) > rules.cycle_span:
                return None
            end = (
                max(cycle)
                if rules.cycle_value == "highest"
                else div_half_up(sum(cycle), len(cycle))
            )
            return Alone(end, states, expected, corrections)
        seen[value] = step
        own = value
    return None


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
