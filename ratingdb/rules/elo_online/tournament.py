"""Online Elo in the replay engine: a tournament is a batch of games rated one by one.

The engine hands over a tournament (:class:`~ratingdb.rules.model.TournamentInput`); its rated
games (1-0, 0-1, 1/2-1/2; forfeits and short games are not rated) are rated in their order
— by round, then as listed — each with the ratings current at that moment (spec: "es gilt
der Punktestand zum Ende des Spiels"). Games of different tournaments are not interleaved:
the engine's order of tournaments (end date, start date, VKZ, processing time) stands in for
the games' end times. A player without a rating starts from ``initial_rating``; the index is
the number of rated games. Results are snapshot outputs (:mod:`ratingdb.rules.snapshots`):
``expected`` is the sum of the player's win expectancies, ``k`` the K of his first game.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from decimal import Decimal

from ratingdb.rules.elo_online.evaluate import evaluate
from ratingdb.rules.elo_online.model import OnlineGameInput, OnlineInput, OnlinePlayerInput
from ratingdb.rules.elo_online.params import OnlineEloParameters
from ratingdb.rules.model import TournamentInput
from ratingdb.rules.rounding import round_half_up_to
from ratingdb.rules.snapshots import SnapshotOutput, empty

RATED = ("1-0", "0-1", "1/2-1/2")


def outputs(t: TournamentInput, params: OnlineEloParameters) -> list[SnapshotOutput]:
    end = datetime.combine(t.tournament.end, time(), tzinfo=UTC)
    order = sorted(
        (k for k, g in enumerate(t.games) if g.result in RATED),
        key=lambda k: (t.games[k].round or 0, k),
    )
    computers = {p.id for p in t.players if p.computer}
    games = tuple(
        OnlineGameInput(g.white, g.black, g.result, end + timedelta(seconds=n))
        for n, g in enumerate(t.games[k] for k in order)
        if g.white not in computers and g.black not in computers
    )
    players = tuple(
        OnlinePlayerInput(p.id, p.rating or params.initial_rating, p.index or 0) for p in t.players
    )
    result = evaluate(OnlineInput(players, games, t.tournament.id), params)
    expected: dict[str, Decimal] = {}
    first_k: dict[str, int] = {}
    for g in result.games:
        if not g.rated or g.white_expected is None:
            continue
        expected[g.white] = expected.get(g.white, Decimal(0)) + g.white_expected
        expected[g.black] = expected.get(g.black, Decimal(0)) + (1 - g.white_expected)
        first_k.setdefault(g.white, g.white_k)  # type: ignore[arg-type]
        first_k.setdefault(g.black, g.black_k)  # type: ignore[arg-type]
    by_id = {p.id: p for p in result.players}
    rows = []
    for p in t.players:
        r = by_id[p.id]
        rated_before = p.rating is not None
        rows.append(
            empty(
                group="established" if rated_before else "first_stage",
                age_class="adult",
                rating_old=p.rating,
                index_old=p.index if rated_before else None,
                k=None if p.id not in first_k else float(first_k[p.id]),
                score=float(r.score),
                games=r.games,
                expected=None
                if p.id not in expected
                else float(round_half_up_to(expected[p.id], 3)),
                rating_new=r.rating_new if r.games else p.rating,
                index_new=r.games_after if r.games else p.index,
                stored=p.member and not p.computer and r.games > 0,
            )
        )
    return rows
