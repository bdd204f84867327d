"""The page cache: public pages and read-only JSON answers kept in memory, keyed by the data
version, so that a page asked for again is answered without the database work and the
rendering (issue 22, the read latency under load; docs/web.md, "The page cache").

**Exact.** Every transaction that changes the data of the public pages raises the counter
``data_version.n`` at its commit (migration 0017: an officer's write, a member list, a
recalculation run, …; a what-if rolls back and raises nothing). A request first reads the
counter with a query *sent after the request arrived* (:class:`DataVersion`), so it sees
every change committed before; an answer it renders on a miss is read afterwards, so it is
never older than that version either. Cached under that version it is served only to
requests that read the same version, i.e. for which no change has been committed since: no
page ever shows data older than the last committed write or run. When the counter moves,
the older entries are dropped. Without the counter (the database cannot be reached, a
database before migration 0017) nothing is cached or served from the cache.

**What.** Only ``GET`` requests of the public pages and the read-only API
(:data:`PUBLIC`) without an ``Authorization`` header or a sign-in cookie (an officer sees
unpublished players), keyed by path, query, the request's language and today's date (the
publication of a player depends on it, WO 4.1.1); only ``200`` answers without a cookie to
set, up to :data:`MAX_BODY` bytes each, at most :data:`MAX_ENTRIES` of them and
:data:`MAX_BYTES` together (least recently used first out). Requests that miss on the same
key and version at the same time wait for the first one's answer instead of computing it
again. Every answer says
``X-Cache: hit`` or ``miss``.

Pure ASGI and in the event loop: a hit takes no thread and no pool connection, only the
counter's query (up to three connections of its own per process; requests waiting at the
same moment share a query).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratingdb.db.timing import current
from ratingdb.web.language import request_language

log = logging.getLogger("ratingdb.web")

#: the public pages and read-only API (path prefixes); ``/`` too
PUBLIC = ("/players", "/tournaments", "/lists", "/api/players", "/api/tournaments", "/api/lists")
MAX_ENTRIES = 4000
MAX_BODY = 2 * 1024 * 1024
#: the bodies kept per server process, in bytes at most
MAX_BYTES = 64 * 1024 * 1024
SIGN_IN_COOKIE = b"rdb_session="
VERSION_QUERY = "SELECT n FROM data_version WHERE id = 1"

Key = tuple[str, bytes, str, date]


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def is_public(path: str) -> bool:
    """Whether ``path`` is one of the public pages or read-only API answers."""
    if path == "/":
        return True
    for prefix in PUBLIC:
        if path.startswith(prefix) and (len(path) == len(prefix) or path[len(prefix)] in "/."):
            return True
    return False


def _anonymous(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"authorization" or (name == b"cookie" and SIGN_IN_COOKIE in value):
            return False
    return True


class DataVersion:
    """``data_version.n`` from connections of its own (autocommit, at most ``connections``
    of them), read by a query sent after the caller asked: callers that ask while every
    connection has a query under way share the next one; otherwise a query is sent at once
    on an idle connection, so a caller waits for one round trip, not for the end of another
    caller's query and then its own (issue 22: under load that wait was a good part of a
    read's time). ``None`` when it cannot be read."""

    def __init__(self, conninfo: str, connections: int = 3) -> None:
        self.conninfo = conninfo
        self.connections = connections
        self._idle: list[Any] = []  # connections without a query under way
        self._busy = 0  # connections (or their slots) with a query under way
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next: asyncio.Future[int | None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def read(self) -> int | None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (tests): new connections
            self._loop, self._idle, self._busy, self._next = loop, [], 0, None
        if self._next is None:
            self._next = loop.create_future()
        waiting = self._next
        if self._busy < self.connections:  # an idle connection: send the query now
            self._busy += 1
            task = loop.create_task(self._read_while_asked())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(waiting)

    async def _read_while_asked(self) -> None:
        conn = self._idle.pop() if self._idle else None
        try:
            while self._next is not None:
                answering, self._next = self._next, None  # later callers wait for the next
                value, conn = await self._query(conn)
                answering.set_result(value)
        finally:
            self._busy -= 1
            if conn is not None:
                self._idle.append(conn)

    async def _query(self, conn: Any) -> tuple[int | None, Any]:
        """The version read on ``conn`` (a new connection if None or closed), and the
        connection to keep (None after an error)."""
        import psycopg

        try:
            if conn is None or conn.closed:
                conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
            cursor = await conn.execute(VERSION_QUERY)
            row = await cursor.fetchone()
            return (None if row is None else int(row[0])), conn
        except Exception as err:  # no version: these requests are answered uncached
            log.warning("page cache off for this request: data version unreadable (%s)", err)
            if conn is not None:
                with contextlib.suppress(Exception):  # it is gone already
                    await conn.close()
            return None, None

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            if not conn.closed:
                await conn.close()


class PageCache:
    """Pure ASGI middleware (outermost, so that an entry holds every header of the answer)."""

    def __init__(self, app: ASGIApp, version: DataVersion, today: Callable[[], date]) -> None:
        self.app, self.version, self.today = app, version, today
        self.generation: int | None = None
        self.entries: OrderedDict[Key, Answer] = OrderedDict()
        self.size = 0  # the bytes of the entries' bodies
        self.pending: dict[tuple[int, Key], asyncio.Future[Answer | None]] = {}
        self.hits = self.misses = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not is_public(scope["path"])
            or not _anonymous(scope)
        ):
            await self.app(scope, receive, send)
            return
        asked = time.perf_counter()
        version = await self.version.read()
        timing = current.get()
        if timing is not None:
            timing.version += time.perf_counter() - asked
        if version is None:
            await self.app(scope, receive, send)
            return
        if version != self.generation:
            if self.generation is not None and version < self.generation:
                # an older answer than one seen before (another process's view can lag
                # by a query): serve it uncached, keep the newer entries
                await self.app(scope, receive, send)
                return
            self.generation = version
            self.entries.clear()
            self.size = 0
        key: Key = (
            scope["path"], scope.get("query_string", b""), request_language(scope)[0],
            self.today(),
        )  # fmt: skip
        found = self.entries.get(key)
        if found is None and (version, key) in self.pending:
            found = await asyncio.shield(self.pending[(version, key)])
        if found is not None:
            self.hits += 1
            if self.generation == version and key in self.entries:
                self.entries.move_to_end(key)
            await _replay(found, send, b"hit")
            return
        self.misses += 1
        await self._miss(scope, receive, send, version, key)

    async def _miss(
        self, scope: Scope, receive: Receive, send: Send, version: int, key: Key
    ) -> None:
        done: asyncio.Future[Answer | None] = asyncio.get_running_loop().create_future()
        self.pending[(version, key)] = done
        start: Message = {}
        body: list[bytes] = []
        size = 0

        async def keeping(message: Message) -> None:
            nonlocal start, size
            if message["type"] == "http.response.start":
                start = message
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"x-cache", b"miss")],
                }
            elif message["type"] == "http.response.body" and size <= MAX_BODY:
                chunk = message.get("body", b"")
                size += len(chunk)
                body.append(chunk)
            await send(message)

        answer: Answer | None = None
        try:
            await self.app(scope, receive, keeping)
            headers = list(start.get("headers", []))
            if (
                start.get("status") == 200
                and size <= MAX_BODY
                and not any(name.lower() == b"set-cookie" for name, _ in headers)
            ):
                answer = Answer(200, headers, b"".join(body))
                if self.generation == version and key not in self.entries:
                    self._keep(key, answer)
        finally:
            del self.pending[(version, key)]
            done.set_result(answer)

    def _keep(self, key: Key, answer: Answer) -> None:
        self.entries[key] = answer
        self.size += len(answer.body)
        while len(self.entries) > MAX_ENTRIES or self.size > MAX_BYTES:
            _, dropped = self.entries.popitem(last=False)
            self.size -= len(dropped.body)


async def _replay(answer: Answer, send: Send, how: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": answer.status,
            "headers": [*answer.headers, (b"x-cache", how)],
        }
    )
    await send({"type": "http.response.body", "body": answer.body})


def conninfo_of(engine: Any) -> str:
    """The libpq address of a SQLAlchemy engine's database (for :class:`DataVersion`)."""
    return str(engine.url.set(drivername="postgresql").render_as_string(hide_password=False))
