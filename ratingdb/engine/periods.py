"""Periodic rule families in the replay (KBSB Elo): rating lists between
tournaments.

Under a periodic Rechenmodul (its family's ``RuleFamily.periodic``) a tournament changes
nobody's rating: its counted games are kept in the player's state like residual games (the
snapshot's ``new_residual_games``). The first time the player is looked at for a tournament
ending on or after the next list date, the period is closed: the family's ``close_period``
rates the period's games from the list ratings, exactly as it rates a whole period. Games
before the period in the state are the formula-1 history the family asked to keep. The close
depends only on the player's own state, so full and incremental replays agree."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from ratingdb.engine.model import PlayerState

if TYPE_CHECKING:
    from ratingdb.engine.timeline import Timeline


def close_periods(state: PlayerState, day: date, timeline: Timeline) -> PlayerState:
    """``state`` after the list published since its pending games, if that is on or before
    ``day`` (a tournament ending on the list date is rated from the new list)."""
    if not state.residual:
        return state
    last = max(r.played_on for r in state.residual)
    modul = timeline.at(last)
    params = modul.parameters
    periodic = modul.rules.periodic
    if periodic is None:
        return state
    start, listed = periodic.period_of(last, params)
    if listed > day or (state.as_of is not None and listed <= state.as_of):
        return state  # the list is still to come, or was applied before the last tournament
    period = [r for r in state.residual if r.played_on >= start]
    history = [r for r in state.residual if r.played_on < start]
    rating, games_after, keep = periodic.close_period(
        state.rating,
        state.index or 0,
        [(r.opponent_rating, r.score) for r in history],
        [(r.opponent_rating, r.score) for r in period],
        listed,
        params,
    )
    return PlayerState(rating, games_after, state.residual if keep else (), state.as_of)
