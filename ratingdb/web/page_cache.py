"""The page cache: public pages and read-only JSON answers kept in memory, keyed by the data
version, so that a page asked for again is answered without the database work and the
rendering (docs/web.md, "The page cache").

**Exact.** Every transaction that changes the data of the public pages raises the counter
``data_version.n`` at its commit (migration 0017: an officer's write, a member list, a
recalculation run, …; a what-if rolls back and raises nothing) and records with it the
scopes it touched (migration 0018, :mod:`ratingdb.web.scopes`: players, tournaments, clubs'
memberships, or everything). A request first reads the counter, and the scopes of the
versions since the one the cache knows, with a query *sent after the request arrived*
(:class:`DataVersion`), so it sees every change committed before; an answer it renders on a
miss is read afterwards, so it is never older than that version either. Each page names the
scopes of what it shows (:func:`depends_on`; a page that names none depends on everything);
when the counter moves, the entries whose scopes a change touched are dropped and the rest
stay: every entry served shows the data as of the last committed write or run. A gap in the
recorded changes (older than the 5,000 kept, or the counter raised by hand) drops them all.
Without the counter (the database cannot be reached, a database before migration 0018)
nothing is cached or served from the cache.

**What.** Only ``GET`` requests of the public pages and the read-only API
(:data:`PUBLIC`) without an ``Authorization`` header or a sign-in cookie (an officer sees
unpublished players), keyed by path, query, the request's language and today's date (the
publication of a player depends on it, WO 4.1.1); and ``POST`` requests of the read-only
paths given as ``post_paths`` (the DeWIS SOAP calls: a call is its body), keyed by the
SHA-256 of a body of at most :data:`MAX_POST_BODY` bytes instead of the query; only ``200``
answers without a cookie to set, up to :data:`MAX_BODY` bytes each, at most
:data:`MAX_ENTRIES` of them and
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
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratingdb.request_timing import current
from ratingdb.web.language import request_language

log = logging.getLogger("ratingdb.web")

#: the public pages and read-only API (path prefixes); ``/`` too
PUBLIC = ("/players", "/tournaments", "/lists", "/api/players", "/api/tournaments", "/api/lists")
MAX_ENTRIES = 4000
MAX_BODY = 2 * 1024 * 1024
#: the largest request body of a ``POST`` kept apart by the cache (a SOAP call is ~1 KiB)
MAX_POST_BODY = 64 * 1024
#: the bodies kept per server process, in bytes at most
MAX_BYTES = 64 * 1024 * 1024
SIGN_IN_COOKIE = b"rdb_session="
VERSION_QUERY = "SELECT n FROM data_version WHERE id = 1"
#: the version and the scopes of the changes after ``since`` (at most :data:`MAX_CHANGES`)
CHANGES_QUERY = (
    "SELECT d.n, c.n, c.scopes FROM data_version d LEFT JOIN data_changes c "
    "ON c.n > %(since)s AND c.n <= d.n AND c.n <= %(since)s + %(most)s "
    "WHERE d.id = 1 ORDER BY c.n"
)
MAX_CHANGES = 200
#: a page's scope that every change touches (a page that names none): the empty prefix
EVERYTHING = "*"

Key = tuple[str, bytes, str, date]
#: a change: its version and the scopes it touched (None: everything)
Change = tuple[int, tuple[str, ...] | None]

#: the scopes the page being rendered depends on (set by :class:`PageCache` on a miss; a
#: thread sees its request's: the context is copied into the thread, the set is shared)
page_scopes: ContextVar[set[str] | None] = ContextVar("ratingdb_page_scopes", default=None)


def depends_on(*scopes: str) -> None:
    """The page being rendered shows data of these scopes (:mod:`ratingdb.web.scopes`); a
    page that names none depends on everything. Nothing outside a cached request."""
    collected = page_scopes.get()
    if collected is not None:
        collected.update(scopes)


class Version(NamedTuple):
    n: int
    #: the changes after the version asked about, in order (maybe not all: see ``read``)
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    #: the scopes it depends on (ending with ``*``: every scope that begins so)
    scopes: frozenset[str] = frozenset({EVERYTHING})


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
    caller's query and then its own (under load that wait was a good part of a
    read's time). ``None`` when it cannot be read. With ``since``: the changes after that
    version too (the first :data:`MAX_CHANGES` of them; callers sharing a query get those
    after the least ``since`` among them)."""

    def __init__(self, conninfo: str, connections: int = 3) -> None:
        self.conninfo = conninfo
        self.connections = connections
        self._idle: list[Any] = []  # connections without a query under way
        self._busy = 0  # connections (or their slots) with a query under way
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next: asyncio.Future[Version | None] | None = None
        self._since: int | None = None  # the least ``since`` of the next query's callers
        self._tasks: set[asyncio.Task[None]] = set()

    async def read(self, since: int | None = None) -> Version | None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (tests): new connections
            self._loop, self._idle, self._busy, self._next = loop, [], 0, None
        if self._next is None:
            self._next, self._since = loop.create_future(), since
        elif since is not None and self._since is not None:
            self._since = min(self._since, since)
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
                value, conn = await self._query(conn, self._since)
                answering.set_result(value)
        finally:
            self._busy -= 1
            if conn is not None:
                self._idle.append(conn)

    async def _query(self, conn: Any, since: int | None) -> tuple[Version | None, Any]:
        """The version read on ``conn`` (a new connection if None or closed), and the
        connection to keep (None after an error)."""
        import psycopg

        try:
            if conn is None or conn.closed:
                conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
            rows: list[Any]
            if since is None:
                cursor = await conn.execute(VERSION_QUERY)
                rows = [(n, None, None) for (n,) in await cursor.fetchall()]
            else:
                cursor = await conn.execute(CHANGES_QUERY, {"since": since, "most": MAX_CHANGES})
                rows = await cursor.fetchall()
            if not rows:
                return None, conn
            changes = tuple(
                (int(n), None if scopes is None else tuple(scopes))
                for _, n, scopes in rows
                if n is not None
            )
            return Version(int(rows[0][0]), changes), conn
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

    def __init__(
        self,
        app: ASGIApp,
        version: DataVersion,
        today: Callable[[], date],
        post_paths: Iterable[str] = (),
    ) -> None:
        self.app, self.version, self.today = app, version, today
        #: read-only ``POST`` endpoints whose answer depends only on the body
        self.post_paths = frozenset(post_paths)
        self.generation: int | None = None
        self.entries: OrderedDict[Key, Answer] = OrderedDict()
        self.size = 0  # the bytes of the entries' bodies
        #: the entries by each scope they depend on, exact ones and prefixes (``*`` cut off)
        self.by_scope: dict[str, set[Key]] = {}
        self.by_prefix: dict[str, set[Key]] = {}
        self.pending: dict[tuple[int, Key], asyncio.Future[Answer | None]] = {}
        self.hits = self.misses = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _anonymous(scope):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "POST" and scope["path"] in self.post_paths:
            body, receive = await _buffered(receive, MAX_POST_BODY)
            if body is None:  # too large to keep apart, or the client went away
                await self.app(scope, receive, send)
                return
            asked_for = b"post:" + hashlib.sha256(body).digest()
        elif scope["method"] == "GET" and is_public(scope["path"]):
            asked_for = scope.get("query_string", b"")
        else:
            await self.app(scope, receive, send)
            return
        asked = time.perf_counter()
        read = await self.version.read(self.generation)
        timing = current.get()
        if timing is not None:
            timing.version += time.perf_counter() - asked
        if read is None or not self._advance(read):
            # no version, or an older one than seen before (another process's view can lag
            # by a query): served uncached, the newer entries kept
            await self.app(scope, receive, send)
            return
        version = read.n
        key: Key = (scope["path"], asked_for, request_language(scope)[0], self.today())
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

    def _advance(self, read: Version) -> bool:
        """Bring the entries to version ``read.n``: drop those a change since touched (all
        of them at a gap in the changes). False for a version older than the entries'."""
        if self.generation is not None and read.n < self.generation:
            return False
        if self.generation is None or read.n > self.generation:
            after = self.generation
            self.generation = read.n
            if after is None:
                self._clear()
                return True
            for n, touched in read.changes:
                if n <= after:
                    continue
                if n != after + 1 or touched is None:
                    self._clear()  # a gap, or a change of everything
                    return True
                self._drop(touched)
                after = n
            if after != read.n:  # changes missing (pruned, or more than one query's)
                self._clear()
        return True

    def _clear(self) -> None:
        self.entries.clear()
        self.by_scope.clear()
        self.by_prefix.clear()
        self.size = 0

    def _drop(self, touched: Iterable[str]) -> None:
        """Drop the entries that depend on any of the ``touched`` scopes."""
        touched = tuple(touched)
        keys: set[Key] = set()
        for name in touched:
            keys |= self.by_scope.get(name, set())
        for prefix, entries in self.by_prefix.items():
            if any(name.startswith(prefix) for name in touched):
                keys |= entries
        for key in keys:
            self._remove(key)

    def _remove(self, key: Key) -> None:
        answer = self.entries.pop(key, None)
        if answer is None:
            return
        self.size -= len(answer.body)
        for name in answer.scopes:
            index, name = (self.by_prefix, name[:-1]) if _is_prefix(name) else (self.by_scope, name)
            keys = index.get(name)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del index[name]

    async def _miss(
        self, scope: Scope, receive: Receive, send: Send, version: int, key: Key
    ) -> None:
        done: asyncio.Future[Answer | None] = asyncio.get_running_loop().create_future()
        self.pending[(version, key)] = done
        start: Message = {}
        body: list[bytes] = []
        size = 0
        scopes: set[str] = set()
        named = page_scopes.set(scopes)

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
                answer = Answer(200, headers, b"".join(body), frozenset(scopes or {EVERYTHING}))
                if self.generation == version and key not in self.entries:
                    self._keep(key, answer)
        finally:
            page_scopes.reset(named)
            del self.pending[(version, key)]
            done.set_result(answer)

    def _keep(self, key: Key, answer: Answer) -> None:
        self.entries[key] = answer
        self.size += len(answer.body)
        for name in answer.scopes:
            if _is_prefix(name):
                self.by_prefix.setdefault(name[:-1], set()).add(key)
            else:
                self.by_scope.setdefault(name, set()).add(key)
        while len(self.entries) > MAX_ENTRIES or self.size > MAX_BYTES:
            self._remove(next(iter(self.entries)))


def _is_prefix(scope: str) -> bool:
    return scope.endswith("*")


async def _replay(answer: Answer, send: Send, how: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": answer.status,
            "headers": [*answer.headers, (b"x-cache", how)],
        }
    )
    await send({"type": "http.response.body", "body": answer.body})


async def _buffered(receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """The request's body (None if longer than ``limit`` bytes or cut off) and a
    ``receive`` that gives the app the request's messages again, then the rest."""
    messages: list[Message] = []
    size = 0
    body: bytes | None = None
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        size += len(message.get("body", b""))
        if size > limit:
            break
        if not message.get("more_body", False):
            body = b"".join(m.get("body", b"") for m in messages)
            break
    pending = list(messages)

    async def again() -> Message:
        return pending.pop(0) if pending else await receive()

    return body, again


def conninfo_of(engine: Any) -> str:
    """The libpq address of a SQLAlchemy engine's database (for :class:`DataVersion`)."""
    return str(engine.url.set(drivername="postgresql").render_as_string(hide_password=False))
