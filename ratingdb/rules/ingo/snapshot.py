"""Ingo results as rating snapshots, for the replay engine (:mod:`ratingdb.rules.snapshots`).

The Ingo number F goes to ``rating_old``/``rating_new``, the number of calculations to the
index; the level (Niveau) and the tournament number H are stored rounded half-up to
integers in ``opponents_avg`` and ``performance`` (their one-decimal values are in the output
of ``ratingdb evaluate --rules ingo``). Ingo has no age classes for the database: ``adult``.
The "or better"/"or worse" flag of C II is not carried from one tournament to the next.
A negative H is not stored (``performance`` stays empty); a new Ingo number below 1 is a
:class:`~ratingdb.errors.RulesError` (the run fails cleanly, naming the tournament).
"""

from __future__ import annotations

from typing import Any

from ratingdb.errors import RulesError
from ratingdb.rules.ingo.evaluate import evaluate
from ratingdb.rules.model import TournamentInput
from ratingdb.rules.rounding import round_half_up
from ratingdb.rules.snapshots import SnapshotOutput, empty


def _whole(value: Any) -> int | None:
    return None if value is None else round_half_up(value)


def outputs(t: TournamentInput, params: Any) -> list[SnapshotOutput]:
    result = evaluate(t, params)
    by_id = {p.id: p for p in result.players}
    rows = []
    for player in t.players:
        p = by_id[player.id]
        if p.stored and p.rating_new is not None and p.rating_new < 1:
            raise RulesError(
                f"player {p.id}: Ingo number {p.rating_new} below 1 cannot be stored "
                "(the database keeps ratings of at least 1)"
            )
        performance = _whole(p.performance)
        rows.append(
            empty(
                group=p.group,
                age_class="adult",
                rating_old=p.rating_old,
                index_old=p.index_old,
                opponents_avg=_whole(p.level),
                score=float(p.score),
                games=p.games,
                # an H below 0 (stronger than any Ingo number) is not a storable
                # performance: shown only by `ratingdb evaluate --rules ingo`
                performance=performance if performance is None or performance >= 0 else None,
                rating_new=p.rating_new,
                index_new=p.index_new,
                stored=p.stored,
            )
        )
    return rows
