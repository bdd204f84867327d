"""An in-memory rating history: tournaments, players and stored snapshots, with the edits of
WO 3.7 (insert, correct, delete a tournament; membership changes) applied incrementally.

The database layer keeps the same history in PostgreSQL; this module is the reference
implementation the property tests compare with a full replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ratingdb.engine.changes import Change, plan
from ratingdb.engine.inputs import state_after
from ratingdb.engine.model import (
    Adjustment,
    EngineTournament,
    PlayerRecord,
    PlayerState,
    Snapshot,
)
from ratingdb.engine.replay import ReplayOutcome, replay
from ratingdb.engine.timeline import Timeline
from ratingdb.rules.model import GameInput


@dataclass
class History:
    timeline: Timeline
    players: dict[int, PlayerRecord] = field(default_factory=dict)
    tournaments: list[EngineTournament] = field(default_factory=list)
    snapshots: dict[int, dict[int, Snapshot]] = field(default_factory=dict)
    #: state of a player before the first loaded tournament (when only a suffix of the
    #: history is loaded, as the database does for incremental runs)
    prior: Callable[[int], PlayerState] | None = None
    #: games of a tournament (the database loads them only for re-evaluated tournaments)
    games_of: Callable[[EngineTournament], tuple[GameInput, ...]] = lambda t: t.games
    #: rating adjustments (WO Anhang 4), in date order
    adjustments: tuple[Adjustment, ...] = ()
    #: the database keeps tournaments as order-key stubs: which players each one has, and
    #: the tournament with its participants, loaded when needed (None: from the objects)
    players_in: Callable[[EngineTournament], AbstractSet[int]] | None = None
    expand: Callable[[EngineTournament], EngineTournament] | None = None

    def _players(self, t: EngineTournament) -> AbstractSet[int]:
        return t.player_ids if self.players_in is None else self.players_in(t)

    def _full(self, t: EngineTournament) -> EngineTournament:
        return t if self.expand is None else self.expand(t)

    def ordered(self) -> list[EngineTournament]:
        return sorted(self.tournaments, key=lambda t: t.order_key)

    # -- state ---------------------------------------------------------------------------
    def state_before(
        self, player_id: int, ordered: list[EngineTournament], pos: int
    ) -> PlayerState:
        """The player's state after their last stored evaluation before position ``pos``."""
        for t in reversed(ordered[:pos]):
            if player_id not in self._players(t):
                continue
            for part in self._full(t).participants:
                if part.player_id == player_id:
                    snap = self.snapshots[t.id][part.id]
                    return state_after(snap.input, snap.output, t)
        return self.prior(player_id) if self.prior is not None else PlayerState()

    def _replay(
        self,
        ordered: list[EngineTournament],
        stored: dict[int, dict[int, Snapshot]],
        state_of: Callable[[int, int], PlayerState],
        **options: Any,
    ) -> ReplayOutcome:
        """Run the replay over ``ordered`` and keep what it wrote."""
        outcome = replay(
            ordered,
            self.players,
            self.timeline,
            stored,
            state_of=state_of,
            games_of=self.games_of,
            adjustments=self.adjustments,
            players_in=self.players_in,
            expand=self.expand,
            **options,
        )
        for tid, snaps in outcome.written.items():
            self.snapshots[tid] = {s.participant_id: s for s in snaps}
        self.tournaments = ordered
        return outcome

    # -- pending changes (the database path) -------------------------------------------
    def apply(
        self,
        changes: Iterable[Change],
        progress: Callable[[int], None] | None = None,
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
                players |= self._players(t)
        return self._replay(
            ordered,
            self.snapshots,
            lambda pid, pos: self.state_before(pid, ordered, pos),
            start=start,
            dirty={pid: self.state_before(pid, ordered, start) for pid in players},
            force=replay_plan.force,
            changed_records=replay_plan.changed_records,
            hold_until=replay_plan.hold_until,
            pin_all=replay_plan.everyone_dirty,
            progress=progress,
        )

    # -- full replay -----------------------------------------------------------------------
    def full_replay(self, progress: Callable[[int], None] | None = None) -> ReplayOutcome:
        """Evaluate everything from the beginning; every player starts without a rating
        (or with ``prior``'s state), nothing stored is consulted."""
        self.snapshots = {}
        ordered = self.ordered()
        return self._replay(
            ordered,
            {},
            lambda pid, _pos: self.prior(pid) if self.prior else PlayerState(),
            force={t.id for t in ordered},
            progress=progress,
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
