"""The second core in a full replay (ratingdb/engine/parallel.py):
tournaments without a common player evaluated side by side give the snapshots of the
replay in order, to the last digit; a failure is raised at the failing tournament, in
order; a worker that dies leaves the rest to the replay's own process."""

from __future__ import annotations

import itertools
import os
import pickle
import queue
import random
import signal
import threading
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from ratingdb.engine import collector, parallel
from ratingdb.engine.collector import ChunkCollector
from ratingdb.engine.history import History
from ratingdb.engine.model import (
    EngineParticipant,
    EngineTournament,
    Membership,
    PlayerRecord,
    Snapshot,
)
from ratingdb.engine.parallel import Answer, Lane, LaneBroken, ProcessLane, Sent, worker_pool
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


class _Queues:
    """One direction of a channel between threads, with the calls :func:`parallel.serve`
    makes on a pipe's end."""

    def __init__(self) -> None:
        self.items: queue.SimpleQueue[bytes] = queue.SimpleQueue()

    def poll(self) -> bool:
        return not self.items.empty()

    def recv_bytes(self) -> bytes:
        return self.items.get()

    def send_bytes(self, buf: bytes) -> None:
        self.items.put(buf)


class ThreadLane:
    """The worker's loop (:func:`parallel.serve`, priority queue included) in a thread."""

    def __init__(self, collector: ChunkCollector | None = None) -> None:
        self.tasks, self.results = _Queues(), _Queues()
        self.sent = 0
        self.wire = parallel.Wire()
        self.thread = threading.Thread(
            target=parallel.serve, args=(self.tasks, self.results, None, collector)
        )
        self.thread.start()

    def send(self, items: list[Sent]) -> None:
        self.sent += sum(task is not None for _, task in items)
        self.tasks.send_bytes(self.wire.encode(items))

    def receive(self, wait: bool) -> list[Answer]:
        out: list[Answer] = []
        while (wait and not out) or self.results.poll():
            out.append(parallel.decode_answer(self.results.recv_bytes()))
        return out

    def __enter__(self) -> ThreadLane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.tasks.send_bytes(b"")
        self.thread.join()


@pytest.fixture(scope="module")
def process_pool() -> Iterator[Lane | None]:
    with worker_pool(1) as pool:
        yield pool


def test_a_worker_process_gives_the_replay_in_order(process_pool):
    """300 tournaments, most of them out of turn in the worker (spawned, the tasks and
    results pickled): every snapshot as the in-memory replay computes it."""
    assert isinstance(process_pool, ProcessLane)
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
        assert isinstance(pool, ProcessLane) if workers else pool is None
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
    assert pool.sent == 400  # every tournament goes to the worker (some are taken back)


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


def served(*messages: list[tuple[int, str | None]]) -> list[Answer]:
    """What :func:`parallel.serve` answers to ``messages`` of (position, name) items (None:
    taken back), sent before it starts, then the stop."""
    tasks, results = _Queues(), _Queues()
    wire = parallel.Wire()
    for message in messages:
        tasks.send_bytes(
            wire.encode(
                [(seq, None if name is None else ("f", None, named(name))) for seq, name in message]
            )
        )
    tasks.send_bytes(b"")
    parallel.serve(tasks, results)
    answers = []
    while results.poll():
        answers.append(parallel.decode_answer(results.recv_bytes()))
    return answers


def test_the_worker_evaluates_the_earliest_tournament_first(monkeypatch):
    """Sent together (or while it evaluates), tournaments are evaluated by their position
    in the evaluation order, not in the order they came: the one in turn goes first."""
    monkeypatch.setattr(parallel, "run_task", lambda task, encode: ([], (), task, None))
    answers = served([(5, "e"), (3, "c"), (9, "i")], [(4, "d"), (1, "a")])
    assert [(seq, result[2][2].tournament.id) for seq, result in answers] == [
        (1, "a"), (3, "c"), (4, "d"), (5, "e"), (9, "i")
    ]  # fmt: skip


def test_the_worker_skips_what_the_replay_took_back(monkeypatch):
    """A position sent again without a task is taken back: the worker does not evaluate
    it (if it has not yet) and sends nothing for it."""
    monkeypatch.setattr(parallel, "run_task", lambda task, encode: ([], (), task, None))
    answers = served([(1, "a"), (2, "b"), (3, "c")], [(2, None), (7, None)])
    assert [seq for seq, _ in answers] == [1, 3]


def test_parameters_cross_once_and_come_back_the_same():
    """Each parameters object is pickled once per worker and named by a number after;
    the worker's tasks carry equal parameters."""
    from ratingdb.rules.dwz2026.params import Dwz2026Parameters
    from ratingdb.rules.dwz_classic.params import DwzClassicParameters

    classic, new = DwzClassicParameters(), Dwz2026Parameters()
    t1, t2, t3 = named("T1"), named("T2", residual=True), named("T3")
    sender, receiver = parallel.Wire(), parallel.Wire()
    first = sender.encode([(1, ("dwz-classic", classic, t1)), (2, ("dwz", new, t2))])
    again = sender.encode([(3, ("dwz-classic", classic, t3)), (4, None)])
    assert len(again) < len(first) - 1000  # neither object sent again
    assert receiver.decode(first) == [(1, ("dwz-classic", classic, t1)), (2, ("dwz", new, t2))]
    assert receiver.decode(again) == [(3, ("dwz-classic", classic, t3)), (4, None)]


def test_the_rules_input_crosses_as_field_values_unchanged():
    """Every field of the rules' input (residual games, Decimals, dates, None) comes back
    equal, as the same types, after crossing as tuples."""
    sender, receiver = parallel.Wire(), parallel.Wire()
    tin = named("T9", residual=True)
    [(_, task)] = receiver.decode(sender.encode([(7, ("dwz", None, tin))]))
    assert task is not None and task[2] == tin
    back = task[2]
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
    seq, back = parallel.decode_answer(parallel.encode_answer(12, result))
    assert (seq, back) == (12, result)
    assert back is not None and all(type(o) is SnapshotOutput for o in back[0])
    assert parallel.decode_answer(parallel.encode_answer(3, None)) == (3, None)


class Lazy:
    """A worker that evaluates only when the replay waits, and then only the earliest
    tournament it holds: the replay takes back the last ones meanwhile."""

    def __init__(self) -> None:
        self.held: dict[int, Any] = {}
        self.taken_back: list[int] = []
        self.evaluated: list[int] = []

    def send(self, items: list[Sent]) -> None:
        for seq, task in items:
            if task is None:
                self.taken_back.append(seq)
                del self.held[seq]
            else:
                self.held[seq] = task

    def receive(self, wait: bool) -> list[Answer]:
        if not wait or not self.held:
            return []
        seq = min(self.held)
        self.evaluated.append(seq)
        return [(seq, parallel.run_task(self.held.pop(seq)))]


def test_the_replay_takes_back_the_last_tournaments_while_it_waits():
    """While the tournament in turn is with the worker, the replay evaluates the last one
    sent itself (if the worker holds more than ``TAKE_BACK_ABOVE`` others), taking it
    back; nothing is evaluated twice and every snapshot is the replay's in order."""
    tournaments = wide_history(300, seed=8)
    lane = Lazy()
    snaps, _, report = streamed(PLAYERS, tournaments, lane, LONG_TIMELINE, UMSTUFUNG)
    assert report.evaluated == 300
    assert snaps == reference(PLAYERS, tournaments)
    assert len(lane.taken_back) >= 30
    assert not set(lane.taken_back) & set(lane.evaluated)


def test_the_worker_reads_on_while_nobody_reads_its_results(process_pool):
    """The replay may send for a long time without reading a result (a pipe each way
    holds about 64 kB): the worker keeps taking tasks, so neither side waits for the other
    for ever. 20 messages of 500 tasks the rules refuse (each answered None), then all
    10,000 answers."""
    assert isinstance(process_pool, ProcessLane)
    broken_task = ("no such family", None, named("broken"))
    done = threading.Event()

    def send_all() -> None:
        for k in range(20):
            process_pool.send([(10_000_000 + k * 500 + j, broken_task) for j in range(500)])
        done.set()

    sender = threading.Thread(target=send_all, daemon=True)
    sender.start()
    assert done.wait(60), "the replay's sends blocked"
    answers: list[Answer] = []
    while len(answers) < 10_000:
        answers.extend(process_pool.receive(wait=True))
    assert sorted(seq for seq, _ in answers) == list(range(10_000_000, 10_010_000))
    assert {result for _, result in answers} == {None}


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


class Dying(ThreadLane):
    """A worker that dies after 40 results: what it was sent and did not answer is lost,
    and every later call raises :class:`LaneBroken`."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = 0

    def send(self, items: list[Sent]) -> None:
        if self.answered >= 40:
            raise LaneBroken("the worker died")
        super().send(items)

    def receive(self, wait: bool) -> list[Answer]:
        if self.answered >= 40:
            raise LaneBroken("the worker died")
        answers = super().receive(wait)[: 40 - self.answered]
        self.answered += len(answers)
        return answers


def test_a_worker_that_dies_leaves_the_rest_to_the_replay():
    tournaments = wide_history(250, seed=4)
    with Dying() as pool:
        snaps, _, report = streamed(PLAYERS, tournaments, pool, LONG_TIMELINE, UMSTUFUNG)
    assert pool.answered == 40 and report.evaluated == 250
    assert snaps == reference(PLAYERS, tournaments)


def test_a_killed_worker_process_is_reported_as_gone():
    """A worker process that dies (killed by the system, say) shows as
    :class:`LaneBroken` on the next receive and send, not as a hang or a raw error."""
    lane = ProcessLane()
    try:
        lane.send([(1, ("no such family", None, named("broken")))])
        assert lane.receive(wait=True) == [(1, None)]
        lane._process.kill()
        lane._process.join()
        with pytest.raises(LaneBroken):
            lane.receive(wait=True)
        with pytest.raises(LaneBroken):
            for _ in range(100):  # the first writes may still fit in the pipe
                lane.send([(2, ("no such family", None, named("broken")))])
    finally:
        lane.close(finished=False)


def test_a_finished_replay_stops_its_worker_with_answers_unread():
    """Answers nobody reads (of tournaments taken back, say) fill the results' pipe; the
    worker still stops at once when the replay is done instead of being waited for and
    killed."""
    import time

    from ratingdb.rules.dwz2026.params import Dwz2026Parameters

    lane = ProcessLane()
    params = Dwz2026Parameters()
    lane.send([(k, ("dwz", params, named(f"T{k}"))) for k in range(2000)])
    assert lane.receive(wait=True)  # it runs
    started = time.perf_counter()
    lane.close(finished=True)
    assert time.perf_counter() - started < parallel.STOP_WAIT / 2
    assert lane._process.exitcode == 0  # it ended by itself, not terminated


def test_a_task_that_cannot_cross_breaks_the_lane_not_the_run():
    """A task that cannot be pickled is a :class:`LaneBroken` (the replay evaluates the
    rest itself); the wire does not number parameters it never sent."""
    wire = parallel.Wire()
    with pytest.raises(Exception, match=r"pickle|lambda"):
        wire.encode([(1, ("dwz", lambda: None, named("T1")))])
    assert wire._numbers == {}
    lane = ProcessLane()
    try:
        with pytest.raises(LaneBroken):
            lane.send([(1, ("dwz", lambda: None, named("T1")))])
    finally:
        lane.close(finished=False)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux /proc")
def test_the_worker_ignores_ctrl_c():
    """Ctrl-C reaches every process of the terminal's group: the worker ignores it (the
    replay ends it) instead of printing a traceback of its own."""
    before = signal.getsignal(signal.SIGINT)
    lane = ProcessLane()
    try:
        status = Path(f"/proc/{lane._process.pid}/status").read_text()
        ignored = int(next(line for line in status.splitlines() if line.startswith("SigIgn:"))
                      .split()[1], 16)  # fmt: skip
        assert ignored & (1 << (signal.SIGINT - 1))
        assert signal.getsignal(signal.SIGINT) is before  # ours is restored
    finally:
        lane.close(finished=False)


def test_the_number_of_workers_is_the_settings_else_one_on_a_second_core():
    assert parallel.worker_count(0, cores=2) == 0
    assert parallel.worker_count(1, cores=1) == 1
    assert parallel.worker_count(None, cores=2) == 1
    assert parallel.worker_count(None, cores=1) == 0


def test_the_replay_workers_setting_is_validated():
    from ratingdb.settings import Settings, SettingsError

    assert Settings.from_env({"RATINGDB_REPLAY_WORKERS": "0"}).replay_workers == 0
    assert Settings.from_env({"RATINGDB_REPLAY_WORKERS": " 1 "}).replay_workers == 1
    assert Settings.from_env({}).replay_workers is None
    with pytest.raises(SettingsError, match="RATINGDB_REPLAY_WORKERS: expected 0 or 1"):
        Settings.from_env({"RATINGDB_REPLAY_WORKERS": "many"})


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

    monkeypatch.setattr(parallel, "ProcessLane", refuse)
    with worker_pool(1) as pool:
        assert pool is None
        snaps, _, report = streamed(PLAYERS, wide_history(40), pool, LONG_TIMELINE, UMSTUFUNG)
    assert report.evaluated == 40 and snaps == reference(PLAYERS, wide_history(40))


def test_the_worker_leaves_no_cyclic_garbage():
    """What the look-ahead held is freed by reference counting once applied (the full
    replay runs with the cyclic collector paused, ratingdb/engine/collector.py): a collection
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


def test_the_worker_collects_every_so_many_tournaments(monkeypatch):
    """The worker's collector is told after each tournament it evaluated: one collection
    after every so many."""
    collections: list[int] = []
    monkeypatch.setattr(collector.gc, "collect", lambda *a: collections.append(1) or 0)
    with ChunkCollector(7) as counted, ThreadLane(counted) as pool:
        streamed(PLAYERS, wide_history(60, seed=2), pool, LONG_TIMELINE, UMSTUFUNG)
        evaluated = pool.sent  # at most what was sent; some are taken back
    assert evaluated > 14
    assert 1 <= len(collections) <= evaluated // 7


def test_the_switch_interval_is_shortened_only_while_a_worker_runs():
    """1 ms while the worker runs (the main thread takes the lock back from the reader and
    writer sooner), the interpreter's own value again afterwards, also after an error and
    never without a worker."""
    import sys

    outer = sys.getswitchinterval()  # the module's pool may be running
    sys.setswitchinterval(0.004)
    try:
        with worker_pool(0) as pool:
            assert pool is None and sys.getswitchinterval() == 0.004
        with pytest.raises(RuntimeError, match="stop"), worker_pool(1) as pool:
            assert pool is not None
            assert sys.getswitchinterval() == parallel.SWITCH_INTERVAL != 0.004
            raise RuntimeError("stop")
        assert sys.getswitchinterval() == 0.004
    finally:
        sys.setswitchinterval(outer)


@pytest.mark.skipif(not hasattr(parallel.select, "poll"), reason="pipes polled: POSIX")
def test_answers_never_block_the_worker_and_arrive_whole_in_order():
    """The worker's answers go into a non-blocking pipe: far more than the pipe holds is
    sent without waiting (what does not fit waits in a buffer), :meth:`idle` writes while
    the replay reads and returns when a task comes, :meth:`close` writes the rest; the
    replay's ``recv_bytes`` reads every answer whole and in order."""
    import multiprocessing

    answers_in, answers_out = multiprocessing.Pipe(duplex=False)
    tasks_in, tasks_out = multiprocessing.Pipe(duplex=False)
    pipe = parallel._PipeAnswers(tasks_in.fileno(), answers_out.fileno())
    sent = [bytes([k % 251]) * (1000 + 37 * k) for k in range(600)]  # ~7 MB, pipe 1 MiB
    done = threading.Event()

    def send_all() -> None:
        for answer in sent[:500]:
            pipe.send(answer)
        done.set()

    sender = threading.Thread(target=send_all, daemon=True)
    sender.start()
    assert done.wait(10), "sending blocked on the full pipe"
    received = [answers_in.recv_bytes() for _ in range(100)]  # the replay reads some

    def read_then_send_a_task() -> None:
        received.extend(answers_in.recv_bytes() for _ in range(400))
        tasks_out.send_bytes(b"task")

    reader = threading.Thread(target=read_then_send_a_task, daemon=True)
    reader.start()
    pipe.idle()  # writes while the reader reads; returns once the task is there
    reader.join(10)
    assert len(received) == 500 and tasks_in.poll()
    for answer in sent[500:]:
        pipe.send(answer)
    rest = threading.Thread(
        target=lambda: received.extend(answers_in.recv_bytes() for _ in range(100))
    )
    rest.start()
    pipe.close()
    rest.join(10)
    assert received == sent


@pytest.mark.skipif(not hasattr(parallel.select, "poll"), reason="pipes polled: POSIX")
def test_answers_to_a_replay_gone_are_dropped():
    """The replay closed its end: sending and closing neither block nor fail."""
    import multiprocessing

    answers_in, answers_out = multiprocessing.Pipe(duplex=False)
    tasks_in, _ = multiprocessing.Pipe(duplex=False)
    pipe = parallel._PipeAnswers(tasks_in.fileno(), answers_out.fileno())
    answers_in.close()
    for _ in range(100):
        pipe.send(b"x" * 50_000)
    pipe.idle()
    pipe.close()
