"""Random DWZ tournaments for the differential test of the fast rules core.

:func:`random_tournament` draws a tournament that reaches every group of WO 3.4 and the
classic 4.3/4.7: established players (DWZ, FIDE/national ratings without an index), first
ratings in both stages (residual games, valid and expired, count towards the stages),
remaining players and their residual games, 100 % and 0 % results, groups of newcomers
that won (or lost) every outside game, underrated players who become exceptional
(Sonderwertung), matches, team events, forfeits, games of less than one move, computers,
non-members, youths and very low ratings (the 2014 braking supplement and first-rating
floor). :data:`PARAMETER_SETS` are the Rechenmodule compared: every DWZ version in both
precisions, plus switches that change which code runs.

:func:`compare` evaluates one tournament with the fast core and with the frozen reference
(``tests/reference_dwz``) and returns the first difference, or None.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from ratingdb.errors import ConvergenceError
from ratingdb.rules import dwz2026, dwz_classic
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.dwz_classic import DwzClassicParameters
from ratingdb.rules.dwz_classic.versions import VERSIONS
from ratingdb.rules.model import (
    GameInput,
    PlayerInput,
    ResidualGame,
    TournamentInfo,
    TournamentInput,
    TournamentResult,
)
from tests.reference_dwz import evaluate_classic, evaluate_dwz2026

Params = Dwz2026Parameters | DwzClassicParameters

#: name -> parameters; every DWZ version in both precisions and the switches that matter
PARAMETER_SETS: dict[str, Params] = {
    "dwz2026-table": Dwz2026Parameters(),
    "dwz2026-float": Dwz2026Parameters(precision="float"),
    "dwz2026-change-first": Dwz2026Parameters(round_change_first=True),
    **{f"{name}-{p.precision}": p for name, p in VERSIONS.items()},
    **{
        f"{name}-{other}": p.with_precision(other)
        for name, p in VERSIONS.items()
        for other in ("table", "float")
        if other != p.precision
    },
    "dwz-classic-float-refuse": DwzClassicParameters(precision="float"),
    "dwz-2016-no-match-sw": replace(VERSIONS["dwz-2016"], exceptional_in_match=False),
}


def _result(rng: random.Random, strength: float) -> str:
    """A result for white with an edge of ``strength`` points (forfeits now and then)."""
    x = rng.random()
    if x < 0.03:
        return rng.choice(["+-", "-+", "--", "W-L", "L-W", "D-D"])
    p = 1 / (1 + 10 ** (-strength / 400))
    draw = 0.0 if abs(strength) > 1000 else rng.choice([0.0, 0.2, 0.35])
    y = rng.random()
    if y < p - draw / 2:
        return "1-0"
    if y < p + draw / 2:
        return "1/2-1/2"
    return "0-1"


def random_tournament(rng: random.Random, label: str = "T") -> TournamentInput:
    """One random tournament (see the module text)."""
    end = date(2026, 7, 1) + timedelta(days=rng.randint(0, 120))
    kind = rng.choices(["individual", "team", "match"], [80, 10, 10])[0]
    if kind == "match":
        size = 2
    else:
        size = rng.choice([3, 4, 6, 8, 10, 12, 16, 24, 40, rng.randint(2, 70)])
    rated_share = rng.choice([0.0, 0.3, 0.5, 0.7, 0.9, 1.0])
    low = rng.random() < 0.25  # a tournament of weak players (braking, first-rating floor)
    players: list[PlayerInput] = []
    true: dict[str, float] = {}
    # a clique of newcomers who win (or lose) every game against the others
    clique = rng.choice([0, 1500, -1500]) if rng.random() < 0.3 else 0
    clique_size = rng.randint(1, 4) if clique else 0
    for k in range(size):
        pid = f"P{k}"
        base = rng.gauss(900 if low else 1700, 250 if low else 350)
        rated = rng.random() < rated_share and k >= clique_size
        if k < clique_size:
            base += clique
        rating = max(1, min(3000, int(base + rng.gauss(0, 80)))) if rated else None
        # underrated players (Sonderwertung), and newcomers far above or below the field
        if rng.random() < 0.08:
            base += rng.choice([450, 700, -600])
        true[pid] = base
        index: int | None = rng.choice([None, 0, 1, 2, 3, 5, 8, 12, 30, 80]) if rated else None
        residual: tuple[ResidualGame, ...] = ()
        if not rated and rng.random() < 0.5:
            residual = tuple(
                ResidualGame(
                    max(1, int(rng.gauss(1500, 300))),
                    Decimal(rng.choice(["0", "0.5", "1"])),
                    end - timedelta(days=rng.randint(1, 1000)),
                )
                for _ in range(rng.randint(1, 7))
            )
        players.append(
            PlayerInput(
                id=pid,
                rating=rating,
                index=index,
                birth_year=rng.choice([None, rng.randint(1940, 2020)]),
                member=rng.random() > 0.1,
                rating_source=None if rating is None else rng.choice(["dwz", "fide", "national"]),
                computer=kind != "match" and rng.random() < 0.02,
                residual_games=residual,
            )
        )
    games: list[GameInput] = []
    ids = [p.id for p in players]
    if kind == "match":
        for r in range(rng.randint(1, 12)):
            a, b = (ids[0], ids[1]) if r % 2 == 0 else (ids[1], ids[0])
            games.append(GameInput(a, b, _result(rng, true[a] - true[b]), r + 1))
    elif size <= 12 and rng.random() < 0.6:  # a round robin, once or twice
        for cycle in range(rng.choice([1, 1, 2])):
            for x in range(size):
                for y in range(x + 1, size):
                    a, b = (ids[x], ids[y]) if (x + y + cycle) % 2 else (ids[y], ids[x])
                    games.append(GameInput(a, b, _result(rng, true[a] - true[b]), None))
    else:  # Swiss-like: random pairings of neighbours in strength
        for r in range(rng.randint(3, 11)):
            order = sorted(ids, key=lambda p: true[p] + rng.gauss(0, 200))
            if len(order) % 2:
                order.pop(rng.randrange(len(order)))
            for x in range(0, len(order), 2):
                a, b = order[x], order[x + 1]
                if rng.random() < 0.5:
                    a, b = b, a
                games.append(GameInput(a, b, _result(rng, true[a] - true[b]), r + 1))
    info = TournamentInfo(label, end - timedelta(days=rng.randint(0, 9)), end, None, "000", kind)
    return TournamentInput(info, tuple(players), tuple(games))


def evaluate_fast(t: TournamentInput, params: Params, traced: bool = True) -> TournamentResult:
    """The fast core; ``traced=False`` as the replay runs it (without the trace)."""
    if isinstance(params, Dwz2026Parameters):
        return dwz2026.evaluate(t, params, traced=traced)
    return dwz_classic.evaluate(t, params, traced=traced)


evaluate_untraced = partial(evaluate_fast, traced=False)


def evaluate_reference(t: TournamentInput, params: Params) -> TournamentResult:
    if isinstance(params, Dwz2026Parameters):
        return evaluate_dwz2026(t, params)
    return evaluate_classic(t, params)


def _outcome(evaluate: Any, t: TournamentInput, params: Params) -> Any:
    """Everything an evaluation gives, exactly: the result's JSON without the trace, the
    trace, and each player's full record (``repr`` keeps a Decimal's places and a
    float's last digit); or the error it raised."""
    try:
        result = evaluate(t, params)
    except ConvergenceError as err:
        return ("ConvergenceError", str(err), list(err.players))
    return (
        repr(result.to_dict(trace=False)),
        repr(result.trace),
        [repr(p) for p in result.players],
        result.iterations,
    )


def compare(t: TournamentInput, params: Params) -> str | None:
    """None if the fast core and the reference agree on everything (and the fast core
    without its trace on everything but the trace), else the difference."""
    fast = _outcome(evaluate_fast, t, params)
    reference = _outcome(evaluate_reference, t, params)
    untraced = _outcome(evaluate_untraced, t, params)
    if _but_trace(untraced) != _but_trace(reference):
        return f"untraced differs:\n fast      {untraced!s:.3000}\n reference {reference!s:.3000}"
    if fast == reference:
        return None
    if fast[0] == "ConvergenceError" or reference[0] == "ConvergenceError":
        return f"differs:\n fast      {str(fast)[:3000]}\n reference {str(reference)[:3000]}"
    for what, a, b in zip(("result", "trace"), fast[:2], reference[:2], strict=True):
        if a != b:
            return f"{what} differs:\n fast      {a[:2000]}\n reference {b[:2000]}"
    for a, b in zip(fast[2], reference[2], strict=False):
        if a != b:
            return f"player differs:\n fast      {a}\n reference {b}"
    return f"differs:\n fast      {str(fast)[:3000]}\n reference {str(reference)[:3000]}"


def _but_trace(outcome: Any) -> Any:
    """An outcome of :func:`_outcome` without its trace (an error as it is)."""
    return outcome if outcome[0] == "ConvergenceError" else (outcome[0], *outcome[2:])
