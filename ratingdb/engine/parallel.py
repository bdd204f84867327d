"""The second core in a full replay (issue 24): tournaments without a common player are
evaluated side by side, in a worker process, while the replay goes on in order.

A tournament's evaluation depends only on its participants' states before it (WO 3.7:
rating, index, residual games, the periods they count from) and those change only by
tournaments the player plays in. So a tournament that shares no player with any earlier
tournament not yet applied can be prepared (its inputs built from the current states) and
evaluated at once, out of turn, and its result is the one the walk in order would compute.
:func:`in_order` looks ahead ``WINDOW`` tournaments, prepares every such tournament, hands
batches of them to a worker process (a tournament the worker cannot take it evaluates
itself); it gives
every tournament back in the evaluation order (WO 2.2.3), and the caller applies it (the
players' new states) before asking for the next. The evaluation is a pure function of
its input (:func:`run_task`), so the replay's snapshots are the same to the last digit with
or without the worker (``tests/test_engine_parallel.py``).

A tournament whose evaluation fails in the worker is evaluated again in the replay's own
process when its turn comes, so the run fails there, naming it, exactly as it fails
without the worker; a worker that dies leaves the rest to the replay's process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from bisect import insort
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

from ratingdb.engine.model import EngineTournament, SnapshotInput
from ratingdb.engine.replay import Result, Task, run_task

#: a tournament ready to evaluate: the participants' inputs (by participant id) and the task
Prepared = tuple[dict[int, SnapshotInput], Task]

#: tournaments looked ahead (memory: this many tournaments with their games, at most)
WINDOW = 128
#: tournaments per batch sent to the worker (one round trip each)
BATCH = 8
#: batches on their way to the worker or in it at once
IN_FLIGHT = 12
#: the interpreter's thread switch interval while a worker runs (Python's default: 5 ms):
#: the replay's main thread, waiting for the worker's result of the tournament in turn,
#: gets the interpreter lock from the reader and writer threads sooner (60,000 players:
#: compute phase 18.4 s against 19.2 s, three alternating pairs)
SWITCH_INTERVAL = 0.001
#: below this many tournaments a replay does not start a worker (starting one takes about
#: a second)
MIN_TOURNAMENTS = 2000


def run_batch(tasks: list[Task]) -> list[Result | None]:
    """The worker's side: each task's result, None for one that failed (the replay
    evaluates it again itself, to fail there with the real error)."""
    out: list[Result | None] = []
    for task in tasks:
        try:
            out.append(run_task(task))
        except Exception:  # re-raised by the replay's own evaluation
            out.append(None)
    return out


def _ready() -> bool:
    return True


def worker_count() -> int:
    """Worker processes of a full replay: ``RATINGDB_REPLAY_WORKERS`` (0: none), by default
    one when the machine has a second core."""
    configured = os.environ.get("RATINGDB_REPLAY_WORKERS", "").strip()
    if configured:
        try:
            return max(0, int(configured))
        except ValueError:
            return 0
    return 1 if (os.cpu_count() or 1) >= 2 else 0


@contextmanager
def worker_pool(workers: int) -> Iterator[Executor | None]:
    """``workers`` worker processes (None for 0, or where processes cannot be started),
    spawned (the replay's process has threads and open connections) and started at once,
    so that their imports overlap the first reads; shut down at the end, pending batches
    cancelled."""
    pool: ProcessPoolExecutor | None = None
    if workers > 0:
        try:
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
            for _ in range(workers):
                pool.submit(_ready)
        except (OSError, RuntimeError, NotImplementedError):
            # no processes here (no /dev/shm, a sandbox): the replay runs in its own
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
            pool = None
    interval = sys.getswitchinterval()
    if pool is not None:
        sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        yield pool
    finally:
        sys.setswitchinterval(interval)
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


@dataclass(eq=False)
class _Entry:
    t: EngineTournament
    players: frozenset[int]
    #: position in the evaluation order
    seq: int
    prepared: Prepared | None = None
    batch: _Batch | None = None
    result: Result | None = None
    #: evaluate it in the replay's process (the worker failed on it or is gone)
    local: bool = False


@dataclass
class _Batch:
    future: Future[list[Result | None]]
    entries: list[_Entry] = field(default_factory=list)


def in_order(
    tournaments: Iterable[EngineTournament],
    prepare: Callable[[EngineTournament], Prepared],
    pool: Executor | None,
    turn: Callable[[EngineTournament], None],
) -> Iterator[tuple[EngineTournament, dict[int, SnapshotInput], Result]]:
    """Each tournament with its participants' inputs and its result, in the order given.
    ``prepare(t)`` builds a tournament's inputs from the current states; it is called only
    once every earlier tournament with one of its players has been given back, and the
    caller must apply each tournament given back before asking for the next. ``turn(t)``
    is called when a tournament's turn comes, before its result is awaited or computed in
    turn (a failure is raised after it: the run names that tournament)."""
    if pool is None:
        for t in tournaments:
            turn(t)
            inputs, task = prepare(t)
            yield t, inputs, run_task(task)
        return
    window: deque[_Entry] = deque()
    #: each player's tournaments in the window, in order: a tournament is ready (can be
    #: prepared) when it is the first of every one of its players
    holders: dict[int, list[_Entry]] = {}
    source = iter(tournaments)
    exhausted = False
    in_flight: deque[_Batch] = deque()
    waiting: list[_Entry] = []  # prepared, neither sent to the worker nor evaluated
    broken = False
    seq = 0

    def ready(entry: _Entry) -> None:
        entry.prepared = prepare(entry.t)
        if waiting and waiting[-1].seq > entry.seq:
            insort(waiting, entry, key=_seq)
        else:
            waiting.append(entry)

    while True:
        while not exhausted and len(window) < WINDOW:
            following = next(source, None)
            if following is None:
                exhausted = True
                break
            players = frozenset(
                p.player_id for p in following.participants if p.player_id is not None
            )
            entry = _Entry(following, players, seq)
            seq += 1
            free = True
            for player in players:
                held = holders.get(player)
                if held is None:
                    holders[player] = [entry]
                else:
                    free = free and not held
                    held.append(entry)
            window.append(entry)
            if free:
                ready(entry)
        if not window:
            return
        waiting = [e for e in waiting if e.batch is None and e.result is None and not e.local]
        if not broken:
            assert pool is not None
            broken = _submit(pool, waiting, in_flight)
        head = window[0]
        assert head.prepared is not None  # nothing before it holds one of its players
        turn(head.t)
        while head.result is None:
            if head.batch is None or head.local:
                head.result = run_task(_task(head))
                break
            try:
                _collect(head.batch, in_flight)
            except Exception:  # the worker died: the rest is evaluated here
                broken = True
                for batch in in_flight:
                    for entry in batch.entries:
                        entry.local = entry.result is None
                in_flight.clear()
        yield head.t, _inputs(head), head.result
        window.popleft()
        for player in head.players:  # applied: the next tournament of each player may be ready
            held = holders[player]
            del held[0]
            if not held:
                del holders[player]
                continue
            following_entry = held[0]
            if following_entry.prepared is None and all(
                holders[p][0] is following_entry for p in following_entry.players
            ):
                ready(following_entry)


def _seq(entry: _Entry) -> int:
    return entry.seq


def _task(entry: _Entry) -> Task:
    assert entry.prepared is not None
    return entry.prepared[1]


def _inputs(entry: _Entry) -> dict[int, SnapshotInput]:
    assert entry.prepared is not None
    return entry.prepared[0]


def _submit(pool: Executor, waiting: list[_Entry], in_flight: deque[_Batch]) -> bool:
    """Send batches of prepared tournaments to the worker, the one in turn too (the
    replay's process has the reading, the inputs and the writing to do); True if the pool
    is gone."""
    candidates = list(waiting)
    while candidates and len(in_flight) < IN_FLIGHT:
        entries, candidates = candidates[:BATCH], candidates[BATCH:]
        try:
            future = pool.submit(run_batch, [_task(e) for e in entries])
        except Exception:  # a broken or shut down pool: no more worker
            return True
        batch = _Batch(future, entries)
        for entry in entries:
            entry.batch = batch
        in_flight.append(batch)
    return False


def _collect(batch: _Batch, in_flight: deque[_Batch]) -> None:
    """Wait for ``batch``, then take every finished batch's results. The replay's process
    does not evaluate other tournaments meanwhile: at 60,000 players that only moved
    4-6 s of CPU from the worker to the process whose interpreter lock the reader and
    writer share, for no shorter a replay (docs/engine.md, "Where the compute phase
    waits")."""
    batch.future.result()  # the worker's death is raised here
    while in_flight and in_flight[0].future.done():
        done = in_flight.popleft()
        for entry, result in zip(done.entries, done.future.result(), strict=True):
            if result is None:
                entry.local = True
            else:
                entry.result = result
        done.entries = []  # no cycle with the entries: freed by reference counting
