"""The table precision's established players and performances in C (``_fastdwz``)
give exactly what the Python evaluation gives, row by row, and answer None
(Python computes the row) wherever their 64-bit integers could be wrong."""

from __future__ import annotations

import importlib
import math
import random
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from ratingdb.rules.dwz import compiled, evaluation
from ratingdb.rules.dwz.iteration import PLUS_MINUS_ONE, Iterant, iterate_singles
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.dwz2026.development import compiled_coefficients as coefficients_2026
from ratingdb.rules.dwz_classic.coefficient import compiled_coefficients as coefficients_classic
from ratingdb.rules.dwz_classic.versions import VERSIONS
from ratingdb.rules.errors import ConvergenceError
from ratingdb.rules.model import RESULTS, GameInput, PlayerInput, TournamentInfo, TournamentInput
from tests.dwz_random import PARAMETER_SETS, evaluate_fast, random_tournament

fast = compiled.table
assert fast is not None, "the install builds ratingdb/rules/_fastdwz.c (setup.py)"

evaluate_2026 = importlib.import_module("ratingdb.rules.dwz2026.evaluate")
evaluate_classic = importlib.import_module("ratingdb.rules.dwz_classic.evaluate")

#: the table-precision parameter sets (the 2014 formula's E, of dwz-2014 and dwz-2016,
#: stays Python's: its established rows are all Python's)
TABLE_SETS = sorted(name for name, params in PARAMETER_SETS.items() if params.precision == "table")


def _both_ways(t: TournamentInput, params: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """The untraced evaluation with the extension and without it (every row Python's)."""
    with_c = repr(evaluate_fast(t, params, traced=False))
    with monkeypatch.context() as m:
        m.setattr(compiled, "table", None)
        without = repr(evaluate_fast(t, params, traced=False))
    return with_c, without


@pytest.mark.parametrize("name", TABLE_SETS)
def test_the_compiled_pass_equals_python(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random tournaments (every group, Sonderwertung, matches, forfeits, residual games):
    the whole evaluation is the same with and without the extension."""
    params = PARAMETER_SETS[name]
    for k in range(40):
        t = random_tournament(random.Random(1000 + k), f"{name}-{k}")
        with_c, without = _both_ways(t, params, monkeypatch)
        assert with_c == without, f"{name}, tournament {k}"


def _evaluation_2026(t: TournamentInput, params: Dwz2026Parameters) -> Any:
    ev = evaluate_2026._Evaluation(t, params, traced=False)
    return ev


def _first_ratings(family: Any, ev: Any) -> dict[int, int]:
    if family is evaluate_2026:
        return ev._first_ratings()  # type: ignore[no-any-return]
    computed = evaluate_classic._Pass(trace={"performance": {}})
    ev._first_ratings(lambda j: ev.ratings[j], computed)
    return computed.first  # type: ignore[no-any-return]


#: the sets whose established rows the compiled pass computes: every table set, and the
#: classic versions in float precision with the normal distribution (dwz-2014, dwz-2016)
ROW_SETS = sorted(
    name
    for name, params in PARAMETER_SETS.items()
    if params.precision == "table" or getattr(params, "probability", None) == "normal"
)


def test_rows_of_both_families_equal_the_python_rows() -> None:
    """``table_established``'s and ``float_established``'s answer for each established
    player is the tuple the Python method builds (W_e, K or E, R_n, R_p, mean, P(D) as
    points, ratings seen); a row is left to Python only where WO 2014's braking supplement
    applies, or (float precision) below a rating of 800."""
    checked = {"table": 0, "float": 0}
    left = 0
    for name in ROW_SETS:
        params = PARAMETER_SETS[name]
        family = evaluate_2026 if name.startswith("dwz2026") else evaluate_classic
        coef = (
            coefficients_2026(params) if family is evaluate_2026 else coefficients_classic(params)
        )
        for k in range(25):
            t = random_tournament(random.Random(5000 + k), f"{name}-{k}")
            ev = family._Evaluation(t, params, traced=False)
            players = [i for i in sorted(ev.groups.established) if ev.games[i]]
            try:  # the newcomers are seen at their first ratings
                seen_as = _first_ratings(family, ev)
            except ConvergenceError:
                continue
            curve = None if family is evaluate_2026 else ev.curve
            rows = ev.compiled_rows(players, seen_as, coef, curve)
            python = ev.python_rows(players, seen_as)
            for i, row, expected in zip(players, rows, python, strict=True):
                if row is None:  # only WO 2014's SBr, or a float R_n below 800
                    we, w2, rating = expected[0], ev.w2[i], ev.ratings[i]
                    table = params.precision == "table"
                    reached = ev.arith.half * w2 - we >= 0 if table else w2 / 2 - we >= 0
                    sbr = params.e_formula == "2014" and not reached
                    assert (sbr and rating < params.braking_threshold) or (
                        not table and rating < params.change_factor
                    ), (name, k, i)
                    left += 1
                    continue
                if family is evaluate_2026:  # no R_p in 2026
                    expected = (*expected[:4], None, *expected[5:])
                assert row == expected, (name, k, i)
                checked[params.precision] += 1
    assert checked["table"] > 500 and checked["float"] > 200 and left > 0, (checked, left)


def _open(ratings: list[int], results: list[str]) -> TournamentInput:
    """Player 0 against each of the others, with the given results."""
    players = tuple(
        PlayerInput(f"P{k}", rating=r, index=5, birth_year=1980) for k, r in enumerate(ratings)
    )
    games = tuple(GameInput("P0", f"P{k + 1}", result, k + 1) for k, result in enumerate(results))
    info = TournamentInfo("T", *(2 * [random_tournament(random.Random(0)).tournament.end]))
    return TournamentInput(info, players, games)


def test_numbers_beyond_64_bits_are_left_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """A classic E with R_o^5 (e_exponent 5 is a valid parameter) leaves 64 bits for a
    rating of 100,000: the compiled pass answers None for that row, Python computes it,
    and the evaluation is the one without the extension."""
    params = replace(VERSIONS["dwz-classic"], e_exponent=5)
    t = _open([100_000, 1500, 1600, 1700, 1800, 1900], ["1-0", "0-1", "1/2-1/2", "1-0", "1-0"])
    ev = evaluate_classic._Evaluation(t, params, traced=False)
    rows = fast.table_established(
        ev.arith.buffers()[0], ev.arith.scale, coefficients_classic(params), ev.seen_at({}),
        [(ev.ratings[i], ev.indexes[i], 2, ev.games[i]) for i in range(6)],
    )  # fmt: skip
    assert rows[0] is None and all(row is not None for row in rows[1:])
    with_c, without = _both_ways(t, params, monkeypatch)
    assert with_c == without
    top = evaluate_fast(t, params, traced=False).players[0]
    # E = min(30, 5 * index 5) = 25; R_n = R_o + 800 (3.5 - 5) / (25 + 5) = R_o - 40
    assert (top.k, top.rating_new) == (25, 99_960)


def test_what_the_pass_cannot_read_is_left_to_python() -> None:
    """An opponent without a usable rating (None, beyond 2^40, a float), points outside
    0..2 or an age code outside 0..2 make a row None; a malformed call raises."""
    params = Dwz2026Parameters()
    t = _open([1500, 1600, 1700], ["1-0", "0-1"])
    ev = _evaluation_2026(t, params)
    better, scale, coef = ev.arith.buffers()[0], ev.arith.scale, coefficients_2026(params)
    games = ev.games[0]

    def one(seen: list[Any], row_games: Any = games, age: int = 2) -> Any:
        return fast.table_established(better, scale, coef, seen, [(1500, 5, age, row_games)])[0]

    assert one([1500, 1600, 1700]) is not None
    for seen in ([1500, None, 1700], [1500, 1 << 41, 1700], [1500, 1600.0, 1700]):
        assert one(seen) is None
    assert one([1500, 1600, 1700], [(1, 3, 0), (2, 0, 1)]) is None
    assert one([1500, 1600, 1700], [(7, 2, 0)]) is None
    assert one([1500, 1600, 1700], age=3) is None
    with pytest.raises(ValueError):
        fast.table_established(better, scale, (0, 1, 2), [1500], [])
    with pytest.raises(TypeError):
        fast.table_established(better, scale, coef, [1500], [(1500, 5, 2, (1, 2, 0))])


def test_performances_equal_the_table_iteration() -> None:
    """``table_performances`` gives iterate_singles' values from the start value it
    computes itself, the 2026 fictitious draw and the classic extreme rule included, and
    None where the iteration does not settle."""
    rng = random.Random(3)
    p2026 = PARAMETER_SETS["dwz2026-table"]
    classic = PARAMETER_SETS["dwz-classic-table"]
    for params, draw in ((p2026, True), (classic, False)):
        family = evaluate_2026 if draw else evaluate_classic
        ev = family._Evaluation(_open([1500, 1600], ["1-0"]), params, traced=False)
        arith = ev.arith
        rules = PLUS_MINUS_ONE if draw else ev.rules
        seen = [rng.randint(900, 2600) for _ in range(40)]
        rows = []
        for _ in range(300):
            n = rng.randint(1, 12)
            points = rng.choice([[2] * n, [0] * n, [rng.choice((0, 1, 2)) for _ in range(n)]])
            rows.append([(rng.randrange(40), p, g) for g, p in enumerate(points)])
        values = fast.table_performances(
            *arith.buffers(), arith.scale, seen, rows, draw,
            arith.extreme_difference if rules.extremes else None, params.max_iterations,
            rules.cycle_span, rules.cycle_value == "highest",
        )  # fmt: skip
        for games, value in zip(rows, values, strict=True):
            fixed = [seen[j] for j, _, _ in games]
            w2 = [p for _, p, _ in games]
            if draw and sum(w2) == 2 * len(w2):
                fixed.append(evaluation.rounded_mean(fixed))  # type: ignore[arg-type]
                w2.append(1)
            start = arith.start_value(fixed, sum(w2))
            alone = iterate_singles(
                [Iterant("X", tuple(fixed), tuple(w2))], [int(start)], arith,
                params.max_iterations, rules,
            )[0]  # fmt: skip
            assert value == (None if alone is None else alone.value), (games, draw)


def test_rated_games_equal_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """``rated_games`` in C gives the Python version's lists (forfeits, games of less than
    one move, computers, a player against himself) and its KeyError for an unknown player
    or result."""
    from ratingdb.rules.dwz.groups import rated_games

    for k in range(300):
        t = random_tournament(random.Random(k))
        position = {p.id: i for i, p in enumerate(t.players)}
        with_c = rated_games(t, position)
        with monkeypatch.context() as m:
            m.setattr(compiled, "table", None)
            assert with_c == rated_games(t, position), k
    t = _open([1500, 1600, 1700], ["1-0", "+-"])
    itself = replace(t, games=(*t.games, GameInput("P1", "P1", "1/2-1/2", 3)))
    position = {p.id: i for i, p in enumerate(t.players)}
    adjacency, struck = rated_games(itself, position)
    assert struck is None and adjacency[1] == [(0, 0, 0), (1, 1, 2), (1, 1, 2)]
    assert rated_games(t, position) == ([[(1, 2, 0)], [(0, 0, 0)], []], {0: [1], 2: [1]})
    for game, key in (
        (GameInput("P0", "P9", "1-0", 3), "P9"),
        (GameInput("P0", "P1", "2-0", 3), "2-0"),
    ):
        with pytest.raises(KeyError, match=key):
            rated_games(replace(t, games=(game,)), position)


def test_float_ratings_round_the_exact_binary_difference() -> None:
    """``float_established``'s E, R_n and R_p are ``development_coefficient`` (WO 2014's
    youth acceleration fB included), ``new_rating_exact`` and ``success_value_exact`` of
    W - W_e's exact binary value: halves (2000 + 800 * 1.5 / 32 = 2037.5 -> 2038),
    negative steps, differences of 2^-199 and random P(D) (given here by a P function of
    our own, which the pass calls on the array of z values)."""
    import numpy as np

    from ratingdb.rules.dwz_classic.coefficient import (
        development_coefficient,
        new_rating_exact,
        success_value_exact,
    )

    params = VERSIONS["dwz-2014"]
    coef = coefficients_classic(params)
    rng = random.Random(11)
    seen = [1500] * 12
    cases: list[tuple[int, int, int, list[int], list[float]]] = [
        (2000, 20, 2, [2, 2], [0.25, 0.25]),  # d = 1.5: +37.5
        (2000, 20, 2, [0, 1], [0.5, 0.5]),  # d = -0.5: -12.5
        (2000, 20, 2, [0, 0], [2.0**-200, 2.0**-200]),
        (2000, 20, 2, [2, 2], [1.0, 1.0]),  # d = 0
        (1500, 20, 0, [2, 2], [0.25, 0.25]),  # a youth above W_e: fB = 0.75
        (900, 20, 0, [2, 2], [0.25, 0.25]),  # fB = 0.5 (the least)
    ]
    for _ in range(400):
        n = rng.randint(1, 11)
        points = [rng.choice((0, 1, 2)) for _ in range(n)]
        ps = [
            rng.choice((rng.random(), rng.randint(0, 8) / 8, 1e-30 * rng.random())) for _ in points
        ]
        cases.append((rng.randint(800, 2700), rng.randint(1, 40), rng.randint(0, 2), points, ps))
    sbr_rows = 0
    for rating, index, age, points, ps in cases:
        games = [(j + 1, p, j) for j, p in enumerate(points)]
        values = np.array(ps)
        row = fast.float_established(
            lambda z, v=values: v.copy(),
            np.frombuffer,
            100.0,
            coef,
            seen,
            [(rating, index, age, games)],
        )[0]
        we = math.fsum(ps)  # W_e: the correctly rounded sum
        d = sum(points) / 2 - we
        num, den = d.as_integer_ratio()
        age_name = ("youth", "junior", "adult")[age]
        e = development_coefficient(rating, index, age_name, params, num >= 0)
        n = len(points)
        if d < 0 and rating < params.braking_threshold:  # WO 2014's SBr: E is Python's
            sbr_rows += 1
            without = fast.float_established(
                lambda z, v=values: v.copy(), np.frombuffer, 100.0, coef[:-1], seen,
                [(rating, index, age, games)],
            )[0]  # fmt: skip
            assert without is None  # no function for E: the whole row is Python's
        assert row is not None
        rn = new_rating_exact(rating, e, n, num, den, params)
        rp = success_value_exact(rating, n, num, den, params)
        assert row[:5] == (we, e, 1, rn, rp), (rating, points, ps)
    quarter = fast.float_established(
        lambda z: np.full_like(z, 0.25), np.frombuffer, 100.0, coef, seen,
        [(2000, 20, 2, [(1, 2, 0), (2, 2, 1)])],
    )[0]  # fmt: skip
    assert quarter is not None and quarter[3] == 2038
    assert sbr_rows > 20


def test_the_braking_supplements_e_comes_from_python() -> None:
    """Where WO 2014's SBr applies, the compiled pass takes E from the function ending the
    coefficients (``development_coefficient``, 40 digits of e^x): a function that fails
    or answers no positive integer leaves the row to Python; the age codes it is called
    with are the pass's."""
    import numpy as np

    from ratingdb.rules.dwz.evaluation import AGE_CODES
    from ratingdb.rules.dwz_classic import coefficient

    assert tuple(sorted(AGE_CODES, key=AGE_CODES.__getitem__)) == coefficient._AGES
    coef = coefficients_classic(VERSIONS["dwz-2016"])
    assert callable(coef[-1]) and not callable(coefficients_classic(VERSIONS["dwz-wo2002"])[-1])
    calls: list[tuple[Any, ...]] = []

    def answer(value: Any) -> Any:
        def e(*args: Any) -> Any:
            calls.append(args)
            if isinstance(value, Exception):
                raise value
            return value

        return e

    row = (1000, 7, 1, [(1, 0, 0), (2, 1, 1)])  # lost against 1500s: below W_e, R_o < 1300
    for value, expected in ((40, 40), (ZeroDivisionError(), None), (0, None), ("x", None)):
        found = fast.float_established(
            lambda z: np.full_like(z, 0.9), np.frombuffer, 100.0, (*coef[:-1], answer(value)),
            [1500] * 3, [row],
        )[0]  # fmt: skip
        assert (found if found is None else found[1]) == expected, value
    assert calls[0] == (1000, 7, 1, False)


def test_odd_p_functions_step_caps_and_tables_leave_the_rows_to_python() -> None:
    """The review's findings: a
    P function that changes the rows, games or ratings it was given changes nothing in the
    answer (and crashes nothing); a step cap beyond 2^24 or a printed table with values
    out of range is not computed here; WO 2014's fB is at most 1 whatever the parameters;
    a game whose attribute empties the results answers KeyError."""
    import numpy as np

    from ratingdb.rules.dwz_classic.coefficient import development_coefficient

    params = VERSIONS["dwz-2014"]
    coef = coefficients_classic(params)
    games = [(1, 2, 0), (2, 2, 1)]
    rows: list[Any] = [(2000, 20, 2, games)]
    seen = [2000, 1600, 1700]
    def hostile(z: Any) -> Any:
        games.clear()
        rows.clear()
        seen.clear()
        return np.full_like(z, 0.25)

    answer = fast.float_established(hostile, np.frombuffer, 100.0, coef, seen, rows)
    assert answer[0] is not None and answer[0][6:] == ([0.25, 0.25], [1600, 1700])

    table = PARAMETER_SETS["dwz-classic-table"]
    ev = evaluate_classic._Evaluation(_open([1500, 1600], ["1-0"]), table, traced=False)
    better, inverse = ev.arith.buffers()
    huge = 1 << 62
    alone = (100, [1500, 1600], 2, 1550, None)
    assert fast.table_alone(better, inverse, *alone, huge, 14, False) is NotImplemented
    one_row = [[(1, 2, 0)]]
    assert fast.table_performances(
        better, inverse, 100, [1500, 1600], one_row, False, None, huge, 14, False
    ) == [None]
    wild = better.copy()
    wild[3] = 1 << 50
    assert fast.table_alone(wild, inverse, *alone, 1000, 14, False) is NotImplemented

    one = replace(params, acceleration_min=Decimal("1"))
    young = fast.float_established(
        lambda z: np.full_like(z, 0.25), np.frombuffer, 100.0, coefficients_classic(one),
        [1500, 1600, 1700], [(1400, 20, 0, [(1, 2, 0), (2, 2, 1)])],
    )[0]  # fmt: skip
    assert young is not None and young[1] == development_coefficient(1400, 20, "youth", one, True)

    class Emptying:
        result = "1-0"
        black = "P1"

        @property
        def white(self) -> str:
            results.clear()
            return "P0"

    results = dict(RESULTS)
    with pytest.raises(KeyError):
        fast.rated_games([Emptying()], {"P0": 0, "P1": 1}, results, set(), 2)


def test_parameters_outside_the_compiled_pass_leave_the_rows_to_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A brake factor b = (R_0 + u) / (threshold + u) with u and the threshold both 0 is
    accepted (no rating is below 0, so b is never applied) but refused by the compiled
    pass: no coefficients, every row Python's, the same evaluation (a parameter set the
    schema test drew once made the C pass raise instead)."""
    params = replace(Dwz2026Parameters(), u=0, low_rating_threshold=0)
    assert coefficients_2026(params) is None
    assert coefficients_2026(params) is None  # the refusal is remembered, not an error
    assert coefficients_2026(Dwz2026Parameters()) is not None
    for k in range(10):
        t = random_tournament(random.Random(7000 + k), f"zero-brake-{k}")
        with_c, without = _both_ways(t, params, monkeypatch)
        assert with_c == without, f"tournament {k}"
