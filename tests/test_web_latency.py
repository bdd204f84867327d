"""The web service under concurrent load (issue 22, the mixed load; docs/web.md, "Threads,
connections and processes"): a request holds a pool connection only while it holds a
worker thread, so a pool as large as the thread limit never runs dry."""

from __future__ import annotations

import threading
from datetime import date

import httpx
import pytest
from sqlalchemy import create_engine, text

from ratingdb.web.app import create_app
from tests.web_support import TODAY, served, synth_database


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        with create_engine(url).connect() as conn:
            players = conn.execute(
                text(
                    "SELECT DISTINCT s.player_id FROM rating_snapshots s JOIN memberships m ON "
                    "m.player_id = s.player_id WHERE s.stored AND m.valid_to IS NULL "
                    "ORDER BY 1 LIMIT 24"
                )
            ).scalars().all()  # fmt: skip
        yield url, players


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
    url, players = world
    engine = create_engine(url, pool_size=2, max_overflow=0, pool_timeout=5)
    app = create_app(engine, today=lambda: date(*TODAY.timetuple()[:3]), threads=2)
    paths = [f"/api/players/{p}" for p in players] + ["/api/tournaments?limit=30"] * 4
    try:
        with served(app) as base:
            statuses = concurrently(base, paths)
    finally:
        engine.dispose()
    assert statuses == [200] * len(paths)
