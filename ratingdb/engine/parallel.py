"""The second core in a full replay: tournaments without a common player are
evaluated side by side, in a worker process, while the replay goes on in order.

A tournament's evaluation depends only on its participants' states before it (WO 3.7:
rating, index, residual games, the periods they count from) and those change only by
tournaments the player plays in. So a tournament that shares no player with any earlier
tournament not yet applied can be prepared (its inputs built from the current states) and
evaluated at once, out of turn, and its result is the one the walk in order would compute.
:func:`in_order` looks ahead ``WINDOW`` tournaments, prepares every such tournament and
sends it to a worker (a :class:`Lane`); it gives every tournament back in the evaluation
order (WO 2.2.3), and the caller applies it (the players' new states) before asking for
the next. The evaluation is a pure function of its input (:func:`run_task`), so the
replay's snapshots are the same to the last digit with or without the worker
(``tests/test_engine_parallel.py``).

The worker keeps what it was sent in a priority queue and always evaluates the earliest
tournament in the evaluation order first: the tournament in turn, which the replay waits
for, never waits behind tournaments it sent earlier that come later (with a first-in
first-out queue the replay waited 13 s of a 19 s compute phase at 60,000 players).

A tournament whose evaluation fails in the worker is evaluated again in the replay's own
process when its turn comes, so the run fails there, naming it, exactly as it fails
without the worker; a worker that dies leaves the rest to the replay's process.
"""

from __future__ import annotations

import heapq
import multiprocessing
import os
import pickle
import queue
import select
import signal
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, fields
from multiprocessing.connection import Connection
from operator import attrgetter
from typing import Any, Protocol

from ratingdb.engine.collector import ChunkCollector
from ratingdb.engine.model import EngineTournament, SnapshotInput
from ratingdb.engine.replay import Encode, Result, Task, run_task
from ratingdb.records import Maker
from ratingdb.rules.model import (
    GameInput,
    PlayerInput,
    ResidualGame,
    TournamentInfo,
    TournamentInput,
)
from ratingdb.rules.snapshots import SnapshotOutput

#: a tournament ready to evaluate: the participants' inputs (by participant id) and the task
Prepared = tuple[dict[int, SnapshotInput], Task]
#: what goes to the worker (a tournament's position in the evaluation order and its task;
#: None: taken back, not to be evaluated) and what comes back (the position and the
#: result, None where the evaluation failed)
Sent = tuple[int, Task | None]
Answer = tuple[int, Result | None]

#: tournaments looked ahead (memory: this many tournaments with their games, at most)
WINDOW = 128
#: the interpreter's thread switch interval while a worker runs (Python's default: 5 ms):
#: the replay's main thread, waiting for the worker's result of the tournament in turn,
#: gets the interpreter lock from the reader and writer threads sooner (60,000 players:
#: compute phase 18.4 s against 19.2 s, three alternating pairs)
SWITCH_INTERVAL = 0.001
#: the worker's switch interval: a sender thread (:class:`_ThreadAnswers`, where the pipes
#: cannot be polled) waits at most this long for the lock
WORKER_SWITCH_INTERVAL = 0.0002
#: the worker process's cyclic collector runs every this many tournaments instead of
#: after every 700 new containers (ratingdb/engine/collector.py, as in the replaying
#: process): a tournament's objects form no cycles
#: (``tests/test_engine_parallel.py``) and die by reference counting, while the automatic
#: collections scanned the tasks waiting in the worker's queue again and again (60,000
#: players: 2,368 automatic collections; without them the worker's CPU fell by 0.3–1.0 s
#: of ~10.5 s and the replay waited 0.6 s for it instead of 0.9–1.2 s, three alternating
#: pairs)
COLLECT_EVERY = 1000
#: below this many tournaments a replay does not start a worker (starting one takes about
#: a second)
MIN_TOURNAMENTS = 2000
#: the replay's process takes a tournament back from the worker while it waits only if
#: the worker has more than this many others to evaluate
TAKE_BACK_ABOVE = 3
#: ... and only a tournament of at most this many participants (a long one could hold up
#: the tournament in turn once its result is there)
TAKE_BACK_SIZE = 40
#: seconds a finished replay waits for its worker process to stop before ending it
STOP_WAIT = 5.0


class LaneBroken(Exception):
    """The worker is gone (died, or its pipe broke): the rest is evaluated in the replay's
    own process."""


class Inbox(Protocol):
    """The worker's end of the tasks' channel: a :class:`multiprocessing.connection.
    Connection` (or :class:`_Queues` in tests)."""

    def poll(self) -> bool: ...

    def recv_bytes(self) -> bytes: ...


class Outbox(Protocol):
    def send_bytes(self, buf: bytes) -> None: ...


#: the field values of the rules' input objects, in their constructors' order (a task's
#: input crosses as tuples of these: pickled in C, not by a Python call per object)
_INFO_VALUES = attrgetter(*[f.name for f in fields(TournamentInfo)])
_PLAYER_VALUES = attrgetter(*[f.name for f in fields(PlayerInput)][:-1])
_RESIDUAL_VALUES = attrgetter(*[f.name for f in fields(ResidualGame)])
assert [f.name for f in fields(PlayerInput)][-1] == "residual_games"
#: (attrgetter of one name gives the value, not a tuple: every class has more than one)
assert min(len(fields(c)) for c in (TournamentInfo, PlayerInput, ResidualGame)) > 2
#: games and outputs, the many objects of a task and of a result: their values read as
#: tuples and made into objects again many at a time (ratingdb/records.py)
_GAMES = Maker(GameInput)
_OUTPUTS = Maker(SnapshotOutput)


def _flat(tin: TournamentInput) -> tuple[Any, ...]:
    """A task's input as tuples of field values. The games read from the database share
    their strings (a player's id, a result: ratingdb/db/store.py), which pickle writes once
    a message: rebuilding a typical task in the worker 32 → 24 µs."""
    return (
        _INFO_VALUES(tin.tournament),
        [(_PLAYER_VALUES(p), [_RESIDUAL_VALUES(g) for g in p.residual_games]) for p in tin.players],
        _GAMES.values(tin.games),
    )


def _unflat(flat: tuple[Any, ...]) -> TournamentInput:
    info, games = flat[0], flat[2]
    players: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]] = flat[1]
    return TournamentInput(
        TournamentInfo(*info),
        tuple(
            [
                PlayerInput(*(*values, tuple([ResidualGame(*g) for g in residual])))
                for values, residual in players
            ]
        ),
        tuple(_GAMES.many(games)),
    )


def encode_answer(seq: int, result: Result | None) -> bytes:
    """A worker's answer as bytes: the outputs as tuples of their field values (pickling a
    typical result 26 → 20 µs)."""
    flat = None if result is None else (_OUTPUTS.values(result[0]), *result[1:])
    return pickle.dumps((seq, flat), pickle.HIGHEST_PROTOCOL)


def decode_answer(message: bytes) -> Answer:
    """:func:`encode_answer`'s bytes as the answer, the outputs rebuilt."""
    seq, flat = pickle.loads(message)
    if flat is None:
        return seq, None
    outputs, struck, text, encoded = flat
    return seq, (_OUTPUTS.many(outputs), struck, text, encoded)


class Wire:
    """Tasks as the bytes between the replay and its worker (both ends keep one). A
    Rechenmodul's parameters go over once and are then named by a number: pickled they are
    about 1.9 kB and take 12 µs to rebuild, as long as the rest of a typical task. The
    rules' input crosses as tuples of field values (pickling a typical task's input
    44 → 26 µs in the replay's process; rebuilding it costs the worker 28–35 µs since
    the input's classes are plain dataclasses, ratingdb/rules/model.py)."""

    def __init__(self) -> None:
        #: the replay's end: id of a parameters object -> its number and the object (kept
        #: alive, so that its id is not reused)
        self._numbers: dict[int, tuple[int, Any]] = {}
        #: the worker's end: number -> parameters
        self._parameters: dict[int, Any] = {}

    def encode(self, items: list[Sent]) -> bytes:
        fresh: dict[int, tuple[int, Any]] = {}  # id -> number, object: new in this message
        out: list[tuple[int, tuple[str, int, Any] | None]] = []
        for seq, task in items:
            if task is None:
                out.append((seq, None))
                continue
            family, parameters, tin = task
            known = self._numbers.get(id(parameters)) or fresh.get(id(parameters))
            if known is None:
                known = fresh[id(parameters)] = (len(self._numbers) + len(fresh), parameters)
            out.append((seq, (family, known[0], _flat(tin))))
        message = pickle.dumps(
            ({n: obj for n, obj in fresh.values()}, out), pickle.HIGHEST_PROTOCOL
        )
        self._numbers.update(fresh)  # only once the message exists
        return message

    def decode(self, message: bytes) -> list[Sent]:
        fresh, items = pickle.loads(message)
        self._parameters.update(fresh)
        parameters = self._parameters
        return [
            (seq, None if sent is None else (sent[0], parameters[sent[1]], _unflat(sent[2])))
            for seq, sent in items
        ]


def serve(
    inbox: Inbox,
    outbox: Outbox,
    encode: Encode | None = None,
    collector: ChunkCollector | None = None,
) -> None:
    """The worker's loop: take everything sent so far into a priority queue by position
    in the evaluation order, evaluate the earliest, send its result; wait only when
    nothing is left to evaluate; stop at an empty message (what was sent before it is
    still answered). Results are sent without ever blocking the loop on a full pipe (into
    a non-blocking pipe, :class:`_PipeAnswers`, or by a thread), so it always reads what
    the replay sends (the two pipes cannot both be full with both sides blocked).
    ``encode``: as for :func:`ratingdb.engine.replay.run_task`; ``collector``: told after
    each tournament (the worker process's, entered around the loop)."""
    answers = _answers_for(inbox, outbox)
    wire = Wire()
    heap: list[tuple[int, Task]] = []
    queued: set[int] = set()
    dropped: set[int] = set()
    stopping = False
    try:
        while True:
            while not stopping and (not heap or inbox.poll()):
                if not heap:  # nothing to evaluate: wait for tasks, answers written meanwhile
                    answers.idle()
                message = inbox.recv_bytes()
                if not message:
                    stopping = True
                    break
                for position, sent in wire.decode(message):
                    if sent is None:  # taken back by the replay
                        if position in queued:
                            dropped.add(position)
                    else:
                        heapq.heappush(heap, (position, sent))
                        queued.add(position)
            if not heap:
                return
            seq, task = heapq.heappop(heap)
            queued.discard(seq)
            if seq in dropped:
                dropped.discard(seq)
                continue
            try:
                answer = encode_answer(seq, run_task(task, encode))
            except Exception:  # re-raised by the replay's own evaluation
                answer = encode_answer(seq, None)
            answers.send(answer)
            if collector is not None:
                collector.chunk_done()
    finally:
        answers.close()


class _Answers(Protocol):
    """How :func:`serve` sends its answers without ever blocking on a full pipe."""

    def send(self, answer: bytes) -> None: ...

    def idle(self) -> None: ...

    def close(self) -> None: ...


def _answers_for(inbox: Inbox, outbox: Outbox) -> _Answers:
    """Answers written by the loop itself where both ends are pipes that can be polled
    (:class:`_PipeAnswers`), else by a thread (:class:`_ThreadAnswers`)."""
    if isinstance(outbox, Connection) and hasattr(select, "poll") and hasattr(inbox, "fileno"):
        with suppress(OSError, ValueError):
            return _PipeAnswers(inbox.fileno(), outbox.fileno())
    return _ThreadAnswers(outbox)


class _ThreadAnswers:
    """Answers sent by a thread: the loop hands them over and goes on."""

    def __init__(self, outbox: Outbox) -> None:
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._send_all, args=(outbox,), daemon=True)
        self._thread.start()

    def _send_all(self, outbox: Outbox) -> None:
        while (item := self._queue.get()) is not None:
            try:
                outbox.send_bytes(item)
            except OSError:  # the replay is gone
                return

    def send(self, answer: bytes) -> None:
        self._queue.put(answer)

    def idle(self) -> None:
        """Nothing to do: the thread writes while the loop waits."""

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()


#: the pipes' capacity asked for (Linux: ``F_SETPIPE_SZ``; 1 MiB is the most an
#: unprivileged process may ask by default): a few hundred answers fit before one waits
PIPE_SIZE = 1 << 20


class _PipeAnswers:
    """Answers written straight into the pipe by the loop, which never blocks on it: the
    pipe's end is non-blocking, what does not fit waits in a buffer and goes with the next
    answer or while the loop waits for tasks. The frames are those of
    :meth:`multiprocessing.connection.Connection.send_bytes` (the replay reads them with
    ``recv_bytes``). A thread instead (:class:`_ThreadAnswers`) took the interpreter lock
    from the evaluating loop for every answer: at 250,000 players 2.4 s of the worker's
    CPU in the thread and more in the loop's hand-overs."""

    def __init__(self, inbox: int, outbox: int) -> None:
        import fcntl  # POSIX, as select.poll

        self._inbox, self._fd = inbox, outbox
        for fd in (inbox, outbox):
            with suppress(OSError, AttributeError):  # not Linux, or more than allowed
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        os.set_blocking(outbox, False)
        self._pending = bytearray()
        self._gone = False  # the replay closed its end: nothing more is written

    def send(self, answer: bytes) -> None:
        size = len(answer)
        if size <= 0x7FFFFFFF:
            self._pending += struct.pack("!i", size)
        else:  # as Connection frames more than 2 GiB
            self._pending += struct.pack("!iQ", -1, size)
        self._pending += answer
        self._flush()

    def _flush(self) -> None:
        while self._pending and not self._gone:
            try:
                written = os.write(self._fd, self._pending)
            except BlockingIOError:  # full: the rest goes later
                return
            except OSError:  # the replay is gone
                self._gone = True
                break
            del self._pending[:written]
        if self._gone:
            self._pending.clear()

    def idle(self) -> None:
        """Write what is waiting while no task has come: return once one has (or the
        pipe is gone), everything written or not."""
        poller = select.poll()
        poller.register(self._inbox, select.POLLIN)
        poller.register(self._fd, select.POLLOUT)
        while self._pending and not self._gone:
            ready = dict(poller.poll())
            if ready.get(self._fd):
                self._flush()
            if ready.get(self._inbox):
                return

    def close(self) -> None:
        """Write the rest, waiting for the replay to read it (or to close its end)."""
        with suppress(OSError):
            os.set_blocking(self._fd, True)
        self._flush()


class _Polled:
    """A pipe's reading end whose :meth:`poll` is one system call on a poller made once
    (``Connection.poll`` builds a selector on every call: 0.7 s of the worker's 15 s at
    60,000 players)."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._poller = select.poll() if hasattr(select, "poll") else None  # not on Windows
        if self._poller is not None:
            self._poller.register(connection.fileno(), select.POLLIN)

    def poll(self) -> bool:
        if self._poller is None:
            return self._connection.poll()
        return bool(self._poller.poll(0))

    def recv_bytes(self) -> bytes:
        return self._connection.recv_bytes()

    def fileno(self) -> int:
        return self._connection.fileno()


def _serve_process(inbox: Connection, outbox: Connection, encode: Encode | None) -> None:
    # a sender thread (_ThreadAnswers) gets the interpreter lock from the evaluating thread
    # within this interval (Python's 5 ms would hold up the result the replay waits for)
    sys.setswitchinterval(WORKER_SWITCH_INTERVAL)
    with (
        suppress(EOFError, OSError, KeyboardInterrupt),  # the replay is gone
        ChunkCollector(COLLECT_EVERY) as collector,
    ):
        serve(_Polled(inbox), outbox, encode, collector)


class Lane(Protocol):
    """A worker: :meth:`send` hands it tournaments, :meth:`receive` gives back results
    (waiting for at least one if ``wait``); both raise :class:`LaneBroken` once the worker
    is gone."""

    def send(self, items: list[Sent]) -> None: ...

    def receive(self, wait: bool) -> list[Answer]: ...


class ProcessLane:
    """A spawned worker process (the replay's process has threads and open connections)
    running :func:`serve`, with a pipe each way."""

    def __init__(self, encode: Encode | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        worker_in, self._tasks = context.Pipe(duplex=False)
        self._results, worker_out = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_serve_process, args=(worker_in, worker_out, encode), daemon=True
        )
        # Ctrl-C is the replay's to handle (it ends the worker); the worker, spawned with
        # SIGINT ignored, keeps it ignored and prints no traceback of its own
        ignore = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignore else None
        try:
            self._process.start()
        finally:
            if ignore:
                signal.signal(signal.SIGINT, previous)
        worker_in.close()
        worker_out.close()
        self._answers = _Polled(self._results)
        self._wire = Wire()

    def send(self, items: list[Sent]) -> None:
        try:
            self._tasks.send_bytes(self._wire.encode(items))
        except Exception as e:  # a broken pipe, or a task that cannot cross
            raise LaneBroken(str(e)) from e

    def receive(self, wait: bool) -> list[Answer]:
        out: list[Answer] = []
        try:
            while (wait and not out) or self._answers.poll():
                out.append(decode_answer(self._answers.recv_bytes()))
        except (EOFError, OSError, ValueError) as e:
            raise LaneBroken(str(e)) from e
        return out

    def close(self, finished: bool) -> None:
        """Stop the worker: asked to when the replay ``finished``, ended at once otherwise
        (it may be in the middle of tournaments nobody waits for)."""
        if finished:
            with suppress(OSError):
                self._tasks.send_bytes(b"")
            # answers nobody reads any more (of tournaments taken back) may fill the pipe
            # and hold the worker's sender: closing this end ends it
            self._results.close()
            self._process.join(STOP_WAIT)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join()
        self._tasks.close()
        if not self._results.closed:
            self._results.close()


def worker_count(configured: int | None = None, cores: int | None = None) -> int:
    """Worker processes of a full replay: ``configured`` where the settings name it
    (``RATINGDB_REPLAY_WORKERS``, :mod:`ratingdb.settings`; 0: none), else one when the
    machine has a second core (``cores``, default :func:`os.cpu_count`). More than one is
    not used (one worker keeps the second core busy; the replay's process is the other)."""
    if configured is not None:
        return configured
    return 1 if (cores or os.cpu_count() or 1) >= 2 else 0


@contextmanager
def worker_pool(workers: int, encode: Encode | None = None) -> Iterator[Lane | None]:
    """A worker process for ``workers`` > 0 (None for 0, or where processes cannot be
    started), started at once, so that its imports overlap the first reads; stopped at
    the end. ``encode``: what the worker applies to each output it makes (as for
    :func:`ratingdb.engine.replay.run_task`)."""
    lane: ProcessLane | None = None
    if workers > 0:
        try:
            lane = ProcessLane(encode)
        except (OSError, RuntimeError, NotImplementedError):
            # no processes here (no /dev/shm, a sandbox): the replay runs in its own
            lane = None
    interval = sys.getswitchinterval()
    if lane is not None:
        sys.setswitchinterval(SWITCH_INTERVAL)
    finished = False
    try:
        yield lane
        finished = True
    finally:
        sys.setswitchinterval(interval)
        if lane is not None:
            lane.close(finished)


@dataclass(eq=False, slots=True)
class _Entry:
    t: EngineTournament
    players: frozenset[int]
    #: position in the evaluation order
    seq: int
    prepared: Prepared | None = None
    #: None until the worker answers or the replay takes it back (None from the worker, a
    #: failure there, or no worker: the replay evaluates it in its turn)
    result: Result | None = None


def in_order(
    tournaments: Iterable[EngineTournament],
    prepare: Callable[[EngineTournament], Prepared],
    lane: Lane | None,
    turn: Callable[[EngineTournament], None],
    encode: Encode | None = None,
) -> Iterator[tuple[EngineTournament, dict[int, SnapshotInput], Result]]:
    """Each tournament with its participants' inputs and its result, in the order given.
    ``prepare(t)`` builds a tournament's inputs from the current states; it is called only
    once every earlier tournament with one of its players has been given back, and the
    caller must apply each tournament given back before asking for the next. ``turn(t)``
    is called when a tournament's turn comes, before its result is awaited or computed in
    turn (a failure is raised after it: the run names that tournament). ``encode``: applied
    to the outputs the replay's process computes itself (give the lane the same)."""
    if lane is None:
        for t in tournaments:
            turn(t)
            inputs, task = prepare(t)
            yield t, inputs, run_task(task, encode)
        return
    window: deque[_Entry] = deque()
    #: each player's tournaments in the window, in order: a tournament is ready (can be
    #: prepared) when it is the first of every one of its players
    holders: dict[int, list[_Entry]] = {}
    #: sent to the worker, no answer yet (by position)
    pending: dict[int, _Entry] = {}
    source = iter(tournaments)
    exhausted = False
    ready: list[_Entry] = []  # prepared, not sent yet
    broken = False
    seq = 0

    def make_ready(entry: _Entry) -> None:
        entry.prepared = prepare(entry.t)
        ready.append(entry)

    def take(answers: list[Answer]) -> None:
        for position, result in answers:
            entry = pending.pop(position, None)
            if entry is not None:  # else taken back and evaluated here
                entry.result = result

    def give_up() -> None:  # the worker is gone: the rest is evaluated here
        nonlocal broken
        broken = True
        pending.clear()

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
                make_ready(entry)
        if not window:
            return
        if ready and not broken:
            try:
                lane.send([(e.seq, _task(e)) for e in ready])
                pending.update((e.seq, e) for e in ready)
            except LaneBroken:
                give_up()
        ready.clear()
        head = window[0]
        assert head.prepared is not None  # nothing before it holds one of its players
        turn(head.t)
        if not broken and pending:
            try:
                take(lane.receive(wait=False))
                while head.seq in pending:
                    victim = _victim(pending, head)
                    if victim is None:
                        take(lane.receive(wait=True))
                        continue
                    # the worker is busy with the tournament in turn or before it: take
                    # the last one back and evaluate it here meanwhile
                    del pending[victim.seq]
                    lane.send([(victim.seq, None)])
                    with suppress(Exception):  # if it fails, it fails again in its turn
                        victim.result = run_task(_task(victim), encode)
                    take(lane.receive(wait=False))
            except LaneBroken:
                give_up()
        if head.result is None:  # not sent, failed in the worker, or the worker is gone
            head.result = run_task(_task(head), encode)
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
                make_ready(following_entry)


def _victim(pending: dict[int, _Entry], head: _Entry) -> _Entry | None:
    """The tournament the replay takes back while it waits: the last one sent, if the
    worker has enough else to do and it is not long."""
    if len(pending) <= TAKE_BACK_ABOVE:
        return None
    last = pending[max(pending)]
    if last is head or len(last.t.participants) > TAKE_BACK_SIZE:
        return None
    return last


def _task(entry: _Entry) -> Task:
    assert entry.prepared is not None
    return entry.prepared[1]


def _inputs(entry: _Entry) -> dict[int, SnapshotInput]:
    assert entry.prepared is not None
    return entry.prepared[0]
