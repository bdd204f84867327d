"""From a player's history to a tournament's input, and from a snapshot to the next state.

WO 6.4.2: a player's R_0 and index are the R_n and index of their last earlier evaluation;
WO 4.1.2: without a DWZ a FIDE or national rating may serve as R_0; WO 4.1.1: only valid
residual games count; WO 3.4.3 / 4.1.1: membership at the end date decides what is stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal

from ratingdb.dates import add_years, residual_valid
from ratingdb.engine.lifecycle import membership_status, textual_between
from ratingdb.engine.model import (
    EMPTY_STATE,
    Adjustment,
    EngineParticipant,
    EngineTournament,
    PlayerRecord,
    PlayerState,
    ResidualEntry,
    SnapshotInput,
    Takeover,
)
from ratingdb.engine.periods import close_periods
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules.model import (
    GameInput,
    PlayerInput,
    ResidualGame,
    TournamentInfo,
    TournamentInput,
)
from ratingdb.rules.snapshots import SnapshotOutput


def participant_input(
    part: EngineParticipant,
    player: PlayerRecord | None,
    state: PlayerState,
    tournament: EngineTournament,
    modul: RechenmodulVersion,
    adjustments: Sequence[Adjustment] = (),
    timeline: Timeline | None = None,
) -> SnapshotInput:
    """The input of one participant, from the player's state before the tournament.

    Rating adjustments dated between the player's last evaluation and this tournament's
    end (an adjustment on day d runs after every tournament ending on d) are applied to the
    state first: the same function in a full and in an incremental replay.
    """
    if timeline is not None:
        state = close_periods(state, tournament.end, timeline)
    state = state_at(state, player, tournament.end, adjustments)
    life = modul.lifecycle
    retention, late = life.retention_years, life.late_member_years
    member = False
    if player is not None and not part.computer:
        status = membership_status(player.memberships, tournament.end, retention, late)
        member = status != "none"
    if not member:
        state = EMPTY_STATE
    elif (
        state.as_of is not None
        and player is not None
        and textual_between(player.memberships, state.as_of, tournament.end, retention, late)
    ):
        state = EMPTY_STATE  # the data were dropped after the retention period
    state = _expired(state, tournament.end, life.rating_expiry_years)
    rating: int | None
    index: int | None
    source: str | None
    if state.rating is not None:
        rating, index, source = state.rating, state.index, "dwz"
    elif part.external_rating is not None:
        rating, index, source = part.external_rating, part.external_index, part.rating_source
    else:
        rating, index, source = None, None, None
    years = life.residual_validity_years
    residual = (
        tuple([r for r in state.residual if residual_valid(r.played_on, tournament.end, years)])
        if state.residual
        else ()
    )
    return SnapshotInput(  # by position, as the fields come
        rating,
        index,
        source,
        member,
        None if player is None else player.birth_year,
        # residual games count only without a rating; a periodic family keeps its pending
        # period games (and formula-1 history) whatever the rating
        residual if rating is None or not residual or modul.rules.periodic is not None else (),
        modul.key,
    )


def _expired(state: PlayerState, end: date, years: int) -> PlayerState:
    """Classic DWZ 6.1.1 ("DWZ verlieren ihre Gueltigkeit nach 5 Jahren"): a rating whose
    last evaluation ended more than ``years`` before this tournament's end is void; the
    player is rated like one without DWZ (residual games still count). 0 = never."""
    if years <= 0 or state.rating is None or state.as_of is None:
        return state
    if add_years(state.as_of, years) >= end:
        return state
    return PlayerState(residual=state.residual, as_of=state.as_of)


def state_at(
    state: PlayerState,
    player: PlayerRecord | None,
    day: date,
    adjustments: Sequence[Adjustment] = (),
) -> PlayerState:
    """``state`` carried forward to the evaluations ending on ``day``: the rating
    adjustments and a list takeover dated from the state's date up to the day before
    (both run after the tournaments ending on their own date; an adjustment before a
    takeover of the same day, since the list shows converted ratings)."""
    takeover = None if player is None else player.takeover
    if takeover is None:  # the common case, kept cheap for full replays
        if state.as_of is not None:
            for adj in adjustments:
                if state.as_of <= adj.effective_on < day:
                    state = adj.apply(state)
        return state
    events: list[tuple[date, int, Adjustment | Takeover]] = [
        (adj.effective_on, 0, adj) for adj in adjustments
    ]
    events.append((takeover.taken_on, 1, takeover))
    events.sort(key=lambda e: (e[0], e[1]))
    for when, _, event in events:
        if when >= day:
            break
        if isinstance(event, Takeover):
            if state.as_of is None or state.as_of <= when:
                state = event.apply(state)
        elif state.as_of is not None and state.as_of <= when:
            state = event.apply(state)
    return state


def tournament_input(
    tournament: EngineTournament,
    inputs: Mapping[int, SnapshotInput],
    games: tuple[GameInput, ...] | None = None,
) -> TournamentInput:
    """The rules' input: participants keyed by ``str(participant.id)``."""
    players = []
    for part in tournament.participants:
        inp = inputs[part.id]
        players.append(
            PlayerInput(  # by position: 3.7 µs a tournament against 8.8 µs by keyword
                str(part.id),
                part.name,
                inp.rating,
                inp.index,
                inp.birth_year,
                inp.member,
                inp.rating_source,
                part.computer,
                part.club_vkz,
                tuple([ResidualGame(r.opponent_rating, r.score, r.played_on) for r in inp.residual])
                if inp.residual
                else (),
            )
        )
    info = TournamentInfo(
        id=tournament.code,
        start=tournament.start,
        end=tournament.end,
        name=tournament.name,
        vkz=tournament.vkz,
        kind=tournament.kind,
    )
    return TournamentInput(info, tuple(players), tournament.games if games is None else games)


def state_after(
    inp: SnapshotInput, output: SnapshotOutput, tournament: EngineTournament
) -> PlayerState:
    """A participant's state after the tournament, from its snapshot alone.

    Non-members keep nothing. A stored evaluation sets rating and index; a first rating
    consumes the residual games; a remaining member adds the new residual games (their
    identity is (tournament, position)).
    """
    if not inp.member:
        return EMPTY_STATE
    if output.stored:
        rating, index = output.rating_new, output.index_new
    elif inp.rating_source == "dwz":
        rating, index = inp.rating, inp.index
    else:
        rating, index = None, None
    if output.group in ("first_stage", "second_stage") and output.stored:
        residual: tuple[ResidualEntry, ...] = ()
    elif rating is None or output.group == "remaining":  # remaining: no new rating yet
        new = tuple(
            ResidualEntry(
                tournament.id,
                seq,
                g["opponent_rating"],
                Decimal(str(g["score"])),
                tournament.end,
            )
            for seq, g in enumerate(output.new_residual_games)
        )
        residual = inp.residual + new
    else:
        residual = ()
    return PlayerState(rating, index, residual, tournament.end)
