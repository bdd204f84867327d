"""Evaluated on submit (WO 6.4.3): the officer's change runs the recalculation at once,
after a run in progress; a run that cannot go leaves the change pending and the page says
why; a setting leaves it to the night; the what-if warns of a tournament in which nobody
can be rated and links no player page that will not exist."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from ratingdb.db.locks import RUN_KEY
from ratingdb.services import recalc
from ratingdb.web.app import create_app
from tests.submit_support import World, csrf_of, sign_in, submit_world
from tests.web_support import TODAY, engine_for


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[World]:
    with submit_world(pg_server) as w:
        yield w


def _client(world: World, **options: Any) -> Any:
    from fastapi.testclient import TestClient

    client = TestClient(create_app(engine_for(world.url), today=lambda: TODAY, **options))
    sign_in(client, "anna")
    return client


def _submit(client: Any, world: World, code: str, content: bytes | None = None) -> Any:
    """Upload the world's TRF under ``code``, decide its open player, submit; the answer
    after the redirect."""
    page = client.get("/officer/upload")
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf_of(page.text), "code": code},
        files={"file": ("web.trf", content or world.trf, "text/plain")},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    draft = answer.headers["location"]
    page = client.get(draft)
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text),
                f"c{world.ambiguous_rank}": f"p{world.right_player}"})  # fmt: skip
    page = client.get(draft)
    assert 'id="submit"' in page.text, page.text
    return client.post(f"{draft}/submit", data={"csrf": csrf_of(page.text)})


def _status(world: World, code: str) -> str:
    with engine_for(world.url).connect() as conn:
        return str(
            conn.execute(
                text("SELECT status FROM tournaments WHERE code = :c"), {"c": code}
            ).scalar_one()
        )


def _pending(world: World) -> int:
    with engine_for(world.url).connect() as conn:
        return int(
            conn.execute(
                text("SELECT count(*) FROM change_points WHERE run_id IS NULL")
            ).scalar_one()
        )


def test_a_submission_waits_for_a_running_run_then_is_evaluated(world):
    """Another run holds the run lock for a moment: the submission's run waits for it, then
    goes; the page shows the stored evaluation."""
    client = _client(world)
    holder = engine_for(world.url).connect()
    holder.execute(text("SELECT pg_advisory_lock(:k)"), {"k": RUN_KEY})
    holder.commit()
    timer = threading.Timer(1.5, lambda: (holder.execute(
        text("SELECT pg_advisory_unlock(:k)"), {"k": RUN_KEY}), holder.commit()))  # fmt: skip
    timer.start()
    try:
        page = _submit(client, world, "WAIT-1")
    finally:
        timer.join()
        holder.close()
    assert page.status_code == 200
    assert 'id="evaluated"' in page.text and '<table id="evaluation">' in page.text
    assert _status(world, "WAIT-1") == "evaluated" and _pending(world) == 0


def test_a_run_that_cannot_go_leaves_the_submission_pending_and_says_why(world, monkeypatch):
    monkeypatch.setattr(recalc, "WAIT_SECONDS", 0.5)
    client = _client(world)
    with engine_for(world.url).connect() as holder:
        holder.execute(text("SELECT pg_advisory_lock(:k)"), {"k": RUN_KEY})
        holder.commit()
        page = _submit(client, world, "BUSY-1")
        holder.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": RUN_KEY})
        holder.commit()
    assert page.status_code == 200
    assert 'id="failed"' in page.text and "Berechnungslauf" in page.text
    assert _status(world, "BUSY-1") == "submitted" and _pending(world) == 1
    recalc.evaluate_now(engine_for(world.url))  # the nightly job
    assert _status(world, "BUSY-1") == "evaluated"


def test_the_setting_leaves_the_evaluation_to_the_nightly_run(world):
    assert recalc.evaluate_on_submit({"RATINGDB_EVALUATE_ON_SUBMIT": "0"}) is False
    assert recalc.evaluate_on_submit({}) is True
    client = _client(world, evaluate_on_submit=False)
    page = _submit(client, world, "NIGHT-1")
    assert 'id="pending"' in page.text and 'id="evaluated"' not in page.text
    assert _status(world, "NIGHT-1") == "submitted" and _pending(world) == 1
    recalc.evaluate_now(engine_for(world.url))


def test_a_tournament_in_which_nobody_can_be_rated_is_warned_of(world):
    """Every participant a non-member: the what-if says nobody would be rated."""
    client = _client(world)
    page = client.get("/officer/upload")
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf_of(page.text), "code": "NOBODY-1"},
        files={"file": ("web.trf", world.trf, "text/plain")},
        follow_redirects=False,
    )
    draft = answer.headers["location"]
    page = client.get(draft)
    keys = re.findall(r'<tr class="[a-z]+" data-key="(\d+)">', page.text)
    # a file whose players the import cannot find: strip every id, make all non-members
    from ratingdb.io import trf

    t = trf.parse(world.trf.decode(), "web.trf")
    for p in t.players:
        p.national, p.fide_id, p.name = {}, None, f"Gast, Nummer {p.start_rank}"
    content = trf.write(t).encode()
    answer = client.post(
        "/officer/upload",
        data={"csrf": csrf_of(page.text), "code": "NOBODY-1"},
        files={"file": ("gast.trf", content, "text/plain")},
        follow_redirects=False,
    )
    draft = answer.headers["location"]
    page = client.get(draft)
    client.post(f"{draft}/choices", data={"csrf": csrf_of(page.text), "all": "non"})
    page = client.get(draft)
    assert keys and 'id="nobody-rated"' in page.text, page.text
    assert "Niemand in diesem Turnier" in page.text


@pytest.mark.parametrize("at_once", [True, False])
def test_the_api_evaluates_on_submit_as_the_pages(world, at_once):
    """A TRF submitted through the officer's JSON API is evaluated at once as on the pages:
    the answer's ``evaluation`` names the run and what it changed, the tournament is
    evaluated and nothing stays pending; with the setting off, ``evaluation`` is null and
    the nightly run evaluates it."""
    from fastapi.testclient import TestClient

    from tests.web_support import user_token

    token = user_token(world.url, f"api-{at_once}", "officer", [world.scope])
    client = TestClient(
        create_app(engine_for(world.url), today=lambda: TODAY, evaluate_on_submit=at_once)
    )
    code = f"API-{int(at_once)}"
    answer = client.post(
        "/api/tournaments/trf",
        params={"id": code},
        content=world.trf,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 201, answer.text
    evaluation = answer.json()["evaluation"]
    if at_once:
        assert evaluation["evaluated"] is True and evaluation["reason"] is None
        assert isinstance(evaluation["run"], int) and evaluation["tournaments_evaluated"] >= 1
        assert evaluation["ratings_changed"] > 0
        assert _status(world, code) == "evaluated" and _pending(world) == 0
    else:
        assert evaluation is None
        assert _status(world, code) == "submitted" and _pending(world) == 1
        recalc.evaluate_now(engine_for(world.url))
        assert _status(world, code) == "evaluated"
