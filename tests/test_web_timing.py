"""Where a read's time goes, and how little it costs (issue 22, the 50 ms read target;
docs/web.md, "Load"): every answer carries ``Server-Timing`` (app, queue, work, db, cpu);
a Karteikarte and an evaluation display read their data in five statements each; the
Rechenmodul timeline is parsed once per process, and again as soon as a row changes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from ratingdb.db.store import load_timeline
from ratingdb.web.app import create_app
from tests.web_support import TODAY, engine_for, synth_database

CODE = "S3-000016"  # Open A 2026/1, evaluated


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            player = conn.execute(
                text(
                    "SELECT s.player_id FROM rating_snapshots s JOIN tournaments t ON "
                    "t.id = s.tournament_id JOIN memberships m ON m.player_id = s.player_id "
                    "WHERE t.code = :c AND s.stored AND m.valid_to IS NULL ORDER BY 1 LIMIT 1"
                ),
                {"c": CODE},
            ).scalar_one()
        yield url, player


def timings(header: str) -> dict[str, float]:
    out = {}
    for part in header.split(","):
        name, _, duration = part.strip().partition(";dur=")
        out[name] = float(duration)
    return out


@contextmanager
def counting(engine: Any) -> Iterator[list[str]]:
    """The statements ``engine`` sends meanwhile (through SQLAlchemy)."""
    sent: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_every_answer_says_where_its_time_went(world):
    url, player = world
    app = create_app(engine_for(url), today=lambda: TODAY, cache=True)
    with TestClient(app) as client:
        first = client.get(f"/players/{player}")
        again = client.get(f"/players/{player}")
        unknown = client.get("/players/999999999")
    assert first.status_code == 200 and first.headers["x-cache"] == "miss"
    miss = timings(first.headers["server-timing"])
    assert set(miss) == {"app", "queue", "work", "db", "cpu"}
    assert miss["db"] > 0 and miss["work"] >= miss["db"] and miss["app"] >= miss["work"]
    assert miss["cpu"] > 0 and miss["queue"] >= 0
    # a page from the cache is timed too, and takes no thread
    assert again.headers["x-cache"] == "hit"
    hit = timings(again.headers["server-timing"])
    assert hit["work"] == hit["db"] == hit["cpu"] == 0 and hit["app"] > 0
    assert unknown.status_code == 404 and "server-timing" in unknown.headers


@pytest.mark.parametrize(
    ("path", "statements"),
    [
        ("/players/{player}", 5),
        ("/api/players/{player}", 5),
        (f"/tournaments/{CODE}", 5),
        (f"/api/tournaments/{CODE}", 5),
        (f"/tournaments/{CODE}/players/{{participant}}", 4),
    ],
)
def test_a_page_reads_its_data_in_few_statements(world, path, statements):
    """Karteikarte: the player with its published flag and list takeover, evaluations,
    adjustments, memberships, residual games (7 before). Evaluation display and
    scoresheet: the tournament found and described in one query, the timeline's rows
    (their parameters parsed once per process), then participants, games and snapshots
    (read through the driver, not counted here), published players, problems (10
    before, with the timeline read and parsed twice); the scoresheet reads no problems."""
    url, player = world
    engine = engine_for(url)
    with engine.connect() as conn:
        participant = conn.execute(
            text(
                "SELECT s.participant_id FROM rating_snapshots s JOIN tournaments t "
                "ON t.id = s.tournament_id WHERE t.code = :c ORDER BY 1 LIMIT 1"
            ),
            {"c": CODE},
        ).scalar_one()
    with TestClient(create_app(engine, today=lambda: TODAY)) as client:
        target = path.format(player=player, participant=participant)
        assert client.get(target).status_code == 200  # the timeline parsed, if not before
        with counting(engine) as sent:
            answer = client.get(target)
    assert answer.status_code == 200
    assert len(sent) == statements, sent


def test_an_unpublished_card_reads_one_statement(world):
    """An anonymous visitor asking for a former member's card gets the 404 of WO 4.1.1
    after one query."""
    url, player = world
    engine = engine_for(url)
    with engine.begin() as conn:
        former = conn.execute(
            text(
                "SELECT p.id FROM players p WHERE NOT EXISTS (SELECT 1 FROM memberships m "
                "WHERE m.player_id = p.id AND m.valid_to IS NULL) ORDER BY 1 LIMIT 1"
            )
        ).scalar()
        if former is None:
            former = conn.execute(
                text("SELECT min(player_id) FROM memberships WHERE player_id <> :me"),
                {"me": player},
            ).scalar_one()
            conn.execute(
                text("UPDATE memberships SET valid_to = :d WHERE player_id = :p"),
                {"d": TODAY.replace(year=TODAY.year - 1), "p": former},
            )
    with TestClient(create_app(engine, today=lambda: TODAY)) as client, counting(engine) as sent:
        answer = client.get(f"/api/players/{former}")
    assert answer.status_code == 404
    assert "no published Karteikarte" in answer.json()["error"]
    assert len(sent) == 1


def test_the_timeline_is_parsed_once_and_again_after_a_change(world):
    url, _ = world
    engine = engine_for(url)
    with Session(engine) as session:
        timeline, ids = load_timeline(session)
        with counting(engine) as sent:
            again, again_ids = load_timeline(session)
        assert len(sent) == 1  # the rows' digests; no parameters read, none parsed
        assert [v.key for v in again.versions] == [v.key for v in timeline.versions]
        assert again_ids == ids
        assert again.versions[0] is timeline.versions[0]  # the same parsed object
        latest = timeline.versions[-1]
        before = latest.parameters.min_games
        session.execute(
            text(
                "UPDATE rechenmodule SET parameters = jsonb_set(parameters, '{min_games}', "
                "to_jsonb(CAST(:n AS integer))) WHERE family = :f AND version = :v"
            ),
            {"n": before + 1, "f": latest.family, "v": latest.version},
        )
        changed, _ = load_timeline(session)  # in the same transaction: sees the update
        assert changed.versions[-1].parameters.min_games == before + 1
        session.rollback()
        restored, _ = load_timeline(session)
        assert restored.versions[-1].parameters.min_games == before
