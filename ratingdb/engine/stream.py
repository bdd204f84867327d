"""The full replay as a stream: tournaments in, snapshots out, in bounded memory.

A full replay (WO 3.7: every tournament evaluated again from the beginning, nothing stored
consulted) needs, while it walks the history in evaluation order (WO 2.2.3), only each
player's state after their last evaluation: rating and index (WO 6.4.2), the held residual
games (WO 4.1.1) and the date the retention and expiry periods count from. The players'
records (memberships, birth year, list takeover), the Rechenmodul timeline and the rating
adjustments are small and fixed. So :func:`stream_full_replay` reads the tournaments one
at a time from any iterable (the database hands them over in chunks while it reads the
next ones), gives each tournament's snapshots to ``emit`` (the database writes them while
the replay goes on) and keeps nothing of a tournament once it is evaluated: what it holds
grows with the number of players, not with the years of history.

It computes exactly what :meth:`ratingdb.engine.history.History.full_replay` computes
(the same per-participant input, :func:`ratingdb.engine.inputs.participant_input`, and the
same evaluation, :func:`ratingdb.engine.replay.run_task`); ``tests/test_engine_stream.py``
compares the two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ratingdb.engine.inputs import participant_input, state_after
from ratingdb.engine.model import (
    EMPTY_STATE,
    Adjustment,
    EngineTournament,
    PlayerRecord,
    PlayerState,
    Snapshot,
    SnapshotInput,
)
from ratingdb.engine.parallel import Lane, Prepared, in_order
from ratingdb.engine.problems import EvaluationProblem
from ratingdb.engine.replay import Encode, outcome, task_for
from ratingdb.engine.timeline import Timeline

#: receives each evaluated tournament, its snapshots (participant order) and what the
#: rules refused (None: nothing had to be struck)
Emit = Callable[[EngineTournament, list[Snapshot], EvaluationProblem | None], None]


@dataclass
class StreamReport:
    """What a streamed full replay did: tournaments evaluated, and the players' states at
    the end (the only thing it keeps; a player without any state is left out)."""

    evaluated: int
    states: dict[int, PlayerState]


def stream_full_replay(
    tournaments: Iterable[EngineTournament],
    players: Mapping[int, PlayerRecord],
    timeline: Timeline,
    adjustments: Sequence[Adjustment],
    emit: Emit,
    progress: Callable[[EngineTournament, int], None] | None = None,
    pool: Lane | None = None,
    encode: Encode | None = None,
) -> StreamReport:
    """Evaluate ``tournaments`` (with participants and games, in evaluation order) from
    the beginning: every player starts without a rating. ``progress(tournament,
    evaluated)`` is called before each tournament with the number evaluated before it.
    ``pool``: a worker that evaluates tournaments without a common player side by side
    (ratingdb/engine/parallel.py; give it the same ``encode``); the snapshots are the same
    without. ``encode``: each output's encoding for the writer, made where the output is
    made (:attr:`Snapshot.encoded <ratingdb.engine.model.Snapshot.encoded>`)."""
    states: dict[int, PlayerState] = {}
    evaluated = 0

    def prepare(t: EngineTournament) -> Prepared:
        modul = timeline.at(t.end)
        inputs: dict[int, SnapshotInput] = {}
        for part in t.participants:
            pid = part.player_id
            state = EMPTY_STATE if pid is None else states.get(pid, EMPTY_STATE)
            record = players.get(pid) if pid else None
            inputs[part.id] = participant_input(
                part, record, state, t, modul, adjustments, timeline
            )
        return inputs, task_for(t, inputs, t.games, modul)

    def turn(t: EngineTournament) -> None:
        if progress is not None:
            progress(t, evaluated)

    for t, inputs, result in in_order(tournaments, prepare, pool, turn, encode):
        snaps, problem = outcome(t, inputs, result)
        evaluated += 1
        for snap in snaps:
            pid = snap.player_id
            if pid is None:
                continue
            after = state_after(snap.input, snap.output, t)
            # (a state with a date is never the empty one: its comparison only without)
            if after.as_of is None and after == EMPTY_STATE:
                states.pop(pid, None)  # the same as never met: nothing to keep
            else:
                states[pid] = after
        emit(t, snaps, problem)
    return StreamReport(evaluated, states)
