"""Ingo results as rating snapshots, for the replay engine (:mod:`ratingdb.rules.snapshots`).

The Ingo number F goes to ``rating_old``/``rating_new``, the number of calculations to the
index; the level (Niveau) and the tournament number H are stored rounded half-up to
integers in ``opponents_avg`` and ``performance`` (their one-decimal values are in the output
of ``ratingdb evaluate --rules ingo``). Ingo has no age classes for the database: ``adult``.
The "or better"/"or worse" flag of C II is not carried from one tournament to the next.
"""

from __future__ import annotations

from typing import Any

from ratingdb.rules.ingo.evaluate import evaluate
from ratingdb.rules.model import TournamentInput
from ratingdb.rules.rounding import round_half_up
from ratingdb.rules.snapshots import empty


def _whole(value: Any) -> int | None:
    return None if value is None else round_half_up(value)


def outputs(t: TournamentInput, params: Any) -> list[dict[str, Any]]:
    result = evaluate(t, params)
    by_id = {p.id: p for p in result.players}
    rows = []
    for player in t.players:
        p = by_id[player.id]
        rows.append(
            empty(
                group=p.group,
                age_class="adult",
                rating_old=p.rating_old,
                index_old=p.index_old,
                opponents_avg=_whole(p.level),
                score=float(p.score),
                games=p.games,
                performance=_whole(p.performance),
                rating_new=p.rating_new,
                index_new=p.index_new,
                stored=p.stored,
            )
        )
    return rows
