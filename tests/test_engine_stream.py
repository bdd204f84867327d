"""The streamed full replay equals the in-memory full replay, and what
it holds does not grow with the number of tournaments."""

from __future__ import annotations

import gc
import itertools
import tracemalloc
from collections.abc import Iterator
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given

from ratingdb.engine.history import History
from ratingdb.engine.model import (
    Adjustment,
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    Snapshot,
)
from ratingdb.engine.problems import EvaluationProblem
from ratingdb.engine.stream import stream_full_replay
from ratingdb.engine.timeline import RechenmodulVersion, Timeline
from ratingdb.rules.dwz2026 import Dwz2026Parameters
from ratingdb.rules.model import GameInput
from tests.test_engine_replay import ADJUSTMENTS, SETTINGS, TIMELINE, histories


def streamed(players, tournaments, timeline=TIMELINE, adjustments=()):
    """Snapshots and problems of a streamed replay, tournaments handed over one by one."""
    snaps: dict[tuple[int, int], Snapshot] = {}
    problems: dict[int, EvaluationProblem] = {}

    def emit(t, new, problem):
        for s in new:
            snaps[(t.id, s.participant_id)] = s
        if problem is not None:
            problems[t.id] = problem

    ordered = sorted(tournaments, key=lambda t: t.order_key)
    report = stream_full_replay(iter(ordered), players, timeline, adjustments, emit)
    return snaps, problems, report


@pytest.mark.slow
@SETTINGS
@given(histories())
def test_a_streamed_full_replay_equals_the_in_memory_one(history):
    """Random histories: first ratings (FIDE-rated guests), residual games of players
    without a rating, memberships that end (retention) or start late, list takeovers, a
    second Rechenmodul version from 2024, and an Umstufung."""
    players, tournaments, _ = history
    reference = History(TIMELINE, dict(players), list(tournaments), adjustments=tuple(ADJUSTMENTS))
    outcome = reference.full_replay()
    snaps, problems, report = streamed(players, tournaments, adjustments=tuple(ADJUSTMENTS))
    assert snaps == {
        (tid, pid): s for tid, by_part in reference.snapshots.items() for pid, s in by_part.items()
    }
    assert problems == outcome.problems
    assert report.evaluated == outcome.evaluated == len(tournaments)
    assert len(report.states) <= len(players)


# -- a long history of a few players ----------------------------------------------------------
PLAYERS = {p: PlayerRecord(p, 1980 + p, (Membership(date(1990, 1, 1)),)) for p in range(1, 13)}
#: a Rechenmodul change half-way through a long history, and an Umstufung
LONG_TIMELINE = Timeline(
    [
        RechenmodulVersion("dwz2026", "old", date(1990, 1, 1), Dwz2026Parameters()),
        RechenmodulVersion("dwz2026", "new", date(2005, 1, 1), Dwz2026Parameters(t=40)),
    ]
)
UMSTUFUNG = (Adjustment(date(2003, 6, 30), "dwz-2026-umstufung"),)


def long_history(n: int) -> Iterator[EngineTournament]:
    """``n`` round robins of six of the twelve players, one a week from 2000, made when
    asked for (the test must not hold them either); the first gives FIDE start ratings."""
    results = itertools.cycle(["1-0", "1/2-1/2", "0-1", "1-0", "0-1"])
    for k in range(n):
        field = [(k + j) % 12 + 1 for j in range(0, 12, 2)]
        tid = k + 1
        parts = tuple(
            EngineParticipant(
                tid * 100 + j,
                pid,
                rating_source="fide" if k < 2 else None,
                external_rating=1500 + 40 * pid if k < 2 else None,
                external_index=None,
            )
            for j, pid in enumerate(field)
        )
        games = tuple(
            GameInput(str(tid * 100 + a), str(tid * 100 + b), next(results))
            for a in range(6)
            for b in range(a + 1, 6)
        )
        end = date(2000, 1, 2) + timedelta(days=7 * k)
        yield EngineTournament(
            tid, f"T{tid}", end, end, "000", datetime(2030, 1, 1), participants=parts, games=games
        )


def test_a_long_history_streams_like_the_in_memory_replay():
    players = dict(PLAYERS)
    tournaments = list(long_history(600))  # 2000 to 2011: across the Umstufung and "new"
    reference = History(LONG_TIMELINE, players, list(tournaments), adjustments=UMSTUFUNG)
    reference.full_replay()
    snaps, _, report = streamed(players, tournaments, LONG_TIMELINE, UMSTUFUNG)
    assert snaps == {
        (tid, pid): s for tid, by_part in reference.snapshots.items() for pid, s in by_part.items()
    }
    assert {s.input.rechenmodul for s in snaps.values()} == {"dwz2026/old", "dwz2026/new"}
    assert set(report.states) == set(PLAYERS)


def test_the_stream_reads_one_tournament_ahead_at_most():
    """Each tournament's snapshots are handed on before the next tournament is read."""
    read: list[int] = []
    emitted_after: list[int] = []

    def source() -> Iterator[EngineTournament]:
        for t in long_history(50):
            read.append(t.id)
            yield t

    stream_full_replay(
        source(),
        PLAYERS,
        LONG_TIMELINE,
        UMSTUFUNG,
        lambda t, snaps, problem: emitted_after.append(len(read)),
    )
    assert emitted_after == list(range(1, 51))


def _held(n: int) -> int:
    """Python memory (bytes) in use when the last of ``n`` streamed tournaments is handed
    on, the snapshots dropped (a full collection first: it also empties the interpreter's
    free lists, which tracemalloc counts)."""
    held: list[int] = []

    def emit(t: EngineTournament, snaps: list[Snapshot], problem: object) -> None:
        if t.id == n:
            gc.collect()
            held.append(tracemalloc.get_traced_memory()[0])

    gc.collect()
    tracemalloc.start()
    try:
        stream_full_replay(long_history(n), PLAYERS, LONG_TIMELINE, UMSTUFUNG, emit)
    finally:
        tracemalloc.stop()
    return held[0]


@pytest.mark.slow
def test_memory_does_not_grow_with_the_number_of_tournaments():
    """Eight times the tournaments of the same twelve players (both across the Umstufung
    and the Rechenmodul change): what the stream holds stays the same. Keeping the
    tournaments or the snapshots (30 of each per tournament) would add about 25 kB per
    tournament, several MB here."""
    _held(480)  # first use of each Rechenmodul and of the Umstufung: caches, imports
    short, long = _held(300), _held(2400)
    assert long < short + 20_000, (short, long)
