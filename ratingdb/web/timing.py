"""Where a request's time goes, on the server: every answer carries a ``Server-Timing``
header (docs/web.md, "Load test").

* ``app``: from the moment the app got the request to the first byte of its answer (a
  page served from the cache included);
* ``queue``: the part of it spent waiting for one of the request threads
  (:func:`in_thread`, the thread limiter of ``RATINGDB_WEB_THREADS``);
* ``work``: the time in a request thread (database work, rendering);
* ``db``: the part of ``work`` spent in the database (sent until fetched), with the number
  of round trips in its description (:mod:`ratingdb.request_timing`);
* ``cpu``: the CPU time of the request thread, i.e. the server's own Python work for the
  request outside the event loop;
* ``version``: waiting for the data version of the page cache (a public page's request
  reads it before anything else, :mod:`ratingdb.web.page_cache`).

So a load test can tell the client's share of a latency from the server's, and the
server's from the time it waited for a thread. The figures are per request, measured with
``time.perf_counter`` and ``time.thread_time``, and cost microseconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratingdb.request_timing import Timing, current

T = TypeVar("T")


def header(timing: Timing, app: float) -> bytes:
    """The ``Server-Timing`` value of a request that took ``app`` seconds in the app."""
    return (
        f"app;dur={app * 1000:.1f}, queue;dur={timing.queue * 1000:.1f}, "
        f"work;dur={timing.work * 1000:.1f}, "
        f'db;dur={timing.db * 1000:.1f};desc="{timing.trips} round trips", '
        f"cpu;dur={timing.cpu * 1000:.1f}, version;dur={timing.version * 1000:.1f}"
    ).encode()


async def in_thread(
    func: Callable[..., T], *args: Any, limiter: CapacityLimiter | None = None
) -> T:
    """``func(*args)`` in a request thread (as FastAPI's ``run_in_threadpool``; ``limiter``:
    one of a pool of threads other than the reads'), its wait for a thread and its time in
    it added to the request's :class:`Timing`."""
    timing = current.get()
    if timing is None:
        return await to_thread.run_sync(func, *args, limiter=limiter)
    asked = time.perf_counter()

    def timed() -> T:
        started, cpu = time.perf_counter(), time.thread_time()
        timing.queue += started - asked
        try:
            return func(*args)
        finally:
            timing.cpu += time.thread_time() - cpu
            timing.work += time.perf_counter() - started

    return await to_thread.run_sync(timed, limiter=limiter)


def _sent(conn: Any, cursor: Any, statement: Any, params: Any, context: Any, many: Any) -> None:
    conn.info["ratingdb_sent"] = time.perf_counter()


def _done(conn: Any, cursor: Any, statement: Any, params: Any, context: Any, many: Any) -> None:
    timing = current.get()
    sent = conn.info.pop("ratingdb_sent", None)
    if timing is not None and sent is not None:
        timing.db += time.perf_counter() - sent
        timing.trips += 1


def count_statements(engine: Any) -> None:
    """Add the time of ``engine``'s statements to the request's ``db`` figure (once per
    engine, however many apps use it)."""
    from sqlalchemy import event

    if not event.contains(engine, "before_cursor_execute", _sent):
        event.listen(engine, "before_cursor_execute", _sent)
        event.listen(engine, "after_cursor_execute", _done)


#: clients that see the ``Server-Timing`` header without credentials: the machine itself
#: (the operator's load tests, scripts/load_mixed.py)
LOCAL_CLIENTS = frozenset({"127.0.0.1", "::1"})


def shows_timing(scope: Scope) -> bool:
    """Whether the answer carries ``Server-Timing``: to a signed-in browser, an API token's
    client or the machine itself, never to an anonymous client elsewhere (the figures tell
    a stranger how the server is built and how busy it is)."""
    client = scope.get("client")
    if client and client[0] in LOCAL_CLIENTS:
        return True
    for key, value in scope.get("headers", ()):
        if key == b"authorization" or (key == b"cookie" and b"rdb_session=" in value):
            return True
    return False


class ServerTiming:
    """Pure ASGI middleware (outermost): a :class:`Timing` for each HTTP request and the
    ``Server-Timing`` header on its answer (:func:`shows_timing`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        timing = Timing()
        token = current.set(timing)
        shown = shows_timing(scope)

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start" and shown:
                value = header(timing, time.perf_counter() - started)
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"server-timing", value)],
                }
            await send(message)

        try:
            await self.app(scope, receive, timed)
        finally:
            current.reset(token)
