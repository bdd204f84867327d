"""Incremental replay equals full replay (WO 3.7), over random histories and random edits:
inserts in the past, corrections, deletions, membership changes and list takeovers."""

from __future__ import annotations

import copy
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratingdb.engine.changes import Change
from ratingdb.engine.history import History
from ratingdb.engine.model import (
    Adjustment,
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    Takeover,
)
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.model import GameInput

TIMELINE = Timeline(
    [
        RechenmodulVersion("dwz2026", "2020.1", date(2020, 1, 1), Dwz2026Parameters()),
        RechenmodulVersion(
            "dwz2026",
            "2024.1",
            date(2024, 1, 1),
            Dwz2026Parameters(r=Decimal("0.1")),
        ),
    ]
)
RESULTS = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "+-"]
BASE = date(2020, 1, 1)


@st.composite
def memberships(draw) -> tuple[Membership, ...]:
    kind = draw(st.sampled_from(["always", "joins", "leaves", "gap", "never"]))
    if kind == "always":
        return (Membership(BASE - timedelta(days=3000)),)
    if kind == "never":
        return ()
    day = BASE + timedelta(days=draw(st.integers(0, 3000)))
    if kind == "joins":
        return (Membership(day),)
    if kind == "leaves":
        return (Membership(BASE - timedelta(days=3000), day),)
    later = day + timedelta(days=draw(st.integers(30, 2500)))
    return (Membership(BASE - timedelta(days=3000), day), Membership(later))


@st.composite
def player(draw, pid: int) -> PlayerRecord:
    birth = draw(st.one_of(st.none(), st.integers(1950, 2015)))
    takeover = None
    if draw(st.integers(0, 3)) == 0:  # a rating taken over from a member list
        day = BASE + timedelta(days=draw(st.integers(-30, 3300)))
        takeover = Takeover(day, draw(st.integers(900, 2400)), draw(st.integers(1, 40)))
    return PlayerRecord(pid, birth, draw(memberships()), takeover)


@st.composite
def tournament(draw, tid: int, player_ids: list[int]) -> EngineTournament:
    start = BASE + timedelta(days=draw(st.integers(0, 3300)))
    end = start + timedelta(days=draw(st.sampled_from([0, 0, 2, 9, 60])))
    chosen = draw(st.lists(st.sampled_from(player_ids), min_size=2, max_size=8, unique=True))
    parts = [EngineParticipant(tid * 100 + k, pid) for k, pid in enumerate(chosen)]
    if draw(st.booleans()):
        parts.append(
            EngineParticipant(
                tid * 100 + 50,
                None,
                name="guest",
                rating_source="fide",
                external_rating=draw(st.integers(1300, 2300)),
                external_index=None,
            )
        )
    ids = [str(p.id) for p in parts]
    n_games = draw(st.integers(0, 3 * len(parts)))
    games = []
    for _ in range(n_games):
        w, b = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
        games.append(GameInput(w, b, draw(st.sampled_from(RESULTS))))
    return EngineTournament(
        id=tid,
        code=f"T{tid}",
        start=start,
        end=end,
        vkz=draw(st.sampled_from(["000", "C03", "C0327"])),
        processed_at=datetime(2030, 1, 1) + timedelta(seconds=tid),
        kind="individual",
        participants=tuple(parts),
        games=tuple(games),
    )


@st.composite
def adjustments(draw) -> tuple[Adjustment, ...]:
    if not draw(st.booleans()):
        return ()
    day = BASE + timedelta(days=draw(st.integers(0, 3300)))
    return (Adjustment(day, "dwz-2026-umstufung", draw(st.booleans())),)


@st.composite
def histories(draw):
    n_players = draw(st.integers(4, 12))
    player_ids = list(range(1, n_players + 1))
    players = {pid: draw(player(pid)) for pid in player_ids}
    ts = [draw(tournament(tid, player_ids)) for tid in range(1, draw(st.integers(2, 9)) + 1)]
    ADJUSTMENTS[:] = draw(adjustments())
    return players, ts, player_ids


#: the adjustments of the history under test (drawn with it)
ADJUSTMENTS: list[Adjustment] = []


def snapshot_state(h: History) -> dict:
    return {
        (tid, pid): (snap.input, snap.output)
        for tid, snaps in h.snapshots.items()
        for pid, snap in snaps.items()
    }


def full(players, tournaments) -> History:
    h = History(TIMELINE, dict(players), list(tournaments), adjustments=tuple(ADJUSTMENTS))
    h.full_replay()
    return h


SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(histories(), st.data())
def test_insert_in_the_past(history, data):
    players, ts, player_ids = history
    h = full(players, ts)
    late = data.draw(tournament(999, player_ids))
    h.insert(late)
    assert snapshot_state(h) == snapshot_state(full(players, [*ts, late]))


@SETTINGS
@given(histories(), st.data())
def test_delete(history, data):
    players, ts, _ = history
    h = full(players, ts)
    gone = data.draw(st.sampled_from(ts))
    h.delete(gone.id)
    assert snapshot_state(h) == snapshot_state(full(players, [t for t in ts if t.id != gone.id]))


@SETTINGS
@given(histories(), st.data())
def test_correct(history, data):
    players, ts, player_ids = history
    h = full(players, ts)
    target = data.draw(st.sampled_from(ts))
    fixed = data.draw(tournament(target.id, player_ids))
    h.correct(fixed)
    expected = [fixed if t.id == target.id else t for t in ts]
    assert snapshot_state(h) == snapshot_state(full(players, expected))


@pytest.mark.slow
@SETTINGS
@given(histories(), st.data())
def test_membership_change(history, data):
    players, ts, player_ids = history
    h = full(players, ts)
    pid = data.draw(st.sampled_from(player_ids))
    changed = data.draw(player(pid))
    h.change_player(changed)
    new_players = {**players, pid: changed}
    assert snapshot_state(h) == snapshot_state(full(new_players, ts))


@SETTINGS
@given(histories(), st.data())
def test_insert_then_delete_restores_the_history(history, data):
    players, ts, player_ids = history
    h = full(players, ts)
    before = copy.deepcopy(snapshot_state(h))
    late = data.draw(tournament(999, player_ids))
    h.insert(late)
    h.delete(999)
    assert snapshot_state(h) == before


@pytest.mark.slow
@SETTINGS
@given(histories(), st.data())
def test_batched_changes_through_apply(history, data):
    """Several pending edits merged into one run (the database path) equal a full replay."""
    players, ts, player_ids = history
    h = full(players, ts)
    changes = []
    current = list(ts)
    late = data.draw(tournament(999, player_ids))
    current.append(late)
    parts = frozenset(p.player_id for p in late.participants if p.player_id is not None)
    changes.append(Change("insert", late.end, late.id, parts))
    gone = data.draw(st.sampled_from(ts))
    current = [t for t in current if t.id != gone.id]
    h.snapshots.pop(gone.id, None)
    gone_players = frozenset(p.player_id for p in gone.participants if p.player_id is not None)
    changes.append(Change("delete", gone.end, gone.id, gone_players, gone.order_key))
    pid = data.draw(st.sampled_from(player_ids))
    changed = data.draw(player(pid))
    new_players = {**players, pid: changed}
    changes.append(Change("player", date(1900, 1, 1), None, frozenset({pid})))
    h.players = dict(new_players)
    h.tournaments = current
    h.apply(changes)
    assert snapshot_state(h) == snapshot_state(full(new_players, current))


@pytest.mark.slow
@SETTINGS
@given(histories(), st.data())
def test_adding_an_adjustment(history, data):
    """A conversion added with a past date (WO Anhang 4) replays from its date."""
    players, ts, _ = history
    h = full(players, ts)
    added = data.draw(adjustments().filter(bool))
    ADJUSTMENTS[:] = [*ADJUSTMENTS, *added]
    ADJUSTMENTS.sort(key=lambda a: a.effective_on)
    h.adjustments = tuple(ADJUSTMENTS)
    h.apply([Change("adjustment", added[0].effective_on)])
    assert snapshot_state(h) == snapshot_state(full(players, ts))
