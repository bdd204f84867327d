"""Where a replay reads a history from (WO 3.7): the tournaments' players, participants and
games, and the players' stored states before the loaded part of the history.

The engine walks tournaments in evaluation order and asks a :class:`HistorySource` only
for what it has to look at. :class:`InMemorySource` answers from the tournament objects
themselves (tests, ``ratingdb evaluate``, the reference history of the property tests); the
PostgreSQL implementation (``ratingdb.db.store.PostgresSource``) loads participants, games
and earlier states lazily, so an incremental run reads only what its ripple touches.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Protocol

from ratingdb.engine.model import EngineTournament, PlayerState
from ratingdb.rules.model import GameInput


class HistorySource(Protocol):
    """What the replay needs to know about tournaments beyond their order keys."""

    def players_in(self, t: EngineTournament) -> AbstractSet[int]:
        """The database players among ``t``'s participants (without loading them all)."""
        ...

    def expand(self, t: EngineTournament) -> EngineTournament:
        """``t`` with its participants (the loaded history may hold order-key stubs)."""
        ...

    def games_of(self, t: EngineTournament) -> tuple[GameInput, ...]:
        """``t``'s games; loaded only for tournaments that are evaluated."""
        ...

    def prior(self, player_id: int) -> PlayerState:
        """The player's stored state before the first loaded tournament (no rating, no
        residual games when the whole history is loaded)."""
        ...


class InMemorySource:
    """A history whose tournaments carry their participants and games."""

    def players_in(self, t: EngineTournament) -> AbstractSet[int]:
        return t.player_ids

    def expand(self, t: EngineTournament) -> EngineTournament:
        return t

    def games_of(self, t: EngineTournament) -> tuple[GameInput, ...]:
        return t.games

    def prior(self, player_id: int) -> PlayerState:
        return PlayerState()
