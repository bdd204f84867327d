"""Life cycles at their boundary dates, the order of same-day events (WO 2.2.3, 3.4.3,
4.1.1, Anhang 4) and the Rechenmodul timeline."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

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
    first = h.snapshots[1][101].output
    second = h.snapshots[2][201].input
    assert first["stored"] and first["rating_new"] is not None
    assert second.rating == dwz_2026_conversion(first["rating_new"]) != first["rating_new"]
    assert second.index == first["index_new"] + 1
