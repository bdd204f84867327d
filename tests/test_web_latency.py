"""The web service under concurrent load (docs/web.md, "Threads,
connections and processes"): a request holds a pool connection only while it holds a
worker thread, so a pool as large as the thread limit never runs dry; officer writes and
what-ifs run in a worker process, so reads are answered while a what-if computes or waits."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from ratingdb.db.locks import TOURNAMENT_SPACE, WRITE_KEY
from ratingdb.web.app import create_app
from ratingdb.web.offload import WRITE_THREADS
from tests.web_support import (
    TODAY,
    bearer,
    client_for,
    document,
    engine_for,
    served,
    synth_database,
    user_token,
)

CODE = "S3-000016"  # Open A 2026/1, VKZ A00, ended 2026-07-29 (within a year of TODAY)


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            players = conn.execute(
                text(
                    "SELECT DISTINCT s.player_id FROM rating_snapshots s JOIN memberships m ON "
                    "m.player_id = s.player_id WHERE s.stored AND m.valid_to IS NULL "
                    "ORDER BY 1 LIMIT 24"
                )
            ).scalars().all()  # fmt: skip
        yield url, players, bearer(user_token(url, "officer-a", "officer", ["A"]))


@contextmanager
def server(url: Any, *, threads: int, offload: int = 0, overflow: int = 0) -> Iterator[str]:
    """The app under uvicorn with a pool of ``threads`` connections (``overflow`` more: for
    the write threads, as ``ratingdb serve`` has them) and a timeout of 5 s."""
    engine = create_engine(url, pool_size=threads, max_overflow=overflow, pool_timeout=5)
    app = create_app(engine, today=lambda: TODAY, threads=threads, offload=offload)
    try:
        with served(app) as base:
            yield base
    finally:
        engine.dispose()


@contextmanager
def edits_held(url: Any) -> Iterator[Any]:
    """An edit in flight (the write lock held shared, as every edit holds it): a what-if
    waits for it. Yields the connection."""
    engine = engine_for(url)
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock_shared(:k)"), {"k": WRITE_KEY})
        try:
            yield conn
        finally:
            conn.execute(text("SELECT pg_advisory_unlock_shared(:k)"), {"k": WRITE_KEY})
            conn.commit()


def waiting_for_the_write_lock(url: Any) -> int:
    with engine_for(url).connect() as conn:
        return conn.execute(
            text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            )
        ).scalar_one()


def concurrently(base: str, paths: list[str]) -> list[int]:
    """GET every path from its own thread, all released together; the status codes."""
    start = threading.Barrier(len(paths))
    statuses = [0] * len(paths)

    def get(k: int) -> None:
        start.wait(60)
        statuses[k] = httpx.get(base + paths[k], timeout=60).status_code

    threads = [threading.Thread(target=get, args=(k,)) for k in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    return statuses


def test_json_answers_never_wait_for_a_connection_held_by_a_finished_endpoint(world):
    """Two threads and a pool of two connections (timeout 5 s), 24 JSON requests at once:
    FastAPI serialises a synchronous endpoint's answer in a second call to the threads. Had
    the request kept its connection until then, the threads would all wait for connections
    held by requests waiting for a thread: a standstill until the pool's timeout, then 500."""
    url, players, _ = world
    paths = [f"/api/players/{p}" for p in players] + ["/api/tournaments?limit=30"] * 4
    with server(url, threads=2) as base:
        statuses = concurrently(base, paths)
    assert statuses == [200] * len(paths)


def test_reads_are_answered_while_a_what_if_waits_in_the_worker_process(world):
    """One request thread; a what-if waits for an edit in flight. In a request thread it
    would hold the only thread and every read would wait with it; in the worker process
    (``offload``) the reads are answered meanwhile, and the what-if's answer afterwards is
    the one the server gives without a worker process."""
    url, players, me = world
    doc = document(url, CODE)
    doc["games"] = doc["games"][:-1]
    expected = client_for(url).put(f"/api/what-if/tournaments/{CODE}", json=doc, headers=me)
    assert expected.status_code == 200 and expected.json()["moved"]
    answer: list[httpx.Response] = []
    with server(url, threads=1, offload=1) as base, edits_held(url):
        asking = threading.Thread(
            target=lambda: answer.append(
                httpx.put(f"{base}/api/what-if/tournaments/{CODE}", json=doc, headers=me,
                          timeout=120)
            )
        )  # fmt: skip
        asking.start()
        deadline = time.monotonic() + 60
        while not waiting_for_the_write_lock(url):
            assert time.monotonic() < deadline, "the what-if never waited for the edit"
            time.sleep(0.1)
        for p in players[:5]:
            read = httpx.get(f"{base}/api/players/{p}", timeout=10)
            assert read.status_code == 200
        assert not answer and waiting_for_the_write_lock(url) == 1  # still waiting
    asking.join(120)
    assert answer[0].status_code == 200
    assert answer[0].json() == expected.json()


def test_officer_requests_with_a_worker_process_answer_as_without_one(world):
    """Written, refused and missing: the same statuses and bodies with the worker process
    (what-ifs there, their errors travel back as their class; writes in request threads) as
    without it (all in request threads)."""
    url, _, me = world
    doc = document(url, CODE)
    new = document(url, CODE, id="LATENCY-1")
    bad = document(url, CODE)
    bad["games"][0]["result"] = "2-0"
    outside = document(url, CODE, vkz="B00", id="LATENCY-2")
    requests: list[tuple[str, str, Any]] = [
        ("PUT", f"/api/tournaments/{CODE}", bad),
        ("PUT", "/api/what-if/tournaments/NO-SUCH", doc),
        ("DELETE", "/api/what-if/tournaments/NO-SUCH", None),
        ("POST", "/api/tournaments", outside),
        ("POST", "/api/tournaments", new),
        ("POST", "/api/tournaments", new),
        ("DELETE", "/api/tournaments/LATENCY-1", None),
        ("DELETE", "/api/tournaments/LATENCY-1", None),
    ]
    statuses = [422, 404, 404, 403, 201, 422, 200, 404]
    with (
        server(url, threads=2, offload=1) as base,
        httpx.Client(base_url=base, timeout=60) as offloaded,
    ):
        got = [offloaded.request(m, path, json=body, headers=me) for m, path, body in requests]
    in_thread = client_for(url)
    again = [in_thread.request(m, path, json=body, headers=me) for m, path, body in requests]
    assert [r.status_code for r in got] == statuses == [r.status_code for r in again]
    for mine, theirs in zip(got, again, strict=True):
        if mine.status_code != 201:  # a 201 names the time of its writing
            assert _without_run(mine.json()) == _without_run(theirs.json())


def _without_run(answer: Any) -> Any:
    """A write's answer without the number of the run it started (evaluated on submit: the
    two servers' runs have different numbers)."""
    if isinstance(answer, dict) and answer.get("evaluation"):
        return {**answer, "evaluation": {**answer["evaluation"], "run": None}}
    return answer


def test_a_read_makes_one_trip_through_the_threads_for_its_database_work(world, monkeypatch):
    """Every synchronous dependency was a trip of its own through the thread limiter, and
    under load each trip queues behind every request waiting there: the session, today,
    the token and the endpoint were four trips (six with the session's end and FastAPI's
    serialisation of a JSON answer). Now the endpoint's is the only one, of a page and of a
    JSON answer alike (FastAPI validates the answer of a coroutine in the event loop, that
    of a synchronous endpoint in a second trip: ReleasingRoute makes every endpoint a
    coroutine that runs it in one trip)."""
    import anyio.to_thread

    url, players, _ = world
    trips: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(func, *args, **kwargs):  # type: ignore[no-untyped-def]
        trips.append(getattr(func, "__name__", repr(func)))
        return await run_sync(func, *args, **kwargs)

    client = client_for(url)
    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    assert client.get(f"/players/{players[0]}").status_code == 200
    assert len(trips) == 1, trips
    trips.clear()
    assert client.get(f"/api/players/{players[0]}").status_code == 200
    assert len(trips) == 1, trips
    trips.clear()
    assert client.get("/api/tournaments?limit=30").status_code == 200
    assert len(trips) == 1, trips


def sleep_in_worker(engine: Any, seconds: float) -> float:
    """Work for the worker process that keeps it busy (and takes no lock)."""
    time.sleep(seconds)
    return seconds


def test_an_officers_write_does_not_wait_for_the_worker_process(world):
    """Writes run in request threads (short transactions, serialised per tournament by the
    tournament lock): a correction is answered while the worker process is busy. In the
    worker it queued behind every what-if sent before it (seconds each: write p50 4-5 s
    under the mixed load instead of 1-1.5 s). A what-if still waits for the worker."""
    url, _, me = world
    doc = document(url, CODE)
    engine = create_engine(url, pool_size=2, max_overflow=0, pool_timeout=5)
    app = create_app(engine, today=lambda: TODAY, threads=2, offload=1)
    with served(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        warm = client.delete("/api/what-if/tournaments/NO-SUCH", headers=me)
        assert warm.status_code == 404  # the worker has started and imported ratingdb
        busy = app.state.offload.submit(sleep_in_worker, 4.0)
        written = client.put(f"/api/tournaments/{CODE}", json=doc, headers=me)
        assert written.status_code == 200, written.text
        assert not busy.done()  # answered while the worker was still busy
        what_if = client.delete("/api/what-if/tournaments/NO-SUCH", headers=me)
        assert what_if.status_code == 404
        assert busy.done()  # the what-if waited for the worker
    engine.dispose()


def test_reads_are_answered_while_officers_writes_wait_for_a_lock(world):
    """One read thread; two corrections of a tournament whose lock another transaction
    holds wait in the write threads of their own (``WRITE_THREADS``), and the reads are
    answered meanwhile. In the reads' pool the first waiting write would hold the only
    thread and every read would wait behind it. When the lock is released both writes
    are answered: 200 each, one after the other."""
    url, players, me = world
    doc = document(url, CODE)
    answers: list[httpx.Response] = []

    def correct() -> None:
        answers.append(
            httpx.put(f"{base}/api/tournaments/{CODE}", json=doc, headers=me, timeout=120)
        )

    with (
        server(url, threads=1, overflow=WRITE_THREADS) as base,
        engine_for(url).connect() as holder,
    ):
        holder.execute(
            text("SELECT pg_advisory_lock(:space, hashtext(:code))"),
            {"space": TOURNAMENT_SPACE, "code": CODE},
        )
        writers = [threading.Thread(target=correct) for _ in range(2)]
        for writer in writers:
            writer.start()
        deadline = time.monotonic() + 60
        while waiting_for_the_write_lock(url) < 2:
            assert time.monotonic() < deadline, "the corrections never waited for the lock"
            time.sleep(0.1)
        for p in players[:5]:
            assert httpx.get(f"{base}/api/players/{p}", timeout=10).status_code == 200
        assert not answers and waiting_for_the_write_lock(url) == 2  # still waiting
        holder.execute(
            text("SELECT pg_advisory_unlock(:space, hashtext(:code))"),
            {"space": TOURNAMENT_SPACE, "code": CODE},
        )
        holder.commit()
        for writer in writers:
            writer.join(120)
    assert [a.status_code for a in answers] == [200, 200]


def _priority(engine: Any, plan: Any) -> tuple[int, int]:
    import os

    return os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0)


@pytest.mark.skipif(not hasattr(__import__("os"), "SCHED_IDLE"), reason="Linux only")
def test_the_what_if_worker_yields_to_reads_but_is_never_starved(world):
    """nice +10, the normal scheduling class: a what-if (seconds of Python) leaves the
    cores to reads and edits, but not so far that the edits it holds the lock against wait
    for a starved what-if (SCHED_IDLE or nice +19 would; docs/web.md, "Threads,
    connections and processes")."""
    import os

    from ratingdb.web.offload import NICE, Offload

    url = world[0].render_as_string(hide_password=False)
    pool = Offload(url, 1)
    try:
        nice, policy = pool.submit(_priority, None).result(timeout=120)[1]
    finally:
        pool.close()
    assert NICE == 10
    assert nice == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
    assert policy == os.SCHED_OTHER
