"""The second core in a full replay: tournaments without a common player are evaluated
side by side, in a worker process, while the replay goes on in order.

A tournament's evaluation depends only on its participants' states before it (WO 3.7:
rating, index, residual games, the periods they count from) and those change only by
tournaments the player plays in. So a tournament that shares no player with any earlier
tournament not yet applied can be prepared (its inputs built from the current states) and
evaluated at once, out of turn, and its result is the one the walk in order would compute.
:func:`in_order` looks ahead ``WINDOW`` tournaments, prepares every such tournament and
hands it to a worker (a :class:`Lane`); it gives every tournament back in the evaluation
order (WO 2.2.3), and the caller applies it (the players' new states) before asking for
the next. The evaluation is a pure function of its input (:func:`run_task`), so the
replay's snapshots are the same to the last digit with or without the worker
(``tests/test_engine_parallel.py``).

The worker is the standard library's :class:`concurrent.futures.ProcessPoolExecutor`
with one spawned process (:class:`PoolLane`); it evaluates what it was given in the order
given. When the tournament in turn has not started there (it became ready after later
ones), the replay takes it back (``Future.cancel``) and evaluates it itself, so it never
waits behind tournaments that come after it. A tournament whose evaluation fails in the
worker is evaluated again in the replay's own process when its turn comes, so the run
fails there, naming it, exactly as it fails without the worker; a worker that dies leaves
the rest to the replay's process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Protocol

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
#: what goes to the worker (a tournament's position in the evaluation order and its task)
#: and what comes back (the position and the result, None where the evaluation failed)
Sent = tuple[int, Task]
Answer = tuple[int, Result | None]

#: tournaments looked ahead (memory: this many tournaments with their games, at most)
WINDOW = 128
#: below this many tournaments a replay does not start a worker (starting one takes about
#: a second)
MIN_TOURNAMENTS = 2000


class LaneBroken(Exception):
    """The worker is gone (died, or a task could not cross): the rest is evaluated in the
    replay's own process."""


#: the field values of the rules' input objects, in their constructors' order (a task's
#: input crosses as tuples of these: pickled in C, not by a Python call per object)
_INFO_VALUES = attrgetter(*[f.name for f in fields(TournamentInfo)])
_PLAYER_VALUES = attrgetter(*[f.name for f in fields(PlayerInput)][:-1])
_RESIDUAL_VALUES = attrgetter(*[f.name for f in fields(ResidualGame)])
assert [f.name for f in fields(PlayerInput)][-1] == "residual_games"
#: (attrgetter of one name gives the value, not a tuple: every class has more than one)
assert min(len(fields(c)) for c in (TournamentInfo, PlayerInput, ResidualGame)) > 2
#: games and outputs, the many objects of a task and of a result, cross as tuples of their
#: field values (ratingdb/records.py)
_GAMES = Maker(GameInput)
_OUTPUTS = Maker(SnapshotOutput)


def _flat(tin: TournamentInput) -> tuple[Any, ...]:
    """A task's input as tuples of field values. The games read from the database share
    their strings (a player's id, a result: ratingdb/db/store.py), which pickle writes once
    a task."""
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


#: the worker process's Rechenmodul parameters by number: a parameters object crosses once
#: (with the first task that needs it) and is then named by its number
_PARAMETERS: dict[int, Any] = {}


def _evaluate(
    family: str, number: int, parameters: Any, flat: tuple[Any, ...], encode: Encode | None
) -> tuple[Any, ...] | None:
    """The worker's evaluation of one task (:func:`run_task`), its outputs as tuples of
    field values; None where it fails (the replay evaluates it again in its turn)."""
    if parameters is not None:
        _PARAMETERS[number] = parameters
    try:
        task = (family, _PARAMETERS[number], _unflat(flat))
        outputs, struck, text, encoded = run_task(task, encode)
    except Exception:  # re-raised by the replay's own evaluation
        return None
    return _OUTPUTS.values(outputs), struck, text, encoded


def _result(flat: tuple[Any, ...] | None) -> Result | None:
    if flat is None:
        return None
    outputs, struck, text, encoded = flat
    return _OUTPUTS.many(outputs), struck, text, encoded


class Lane(Protocol):
    """A worker: :meth:`send` hands it tournaments, :meth:`receive` gives back results
    (waiting for at least one if ``wait_for_one``), :meth:`take_back` withdraws one that has not
    started (True if it has not); each raises :class:`LaneBroken` once the worker is
    gone."""

    def send(self, items: list[Sent]) -> None: ...

    def receive(self, wait_for_one: bool) -> list[Answer]: ...

    def take_back(self, seq: int) -> bool: ...


class PoolLane:
    """One spawned worker process (the replay's process has threads and open connections)
    of a :class:`ProcessPoolExecutor`, or ``executor`` if given (a thread, in the tests).
    ``encode``: what the worker applies to each output it makes (as for
    :func:`run_task`)."""

    def __init__(self, encode: Encode | None = None, executor: Executor | None = None) -> None:
        self._encode = encode
        self._futures: dict[int, Future[tuple[Any, ...] | None]] = {}
        #: id of a parameters object -> its number and the object (kept alive, so that
        #: its id is not reused); ``_carriers``: the tasks that take one over first
        self._numbers: dict[int, tuple[int, Any]] = {}
        self._carriers: set[int] = set()
        #: tasks handed over
        self.sent = 0
        if executor is not None:
            self._pool = executor
            return
        # Ctrl-C is the replay's to handle (it ends the worker); the worker, spawned with
        # SIGINT ignored, keeps it ignored and prints no traceback of its own
        ignore = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignore else None
        try:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            self._pool.submit(int)  # started now: its imports overlap the first reads
        finally:
            if ignore:
                signal.signal(signal.SIGINT, previous)

    def send(self, items: list[Sent]) -> None:
        for seq, (family, parameters, tin) in items:
            known = self._numbers.get(id(parameters))
            first = known is None
            number = len(self._numbers) if known is None else known[0]
            try:
                self._futures[seq] = self._pool.submit(
                    _evaluate, family, number, parameters if first else None, _flat(tin),
                    self._encode,
                )  # fmt: skip
            except (BrokenProcessPool, RuntimeError) as e:
                raise LaneBroken(str(e)) from e
            if first:  # numbered once it went over
                self._numbers[id(parameters)] = (number, parameters)
                self._carriers.add(seq)
            self.sent += 1

    def receive(self, wait_for_one: bool) -> list[Answer]:
        futures = self._futures
        if wait_for_one and futures and not any(f.done() for f in futures.values()):
            wait(futures.values(), return_when=FIRST_COMPLETED)
        out: list[Answer] = []
        for seq in [s for s, f in futures.items() if f.done()]:
            future = futures.pop(seq)
            try:
                out.append((seq, _result(future.result())))
            except BrokenProcessPool as e:  # the process died
                raise LaneBroken(str(e)) from e
            except Exception:  # the task or its answer could not cross: evaluated here
                out.append((seq, None))
        return out

    def take_back(self, seq: int) -> bool:
        future = self._futures.get(seq)
        if future is None or seq in self._carriers or not future.cancel():
            return False
        del self._futures[seq]
        return True

    def close(self, finished: bool) -> None:
        """Stop the worker: what nobody waits for is dropped; when the replay ``finished``
        the worker's end is awaited, otherwise (an error, Ctrl-C) not."""
        self._pool.shutdown(wait=finished, cancel_futures=True)


def worker_count() -> int:
    """Worker processes of a full replay by default: one where the machine has a second
    core (the replay's process is the other), else none."""
    return 1 if (os.cpu_count() or 1) >= 2 else 0


@contextmanager
def worker_pool(workers: int, encode: Encode | None = None) -> Iterator[PoolLane | None]:
    """A worker process for ``workers`` > 0 (None for 0, or where processes cannot be
    started), started at once, so that its imports overlap the first reads; stopped at
    the end. ``encode``: what the worker applies to each output it makes (as for
    :func:`ratingdb.engine.replay.run_task`)."""
    lane: PoolLane | None = None
    if workers > 0:
        try:
            lane = PoolLane(encode)
        except (OSError, RuntimeError, NotImplementedError, BrokenProcessPool):
            # no processes here (no /dev/shm, a sandbox): the replay runs in its own
            lane = None
    finished = False
    try:
        yield lane
        finished = True
    finally:
        if lane is not None:
            lane.close(finished)


@dataclass(eq=False, slots=True)
class _Entry:
    t: EngineTournament
    players: frozenset[int]
    #: position in the evaluation order
    seq: int
    prepared: Prepared | None = None
    #: None until the worker answers (None from the worker, a failure there, or no worker:
    #: the replay evaluates it in its turn)
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
            if entry is not None:
                entry.result = result

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
        head = window[0]
        if ready and not broken:
            # the tournament in turn is evaluated here: sending it would only make the
            # replay wait for the worker (and its answer to cross back)
            sent = [e for e in ready if e is not head]
            try:
                lane.send([(e.seq, _task(e)) for e in sent])
                pending.update((e.seq, e) for e in sent)
            except LaneBroken:
                broken = True
                pending.clear()
        ready.clear()
        assert head.prepared is not None  # nothing before it holds one of its players
        turn(head.t)
        if not broken and pending:
            try:
                take(lane.receive(False))
                if head.seq in pending and lane.take_back(head.seq):
                    del pending[head.seq]  # not started there: evaluated here
                while head.seq in pending:
                    take(lane.receive(True))
            except LaneBroken:
                broken = True
                pending.clear()
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


def _task(entry: _Entry) -> Task:
    assert entry.prepared is not None
    return entry.prepared[1]


def _inputs(entry: _Entry) -> dict[int, SnapshotInput]:
    assert entry.prepared is not None
    return entry.prepared[0]
