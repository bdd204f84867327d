"""The second core in a full replay (ratingdb/engine/parallel.py):
tournaments without a common player evaluated side by side give the snapshots of the
replay in order, to the last digit; a failure is raised at the failing tournament, in
order; a worker that dies leaves the rest to the replay's own process."""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.process
import os
import pickle
import random
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from ratingdb.engine import parallel
from ratingdb.engine.history import History
from ratingdb.engine.model import (
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    Snapshot,
)
from ratingdb.engine.parallel import Answer, Lane, LaneBroken, PoolLane, Sent, worker_pool
from ratingdb.engine.stream import stream_full_replay
from ratingdb.rules.model import (
    GameInput,
    PlayerInput,
    ResidualGame,
    TournamentInfo,
    TournamentInput,
)
from ratingdb.rules.snapshots import SnapshotOutput
from tests.test_engine_replay import ADJUSTMENTS, SETTINGS, TIMELINE, histories
from tests.test_engine_stream import LONG_TIMELINE, UMSTUFUNG


def streamed(
    players, tournaments, pool, timeline=TIMELINE, adjustments=(), turns=None, encode=None
):
    snaps: dict[tuple[int, int], Snapshot] = {}
    problems: dict[int, Any] = {}
    order: list[int] = []

    def emit(t, new, problem):
        order.append(t.id)
        for s in new:
            snaps[(t.id, s.participant_id)] = s
        if problem is not None:
            problems[t.id] = problem

    def progress(t, evaluated):
        if turns is not None:
            turns.append((t.id, evaluated))

    ordered = sorted(tournaments, key=lambda t: t.order_key)
    report = stream_full_replay(
        iter(ordered), players, timeline, adjustments, emit, progress, pool, encode
    )
    assert order == [t.id for t in ordered]  # handed on in the evaluation order
    return snaps, problems, report


# -- a federation of many small clubs: most tournaments share no player ----------------------
PLAYERS = {p: PlayerRecord(p, 1960 + p % 50, (Membership(date(1990, 1, 1)),)) for p in range(1, 61)}


def wide_history(n: int, seed: int = 3) -> list[EngineTournament]:
    """``n`` round robins of four of sixty players, two a day; the first twenty give FIDE
    start ratings, so first ratings, residual games and established players all occur."""
    rng = random.Random(seed)
    results = itertools.cycle(["1-0", "1/2-1/2", "0-1", "1-0", "0-1", "1/2-1/2", "1-0"])
    out = []
    for k in range(n):
        field = rng.sample(range(1, 61), 4)
        tid = k + 1
        parts = tuple(
            EngineParticipant(
                tid * 10 + j,
                pid,
                rating_source="fide" if k < 20 else None,
                external_rating=1400 + 15 * pid if k < 20 else None,
                external_index=None,
            )
            for j, pid in enumerate(field)
        )
        games = tuple(
            GameInput(str(tid * 10 + a), str(tid * 10 + b), next(results))
            for a in range(4)
            for b in range(a + 1, 4)
        )
        end = date(2000, 1, 2) + timedelta(days=k // 2)
        out.append(
            EngineTournament(
                tid,
                f"T{tid}",
                end,
                end,
                "000",
                datetime(2030, 1, 1),
                participants=parts,
                games=games,
            )
        )
    return out


def reference(players, tournaments, timeline=LONG_TIMELINE, adjustments=UMSTUFUNG):
    h = History(timeline, dict(players), list(tournaments), adjustments=adjustments)
    h.full_replay()
    return {(tid, pid): s for tid, by_part in h.snapshots.items() for pid, s in by_part.items()}


class ThreadLane(PoolLane):
    """The worker's evaluation (:func:`parallel._evaluate`, its tasks and answers as they
    cross) in a thread of a :class:`ThreadPoolExecutor`."""

    def __init__(self) -> None:
        super().__init__(None, ThreadPoolExecutor(1))

    def __enter__(self) -> ThreadLane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(finished=True)


@pytest.fixture(scope="module")
def process_pool() -> Iterator[Lane | None]:
    with worker_pool(1) as pool:
        yield pool


def test_a_worker_process_gives_the_replay_in_order(process_pool):
    """300 tournaments, most of them out of turn in the worker (spawned, the tasks and
    results pickled): every snapshot as the in-memory replay computes it."""
    assert isinstance(process_pool, PoolLane)
    tournaments = wide_history(300)
    snaps, _, report = streamed(PLAYERS, tournaments, process_pool, LONG_TIMELINE, UMSTUFUNG)
    assert report.evaluated == 300
    assert snaps == reference(PLAYERS, tournaments)
    groups = {s.output.group for s in snaps.values()}
    assert {"established", "first_stage"} <= groups


def tagged(output: SnapshotOutput) -> str:
    """An ``encode`` that names the process it ran in (a module-level function: the worker
    gets it by name)."""
    return f"{os.getpid()}:{output.group}:{output.rating_new}:{output.expected_games}"


@pytest.mark.parametrize("workers", [1, 0])
def test_the_outputs_come_encoded_from_where_they_were_made(workers):
    """With an ``encode`` (a full replay's: the writer's COPY text of the output columns),
    each snapshot carries its output encoded, by the worker process or, for what the
    replay evaluates itself, by the replay; the snapshots are the same values as without."""
    tournaments = wide_history(120, seed=4)
    with worker_pool(workers, tagged) as pool:
        assert isinstance(pool, PoolLane) if workers else pool is None
        snaps, _, report = streamed(
            PLAYERS, tournaments, pool, LONG_TIMELINE, UMSTUFUNG, encode=tagged
        )
    assert report.evaluated == 120
    assert snaps == reference(PLAYERS, tournaments)
    makers = set()
    for s in snaps.values():
        assert s.encoded is not None
        maker, _, rest = s.encoded.partition(":")
        assert rest == tagged(s.output).partition(":")[2]  # this output's, not another's
        makers.add(int(maker))
    here = {os.getpid()}
    assert makers - here if workers else makers == here  # the worker made some
    assert all(s.encoded is None for s in reference(PLAYERS, tournaments).values())


def test_the_worker_takes_a_share_and_nothing_changes():
    tournaments = wide_history(400, seed=5)
    with ThreadLane() as pool:
        snaps, _, _ = streamed(PLAYERS, tournaments, pool, LONG_TIMELINE, UMSTUFUNG)
    assert snaps == reference(PLAYERS, tournaments)
    assert pool.sent > 200  # most tournaments go to the worker (the one in turn stays)


class Idle:
    """A worker that never starts anything: every tournament in turn is taken back and
    evaluated by the replay itself."""

    def __init__(self) -> None:
        self.held: set[int] = set()
        self.taken_back: list[int] = []

    def send(self, items: list[Sent]) -> None:
        self.held.update(seq for seq, _ in items)

    def receive(self, wait_for_one: bool) -> list[Answer]:
        assert not wait_for_one, "the replay waits for a worker that never answers"
        return []

    def take_back(self, seq: int) -> bool:
        self.held.remove(seq)
        self.taken_back.append(seq)
        return True


def test_the_tournament_in_turn_never_waits_behind_later_ones():
    """A tournament in turn that the worker has not started is taken back and evaluated
    by the replay: it never waits for tournaments sent before it that come after it."""
    tournaments = wide_history(300, seed=8)
    lane = Idle()
    snaps, _, report = streamed(PLAYERS, tournaments, lane, LONG_TIMELINE, UMSTUFUNG)
    assert report.evaluated == 300
    assert snaps == reference(PLAYERS, tournaments)
    assert len(lane.taken_back) > 100 and not lane.held


def test_parameters_cross_once_per_worker():
    """A Rechenmodul's parameters go to the worker with the first task that needs them and
    are named by their number after; a task that carries them is never taken back."""
    from ratingdb.rules.dwz2026.params import Dwz2026Parameters

    params = Dwz2026Parameters()
    with ThreadLane() as lane:
        lane.send([(k, ("dwz2026", params, named(f"T{k}"))) for k in range(5)])
        assert lane._carriers == {0} and len(lane._numbers) == 1
        answers: list[Answer] = []
        while len(answers) < 5:
            answers.extend(lane.receive(True))
        assert sorted(seq for seq, _ in answers) == [0, 1, 2, 3, 4]
        assert all(result is not None for _, result in answers)
        assert not lane.take_back(0)


def test_a_task_the_rules_refuse_is_answered_none():
    """An evaluation that fails in the worker is answered None (the replay evaluates it
    again in its turn and fails there, naming it)."""
    with ThreadLane() as lane:
        lane.send([(1, ("no such family", None, named("broken")))])
        assert lane.receive(True) == [(1, None)]


def new_children(before: set[int]) -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if p.pid not in before]


def test_a_killed_worker_process_is_reported_as_gone():
    """A worker process that dies (killed by the system, say) shows as
    :class:`LaneBroken` on the next receive and send, not as a hang or a raw error."""
    before = {p.pid for p in multiprocessing.active_children()}
    lane = PoolLane()
    try:
        lane.send([(1, ("no such family", None, named("broken")))])
        assert lane.receive(True) == [(1, None)]
        (worker,) = new_children(before)
        worker.kill()
        worker.join()
        with pytest.raises(LaneBroken):
            lane.send([(2, ("no such family", None, named("broken")))])
            lane.receive(True)
    finally:
        lane.close(finished=False)


def test_a_task_that_cannot_cross_is_evaluated_by_the_replay():
    """A task that cannot be pickled is answered None (the replay evaluates it in its
    turn); the worker goes on."""
    lane = PoolLane()
    try:
        lane.send([(1, ("dwz", lambda: None, named("T1")))])
        assert lane.receive(True) == [(1, None)]
        lane.send([(2, ("no such family", None, named("broken")))])
        assert lane.receive(True) == [(2, None)]
    finally:
        lane.close(finished=False)


def named(name: str, residual: bool = False) -> TournamentInput:
    """A small rules' input called ``name`` (with a residual game and a Decimal score if
    ``residual``)."""
    held = (ResidualGame(1600, Decimal("0.5"), date(2025, 5, 1)),) if residual else ()
    return TournamentInput(
        TournamentInfo(name, date(2026, 1, 2), date(2026, 1, 3), "Open", "C0327", "team"),
        (
            PlayerInput("1", "A", 1500, 3, 1990, True, "dwz", False, "C0327", ()),
            PlayerInput("2", residual_games=held),
        ),
        (GameInput("1", "2", "1/2-1/2", 1), GameInput("2", "1", "1-0")),
    )


def test_the_rules_input_crosses_as_field_values_unchanged():
    """Every field of the rules' input (residual games, Decimals, dates, None) comes back
    equal, as the same types, after crossing as tuples."""
    tin = named("T9", residual=True)
    back = parallel._unflat(pickle.loads(pickle.dumps(parallel._flat(tin))))
    assert back == tin
    assert type(back.players[1].residual_games[0]) is ResidualGame
    assert type(back.players[1].residual_games[0].score) is Decimal
    assert back.games[1].round is None and type(back.tournament) is TournamentInfo


def test_answers_cross_as_field_values_and_come_back_equal():
    """A worker's answer (outputs as tuples of field values) is rebuilt into equal
    outputs of the same class; a failed evaluation's None stays None."""
    out = SnapshotOutput(
        "remaining", "youth", None, None, None, 1550, 0.5, 1, 0.43, None, False, None, None,
        None, None, False, [{"opponent_rating": 1600, "score": 0.5, "date": "2026-01-03"}],
        [0.43, None],
    )  # fmt: skip
    result = ([out, SnapshotOutput()], ("2",), "struck", ["a\n", "b\n"])
    flat = (parallel._OUTPUTS.values(result[0]), *result[1:])
    back = parallel._result(pickle.loads(pickle.dumps(flat)))
    assert back == result
    assert back is not None and all(type(o) is SnapshotOutput for o in back[0])
    assert parallel._result(None) is None


@SETTINGS
@given(histories())
def test_random_histories_with_a_worker_equal_the_replay_in_order(history):
    """The random histories of the replay tests (memberships, takeovers, residual games,
    a Rechenmodul change, adjustments), with a pool in threads."""
    players, tournaments, _ = history
    with ThreadLane() as pool:
        snaps, problems, _ = streamed(players, tournaments, pool, adjustments=tuple(ADJUSTMENTS))
    h = History(TIMELINE, dict(players), list(tournaments), adjustments=tuple(ADJUSTMENTS))
    outcome = h.full_replay()
    assert snaps == {
        (tid, pid): s for tid, by_part in h.snapshots.items() for pid, s in by_part.items()
    }
    assert problems == outcome.problems


def test_a_failure_is_raised_at_its_tournament_in_order(monkeypatch):
    """Tournament 120 cannot be evaluated (an error no rule catches): the replay hands on
    the 119 before it, names 120 as the tournament in turn, and fails there, whether the
    worker or the replay's process met the error first."""
    real = parallel.run_task

    def failing(task, encode=None):
        if task[2].tournament.id == "T120":
            raise ZeroDivisionError("T120 is broken")
        return real(task, encode)

    monkeypatch.setattr(parallel, "run_task", failing)
    turns: list[tuple[int, int]] = []
    emitted: list[int] = []
    tournaments = wide_history(200, seed=9)
    with ThreadLane() as pool, pytest.raises(ZeroDivisionError, match="T120"):
        stream_full_replay(
            iter(tournaments),
            PLAYERS,
            LONG_TIMELINE,
            UMSTUFUNG,
            lambda t, snaps, problem: emitted.append(t.id),
            lambda t, evaluated: turns.append((t.id, evaluated)),
            pool,
        )
    assert emitted == list(range(1, 120))
    assert turns[-1] == (120, 119)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux /proc")
def test_the_worker_ignores_ctrl_c():
    """Ctrl-C reaches every process of the terminal's group: the worker ignores it (the
    replay ends it) instead of printing a traceback of its own."""
    before = signal.getsignal(signal.SIGINT)
    children = {p.pid for p in multiprocessing.active_children()}
    lane = PoolLane()
    try:
        lane.send([(1, ("no such family", None, named("broken")))])
        assert lane.receive(True) == [(1, None)]
        (worker,) = new_children(children)
        status = Path(f"/proc/{worker.pid}/status").read_text()
        ignored = int(next(line for line in status.splitlines() if line.startswith("SigIgn:"))
                      .split()[1], 16)  # fmt: skip
        assert ignored & (1 << (signal.SIGINT - 1))
        assert signal.getsignal(signal.SIGINT) is before  # ours is restored
    finally:
        lane.close(finished=False)


def test_inputs_and_outputs_cross_to_a_worker_unchanged():
    """What goes to the worker and back (pickled by their field values): equal objects,
    residual games, dates and Decimals included."""
    import pickle
    from decimal import Decimal

    from ratingdb.rules.model import PlayerInput, ResidualGame, TournamentInfo, TournamentInput

    tin = TournamentInput(
        TournamentInfo("T1", date(2026, 1, 2), date(2026, 1, 3), "Open", "C0327", "team"),
        (
            PlayerInput("1", "A", 1500, 3, 1990, True, "dwz", False, "C0327", ()),
            PlayerInput(
                "2", residual_games=(ResidualGame(1600, Decimal("0.5"), date(2025, 5, 1)),)
            ),
        ),
        (GameInput("1", "2", "1/2-1/2", 1),),
    )
    out = SnapshotOutput(
        "established", "adult", 1500, 3, 20, 1550, 0.5, 1, 0.43, 1550, False, None, None,
        1502, 4, True, [{"opponent_rating": 1600, "score": 0.5}], [0.43],
    )  # fmt: skip
    assert pickle.loads(pickle.dumps((tin, out))) == (tin, out)


def test_a_machine_that_cannot_start_processes_replays_without_a_worker(monkeypatch):
    """Where a process pool cannot be made (no /dev/shm, a sandbox), the replay runs in
    its own process instead of failing."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("[Errno 38] Function not implemented")

    monkeypatch.setattr(parallel, "PoolLane", refuse)
    with worker_pool(1) as pool:
        assert pool is None
        snaps, _, report = streamed(PLAYERS, wide_history(40), pool, LONG_TIMELINE, UMSTUFUNG)
    assert report.evaluated == 40 and snaps == reference(PLAYERS, wide_history(40))


def test_the_worker_leaves_no_cyclic_garbage():
    """What the look-ahead held is freed by reference counting once applied (the full
    replay runs with the cyclic collector paused, ratingdb/db/collector.py): a collection
    afterwards finds no entry of the look-ahead."""
    import gc

    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        with ThreadLane() as pool:
            streamed(PLAYERS, wide_history(120, seed=6), pool, LONG_TIMELINE, UMSTUFUNG)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, parallel._Entry)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


def test_the_rules_leave_no_cyclic_garbage_in_the_worker():
    """The worker process collects cycles only every ``COLLECT_EVERY`` tournaments: what
    it evaluates (first ratings, residual games, established players, the Umstufung) is
    freed by reference counting alone."""
    import gc

    ordered = sorted(wide_history(150, seed=5), key=lambda t: t.order_key)
    tasks: list[Any] = []

    def capture(task, encode=None):
        tasks.append(task)
        return real(task, encode)

    real = parallel.run_task
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel, "run_task", capture)
        streamed(PLAYERS, ordered, None, LONG_TIMELINE, UMSTUFUNG)
    assert len(tasks) == 150
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for task in tasks:
            pickle.dumps(parallel.run_task(task, tagged))
        found = gc.collect()
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert found == 0


