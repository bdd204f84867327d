"""The array forms of the table iteration against the frozen reference loop
(``tests/reference_dwz/dwz/iteration.py``), on random players and groups that reach
every way an iteration ends: no value moves, a cycle within the rules' span (the
2026 highest value, the classic mean), a wide cycle, the step cap, 0 % / 100 % results
under the classic extreme rule.

* :func:`ratingdb.rules.dwz.iteration.iterate_singles` (performances and Teiliterationen
  of many players at once) must give, per player, what the
  reference's ``iterate`` gives for that player alone, or None where it raises;
* :func:`ratingdb.rules.dwz.iteration.iterate` of a group large enough for the integer
  arrays must give the reference's outcome, or the same error.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ratingdb.errors import ConvergenceError
from ratingdb.rules.dwz import iteration
from ratingdb.rules.dwz.arithmetic import TableArithmetic
from ratingdb.rules.dwz.iteration import Iterant, IterationRules, iterate, iterate_singles
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.dwz2026.probability import arithmetic_for as arithmetic_2026
from ratingdb.rules.dwz_classic.tables import arithmetic_for as arithmetic_classic
from ratingdb.rules.dwz_classic.versions import VERSIONS
from tests.reference_dwz.dwz import arithmetic as reference_arithmetic
from tests.reference_dwz.dwz import iteration as reference


def _table(arith: object) -> TableArithmetic:
    assert isinstance(arith, TableArithmetic)
    return arith


#: (name, fast arithmetic, rules): thousandths (2026, WO 2002) and hundredths (classic);
#: the classic mean of a cycle, with the rules' span and with none allowed
CLASSIC = _table(arithmetic_classic(VERSIONS["dwz-classic"]))
WO2002 = _table(arithmetic_classic(VERSIONS["dwz-wo2002"]))
CASES: list[tuple[str, TableArithmetic, IterationRules]] = [
    ("dwz2026", _table(arithmetic_2026(Dwz2026Parameters())), iteration.PLUS_MINUS_ONE),
    ("classic", CLASSIC, IterationRules(14, "mean", True)),
    (
        "wo2002",
        _table(arithmetic_classic(VERSIONS["dwz-wo2002"])),
        IterationRules(14, "mean", True),
    ),
    ("classic-narrow", CLASSIC, IterationRules(0, "mean", True)),
]


def _reference_parts(
    arith: TableArithmetic, rules: IterationRules
) -> tuple[Any, reference.IterationRules]:
    ref_arith = reference_arithmetic.TableArithmetic(
        arith._p, arith._d, arith.scale, arith.extreme_difference
    )
    return ref_arith, reference.IterationRules(rules.cycle_span, rules.cycle_value, rules.extremes)


def _reference_run(its: list[Iterant], start: list[int], arith: Any, steps: int, rules: Any) -> Any:
    ref_its = [
        reference.Iterant(it.id, it.fixed, it.fixed_w2, it.linked, it.linked_w2) for it in its
    ]
    try:
        o = reference.iterate(ref_its, start, arith, steps, rules)
    except ConvergenceError as err:
        return ("error", str(err), err.players)
    return (o.values, o.steps, o.trace, o.expected, o.corrections, o.cycle)


def _random_fixed(rng: random.Random, k: int) -> Iterant:
    n = rng.randint(1, 12)
    w2 = tuple(rng.choice([0, 1, 2]) for _ in range(n))
    if rng.random() < 0.1:  # 100 % or 0 %
        w2 = tuple(rng.choice([0, 2]) for _ in range(1)) * n
    return Iterant(f"P{k}", tuple(rng.randint(500, 2700) for _ in range(n)), w2)


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_iterate_singles_equals_the_reference_one_by_one(name: str) -> None:
    """Few players one by one in the Python loop, many at once in the integer arrays."""
    _, arith, rules = next(c for c in CASES if c[0] == name)
    ref_arith, ref_rules = _reference_parts(arith, rules)
    rng = random.Random(name)
    endings: set[str] = set()
    for _ in range(60):
        its = [_random_fixed(rng, k) for k in range(rng.randint(1, 40))]
        start = [rng.randint(400, 2800) for _ in its]
        steps = rng.choice([3, 12, 1000])
        got = iterate_singles(its, start, arith, steps, rules)
        for it, s, alone in zip(its, start, got, strict=True):
            want = _reference_run([it], [s], ref_arith, steps, ref_rules)
            if want[0] == "error":
                endings.add("error")
                assert alone is None, (it, s)
                continue
            endings.add("cycle" if want[5] else "stop")
            values, _, trace, expected, corrections, _ = want
            assert alone is not None
            assert (alone.value, alone.states, alone.expected, alone.corrections) == (
                values[0],
                [state[0] for state in trace],
                [e[0] for e in expected],
                [c[0] for c in corrections],
            ), (it, s)
            assert all(type(v) is int for v in (alone.value, *alone.states, *alone.expected))
    assert endings >= {"error", "stop"}
    if name in ("dwz2026", "wo2002"):  # hundredths rarely cycle; span 0 makes every cycle wide
        assert "cycle" in endings


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_group_iteration_on_arrays_equals_the_reference(name: str) -> None:
    _, arith, rules = next(c for c in CASES if c[0] == name)
    ref_arith, ref_rules = _reference_parts(arith, rules)
    rng = random.Random(name)
    arrays = 0
    for _ in range(60):
        m = rng.randint(2, 30)
        its: list[Iterant] = []
        for k in range(m):
            fixed_n = rng.randint(0, 8)
            linked_n = rng.randint(0 if fixed_n else 1, 6)
            fixed_w2 = tuple(rng.choice([0, 1, 2]) for _ in range(fixed_n))
            linked_w2 = tuple(rng.choice([0, 1, 2]) for _ in range(linked_n))
            if rng.random() < 0.1:  # 100 %
                fixed_w2, linked_w2 = (2,) * fixed_n, (2,) * linked_n
            its.append(
                Iterant(
                    f"P{k}",
                    tuple(rng.randint(600, 2600) for _ in range(fixed_n)),
                    fixed_w2,
                    tuple(rng.randrange(m) for _ in range(linked_n)),
                    linked_w2,
                )
            )
        start = [rng.randint(600, 2600) for _ in its]
        steps = rng.choice([5, 50, 1000])
        arrays += sum(it.n for it in its) >= iteration.MIN_GROUP_GAMES
        try:
            o = iterate(its, start, arith, steps, rules)
            got: Any = (o.values, o.steps, o.trace, o.expected, o.corrections, o.cycle)
        except ConvergenceError as err:
            got = ("error", str(err), err.players)
        assert got == _reference_run(its, start, ref_arith, steps, ref_rules)
    assert arrays >= 20  # the array form ran


def test_values_beyond_the_integer_range_iterate_exactly() -> None:
    """An opponent rating beyond 2^40 is iterated with Python's integers, alone and in a
    batch of players, with the reference's outcome."""
    arith, rules = CASES[0][1], CASES[0][2]
    its = [
        Iterant("A", (1500, 1 << 41, 1700, 1600, 1550), (2, 0, 1, 1, 2)),
        Iterant("B", (1500, 1600, 1700, 1800, 1900), (2, 0, 1, 1, 2)),
    ]
    many = its * 20  # a batch as large as the integer arrays take
    got = iterate_singles(many, [1600, 1650] * 20, arith, 1000, rules)
    assert got[:2] == iterate_singles(its, [1600, 1650], arith, 1000, rules)
    ref_arith, ref_rules = _reference_parts(arith, rules)
    for it, s, alone in zip(its, [1600, 1650], got[:2], strict=True):
        want = _reference_run([it], [s], ref_arith, 1000, ref_rules)
        assert alone is not None and alone.value == want[0][0]
    assert got[0] is not None and got[0].value == 1785
