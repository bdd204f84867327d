"""Life cycles at their boundary dates, the order of same-day events (WO 2.2.3, 3.4.3,
4.1.1, Anhang 4) and the Rechenmodul timeline."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.engine.changes import Change, plan
from ratingdb.engine.history import History
from ratingdb.engine.inputs import participant_input
from ratingdb.engine.lifecycle import membership_status, textual_between
from ratingdb.engine.model import (
    Adjustment,
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    PlayerState,
    ResidualEntry,
)
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules.adjustments import dwz_2026_conversion
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.model import GameInput

V1 = RechenmodulVersion("dwz2026", "v1", date(2020, 1, 1), Dwz2026Parameters())
V2 = RechenmodulVersion("dwz2026", "v2", date(2027, 1, 1), Dwz2026Parameters(t=40))
TIMELINE = Timeline([V1, V2])
D = date


def tournament(
    tid: int,
    end: date,
    start: date | None = None,
    vkz: str = "000",
    processed: datetime = datetime(2030, 1, 1),
    players=(1, 2),
) -> EngineTournament:
    parts = tuple(EngineParticipant(tid * 10 + k, p) for k, p in enumerate(players))
    return EngineTournament(tid, f"T{tid}", start or end, end, vkz, processed, participants=parts)


# -- WO 2.2.3: the order of evaluation --
def test_order_end_then_start_then_vkz_as_string_then_processing_time():
    ts = [
        tournament(1, D(2026, 5, 2)),
        tournament(2, D(2026, 5, 1), start=D(2026, 4, 1)),
        tournament(3, D(2026, 5, 1), start=D(2026, 3, 1)),
        tournament(4, D(2026, 5, 1), start=D(2026, 4, 1), vkz="C9"),
        tournament(5, D(2026, 5, 1), start=D(2026, 4, 1), vkz="C10"),
        tournament(
            6, D(2026, 5, 1), start=D(2026, 4, 1), vkz="C10", processed=datetime(2029, 1, 1)
        ),
    ]
    ordered = [t.id for t in sorted(ts, key=lambda t: t.order_key)]
    # "C10" < "C9" as strings (WO 2.2.3 footnote 3)
    assert ordered == [3, 2, 6, 5, 4, 1]


def test_adjustment_runs_after_every_tournament_of_its_day():
    ts = sorted(
        [
            tournament(1, D(2026, 6, 30)),
            tournament(2, D(2026, 7, 1)),
            tournament(3, D(2026, 7, 1)),
            tournament(4, D(2026, 7, 2)),
        ],
        key=lambda t: t.order_key,
    )
    p = plan([Change("adjustment", D(2026, 7, 1))], ts)
    assert p is not None and p.start == 3 and p.force == {4}
    p = plan([Change("rechenmodul", D(2026, 7, 1))], ts)
    assert p is not None and p.start == 1 and p.force == {2, 3, 4}


# -- WO 3.4.3 / 4.1.1: membership at the end date --
MEMBER = (Membership(D(2015, 1, 1), D(2020, 6, 30)),)


@pytest.mark.parametrize(
    ("day", "status"),
    [
        (D(2014, 12, 31), "late"),
        (D(2013, 12, 31), "none"),
        (D(2014, 1, 1), "late"),
        (D(2015, 1, 1), "current"),
        (D(2020, 6, 30), "current"),
        (D(2020, 7, 1), "former"),
        (D(2025, 6, 30), "former"),
        (D(2025, 7, 1), "none"),
    ],
)
def test_membership_status_boundaries(day, status):
    assert membership_status(MEMBER, day, retention_years=5, late_years=1) == status


def test_rating_dropped_after_a_textual_period():
    # left 2020-06-30, textual from 2025-07-01, rejoined 2026-01-01
    spans = (*MEMBER, Membership(D(2026, 1, 1)))
    assert textual_between(spans, D(2020, 1, 1), D(2026, 3, 1), 5, 1) is False  # late window
    spans = (*MEMBER, Membership(D(2027, 1, 1)))
    assert textual_between(spans, D(2020, 1, 1), D(2027, 3, 1), 5, 1) is True


def _input(record, state, end, adjustments=()):
    t = tournament(1, end)
    return participant_input(t.participants[0], record, state, t, TIMELINE.at(end), adjustments)


def test_former_member_kept_for_five_years_then_textual():
    record = PlayerRecord(1, 1980, MEMBER)
    state = PlayerState(1800, 20, (), D(2020, 5, 1))
    kept = _input(record, state, D(2025, 6, 30))
    assert (kept.member, kept.rating, kept.index) == (True, 1800, 20)
    gone = _input(record, state, D(2025, 7, 1))
    assert (gone.member, gone.rating) == (False, None)


def test_new_member_counts_a_year_back():
    record = PlayerRecord(1, 1990, (Membership(D(2026, 3, 1)),))
    assert _input(record, PlayerState(), D(2025, 3, 1)).member is True
    assert _input(record, PlayerState(), D(2025, 2, 28)).member is False


def test_residual_games_expire_after_two_years_in_the_engine():
    record = PlayerRecord(1, 1990, (Membership(D(2010, 1, 1)),))
    held = (ResidualEntry(7, 0, 1500, Decimal("1"), D(2024, 5, 1)),)
    state = PlayerState(None, None, held, D(2024, 5, 1))
    assert _input(record, state, D(2026, 4, 30)).residual == held
    assert _input(record, state, D(2026, 5, 1)).residual == ()


def test_rechenmodul_chosen_by_end_date():
    assert TIMELINE.at(D(2026, 12, 31)).version == "v1"
    assert TIMELINE.at(D(2027, 1, 1)).version == "v2"
    assert TIMELINE.at(D(2019, 1, 1)).version == "v1"  # before the first: the oldest


# -- WO Anhang 4 --
@pytest.mark.parametrize(
    ("old", "new"),
    [
        (600, 1000),
        (1000, 1400),
        (1001, 1401),
        (1250, 1560),
        (1500, 1720),
        (1800, 1912),
        (2000, 2040),
        (2110, 2110),
        (2111, 2111),
        (2500, 2500),
    ],
)
def test_anhang_4_conversion(old, new):
    assert dwz_2026_conversion(old) == new


def test_adjustment_applies_between_evaluations():
    record = PlayerRecord(1, 1980, (Membership(D(2010, 1, 1)),))
    adj = (Adjustment(D(2026, 7, 1), "dwz-2026-umstufung"),)
    state = PlayerState(1500, 12, (), D(2026, 6, 1))
    after = _input(record, state, D(2026, 7, 2), adj)
    assert (after.rating, after.index) == (1720, 13)
    same_day = _input(record, state, D(2026, 7, 1), adj)  # the tournament of that day runs first
    assert (same_day.rating, same_day.index) == (1500, 12)
    residual = (ResidualEntry(3, 0, 1300, Decimal("0.5"), D(2026, 1, 1)),)
    unrated = _input(record, PlayerState(None, None, residual, D(2026, 1, 1)), D(2026, 8, 1), adj)
    assert [r.opponent_rating for r in unrated.residual] == [1592]


def test_full_replay_applies_the_adjustment_once():
    players = {p: PlayerRecord(p, 1980, (Membership(D(2010, 1, 1)),)) for p in (1, 2, 3, 4, 5, 6)}
    field = tuple(
        EngineParticipant(
            100 + p, p, rating_source="fide", external_rating=1400 + 50 * p, external_index=5
        )
        for p in players
    )
    games = tuple(
        GameInput(str(100 + a), str(100 + b), "1/2-1/2") for a in players for b in players if a < b
    )
    t1 = EngineTournament(
        1, "T1", D(2026, 1, 1), D(2026, 1, 5), "000", participants=field, games=games
    )
    field2 = tuple(EngineParticipant(200 + p, p) for p in players)
    games2 = tuple(
        GameInput(str(200 + a), str(200 + b), "1/2-1/2") for a in players for b in players if a < b
    )
    t2 = EngineTournament(
        2, "T2", D(2026, 8, 1), D(2026, 8, 5), "000", participants=field2, games=games2
    )
    h = History(
        TIMELINE, players, [t1, t2], adjustments=(Adjustment(D(2026, 7, 1), "dwz-2026-umstufung"),)
    )
    h.full_replay()
    first = h.snapshots[1][101].output.to_dict()
    second = h.snapshots[2][201].input
    assert first["stored"] and first["rating_new"] is not None
    assert second.rating == dwz_2026_conversion(first["rating_new"]) != first["rating_new"]
    assert second.index == first["index_new"] + 1


# -- regressions found in review: every input after a new Rechenmodul or adjustment --------
ALWAYS = (Membership(D(2000, 1, 1)),)


def _pair(tid: int, end: date, a: int, b: int, ext: dict[int, int] | None = None):
    parts = tuple(
        EngineParticipant(
            tid * 10 + k,
            p,
            rating_source="fide" if (ext or {}).get(p) else None,
            external_rating=(ext or {}).get(p),
        )
        for k, p in enumerate((a, b))
    )
    w, bl = str(tid * 10), str(tid * 10 + 1)
    games = tuple(
        GameInput(x, y, r)
        for x, y, r in [(w, bl, "1-0"), (bl, w, "1/2-1/2"), (w, bl, "0-1"), (bl, w, "1-0")]
    )
    return EngineTournament(
        tid,
        f"T{tid}",
        end,
        end,
        "000",
        datetime(2030, 1, 1, 0, 0, tid),
        participants=parts,
        games=games,
    )


def _snaps(h: History) -> dict:
    return {(t, p): (s.input, s.output) for t, ss in h.snapshots.items() for p, s in ss.items()}


def _full(timeline, players, ts, adjustments=()) -> History:
    h = History(timeline, dict(players), list(ts), adjustments=tuple(adjustments))
    h.full_replay()
    return h


def test_new_rechenmodul_with_shorter_retention_reaches_every_player():
    players = {
        1: PlayerRecord(1, 1980, (Membership(D(2000, 1, 1), D(2020, 6, 30)),)),
        2: PlayerRecord(2, 1980, ALWAYS),
        3: PlayerRecord(3, 1980, ALWAYS),
    }
    t1 = _pair(1, D(2020, 3, 1), 1, 2, ext={1: 1800, 2: 1700})
    t2 = _pair(2, D(2023, 3, 1), 1, 2)
    t3 = _pair(3, D(2020, 4, 1), 2, 3, ext={3: 1600})
    h = _full(Timeline([V1]), players, [t1, t2, t3])
    shorter = RechenmodulVersion(
        "dwz2026", "v2", D(2022, 1, 1), Dwz2026Parameters(retention_years=1)
    )
    h.timeline = Timeline([V1, shorter])
    h.apply([Change("rechenmodul", D(2022, 1, 1))])
    assert _snaps(h) == _snaps(_full(h.timeline, players, [t1, t2, t3]))
    assert h.snapshots[2][20].input.member is False  # retention over: textual


def test_insert_and_adjustment_in_one_run_reach_players_in_between():
    players = {p: PlayerRecord(p, 1980, ALWAYS) for p in range(1, 5)}
    ts = [
        _pair(1, D(2020, 3, 1), 1, 2, ext={1: 1800, 2: 1700}),
        _pair(2, D(2022, 3, 1), 3, 4, ext={3: 1800, 4: 1700}),
        _pair(3, D(2024, 3, 1), 3, 4),
    ]
    h = _full(Timeline([V1]), players, ts)
    late = _pair(9, D(2021, 3, 1), 1, 2)
    adjustments = (Adjustment(D(2023, 1, 1), "dwz-2026-umstufung"),)
    h.tournaments = [*ts, late]
    h.adjustments = adjustments
    h.apply([Change("insert", late.end, 9, frozenset({1, 2})), Change("adjustment", D(2023, 1, 1))])
    assert _snaps(h) == _snaps(_full(Timeline([V1]), players, [*ts, late], adjustments))


# -- list takeovers ("Datenübernahme") ------------------------------------------------------


def test_takeover_runs_after_the_tournaments_of_its_day_and_after_an_adjustment():
    from ratingdb.engine.inputs import state_at
    from ratingdb.engine.model import Takeover

    record = PlayerRecord(1, 1990, (Membership(D(2000, 1, 1)),), Takeover(D(2026, 6, 7), 1700, 9))
    before = PlayerState(1500, 20, (), D(2026, 1, 1))
    umstufung = Adjustment(D(2026, 6, 7), "dwz-2026-umstufung")
    # a tournament ending on the takeover day sees the old rating: the list and the
    # conversion of that day both run after it
    assert state_at(before, record, D(2026, 6, 7), [umstufung]) == before
    # the next day: conversion first (1500 -> 1720-21), then the list value replaces it
    assert state_at(before, record, D(2026, 6, 8), [umstufung]) == PlayerState(
        1700, 9, (), D(2026, 6, 7)
    )
    # a player evaluated after the list date keeps his own later state
    later = PlayerState(1810, 11, (), D(2026, 9, 1))
    assert state_at(later, record, D(2026, 10, 1), [umstufung]) == later
    # a player without any history gets the list value (residual games are dropped)
    assert state_at(PlayerState(), record, D(2026, 6, 8)) == PlayerState(1700, 9, (), D(2026, 6, 7))
    # and an adjustment after the takeover converts it
    late = Adjustment(D(2026, 7, 1), "dwz-2026-umstufung")
    assert state_at(PlayerState(), record, D(2026, 8, 1), [late]).rating == dwz_2026_conversion(
        1700
    )


_days = st.dates(min_value=date(2000, 1, 1), max_value=date(2030, 12, 31))


@given(
    start=_days,
    length=st.one_of(st.none(), st.integers(min_value=-30, max_value=4000)),
    at=_days,
    since=_days,
    retention=st.integers(min_value=0, max_value=6),
    late=st.integers(min_value=0, max_value=2),
)
def test_one_membership_takes_the_short_way_with_the_same_answers(
    start, length, at, since, retention, late
):
    """The one-membership fast paths answer what the general path answers: the
    same membership twice takes the general path and covers the same days."""
    end = None if length is None else start + timedelta(days=length)
    one = (Membership(start, end),)
    twice = one + one
    assert membership_status(one, at, retention, late) == membership_status(
        twice, at, retention, late
    )
    assert textual_between(one, since, at, retention, late) == textual_between(
        twice, since, at, retention, late
    )
