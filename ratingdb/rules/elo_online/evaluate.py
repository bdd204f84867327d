"""Online Elo (spec online-elo.txt): every game rated with the ratings current at its end.

"New Rating = Old Rating + K * (Score - Win Expectancy)", K = 32 for 0-2099, 24 for
2100-2399, 16 for 2400 and above; "Win Expectancy = 1 / (10^((OpponentRating -
YourRating)/400) + 1)"; "es gilt der Punktestand zum Ende des Spiels, nicht zu Beginn":
the ratings used for a game are those after every game that ended before it. Worked
numbers of the spec: 1200 vs 1600 -> 1229 / 1213 / 1197 after a win / draw / loss, and
the 1600 player +3 / -29 after a win / loss.

Choices where the spec is silent (listed in docs/rules-elo.md):

1. Games are rated in order of their end time; games ending at the same instant in input
   order (each sees the result of the earlier one). Naive times are read as UTC.
2. K is chosen from the player's own rating before the game (in float precision the
   unrounded one: 2099.6 is "0-2099"). The opponent's band does not matter.
3. Rounding: the spec's SciLab code rounds the new rating, ``round(my + K*(score -
   WE))``; ``table`` precision does so half-up after every game (integer ratings, as the
   site shows them). ``float`` carries unrounded ratings between the games of one input
   and rounds only what it reports (the next input starts from integers again).
   W_e is never rounded. Python's ``round`` is not used.
4. Forfeits (``+-``, ``-+``, ``--``) are not rated and do not count as games.
5. No rating floor or ceiling: the spec has none.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from ratingdb.errors import RulesError
from ratingdb.rules.elo_online.model import (
    OnlineGameResult,
    OnlineInput,
    OnlinePlayerResult,
    OnlineResult,
)
from ratingdb.rules.elo_online.params import OnlineEloParameters
from ratingdb.rules.model import RESULTS
from ratingdb.rules.rounding import decimal_half_up, round_half_up

RULES_NAME = "elo-online"


def k_factor(rating: float, params: OnlineEloParameters) -> int:
    """K by the player's own rating (choice 2)."""
    if rating < params.k_mid_from:
        return params.k_low
    if rating < params.k_high_from:
        return params.k_mid
    return params.k_high


def win_expectancy(own: float, opponent: float, params: OnlineEloParameters) -> float:
    """1 / (10^((opponent - own)/scale) + 1), unrounded."""
    return 1.0 / (float(10.0 ** ((opponent - own) / params.scale)) + 1.0)


def utc(moment: datetime) -> datetime:
    """A naive datetime read as UTC; an aware one converted to UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def evaluate(data: OnlineInput, params: OnlineEloParameters | None = None) -> OnlineResult:
    """Rate the games in end-time order; raises RulesError for input it cannot rate."""
    params = params or OnlineEloParameters()
    table = params.precision == "table"
    players = {p.id: p for p in data.players}
    if len(players) != len(data.players):
        raise RulesError("duplicate player id")
    for p in data.players:
        if p.games_before < 0:
            raise RulesError(f"player {p.id!r}: games_before cannot be negative")
    for k, g in enumerate(data.games):
        if g.white not in players or g.black not in players:
            raise RulesError(f"game {k}: unknown player")
        if g.white == g.black:
            raise RulesError(f"game {k}: player {g.white!r} cannot play against himself")
        if g.result not in RESULTS:
            raise RulesError(f"game {k}: unknown result {g.result!r}")

    current: dict[str, float] = {p.id: float(p.rating) for p in data.players}
    results = {
        p.id: OnlinePlayerResult(
            id=p.id,
            rating_old=p.rating,
            rating_new=p.rating,
            games_before=p.games_before,
            games_after=p.games_before,
        )
        for p in data.players
    }
    order = sorted(range(len(data.games)), key=lambda k: utc(data.games[k].end))
    games_out: list[OnlineGameResult] = []
    changes: list[dict[str, Any]] = []
    for k in order:
        g = data.games[k]
        out = OnlineGameResult(k, g.id, g.end, g.white, g.black, g.result, rated=False)
        games_out.append(out)
        halves = RESULTS[g.result]
        if halves is None:
            continue
        w_old, b_old = current[g.white], current[g.black]
        w_e = win_expectancy(w_old, b_old, params)
        w_k, b_k = k_factor(w_old, params), k_factor(b_old, params)
        w_change = w_k * (halves[0] / 2 - w_e)
        b_change = b_k * (halves[1] / 2 - (1.0 - w_e))
        w_new, b_new = w_old + w_change, b_old + b_change
        if table:
            w_new, b_new = float(round_half_up(w_new)), float(round_half_up(b_new))
        current[g.white], current[g.black] = w_new, b_new
        out.rated = True
        out.white_before, out.white_after = round_half_up(w_old), round_half_up(w_new)
        out.black_before, out.black_after = round_half_up(b_old), round_half_up(b_new)
        out.white_expected = decimal_half_up(w_e, 3)
        out.white_k, out.black_k = w_k, b_k
        changes.append(
            {
                "index": k,
                "white_change": float(decimal_half_up(w_change, 3)),
                "black_change": float(decimal_half_up(b_change, 3)),
            }
        )
        for pid, half in ((g.white, halves[0]), (g.black, halves[1])):
            r = results[pid]
            r.games += 1
            r.games_after += 1
            r.score += Decimal(half) / 2
            if half == 2:
                r.wins += 1
            elif half == 1:
                r.draws += 1
            else:
                r.losses += 1
    for pid, r in results.items():
        r.rating_new = round_half_up(current[pid])
    return OnlineResult(
        id=data.id,
        name=data.name,
        rules=RULES_NAME,
        precision=params.precision,
        parameters=params.to_dict(),
        players=[results[p.id] for p in data.players],
        games=games_out,
        trace={"changes": changes},
    )
