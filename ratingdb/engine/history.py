"""An in-memory rating history: tournaments, players and stored snapshots, with the edits of
WO 3.7 (insert, correct, delete a tournament; membership changes) applied incrementally.

The database layer keeps the same history in PostgreSQL; this module is the reference
implementation the property tests compare with a full replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from ratingdb.engine.changes import Change, plan
from ratingdb.engine.inputs import state_after
from ratingdb.engine.model import (
    Adjustment,
    EngineTournament,
    PlayerRecord,
    PlayerState,
    Snapshot,
)
from ratingdb.engine.replay import ReplayOutcome, ReplayScope, replay
from ratingdb.engine.source import HistorySource, InMemorySource
from ratingdb.engine.timeline import Timeline


@dataclass
class History:
    timeline: Timeline
    players: dict[int, PlayerRecord] = field(default_factory=dict)
    tournaments: list[EngineTournament] = field(default_factory=list)
    snapshots: dict[int, dict[int, Snapshot]] = field(default_factory=dict)
    #: rating adjustments (WO Anhang 4), in date order
    adjustments: tuple[Adjustment, ...] = ()
    #: participants, games and earlier states of the tournaments (the database loads them
    #: lazily, see ratingdb.engine.source)
    source: HistorySource = field(default_factory=InMemorySource)

    def ordered(self) -> list[EngineTournament]:
        return sorted(self.tournaments, key=lambda t: t.order_key)

    # -- state ---------------------------------------------------------------------------
    def state_before(
        self, player_id: int, ordered: Sequence[EngineTournament], pos: int
    ) -> PlayerState:
        """The player's state after their last stored evaluation before position ``pos``."""
        for t in reversed(ordered[:pos]):
            if player_id not in self.source.players_in(t):
                continue
            for part in self.source.expand(t).participants:
                if part.player_id == player_id:
                    snap = self.snapshots[t.id][part.id]
                    return state_after(snap.input, snap.output, t)
        return self.source.prior(player_id)

    def _replay(
        self,
        ordered: list[EngineTournament],
        stored: dict[int, dict[int, Snapshot]],
        scope: ReplayScope,
        progress: Callable[[int, int], None] | None,
    ) -> ReplayOutcome:
        """Run the replay over ``ordered`` and keep what it wrote."""
        outcome = replay(ordered, self, stored, scope, progress)
        for tid, snaps in outcome.written.items():
            self.snapshots[tid] = {s.participant_id: s for s in snaps}
        self.tournaments = ordered
        return outcome

    # -- pending changes (the database path) -------------------------------------------
    def apply(
        self,
        changes: Iterable[Change],
        progress: Callable[[int, int], None] | None = None,
        earlier_players: Iterable[int] = (),
    ) -> ReplayOutcome:
        """Replay for changes already reflected in ``tournaments`` and ``players``.

        Inserted and corrected tournaments are present without snapshots, deleted ones
        are gone; this is how the database holds them between recalculation runs.
        ``earlier_players`` lists the players of tournaments before the loaded ones (needed
        when an adjustment makes every earlier player's state change).
        """
        ordered = self.ordered()
        replay_plan = plan(changes, ordered)
        if replay_plan is None:
            return ReplayOutcome()
        if replay_plan.full:
            return self.full_replay(progress)
        start = replay_plan.start
        players = set(replay_plan.players)
        if replay_plan.everyone_dirty:
            # everyone who played before the change point (``earlier_players``: those
            # before the loaded part of the history)
            players |= set(earlier_players)
            for t in ordered[:start]:
                players |= self.source.players_in(t)
        scope = ReplayScope(
            start=start,
            dirty={pid: self.state_before(pid, ordered, start) for pid in players},
            force=replay_plan.force,
            changed_records=replay_plan.changed_records,
            hold_until=replay_plan.hold_until,
            pin_all=replay_plan.everyone_dirty,
        )
        return self._replay(ordered, self.snapshots, scope, progress)

    # -- full replay -----------------------------------------------------------------------
    def full_replay(self, progress: Callable[[int, int], None] | None = None) -> ReplayOutcome:
        """Evaluate everything from the beginning; every player starts without a rating
        (or with the source's prior state), nothing stored is consulted."""
        self.snapshots = {}
        ordered = self.ordered()
        return self._replay(
            ordered, {}, ReplayScope(force={t.id for t in ordered}, full=True), progress
        )

    # -- edits, each recorded as a change point and replayed (as the database does) ------
    def insert(self, tournament: EngineTournament) -> ReplayOutcome:
        self.tournaments = [*self.tournaments, tournament]
        return self.apply([Change("insert", tournament.end, tournament.id, tournament.player_ids)])

    def delete(self, tournament_id: int) -> ReplayOutcome:
        gone = next(t for t in self.tournaments if t.id == tournament_id)
        self.tournaments = [t for t in self.tournaments if t.id != tournament_id]
        self.snapshots.pop(tournament_id, None)
        return self.apply([Change("delete", gone.end, gone.id, gone.player_ids, gone.order_key)])

    def correct(self, tournament: EngineTournament) -> ReplayOutcome:
        """Replace the tournament with the same id (games, participants, dates may change)."""
        previous = next(t for t in self.tournaments if t.id == tournament.id)
        self.tournaments = [tournament if t.id == tournament.id else t for t in self.tournaments]
        self.snapshots.pop(tournament.id, None)
        players = previous.player_ids | tournament.player_ids
        since = min(previous.end, tournament.end)
        return self.apply([Change("correct", since, tournament.id, players, previous.order_key)])

    def change_player(self, record: PlayerRecord) -> ReplayOutcome:
        """New memberships or birth year of a player: replay from the player's first game."""
        self.players[record.id] = record
        return self.apply([Change("player", date.min, None, frozenset({record.id}))])
