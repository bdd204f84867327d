"""H of the players without a (usable) number: B II, B III 2 and B III 3.

A newcomer's own number is unknown, so the spec takes it out of his level: with
H = N + %d and N = (H + sum of the opponents' numbers) / (n + 1) it follows that
N = (sum of the opponents' numbers + %d) / n, the "F-%d-Summe" divided by the number of
numbers (B III 2). An opponent seen at own number +-50 (C VI) contributes %d +- 50 to the
F-%d-Summe and nothing to the count (same algebra).

* B II, complete round robin: one general level for everybody,
  N = (sum of the known numbers + sum of the newcomers' %d) / (number of known numbers).
* B III 2 / B III 3 (and B IV, B V): newcomers are computed first, in the order "fewest
  opponents without a number, then the smallest %d" (|%d|: Lang, %d 0, comes before Behn,
  %d -25), ties in input order. In the first pass a newcomer not yet computed is left out
  of the level (Lang: 1365 / 8); afterwards every pass uses the latest H of each
  opponent (Haak: 1145 + 170.6 + 123.1). Passes repeat until one changes nothing. Table
  precision rounds every level and H to one decimal as the example does; a repeated
  state without convergence, or ``max_iterations`` passes, is a ConvergenceError.
* Float precision solves the same equations exactly (their fixed point, a linear system
  with a weakly diagonally dominant matrix; every newcomer is linked to a known number,
  see :mod:`.games`, so it is regular). The result counts as one pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ratingdb.errors import ConvergenceError, RulesError
from ratingdb.rules.ingo.arithmetic import Arithmetic
from ratingdb.rules.ingo.games import View


@dataclass(slots=True)
class NewcomerSolution:
    performance: dict[int, Fraction]
    level: dict[int, Fraction]
    #: calculation order (B III 3) and the H after every pass, in that order
    order: list[int] = field(default_factory=list)
    passes: list[list[Fraction | None]] = field(default_factory=list)
    #: the levels after every pass, in the same order
    level_passes: list[list[Fraction | None]] = field(default_factory=list)


class NewcomerSolver:
    def __init__(
        self,
        views: Sequence[Sequence[View]],
        known: Mapping[int, int],
        percent_diff: Mapping[int, Fraction],
        arith: Arithmetic,
        limit: int,
        max_iterations: int,
        names: Sequence[str],
    ) -> None:
        self.views = views
        self.known = known
        self.d = percent_diff
        self.arith = arith
        self.limit = limit
        self.max_iterations = max_iterations
        self.names = names

    # -- B II ----------------------------------------------------------------------------
    def general_sums(self, members: set[int]) -> tuple[int, Fraction, int]:
        """Sum of the known numbers, sum of the newcomers' %d, number of known numbers."""
        known = [i for i in members if i in self.known]
        newcomers_d = sum((self.d[i] for i in members if i not in self.known), Fraction(0))
        return sum(self.known[i] for i in known), newcomers_d, len(known)

    def general_level(self, members: set[int]) -> Fraction:
        """N = (known numbers + newcomers' %d) / number of known numbers (B II)."""
        known_sum, newcomers_d, count = self.general_sums(members)
        return self.arith.q((known_sum + newcomers_d) / count)

    def f_d_sum(self, i: int) -> tuple[Fraction, int]:
        """B III 3 a): the F-%d-Summe over the known numbers and how many they are."""
        d = self.d[i]
        total, count = d, 0
        for v in self.views[i]:
            if v.mode:
                total += d + v.mode * self.limit
            elif v.opponent in self.known:
                total += self.known[v.opponent]
                count += 1
        return total, count

    def level(self, i: int, values: Mapping[int, Fraction]) -> Fraction | None:
        """Level of newcomer ``i`` from the F-%d-Summe, None if no number is available yet."""
        d = self.d[i]
        total, count = d, 0
        for v in self.views[i]:
            if v.mode:
                total += d + v.mode * self.limit
                continue
            value = self.known.get(v.opponent)
            number = Fraction(value) if value is not None else values.get(v.opponent)
            if number is None:
                continue
            total += number
            count += 1
        if count == 0:
            return None
        return self.arith.q(total / count)

    def order(self, newcomers: Sequence[int]) -> list[int]:
        """B III 3: fewest opponents without a number, then the smallest |%d|."""

        def unknown_opponents(i: int) -> int:
            return sum(1 for v in self.views[i] if v.opponent not in self.known)

        return sorted(newcomers, key=lambda i: (unknown_opponents(i), abs(self.d[i]), i))

    # -- B III 2 / B III 3 ----------------------------------------------------------------
    def solve(self, newcomers: Sequence[int]) -> NewcomerSolution:
        order = self.order(newcomers)
        if not order:
            return NewcomerSolution({}, {}, [], [])
        if self.arith.table:
            return self._iterate(order)
        return self._exact(order)

    def _iterate(self, order: list[int]) -> NewcomerSolution:
        performance: dict[int, Fraction] = {}
        level: dict[int, Fraction] = {}
        passes: list[list[Fraction | None]] = []
        level_passes: list[list[Fraction | None]] = []
        seen: set[tuple[Fraction | None, ...]] = set()
        while True:
            if len(passes) >= self.max_iterations:
                raise ConvergenceError(
                    f"the newcomers' calculation (B III 3) did not settle within "
                    f"{self.max_iterations} passes",
                    [self.names[i] for i in order],
                )
            changed = False
            for i in order:
                n = self.level(i, performance)
                if n is None:
                    continue
                h = n + self.d[i]
                level[i] = n
                if performance.get(i) != h:
                    performance[i] = h
                    changed = True
            state = tuple(performance.get(i) for i in order)
            passes.append(list(state))
            level_passes.append([level.get(i) for i in order])
            if not changed:
                missing = [self.names[i] for i in order if i not in performance]
                if missing:  # cannot happen for linked newcomers (games.exclude)
                    raise RulesError(f"no level can be formed for {', '.join(missing)}")
                return NewcomerSolution(performance, level, order, passes, level_passes)
            if state in seen:
                raise ConvergenceError(
                    "the newcomers' calculation (B III 3) repeats without settling "
                    "(rounding to one decimal makes it oscillate)",
                    [self.names[i] for i in order],
                )
            seen.add(state)

    def _exact(self, order: list[int]) -> NewcomerSolution:
        """cnt_i H_i - sum of newcomer opponents' H_j = cnt_i d_i + F-%d-Summe (known part)."""
        slot = {i: k for k, i in enumerate(order)}
        size = len(order)
        matrix = [[Fraction(0)] * size for _ in range(size)]
        rhs = [Fraction(0)] * size
        for i in order:
            row, d = slot[i], self.d[i]
            count = 0
            constant = d
            for v in self.views[i]:
                if v.mode:
                    constant += d + v.mode * self.limit
                    continue
                count += 1
                if v.opponent in self.known:
                    constant += self.known[v.opponent]
                else:
                    matrix[row][slot[v.opponent]] -= 1
            matrix[row][row] += count
            rhs[row] = constant + count * d
        solution = _solve_linear(matrix, rhs)
        if solution is None:  # cannot happen for linked newcomers (games.exclude)
            raise RulesError(
                f"no level can be formed for {', '.join(self.names[i] for i in order)}"
            )
        performance = {i: solution[slot[i]] for i in order}
        level = {i: performance[i] - self.d[i] for i in order}
        return NewcomerSolution(
            performance,
            level,
            order,
            [[performance[i] for i in order]],
            [[level[i] for i in order]],
        )


def _solve_linear(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Gauss-Jordan elimination over fractions; None for a singular matrix."""
    size = len(rhs)
    rows = [[*matrix[r], rhs[r]] for r in range(size)]
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [rows[r][size] for r in range(size)]
