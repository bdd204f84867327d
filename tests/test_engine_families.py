"""The replay engine running the other rule families as Rechenmodule: online Elo
game by game, Ingo through its snapshot mapping, and a timeline that switches families,
where an incremental replay still equals a full one."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.engine.history import History
from ratingdb.engine.model import (
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    Takeover,
)
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules import ingo
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.dwz_classic import DwzClassicParameters
from ratingdb.rules.elo_kbsb import KbsbParameters
from ratingdb.rules.elo_kbsb import evaluate as kbsb_evaluate
from ratingdb.rules.elo_kbsb.engine import list_after, list_before
from ratingdb.rules.elo_kbsb.model import (
    KbsbGameInput,
    KbsbHistory,
    KbsbPeriodInput,
    KbsbPlayerInput,
    PeriodInfo,
)
from ratingdb.rules.elo_online import OnlineEloParameters
from ratingdb.rules.ingo import IngoParameters
from ratingdb.rules.model import GameInput
from ratingdb.rules.rounding import round_half_up, round_half_up_to
from tests.test_engine_replay import SETTINGS, histories, snapshot_state, tournament

ONLINE = Timeline([RechenmodulVersion("elo-online", "1", date(2000, 1, 1), OnlineEloParameters())])
MEMBER = (Membership(date(1950, 1, 1)),)


def match(tid: int, end: date, result: str, *pids: int) -> EngineTournament:
    parts = tuple(EngineParticipant(tid * 10 + k, pid) for k, pid in enumerate(pids))
    games = (GameInput(str(parts[0].id), str(parts[1].id), result, 1),)
    return EngineTournament(tid, f"T{tid}", end, end, "000", datetime(2030, 1, 1),
                            participants=parts, games=games)  # fmt: skip


def test_online_elo_rates_each_tournament_from_the_ratings_after_the_last():
    # the spec's example: 1200 beats 1600 -> 1229, the 1600 player loses 29
    players = {
        1: PlayerRecord(1, 1990, MEMBER, Takeover(date(2020, 1, 1), 1200, 10)),
        2: PlayerRecord(2, 1990, MEMBER, Takeover(date(2020, 1, 1), 1600, 10)),
    }
    ts = [match(1, date(2021, 1, 1), "1-0", 1, 2), match(2, date(2021, 2, 1), "1/2-1/2", 1, 2)]
    h = History(ONLINE, players, ts)
    h.full_replay()
    first = {s.player_id: s.output.to_dict() for s in h.snapshots[1].values()}
    assert (first[1]["rating_new"], first[2]["rating_new"]) == (1229, 1571)
    assert (first[1]["index_new"], first[1]["k"]) == (11, 32.0)
    # the draw is rated from 1229 and 1571: W_e = 1 / (1 + 10^((1571 - 1229) / 400))
    second = {s.player_id: s.output.to_dict() for s in h.snapshots[2].values()}
    expectancy = 1 / (1 + 10 ** ((1571 - 1229) / 400))
    assert second[1]["rating_old"] == 1229
    assert second[1]["rating_new"] == round_half_up(
        Fraction(1229) + 32 * Fraction(0.5 - expectancy)
    )
    assert second[1]["expected"] == float(round_half_up_to(Fraction(expectancy), 3))


def test_online_elo_gives_a_newcomer_the_initial_rating():
    players = {1: PlayerRecord(1, 1990, MEMBER), 2: PlayerRecord(2, 1990, MEMBER)}
    h = History(ONLINE, players, [match(1, date(2021, 1, 1), "0-1", 1, 2)])
    h.full_replay()
    out = {s.player_id: s.output.to_dict() for s in h.snapshots[1].values()}
    assert (out[1]["rating_new"], out[2]["rating_new"]) == (1184, 1216)  # 1200 -/+ 16
    assert out[1]["group"] == "first_stage" and out[1]["index_new"] == 1


def test_ingo_in_the_engine_stores_what_the_rules_compute():
    timeline = Timeline([RechenmodulVersion("ingo", "1", date(1950, 1, 1), IngoParameters())])
    players = {
        k: PlayerRecord(k, 1960, MEMBER, Takeover(date(1980, 1, 1), 120 + 10 * k, 8))
        for k in range(1, 6)
    }
    parts = tuple(EngineParticipant(100 + k, k) for k in range(1, 6))
    results = ["1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "1-0", "0-1"]
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    games = tuple(
        GameInput(str(parts[a].id), str(parts[b].id), r, 1)
        for (a, b), r in zip(pairs, results, strict=True)
    )
    t = EngineTournament(1, "RR", date(1985, 5, 1), date(1985, 5, 5), "000",
                         datetime(2030, 1, 1), participants=parts, games=games)  # fmt: skip
    h = History(timeline, players, [t])
    h.full_replay()
    from ratingdb.engine.inputs import tournament_input

    snaps = h.snapshots[1]
    tin = tournament_input(t, {pid: s.input for pid, s in snaps.items()})
    direct = {p.id: p for p in ingo.evaluate(tin, IngoParameters()).players}
    for pid, s in snaps.items():
        assert s.input.rating == players[s.player_id].takeover.rating  # F before
        assert s.output.rating_new == direct[str(pid)].rating_new
        assert s.output.index_new == direct[str(pid)].index_new == 9
    assert any(s.output.rating_new != s.input.rating for s in snaps.values())


MIXED = Timeline(
    [
        RechenmodulVersion("elo-online", "a", date(2020, 1, 1), OnlineEloParameters()),
        RechenmodulVersion("elo-kbsb", "k", date(2021, 1, 1), KbsbParameters()),
        RechenmodulVersion("dwz-classic", "b", date(2022, 1, 1), DwzClassicParameters()),
        RechenmodulVersion("dwz2026", "c", date(2026, 6, 8), Dwz2026Parameters()),
    ]
)


@pytest.mark.slow
@SETTINGS
@given(histories(), st.data())
def test_incremental_equals_full_across_family_switches(history, data):
    players, ts, player_ids = history

    def full(tournaments):  # type: ignore[no-untyped-def]
        h = History(MIXED, dict(players), list(tournaments))
        h.full_replay()
        return h

    h = full(ts)
    late = data.draw(tournament(999, player_ids))
    h.insert(late)
    assert snapshot_state(h) == snapshot_state(full([*ts, late]))
    gone = data.draw(st.sampled_from(ts))
    h.delete(gone.id)
    assert snapshot_state(h) == snapshot_state(full([t for t in [*ts, late] if t.id != gone.id]))


# -- KBSB Elo: periods closed at the lists ---------------------------------------------------

KBSB = Timeline([RechenmodulVersion("elo-kbsb", "k", date(2000, 1, 1), KbsbParameters())])


def test_list_dates():
    assert list_before(date(2026, 3, 15), 2) == date(2026, 1, 1)
    assert list_after(date(2026, 3, 15), 2) == date(2026, 7, 1)
    assert list_after(date(2026, 7, 1), 2) == date(2027, 1, 1)
    assert list_after(date(2026, 12, 31), 4) == date(2027, 1, 1)
    assert list_before(date(2026, 6, 30), 4) == date(2026, 4, 1)


def round_robin(tid: int, end: date, pids: list[int], results: list[str]) -> EngineTournament:
    parts = tuple(EngineParticipant(tid * 100 + k, pid) for k, pid in enumerate(pids))
    pairs = [(a, b) for a in range(len(parts)) for b in range(a + 1, len(parts))]
    games = tuple(
        GameInput(str(parts[a].id), str(parts[b].id), r, 1)
        for (a, b), r in zip(pairs, results, strict=True)
    )
    return EngineTournament(tid, f"T{tid}", end, end, "000", datetime(2030, 1, 1),
                            participants=parts, games=games)  # fmt: skip


def test_a_period_is_rated_at_the_next_list_from_the_list_ratings():
    ratings = {1: (1760, 40), 2: (1800, 60), 3: (1700, 30), 4: (1900, 25)}
    players = {
        pid: PlayerRecord(pid, 1980, MEMBER, Takeover(date(2025, 12, 31), r, n))
        for pid, (r, n) in ratings.items()
    }
    r1 = ["1-0", "1/2-1/2", "0-1", "1-0", "0-1", "1/2-1/2"]
    r2 = ["1-0", "1-0", "1/2-1/2", "0-1", "1-0", "0-1"]
    ts = [
        round_robin(1, date(2026, 2, 1), [1, 2, 3, 4], r1),
        round_robin(2, date(2026, 5, 1), [1, 2, 3, 4], r2),
        round_robin(3, date(2026, 8, 1), [1, 2, 3, 4], r1),
    ]
    h = History(KBSB, players, ts)
    h.full_replay()
    snaps = {tid: {s.player_id: s for s in h.snapshots[tid].values()} for tid in (1, 2, 3)}
    # inside the period nobody's rating moves: T2 is rated from the January list too
    for pid, (rating, games) in ratings.items():
        assert snaps[2][pid].input.rating == rating and snaps[2][pid].input.index == games
        assert not snaps[1][pid].output.stored and snaps[1][pid].output.games == 3
    # at the July list: the whole period at once, as the rules rate a period
    period = KbsbPeriodInput(
        PeriodInfo("2026-1", date(2026, 1, 1), date(2026, 7, 1)),
        tuple(KbsbPlayerInput(str(pid), n, r) for pid, (r, n) in ratings.items()),
        tuple(
            KbsbGameInput(str(a), str(b), res)
            for results in (r1, r2)
            for (a, b), res in zip(
                [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)], results, strict=True
            )
        ),
    )
    direct = {p.id: p for p in kbsb_evaluate(period, KbsbParameters()).players}
    for pid in ratings:
        after = snaps[3][pid].input
        assert (after.rating, after.index) == (direct[str(pid)].rating_new, ratings[pid][1] + 6)
    assert any(snaps[3][pid].input.rating != ratings[pid][0] for pid in ratings)


def test_a_newcomer_is_rated_by_formula_1_over_both_periods():
    """6 games in the first half-year (fewer than 10: no rating yet), 6 in the second: the
    January list rates him by formula 1 over all 12 games (the spec's cumulative reading)."""
    listed = {2: 1800, 3: 1700, 4: 1900, 5: 1600, 6: 1750, 7: 1850}
    players = {1: PlayerRecord(1, 1990, MEMBER)} | {
        pid: PlayerRecord(pid, 1980, MEMBER, Takeover(date(2025, 12, 31), r, 50))
        for pid, r in listed.items()
    }
    a = [2, 3, 4, 5, 6, 7]

    def matches(tid: int, end: date, results: list[str]) -> list[EngineTournament]:
        pairs = enumerate(zip(a, results, strict=True))
        return [match(tid * 10 + k, end, r, 1, pid) for k, (pid, r) in pairs]

    first = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1-0"]
    second = ["1/2-1/2", "1-0", "0-1", "1-0", "1-0", "0-1"]
    ts = [*matches(1, date(2026, 3, 1), first), *matches(2, date(2026, 9, 1), second),
          match(99, date(2027, 2, 1), "1-0", 1, 2)]  # fmt: skip
    h = History(KBSB, players, ts)
    h.full_replay()
    before_second = next(s for s in h.snapshots[20].values() if s.player_id == 1).input
    assert before_second.rating is None and len(before_second.residual) == 6  # kept history
    final = next(s for s in h.snapshots[99].values() if s.player_id == 1).input
    # direct: period 2 with the first period as history (opponents' sum, points)
    points = {"1-0": Decimal(1), "0-1": Decimal(0), "1/2-1/2": Decimal("0.5")}
    history = KbsbHistory(sum(listed.values()), sum(points[r] for r in first))
    period = KbsbPeriodInput(
        PeriodInfo("2026-2", date(2026, 7, 1), date(2027, 1, 1)),
        (KbsbPlayerInput("1", 6, None, history=history),
         *(KbsbPlayerInput(str(p), 50, listed[p]) for p in a)),
        tuple(KbsbGameInput("1", str(p), r) for p, r in zip(a, second, strict=True)),
    )  # fmt: skip
    expected = kbsb_evaluate(period, KbsbParameters()).players[0]
    assert expected.rating_new is not None and expected.formula == 1
    assert (final.rating, final.index) == (expected.rating_new, 12)


def test_a_period_is_closed_once_even_when_the_next_tournament_adds_no_game():
    """Review finding: a formula-1 player keeps his games after the list; a later
    tournament of the same period without a counted game must not rate them again."""
    listed = {2: 1800, 3: 1700, 4: 1900, 5: 1600, 6: 1750, 7: 1850}
    players = {
        1: PlayerRecord(1, 1990, MEMBER, Takeover(date(2025, 12, 31), 1700, 8)),
        8: PlayerRecord(8, 1990, MEMBER),
    } | {
        pid: PlayerRecord(pid, 1980, MEMBER, Takeover(date(2025, 12, 31), r, 50))
        for pid, r in listed.items()
    }
    results = ["1-0", "0-1", "1/2-1/2", "1-0", "1-0", "1-0"]
    ts = [
        match(10 + k, date(2026, 3, 1), r, 1, pid)
        for k, (pid, r) in enumerate(zip(listed, results, strict=True))
    ]
    ts += [
        match(20, date(2026, 9, 1), "1-0", 1, 8),  # opponent unrated: no counted game
        match(30, date(2026, 10, 1), "1-0", 1, 2),  # same period, no list in between
    ]
    h = History(KBSB, players, ts)
    h.full_replay()

    def before(tid: int):  # type: ignore[no-untyped-def]
        return next(s for s in h.snapshots[tid].values() if s.player_id == 1).input

    assert before(20).index == 14  # 8 + the 6 games of the first half-year
    assert (before(30).rating, before(30).index) == (before(20).rating, 14)
