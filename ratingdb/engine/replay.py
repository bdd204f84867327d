"""Replay: evaluate tournaments in order from a change point (WO 2.2.3, 3.7).

The replay walks the ordered tournaments from position ``start``. It keeps in memory the
state of *dirty* players only: players whose history differs from the stored one. A
tournament is re-evaluated when it is forced (new, corrected, or its Rechenmodul changed)
or when a dirty participant's input differs from what its stored snapshot used; every other
participant's input is the one its stored snapshot recorded (their history is unchanged).
After a re-evaluation, a participant whose state afterwards equals the stored one becomes
clean again, so a re-evaluation whose outputs equal the stored ones stops the ripple. With
no stored snapshots at all this is the full replay from the beginning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ratingdb.engine.inputs import participant_input, state_after, tournament_input
from ratingdb.engine.model import (
    Adjustment,
    EngineTournament,
    PlayerRecord,
    PlayerState,
    Snapshot,
    SnapshotInput,
)
from ratingdb.engine.order import OrderKey
from ratingdb.engine.problems import EvaluationProblem, evaluate_or_strike
from ratingdb.engine.source import HistorySource
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules import get_family
from ratingdb.rules.model import GameInput, TournamentInput
from ratingdb.rules.snapshots import SnapshotOutput

StoredSnapshots = Mapping[int, Mapping[int, Snapshot]]


@dataclass
class ReplayOutcome:
    #: tournament id -> its new snapshots, for every re-evaluated tournament whose
    #: snapshots differ from the stored ones
    written: dict[int, list[Snapshot]] = field(default_factory=dict)
    #: tournament id -> what the rules refused, for every re-evaluated tournament where
    #: players had to be struck (ratingdb/engine/problems.py)
    problems: dict[int, EvaluationProblem] = field(default_factory=dict)
    evaluated: int = 0
    skipped: int = 0


class ReplayWorld(Protocol):
    """What a replay reads: the players' records, the Rechenmodul timeline, the rating
    adjustments, a :class:`HistorySource` and the stored state of a player before a
    position (``ratingdb.engine.history.History`` is one)."""

    @property
    def players(self) -> Mapping[int, PlayerRecord]: ...

    @property
    def timeline(self) -> Timeline: ...

    @property
    def adjustments(self) -> Sequence[Adjustment]: ...

    @property
    def source(self) -> HistorySource: ...

    def state_before(
        self, player_id: int, ordered: Sequence[EngineTournament], pos: int
    ) -> PlayerState:
        """The player's stored state just before position ``pos`` of ``ordered``."""
        ...


@dataclass(frozen=True)
class ReplayScope:
    """Where a replay starts and what it must not trust (built from a
    :class:`ratingdb.engine.changes.ReplayPlan`).

    ``dirty`` holds the states, just before ``start``, of players whose history changed;
    ``force`` the ids of tournaments that must be evaluated. ``changed_records`` are
    players whose memberships or birth year changed: their stored inputs are never
    trusted, so they stay dirty to the end of the walk. ``hold_until`` keeps players dirty
    up to a stored order key: the participants of a deleted (or moved) tournament, whose
    later stored inputs still contain its effect. ``pin_all`` trusts no stored input at all
    (a new rating adjustment or Rechenmodul changes every later one). ``full``: nothing
    stored is consulted, a player met for the first time starts from the source's prior
    state (no rating when the whole history is loaded).
    """

    start: int = 0
    dirty: Mapping[int, PlayerState] = field(default_factory=dict)
    force: AbstractSet[int] = frozenset()
    changed_records: AbstractSet[int] = frozenset()
    hold_until: Mapping[int, OrderKey] = field(default_factory=dict)
    pin_all: bool = False
    full: bool = False


def replay(
    tournaments: Sequence[EngineTournament],
    world: ReplayWorld,
    stored: StoredSnapshots,
    scope: ReplayScope,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayOutcome:
    """Replay ``tournaments[scope.start:]`` (already in evaluation order).

    ``stored`` (the stored snapshots by tournament and participant) and the world's
    source are only consulted for tournaments that have to be looked at: callers may load
    lazily. ``progress`` is called with each position walked and the number of tournaments
    re-evaluated before it.
    """
    source, players, timeline = world.source, world.players, world.timeline
    adjustments = world.adjustments
    start, pin_all = scope.start, scope.pin_all
    dirty = dict(scope.dirty)
    pinned = set(scope.changed_records)
    held = dict(scope.hold_until)

    def keep_dirty(pid: int, key: OrderKey) -> bool:
        if pin_all or pid in pinned:
            return True
        until = held.get(pid)
        return until is not None and key <= until

    forced = set(scope.force)
    remaining_forced = {t.id for t in tournaments[start:] if t.id in forced}
    outcome = ReplayOutcome()
    for pos in range(start, len(tournaments)):
        t = tournaments[pos]
        if progress is not None:
            progress(pos, outcome.evaluated)
        if held and max(held.values()) < t.order_key:
            held.clear()
        if not dirty and not remaining_forced and not pinned:
            outcome.skipped += len(tournaments) - pos
            break
        is_forced = t.id in forced
        if not is_forced and dirty.keys().isdisjoint(source.players_in(t)):
            outcome.skipped += 1  # every participant's stored history is unchanged
            continue
        t = source.expand(t)
        remaining_forced.discard(t.id)
        stored_t = stored.get(t.id) or {}
        modul = timeline.at(t.end)
        inputs: dict[int, SnapshotInput] = {}
        must_evaluate = is_forced
        for part in t.participants:
            pid = part.player_id
            old = stored_t.get(part.id)
            if pin_all or (pid is not None and pid in dirty) or old is None:
                if pid is None:
                    state = PlayerState()
                elif pid in dirty:
                    state = dirty[pid]
                else:
                    state = (
                        source.prior(pid)
                        if scope.full
                        else world.state_before(pid, tournaments, pos)
                    )
                record = players.get(pid) if pid else None
                inp = participant_input(part, record, state, t, modul, adjustments, timeline)
            else:
                inp = old.input
                if inp.rechenmodul != modul.key:
                    inp = _with_modul(inp, modul.key)
            inputs[part.id] = inp
            if old is None or old.input != inp:
                must_evaluate = True
        if not must_evaluate:
            outcome.skipped += 1
            for part in t.participants:
                pid = part.player_id
                if pid is not None and pid in dirty:
                    old = stored_t[part.id]
                    if keep_dirty(pid, t.order_key):
                        dirty[pid] = state_after(old.input, old.output, t)
                    else:
                        del dirty[pid]
            continue

        outcome.evaluated += 1
        new, problem = evaluate(t, inputs, source.games_of(t), modul)
        if problem is not None:
            outcome.problems[t.id] = problem
        differs = len(stored_t) != len(t.participants)
        for part, snap in zip(t.participants, new, strict=True):
            old = stored_t.get(part.id)
            if old is None or old.input != snap.input or old.output != snap.output:
                differs = True
            pid = part.player_id
            if pid is None:
                continue
            after = state_after(snap.input, snap.output, t)
            unchanged = old is not None and state_after(old.input, old.output, t) == after
            if unchanged and not keep_dirty(pid, t.order_key):
                dirty.pop(pid, None)
            else:
                dirty[pid] = after
        if differs:
            outcome.written[t.id] = new
    return outcome


#: a tournament to evaluate: rule family, parameters, the rules' input
Task = tuple[str, Any, TournamentInput]
#: what :func:`run_task` gives: what :func:`evaluate_or_strike` gives (outputs, struck
#: players, the rules' message) and the outputs as ``encode`` gave them (None without)
Result = tuple[list[SnapshotOutput], tuple[str, ...], str | None, list[str] | None]
#: an output encoded where the rules ran (:attr:`Snapshot.encoded
#: <ratingdb.engine.model.Snapshot.encoded>`); a module-level function, so that a worker
#: process gets it by name
Encode = Callable[[SnapshotOutput], str]


def task_for(
    t: EngineTournament,
    inputs: Mapping[int, SnapshotInput],
    games: tuple[GameInput, ...],
    modul: RechenmodulVersion,
) -> Task:
    """What evaluating the tournament needs, and nothing of the replay's state (a worker
    process can run it: ratingdb/engine/parallel.py)."""
    return modul.family, modul.parameters, tournament_input(t, inputs, games)


def run_task(task: Task, encode: Encode | None = None) -> Result:
    """The rules' outputs of one tournament (ratingdb/engine/problems.py), each also
    encoded by ``encode`` if given."""
    family, parameters, tin = task
    outputs = get_family(family).outputs
    assert outputs is not None
    outs, struck, message = evaluate_or_strike(outputs, tin, parameters)
    return outs, struck, message, None if encode is None else [encode(o) for o in outs]


def outcome(
    t: EngineTournament, inputs: Mapping[int, SnapshotInput], result: Result
) -> tuple[list[Snapshot], EvaluationProblem | None]:
    """The snapshots (participant order) and the problem, if players had to be struck."""
    outputs, struck, message, encoded = result
    problem = (
        None
        if message is None
        else EvaluationProblem(t.id, t.code, tuple(int(pid) for pid in struck), message)
    )
    texts: list[str] | list[None] = [None] * len(outputs) if encoded is None else encoded
    snaps = [
        Snapshot(t.id, part.id, part.player_id, inputs[part.id], output, text)
        for part, output, text in zip(t.participants, outputs, texts, strict=True)
    ]
    return snaps, problem


def evaluate(
    t: EngineTournament,
    inputs: Mapping[int, SnapshotInput],
    games: tuple[GameInput, ...],
    modul: RechenmodulVersion,
) -> tuple[list[Snapshot], EvaluationProblem | None]:
    """One tournament's snapshots (one per participant, in participant order) from its
    participants' inputs, under the Rechenmodul ``modul``; and what the rules refused, if
    players had to be struck (ratingdb/engine/problems.py)."""
    return outcome(t, inputs, run_task(task_for(t, inputs, games, modul)))


def _with_modul(inp: SnapshotInput, key: str) -> SnapshotInput:
    return replace(inp, rechenmodul=key)
