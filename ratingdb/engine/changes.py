"""Pending changes and where a replay must start for them (WO 3.7).

Every edit of the history leaves a change point: the tournament inserted, corrected or
deleted, a player whose memberships or birth year changed, a Rechenmodul added with a
past valid-from date, or a request for a full replay. A recalculation run merges all
pending changes into one replay: it starts at the earliest affected position, with the
affected players dirty (their state taken from the stored history just before it).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from ratingdb.engine.model import EngineTournament
from ratingdb.engine.order import OrderKey

ChangeKind = Literal["insert", "correct", "delete", "player", "rechenmodul", "adjustment", "full"]


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    from_date: date
    tournament_id: int | None = None
    player_ids: frozenset[int] = field(default_factory=frozenset)
    #: the old order key of a deleted or corrected tournament
    hold_key: OrderKey | None = None


@dataclass
class ReplayPlan:
    start: int
    players: set[int]
    force: set[int]
    hold_until: dict[int, OrderKey]
    changed_records: set[int]
    full: bool = False
    #: an adjustment or a new Rechenmodul changes the input of every player after it: every
    #: input is rebuilt from the players' states, none is taken from a stored snapshot
    everyone_dirty: bool = False


def plan(changes: Iterable[Change], ordered: Sequence[EngineTournament]) -> ReplayPlan | None:
    """Merge pending changes into one replay over ``ordered`` (the current tournaments)."""
    changes = list(changes)
    if not changes:
        return None
    keys = [t.order_key for t in ordered]
    position = {t.id: k for k, t in enumerate(ordered)}
    first_on = [t.end for t in ordered]
    if any(c.kind == "full" for c in changes):
        return ReplayPlan(0, set(), {t.id for t in ordered}, {}, set(), full=True)
    starts: list[int] = []
    result = ReplayPlan(len(ordered), set(), set(), {}, set())
    for change in changes:
        result.players |= change.player_ids
        if change.kind in ("insert", "correct") and change.tournament_id in position:
            starts.append(position[change.tournament_id])
            result.force.add(change.tournament_id)
        if change.hold_key is not None:
            hold = change.hold_key
            starts.append(bisect.bisect_left(keys, hold))
            for pid in change.player_ids:
                result.hold_until[pid] = max(result.hold_until.get(pid, hold), hold)
        if change.kind == "player":
            result.changed_records |= change.player_ids
            starts.append(bisect.bisect_left(first_on, change.from_date))
        if change.kind in ("rechenmodul", "adjustment"):
            # a Rechenmodul applies to tournaments ending on or after its valid-from date;
            # an adjustment runs after every tournament ending on its date
            find = bisect.bisect_left if change.kind == "rechenmodul" else bisect.bisect_right
            begin = find(first_on, change.from_date)
            starts.append(begin)
            result.force |= {t.id for t in ordered[begin:]}
            # both change every later input (a Rechenmodul also its life-cycle periods):
            # no stored input after the change point can be trusted
            result.everyone_dirty = True
    result.start = min(starts, default=len(ordered))
    return result
