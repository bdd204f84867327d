"""Concurrent officer writes on one tournament through the API: they
follow one another (the tournament lock, docs/database.md "Runs and edits at the same
time") and answer 200/201, 404 or 422 with a clear message: never a 500, a deadlock or a
raw "duplicate key"."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ratingdb.web.app import create_app
from tests.web_support import bearer, document, engine_for, synth_database, user_token

CODE = "S3-000016"  # Open A 2026/1, VKZ A00, ended 2026-07-29 (within a year of TODAY)
WAIT = 120


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        # the writes only (night only): the runs an evaluation on submit starts are tested in
        # tests/test_officer_evaluate_on_submit.py
        client = TestClient(create_app(engine_for(url), evaluate_on_submit=False))
        yield url, client, bearer(user_token(url, "officer-a", "officer", ["A"]))


def at_once(requests: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Send the requests from as many threads, released together."""
    start = threading.Barrier(len(requests))
    answers: list[Any] = [None] * len(requests)

    def send(k: int) -> None:
        start.wait(WAIT)
        try:
            answers[k] = requests[k]()
        except BaseException as err:  # a 500 the client raises: handed to the test
            answers[k] = err

    threads = [threading.Thread(target=send, args=(k,)) for k in range(len(requests))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    for a in answers:
        if isinstance(a, BaseException):
            raise a
    return answers


def pending(url: Any) -> int:
    with engine_for(url).connect() as conn:
        return conn.execute(
            text("SELECT count(*) FROM change_points WHERE run_id IS NULL")
        ).scalar_one()


def games(url: Any, code: str) -> int:
    with engine_for(url).connect() as conn:
        return conn.execute(
            text("SELECT count(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                 "WHERE t.code = :c"), {"c": code},
        ).scalar_one()  # fmt: skip


def test_six_concurrent_puts_of_one_tournament_all_succeed_one_after_another(world):
    url, client, me = world
    doc = document(url, CODE)
    variants = []
    for k in range(6):
        v = document(url, CODE)
        v["games"] = doc["games"][: len(doc["games"]) - 1 - k]
        variants.append(v)
    before = pending(url)
    answers = at_once(
        [lambda v=v: client.put(f"/api/tournaments/{CODE}", json=v, headers=me) for v in variants]
    )
    assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers]
    assert pending(url) == before + 6
    # the last one written stands, whole: its games, no mixture
    assert games(url, CODE) in {len(v["games"]) for v in variants}


def test_put_delete_and_what_ifs_on_one_tournament_at_once(world):
    url, client, me = world
    code = "S3-000012"  # League A1 2025/2026, VKZ A00, ended 2026-03-11
    doc = document(url, code)
    doc["games"] = doc["games"][1:]
    answers = at_once(
        [
            lambda: client.put(f"/api/tournaments/{code}", json=doc, headers=me),
            lambda: client.put(f"/api/tournaments/{code}", json=doc, headers=me),
            lambda: client.delete(f"/api/tournaments/{code}", headers=me),
            lambda: client.put(f"/api/what-if/tournaments/{code}", json=doc, headers=me),
            lambda: client.delete(f"/api/what-if/tournaments/{code}", headers=me),
        ]
    )
    statuses = [a.status_code for a in answers]
    assert set(statuses) <= {200, 404}, [a.text for a in answers]
    assert statuses[2] == 200  # the deletion happens; whatever came after it finds nothing
    for a in answers:
        if a.status_code == 404:
            assert a.json()["error"] == f"no tournament {code!r}"
    assert client.get(f"/api/tournaments/{code}").status_code == 404


def test_the_same_new_tournament_submitted_three_times_at_once(world):
    url, client, me = world
    doc = document(url, CODE)
    doc["tournament"].update(id="X-TWICE", end="2026-10-01", start="2026-10-01")
    answers = at_once([lambda: client.post("/api/tournaments", json=doc, headers=me)] * 3)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201, 422, 422], [a.text for a in answers]
    for a in answers:
        if a.status_code == 422:
            message = a.json()["errors"][0]["message"]
            assert message == "a tournament 'X-TWICE' exists already"


# -- after a server error the connection is closed cleanly --------------------------------------
def test_a_500_closes_the_connection(world):
    url, _, _ = world
    app = create_app(engine_for(url))

    def boom() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/api/boom", boom)
    answer = TestClient(app, raise_server_exceptions=False).get("/api/boom")
    assert answer.status_code == 500 and answer.headers["connection"] == "close"
    assert answer.json() == {"error": "internal server error", "errors": []}


def test_a_lost_database_is_503_and_closes_the_connection():
    gone = create_engine("postgresql+psycopg://nobody@127.0.0.1:9/none", poolclass=NullPool)
    answer = TestClient(create_app(gone)).get("/api/players", params={"q": "Meyer"})
    assert answer.status_code == 503 and answer.headers["connection"] == "close"
    assert answer.json()["error"].startswith("the database server is unavailable: ")


def test_a_4xx_keeps_the_connection(world):
    _, client, me = world
    answer = client.put("/api/tournaments/NOPE", json={}, headers=me)
    assert answer.status_code == 404 and "connection" not in answer.headers
