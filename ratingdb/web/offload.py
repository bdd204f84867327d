"""Officers' what-ifs in a separate, lower-priority worker process, so that they never take
the threads, the interpreter lock (GIL) or the CPU from the public reads (docs/web.md,
"Threads, connections and processes"); officers' writes in request threads.

A what-if replays every tournament after its change point, twice (with and without the
change, :mod:`ratingdb.services.whatif`): seconds of pure Python. In the server process it held a
request thread for that long and the GIL for most of it, and every read in the process
waited behind it. In a worker process of :class:`Offload` it competes with the reads only
for the CPU, and at a lower priority (``nice`` +:data:`NICE`): the operating system serves
the reads first. The officer's request waits without a thread (an ``await``).

The worker runs ``work(engine, plan)`` on its own engine; the answer travels back as a plain
value. An error travels back as its class and attributes (:func:`ratingdb.services.outcomes.
as_error`: the one table the web maps to a status), so the officer gets the same 4xx as
before; an unexpected exception is logged in the worker and answered 500.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import multiprocessing
import os
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

from fastapi import Request
from sqlalchemy import Engine

from ratingdb import budget
from ratingdb.errors import RatingdbError, Unavailable
from ratingdb.i18n import DEFAULT, _, language, use
from ratingdb.services.outcomes import as_error
from ratingdb.web.timing import in_thread

T = TypeVar("T")
#: how much lower the worker's CPU priority is than the server's (``nice``: 0 to 19). Not
#: lower: a what-if holds the lock that excludes edits while it replays (ratingdb/db/
#: whatif.py), so at ``nice`` +19 or in Linux's idle class (``SCHED_IDLE``, about 0.3 % of
#: a busy core) every officer's edit and a run's write phase would wait behind a what-if
#: starved by the reads (a priority inversion); at +10 it gets about a tenth of a busy core
NICE = 10
#: the threads (and database connections beyond ``RATINGDB_WEB_THREADS``) of the officers'
#: writes in a server process: :func:`in_a_request_thread`
WRITE_THREADS = 4
#: the heavy requests (what-ifs, evaluations on submit) a server process takes at once,
#: running and waiting together; one more is answered 503 with ``Retry-After``
#: (:data:`RETRY_AFTER` seconds) instead of queueing without end behind them
HEAVY_AT_ONCE = 8
RETRY_AFTER = 10
#: the priority of the process that reads uploaded files: below the reads, above the
#: what-ifs (a reading is bounded by its CPU budget, ratingdb/budget.py; a what-if is not)
READ_NICE = 5
log = logging.getLogger("ratingdb.web")


class Overloaded(Unavailable):
    """Too many heavy requests at once (:data:`HEAVY_AT_ONCE`): try again later (503)."""

    retry_after = RETRY_AFTER


_engine: Engine | None = None  # the worker process's engine


class WorkerFailed(RuntimeError):
    """The work raised an exception that is not a user's error (a bug): answered 500."""


def _start_worker(url: str, nice: int, modules: tuple[str, ...]) -> None:
    global _engine
    if nice:
        os.nice(nice)
    for name in modules:  # the work's modules, imported before the first request
        importlib.import_module(name)
    from ratingdb.services.database import connect

    _engine = connect(url, pool_size=1, max_overflow=1, pool_recycle=3600)


def _run(work: Callable[[Engine, Any], T], plan: Any, lang: str = DEFAULT) -> tuple[str, Any]:
    """In the worker, in the request's language ``lang`` (its errors' messages):
    ``("ok", value)``, ``("error", (class, attributes, args))`` or ``("bug", one line)``."""
    assert _engine is not None, "the worker was started without an engine"
    try:
        with use(lang):
            return "ok", work(_engine, plan)
    except Exception as err:
        error = as_error(err)
        if error is None:
            log.error("officer work failed\n%s", traceback.format_exc())
            return "bug", f"{type(err).__name__}: {err}"
        return "error", (type(error), dict(error.__dict__), error.args)


def _rebuilt(cls: type[RatingdbError], attributes: dict[str, Any], args: tuple[Any, ...]) -> Any:
    """The error of the worker, the same class with the same attributes (no ``__init__``
    runs: the classes' constructors take different arguments)."""
    error = cls.__new__(cls)
    error.__dict__.update(attributes)
    error.args = args
    return error


class Offload:
    """A pool of ``workers`` processes (started with ``spawn``: the server process has
    threads) on the database at ``url``, each ``nice`` steps below the server's priority,
    with ``modules`` (those of the work) imported when they start."""

    def __init__(
        self, url: str, workers: int = 1, nice: int = NICE, modules: tuple[str, ...] = ()
    ) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(url, nice, modules),
        )

    def start(self) -> None:
        """Start the workers now, not at the first officer's request, without waiting for
        them (importing ratingdb takes seconds on a busy machine: the server starts, and
        answers reads, meanwhile)."""
        self._pool.submit(_run, _nothing, None)

    def submit(self, work: Callable[[Engine, Any], Any], plan: Any) -> Future[tuple[str, Any]]:
        """``work(engine, plan)`` queued for a worker: the future of its outcome."""
        return self._pool.submit(_run, work, plan, language())

    async def run(self, work: Callable[[Engine, Any], T], plan: Any) -> T:
        """``work(engine, plan)`` in a worker; its value, or its error raised here."""
        kind, value = await asyncio.wrap_future(self.submit(work, plan))
        if kind == "ok":
            return value  # type: ignore[no-any-return]
        if kind == "error":
            raise _rebuilt(*value)
        raise WorkerFailed(value)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _nothing(engine: Engine, plan: Any) -> None:
    return None


@asynccontextmanager
async def heavy(request: Request) -> AsyncIterator[None]:
    """One of the app's ``heavy_at_once`` (:data:`HEAVY_AT_ONCE`) places of heavy work,
    held while the block runs; with none free, :class:`Overloaded` at once (503 with
    ``Retry-After``) instead of a queue without end."""
    state = request.app.state
    limit = getattr(state, "heavy_at_once", HEAVY_AT_ONCE)
    taken = getattr(state, "heavy_taken", 0)
    if taken >= limit:
        raise Overloaded(
            _("the server is busy with other calculations: try again in %(seconds)d seconds")
            % {"seconds": RETRY_AFTER}
        )
    state.heavy_taken = taken + 1  # the event loop's: no other request runs in between
    try:
        yield
    finally:
        state.heavy_taken -= 1


async def off_the_readers(
    request: Request, work: Callable[[Engine, Any], T], plan: Any, pool: str = "offload"
) -> T:
    """``work(engine, plan)`` in the app's worker process if it has one (``ratingdb serve``),
    else in a request thread: the officer API's and the officer pages' what-ifs, the
    evaluation on submit and the reading of uploaded files (:func:`read_off_the_readers`).
    At most ``app.state.heavy_at_once`` (:data:`HEAVY_AT_ONCE`) of them run or wait at
    once; one more is refused at once (:func:`heavy`). ``pool``: the app's worker
    processes to use (``offload`` or ``reader``)."""
    async with heavy(request):
        return await _in_pool(request, work, plan, pool)


async def _in_pool(request: Request, work: Callable[[Engine, Any], T], plan: Any, pool: str) -> T:
    state = request.app.state
    offload = getattr(state, pool, None)
    if offload is not None:
        return cast(T, await offload.run(work, plan))
    return await in_thread(work, state.engine, plan)


async def read_off_the_readers(
    request: Request,
    source: str,
    read: Callable[..., T],
    *args: Any,
    body: Callable[[], Awaitable[bytes]] | None = None,
    **kwargs: Any,
) -> T:
    """``read(*args, **kwargs)``, the reading of the uploaded file ``source``, as heavy work
    (:func:`heavy`, bounded with the what-ifs) in the reading worker process (its own: a
    write's JSON body does not wait behind what-ifs; at ``nice`` +:data:`READ_NICE`) within
    the time budget of one file (:func:`ratingdb.budget.within`: past it a 422 naming the
    file), its messages in the request's language. It ran in the event loop (the API's TRF
    upload: every other request waited for it) or in a read thread. ``body``: the request
    body's reader, awaited once the place is taken, its bytes the first argument: a request
    refused for want of a place is refused before its body is read."""
    async with heavy(request):
        if body is not None:
            args = (await body(), *args)
        job = (source, read, args, kwargs)
        return cast(T, await _in_pool(request, _read, job, "reader"))


def _read(engine: Engine, job: tuple[Any, ...]) -> Any:
    """In the worker (or a request thread): ``(source, read, args, kwargs)``."""
    source, read, args, kwargs = job
    return budget.within(source, read, *args, **kwargs)


async def in_a_request_thread(request: Request, work: Callable[[Engine, Any], T], plan: Any) -> T:
    """``work(engine, plan)`` in a request thread: the officers' writes (submit, correct,
    delete). They are short transactions (the tournament lock serialises those on one
    tournament, docs/database.md), so they need no worker process; there they waited behind
    every what-if queued before them (seconds each), here only for the locks they need.

    They take their threads from a pool of their own (:data:`WRITE_THREADS`, when the app
    has one: ``ratingdb serve``): a write waiting for a lock (a what-if's, another write's on
    the same tournament) holds its thread meanwhile, and in the reads' pool every read would
    queue behind it."""
    limiter = getattr(request.app.state, "write_threads", None)
    return await in_thread(work, request.app.state.engine, plan, limiter=limiter)
