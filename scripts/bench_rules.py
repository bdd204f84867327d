#!/usr/bin/env python3
"""Benchmark of the DWZ rules core: a 300-player, 9-round Swiss open, 40 unrated.

Prints milliseconds per evaluation and tournaments/second for DWZ 2026 in table and float
precision, and (``--versions``) for the DSB's versions before 2026 on the same core
(``dwz-classic`` and ``dwz-wo2002`` in table precision, ``dwz-2014`` and ``dwz-2016`` in
float precision), which rate most of a replayed history.
``--mix N`` rates instead N tournaments of the sizes a replayed history is made of (the
shapes of ``ratingdb.synth``: club round robins of 6-10 players, Swiss opens of 20-60 with
a few newcomers, league seasons of 32 players over 7 rounds, matches of 2 players, in the
proportions a federation's year has them) and prints the mean time per tournament.
``--cpu`` measures the process's CPU time instead of the wall clock (on a shared machine).
``--untraced`` evaluates without the trace of the iterations, as the replay does (every
other value the same).
Usage: python scripts/bench_rules.py [--players 300] [--rounds 9] [--unrated 40] [--repeat 20]
       [--versions] [--mix N] [--cpu] [--untraced]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import date
from functools import partial
from typing import Any

from ratingdb.rules import dwz_classic
from ratingdb.rules.dwz2026 import Dwz2026Parameters, evaluate
from ratingdb.rules.dwz2026.probability import p_float
from ratingdb.rules.dwz_classic.versions import VERSIONS
from ratingdb.rules.model import GameInput, PlayerInput, TournamentInfo, TournamentInput


def swiss_open(players: int, rounds: int, unrated: int, seed: int = 1) -> TournamentInput:
    """A simple Swiss system: pair neighbours within the score order, avoid repeats."""
    rng = random.Random(seed)
    strength = {f"P{k}": rng.gauss(1700, 300) for k in range(players)}
    entries = []
    for k, (pid, s) in enumerate(strength.items()):
        is_rated = k >= unrated
        entries.append(
            PlayerInput(
                id=pid,
                rating=max(1100, int(s + rng.gauss(0, 60))) if is_rated else None,
                index=rng.randint(1, 60) if is_rated else None,
                birth_year=rng.randint(1950, 2015),
                member=rng.random() > 0.1,
            )
        )
    score = dict.fromkeys(strength, 0.0)
    met: set[frozenset[str]] = set()
    games: list[GameInput] = []
    for rnd in range(1, rounds + 1):
        order = sorted(strength, key=lambda p: (-score[p], -strength[p]))
        while len(order) > 1:
            a = order.pop(0)
            b = next((p for p in order if frozenset((a, p)) not in met), order[0])
            order.remove(b)
            met.add(frozenset((a, b)))
            p_win = p_float(strength[a] - strength[b])
            draw = 0.25
            x = rng.random()
            if x < p_win - draw / 2:
                result, sa = "1-0", 1.0
            elif x < p_win + draw / 2:
                result, sa = "1/2-1/2", 0.5
            else:
                result, sa = "0-1", 0.0
            if rng.random() < 0.01:
                result, sa = "+-", 1.0
            score[a] += sa
            score[b] += 1 - sa
            games.append(GameInput(a, b, result, rnd))
    info = TournamentInfo("bench", date(2026, 7, 1), date(2026, 7, 9), "Bench Open", "000")
    return TournamentInput(info, tuple(entries), tuple(games))


def tournament_mix(count: int, seed: int = 1) -> list[TournamentInput]:
    """``count`` tournaments shaped as a replayed year of ``ratingdb.synth`` has them:
    55 % club round robins, 14 % opens, 17 % league seasons, 14 % matches."""
    rng = random.Random(seed)
    out: list[TournamentInput] = []
    for k in range(count):
        x = rng.random()
        if x < 0.55:  # a club championship: everybody meets everybody
            size = rng.randint(6, 10)
            out.append(swiss_open(size, size - 1, 0, seed=k))
        elif x < 0.69:
            out.append(swiss_open(rng.randint(20, 60), rng.randint(5, 9), rng.randint(0, 4), k))
        elif x < 0.86:  # a league season: 8 teams, 4 boards, 7 rounds
            out.append(swiss_open(32, 7, 0, seed=k))
        else:
            out.append(swiss_open(2, rng.randint(2, 6), 0, seed=k))
    return out


#: the clock of the measurements (``--cpu``: the process's CPU time)
clock = time.perf_counter


def bench_mix(count: int, runs: list[tuple[str, Any, Any]]) -> None:
    tournaments = tournament_mix(count)
    games = sum(len(t.games) for t in tournaments)
    print(f"mix: {count} tournaments, {games} games")
    for label, rate, params in runs:
        for t in tournaments[:20]:  # warm-up
            rate(t, params)
        start = clock()
        for t in tournaments:
            rate(t, params)
        per = (clock() - start) / count
        print(f"{label:11s}: {per * 1000:7.3f} ms per tournament  {1 / per:8.1f} tournaments/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--unrated", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--versions", action="store_true", help="also the versions before 2026")
    parser.add_argument("--mix", type=int, default=0, help="rate a mix of this many tournaments")
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of the wall clock")
    parser.add_argument("--untraced", action="store_true", help="without the trace (the replay)")
    args = parser.parse_args()
    global clock
    if args.cpu:
        clock = time.process_time
    runs: list[tuple[str, Any, Any]] = [
        (precision, evaluate, Dwz2026Parameters(precision=precision))
        for precision in ("table", "float")
    ]
    if args.versions:
        runs += [(name, dwz_classic.evaluate, params) for name, params in VERSIONS.items()]
    if args.untraced:
        runs = [(label, partial(rate, traced=False), params) for label, rate, params in runs]
    if args.mix:
        bench_mix(args.mix, runs)
        return
    tournament = swiss_open(args.players, args.rounds, args.unrated)
    print(
        f"tournament: {args.players} players, {args.rounds} rounds, {args.unrated} unrated, "
        f"{len(tournament.games)} games"
    )
    for label, rate, params in runs:
        result = rate(tournament, params)  # warm-up (tables, imports)
        times = []
        for _ in range(args.repeat):
            start = clock()
            rate(tournament, params)
            times.append(clock() - start)
        median = statistics.median(times)
        groups = {
            g: sum(p.group == g for p in result.players)
            for g in ("established", "first_stage", "second_stage", "remaining")
        }
        print(
            f"{label:5s}: median {median * 1000:7.1f} ms  min {min(times) * 1000:7.1f} ms  "
            f"{1 / median:6.1f} tournaments/s  iterations {result.iterations}  groups {groups}"
        )


if __name__ == "__main__":
    main()
