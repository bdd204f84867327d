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

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

from ratingdb.engine.inputs import participant_input, state_after, tournament_input
from ratingdb.engine.model import (
    Adjustment,
    EngineTournament,
    PlayerRecord,
    PlayerState,
    Snapshot,
    SnapshotInput,
)
from ratingdb.engine.problems import EvaluationProblem, evaluate_or_strike
from ratingdb.engine.timeline import Timeline
from ratingdb.rules.model import GameInput

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


def replay(
    tournaments: Sequence[EngineTournament],
    players: Mapping[int, PlayerRecord],
    timeline: Timeline,
    stored: StoredSnapshots,
    *,
    start: int = 0,
    dirty: dict[int, PlayerState] | None = None,
    force: Iterable[int] = (),
    state_of: Callable[[int, int], PlayerState] = lambda _pid, _pos: PlayerState(),
    changed_records: Iterable[int] = (),
    hold_until: Mapping[int, tuple[Any, ...]] | None = None,
    games_of: Callable[[EngineTournament], tuple[GameInput, ...]] = lambda t: t.games,
    adjustments: Sequence[Adjustment] = (),
    pin_all: bool = False,
    players_in: Callable[[EngineTournament], AbstractSet[int]] | None = None,
    expand: Callable[[EngineTournament], EngineTournament] | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplayOutcome:
    """Replay ``tournaments[start:]`` (already in evaluation order).

    ``dirty`` holds the states, just before ``start``, of players whose history changed;
    ``force`` the ids of tournaments that must be evaluated; ``state_of(player, pos)``
    gives the stored state of a clean player before position ``pos`` (needed when a clean
    player appears in a tournament without stored snapshots).
    ``changed_records`` are players whose memberships or birth year changed: their stored
    inputs are never trusted, so they stay dirty to the end of the walk. ``hold_until``
    keeps players dirty up to a stored order key: the participants of a deleted (or moved)
    tournament, whose later stored inputs still contain its effect. ``pin_all`` trusts no
    stored input at all (a new rating adjustment changes every later one). ``stored``,
    ``games_of`` and ``expand`` (a tournament with its participants, from a stub that only
    knows its order key) are only consulted for tournaments that have to be looked at, and
    ``players_in`` answers which players a tournament has: callers may load lazily.
    """
    if players_in is None:
        players_in = _player_ids
    if expand is None:
        expand = _same
    dirty = dict(dirty or {})
    pinned = set(changed_records)
    held = dict(hold_until or {})

    def keep_dirty(pid: int, key: tuple[Any, ...]) -> bool:
        if pin_all or pid in pinned:
            return True
        until = held.get(pid)
        return until is not None and key <= until

    forced = set(force)
    remaining_forced = {t.id for t in tournaments[start:] if t.id in forced}
    outcome = ReplayOutcome()
    for pos in range(start, len(tournaments)):
        t = tournaments[pos]
        if progress is not None:
            progress(pos)
        if held and max(held.values()) < t.order_key:
            held.clear()
        if not dirty and not remaining_forced and not pinned:
            outcome.skipped += len(tournaments) - pos
            break
        is_forced = t.id in forced
        if not is_forced and dirty.keys().isdisjoint(players_in(t)):
            outcome.skipped += 1  # every participant's stored history is unchanged
            continue
        t = expand(t)
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
                    state = state_of(pid, pos)
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
        tin = tournament_input(t, inputs, games_of(t))
        assert modul.rules.outputs is not None
        outputs, struck, message = evaluate_or_strike(modul.rules.outputs, tin, modul.parameters)
        if message is not None:
            outcome.problems[t.id] = EvaluationProblem(
                t.id, t.code, tuple(int(pid) for pid in struck), message
            )
        new: list[Snapshot] = []
        differs = len(stored_t) != len(t.participants)
        for part, output in zip(t.participants, outputs, strict=True):
            snap = Snapshot(t.id, part.id, part.player_id, inputs[part.id], output)
            new.append(snap)
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


def _player_ids(t: EngineTournament) -> AbstractSet[int]:
    return t.player_ids


def _same(t: EngineTournament) -> EngineTournament:
    return t


def _with_modul(inp: SnapshotInput, key: str) -> SnapshotInput:
    return replace(inp, rechenmodul=key)
