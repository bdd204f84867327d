"""One tournament never blocks the night: what the replay does when the rules refuse one.

The solver of :mod:`ratingdb.rules.solver` rates every tournament the project knows of;
this is the safety net behind it. When a Rechenmodul still raises a
:class:`~ratingdb.errors.RulesError` for a tournament, the run does not stop:

1. the players the error names (a first-rating group, a performance) are struck for this
   evaluation, like a chess computer's games (WO 4.1.4 / classic 6.1.4): they get no new
   rating and keep what they had (rating, index, residual games); everybody else is rated
   on the remaining games;
2. if the error names nobody, or the second evaluation fails too, every participant is
   struck: the tournament changes nobody's rating (as a Zweikampf that cannot be
   evaluated, WO 4.2.4.5);
3. the run records which tournament, which players and why (``evaluation_problems``,
   shown by ``ratingdb runs`` and on the tournament's web page), so that an officer can
   correct the tournament; the correction replays it like any other.

The same input always gives the same struck players, so an incremental replay still equals
a full one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ratingdb.errors import RulesError
from ratingdb.rules.model import TournamentInput
from ratingdb.rules.snapshots import Outputs, SnapshotOutput


@dataclass(frozen=True)
class EvaluationProblem:
    """A tournament the rules refused, and whom the run left unrated because of it."""

    tournament_id: int
    code: str
    participant_ids: tuple[int, ...]
    message: str


def evaluate_or_strike(
    outputs: Outputs,
    tin: TournamentInput,
    parameters: Any,
) -> tuple[list[SnapshotOutput], tuple[str, ...], str | None]:
    """The outputs of one tournament, the ids of the struck players and the rules' message
    (None when nothing had to be struck)."""
    try:
        return outputs(tin, parameters), (), None
    except RulesError as err:
        message = str(err)
        named = tuple(getattr(err, "players", ()) or ())
    known = {p.id for p in tin.players}
    if named and set(named) <= known:
        try:
            return _struck(outputs, tin, parameters, set(named)), named, message
        except RulesError as again:
            message = f"{message}; then: {again}"
    everybody = tuple(p.id for p in tin.players)
    return _struck(outputs, tin, parameters, set(everybody)), everybody, message


def _struck(
    outputs: Outputs,
    tin: TournamentInput,
    parameters: Any,
    ids: set[str],
) -> list[SnapshotOutput]:
    players = tuple(replace(p, computer=True) if p.id in ids else p for p in tin.players)
    rows = outputs(replace(tin, players=players), parameters)
    for k, (p, row) in enumerate(zip(tin.players, rows, strict=True)):
        if p.id in ids:  # nothing changes for a struck player
            rows[k] = replace(
                row,
                group="established" if p.rating is not None else "remaining",
                rating_old=p.rating,
                index_old=p.index,
                rating_new=p.rating,
                index_new=p.index,
                stored=False,
                new_residual_games=[],
            )
    return rows
