"""Where a read's time goes, and how little it costs (the 50 ms read target;
docs/web.md, "Load test"): every answer carries ``Server-Timing`` (app, queue, work, db, cpu);
a Karteikarte and an evaluation display read their data in one round trip each; the
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
    """The figures of a ``Server-Timing`` header; ``trips``: the database round trips."""
    out = {}
    for metric in header.split(","):
        name, *params = (part.strip() for part in metric.split(";"))
        for param in params:
            key, _, raw = param.partition("=")
            if key == "dur":
                out[name] = float(raw)
            else:
                assert (key, name) == ("desc", "db") and raw.endswith(' round trips"'), param
                out["trips"] = int(raw.strip('"').split()[0])
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
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        first = client.get(f"/players/{player}")
        again = client.get(f"/players/{player}")
        unknown = client.get("/players/999999999")
    assert first.status_code == 200 and first.headers["x-cache"] == "miss"
    miss = timings(first.headers["server-timing"])
    assert set(miss) == {"app", "queue", "work", "db", "cpu", "trips", "version"}
    assert miss["db"] > 0 and miss["work"] >= miss["db"] and miss["app"] >= miss["work"]
    assert miss["cpu"] > 0 and miss["queue"] >= 0
    # a page from the cache is timed too, and takes no thread
    assert again.headers["x-cache"] == "hit"
    hit = timings(again.headers["server-timing"])
    assert hit["work"] == hit["db"] == hit["cpu"] == hit["trips"] == 0 and hit["app"] > 0
    assert unknown.status_code == 404 and "server-timing" in unknown.headers


@pytest.mark.parametrize(
    ("path", "trips"),
    [
        ("/players/{player}", 1),
        ("/api/players/{player}", 1),
        (f"/tournaments/{CODE}", 1),
        (f"/api/tournaments/{CODE}", 1),
        (f"/tournaments/{CODE}/players/{{participant}}", 3),
        ("/players/{former}", 1),
        ("/api/lists?club={club}", 2),
        ("/lists?club={club}", 4),
    ],
)
def test_a_page_reads_its_data_in_few_round_trips(world, path, trips):
    """A Karteikarte sends its five reads (the player with its published flag and list
    takeover, evaluations, adjustments, memberships, residual games) together: one round
    trip (7 before). An evaluation display sends all eight together (the tournament found
    and described, the timeline's rows, snapshots, tournament, participants, games,
    published players, problems): one round trip (13 before: 10 statements and 3 reads
    through the driver, the timeline read and parsed twice). The scoresheet: three. A
    former member's card, refused to an anonymous visitor (WO 4.1.1): one. A club's rating
    list: the members, then their last evaluations, takeovers and the adjustments together
    (the API: two); the page also reads whether the typed club is a VKZ or a club's name and
    the club's place in the directory (DSB, Landesverband, Bezirk): four."""
    url, player = world
    engine = engine_for(url)
    with engine.begin() as conn:
        participant = conn.execute(
            text(
                "SELECT s.participant_id FROM rating_snapshots s JOIN tournaments t "
                "ON t.id = s.tournament_id WHERE t.code = :c ORDER BY 1 LIMIT 1"
            ),
            {"c": CODE},
        ).scalar_one()
        former = conn.execute(
            text("SELECT max(player_id) FROM memberships WHERE player_id <> :me"), {"me": player}
        ).scalar_one()
        conn.execute(
            text("UPDATE memberships SET valid_to = :d WHERE player_id = :p"),
            {"d": TODAY.replace(year=TODAY.year - 1), "p": former},
        )
        club = conn.execute(
            text(
                "SELECT o.vkz FROM memberships m JOIN organisations o ON o.id = m.organisation_id "
                "WHERE m.player_id = :me"
            ),
            {"me": player},
        ).scalar_one()
    target = path.format(player=player, participant=participant, former=former, club=club)
    with TestClient(create_app(engine, today=lambda: TODAY), client=("127.0.0.1", 50000)) as client:
        client.get(target)  # the timeline parsed, if not before
        answer = client.get(target)
    if "former" in path:
        assert answer.status_code == 404
        assert "Keine veröffentlichte Karteikarte" in answer.text
    else:
        assert answer.status_code == 200
    assert timings(answer.headers["server-timing"])["trips"] == trips


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
