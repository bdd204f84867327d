"""The page cache drops only the pages a change touched (migration 0018,
ratingdb/web/scopes.py, ratingdb/web/page_cache.py; docs/web.md, "The page cache"): an
officer's edit of one tournament leaves the other tournaments' pages, the cards of players
who did not play in it and the other clubs' lists in the cache, and shows at once on every
page it touched."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from ratingdb.web.app import create_app
from tests.builders import ok
from tests.web_support import TODAY, bearer, document, engine_for, synth_database, user_token

CODE = "S3-000016"  # Open A 2026/1, VKZ A00, ended 2026-07-29 (within a year of TODAY)


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        yield url, facts(url), bearer(user_token(url, "officer-s", "officer", ["A"]))


def facts(url: Any) -> dict[str, Any]:
    """Players and clubs of the synthetic federation, each with what the tests need."""
    with engine_for(url).connect() as conn:

        def one(sql: str, **params: Any) -> Any:
            return conn.execute(text(sql), params).first()

        played = "SELECT 1 FROM participants p JOIN tournaments t ON t.id = p.tournament_id " \
            "WHERE t.code = :c AND p.player_id = m.player_id"  # fmt: skip
        member = (
            "SELECT m.player_id, o.vkz FROM memberships m JOIN organisations o "
            "ON o.id = m.organisation_id WHERE m.valid_to IS NULL AND o.kind = 'club' "
            "AND EXISTS (SELECT 1 FROM rating_snapshots s WHERE s.player_id = m.player_id) "
        )
        elsewhere = (
            "SELECT 1 FROM rating_snapshots s JOIN tournaments t ON t.id = s.tournament_id "
            "WHERE s.player_id = m.player_id AND t.code <> :c"
        )
        inside = one(
            member + f"AND EXISTS ({played}) AND EXISTS ({elsewhere}) ORDER BY 1 LIMIT 1", c=CODE
        )
        outside = one(member + f"AND NOT EXISTS ({played}) ORDER BY 1 LIMIT 1", c=CODE)
        # a club whose one member did not play in CODE (every club of the synthetic
        # federation has members who did)
        conn.execute(
            text(
                "WITH o AS (INSERT INTO organisations (vkz, name, kind) VALUES "
                "('Z0001', 'SC Scope', 'club') RETURNING id) INSERT INTO memberships "
                "(player_id, organisation_id, valid_from) SELECT :p, id, '2020-01-01' FROM o"
            ),
            {"p": outside.player_id},
        )
        conn.commit()
        other = one(
            "SELECT t.id, t.code FROM tournaments t WHERE t.code <> :c AND EXISTS (SELECT 1 "
            "FROM rating_snapshots s WHERE s.tournament_id = t.id) AND EXISTS (SELECT 1 "
            "FROM participants p WHERE p.tournament_id = t.id AND p.player_id = :p) "
            "ORDER BY 1 LIMIT 1",
            c=CODE, p=inside.player_id,
        )  # fmt: skip
        tournament = one("SELECT id FROM tournaments WHERE code = :c", c=CODE)
    return {
        "inside": inside.player_id, "inside_club": inside.vkz,
        "outside": outside.player_id, "outside_club": "Z0001",
        "other": other.code, "other_id": other.id, "tournament": tournament.id,
    }  # fmt: skip


@contextmanager
def cached_client(url: Any) -> Iterator[TestClient]:
    # the officer's writes wait for the run (night only): these tests read between the two
    app = create_app(engine_for(url), today=lambda: TODAY, cache=True, evaluate_on_submit=False)
    with TestClient(app) as client:
        yield client


def warm(client: TestClient, paths: list[str]) -> None:
    for path in paths:
        client.get(path)
        answer = client.get(path)
        assert (answer.status_code, answer.headers["x-cache"]) == (200, "hit"), path


def cache_states(client: TestClient, paths: list[str]) -> dict[str, str]:
    return {path: client.get(path).headers["x-cache"] for path in paths}


def execute(url: Any, *statements: str, **params: Any) -> None:
    with engine_for(url).connect() as conn:
        for sql in statements:
            conn.execute(text(sql), params)
        conn.commit()


def last_change(url: Any) -> list[str] | None:
    with engine_for(url).connect() as conn:
        return conn.execute(
            text("SELECT scopes FROM data_changes ORDER BY n DESC LIMIT 1")
        ).scalar_one()


def test_a_correction_drops_the_pages_it_touched_and_keeps_the_others(world):
    url, f, officer = world
    touched = [
        f"/api/tournaments/{CODE}", f"/tournaments/{CODE}", f"/api/players/{f['inside']}",
        f"/players/{f['inside']}", "/api/tournaments?limit=30", "/tournaments", "/",
        f"/api/lists?club={f['inside_club']}",
    ]  # fmt: skip
    kept = [
        f"/api/tournaments/{f['other']}", f"/tournaments/{f['other']}",
        f"/api/players/{f['outside']}", f"/players/{f['outside']}",
        f"/api/lists?club={f['outside_club']}", f"/lists?club={f['outside_club']}",
    ]  # fmt: skip
    with cached_client(url) as client:
        warm(client, touched + kept)
        doc = document(url, CODE, name="Renamed Open")
        assert client.put(f"/api/tournaments/{CODE}", json=doc, headers=officer).status_code == 200
        assert cache_states(client, touched) == dict.fromkeys(touched, "miss")
        assert cache_states(client, kept) == dict.fromkeys(kept, "hit")
        assert client.get(f"/api/tournaments/{CODE}").json()["tournament"]["name"] == (
            "Renamed Open"
        )
        # the correction deleted the tournament's evaluations: gone from the player's card
        card = client.get(f"/api/players/{f['inside']}").json()
        assert CODE not in {e["tournament"] for e in card["evaluations"]}
    scopes = set(last_change(url) or ())
    assert {f"t:{f['tournament']}", f"p:{f['inside']}"} <= scopes
    assert f"p:{f['outside']}" not in scopes


def test_direct_changes_in_the_database_drop_what_they_touch(world):
    """No ratingdb code involved: the triggers name the scopes."""
    url, f, _ = world
    card, other_card = f"/api/players/{f['inside']}", f"/api/players/{f['outside']}"
    club_list = f"/api/lists?club={f['inside_club']}"
    other_list = f"/api/lists?club={f['outside_club']}"
    evaluation = f"/api/tournaments/{f['other']}"
    paths = [card, other_card, club_list, other_list, evaluation]
    with cached_client(url) as client:
        warm(client, paths)
        # a player's name: their card, their club's list, the tournaments they played in
        execute(url, "UPDATE players SET given_name = 'Renamed' WHERE id = :p", p=f["inside"])
        assert cache_states(client, paths) == {
            card: "miss", other_card: "hit", club_list: "miss", other_list: "hit",
            evaluation: "miss",
        }  # fmt: skip
        assert client.get(card).json()["player"]["name"].endswith(", Renamed")
        # a tournament's name (or date): its page, the cards of the players who took part
        # and their clubs' lists (whose ratings are as of a date)
        execute(url, "UPDATE tournaments SET name = 'Other renamed' WHERE id = :t",
                t=f["other_id"])  # fmt: skip
        assert cache_states(client, [evaluation, card, club_list, other_card]) == {
            evaluation: "miss", card: "miss", club_list: "miss", other_card: "hit",
        }  # fmt: skip
        assert client.get(evaluation).json()["tournament"]["name"] == "Other renamed"
        # a membership in another club: that club's list, that player's card
        execute(
            url,
            "UPDATE memberships SET member_number = member_number WHERE player_id = :p",
            p=f["outside"],
        )
        paths.remove(evaluation)
        assert cache_states(client, paths) == {
            card: "hit", other_card: "miss", club_list: "hit", other_list: "miss",
        }  # fmt: skip


def test_pages_of_no_public_data_stay_and_everything_else_goes(world):
    """A change point (no public page shows them) keeps every page; a change of an
    organisation (names on every page) or a counter raised by hand (a gap in the recorded
    changes) drops them all."""
    url, f, _ = world
    paths = [f"/api/players/{f['outside']}", f"/api/tournaments/{f['other']}"]
    with cached_client(url) as client:
        warm(client, paths)
        execute(url, "UPDATE change_points SET kind = kind")
        assert last_change(url) == []
        assert cache_states(client, paths) == dict.fromkeys(paths, "hit")
        execute(url, "UPDATE organisations SET name = name WHERE vkz = :v", v=f["outside_club"])
        assert last_change(url) is None
        assert cache_states(client, paths) == dict.fromkeys(paths, "miss")
        warm(client, paths)
        execute(url, "UPDATE data_version SET n = n + 1")
        assert cache_states(client, paths) == dict.fromkeys(paths, "miss")


def test_a_bulk_write_and_a_full_run_touch_everything(world):
    """Past 2,000 rows a transaction is recorded as touching everything (its further rows
    skip the row trigger); a full run says so at its start."""
    url, f, _ = world
    with engine_for(url).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM games")).scalar_one() < 2000
    execute(url, *["UPDATE games SET result = result"] * 4)  # > 2,000 rows
    assert last_change(url) is None
    execute(url, "UPDATE games SET result = result WHERE id IN (SELECT id FROM games LIMIT 50)")
    assert last_change(url) and all(s.startswith("t:") for s in last_change(url) or ())
    with cached_client(url) as client:
        path = f"/api/players/{f['outside']}"
        warm(client, [path])
        ok(["recalc", "--full", "--quiet"], url)
        assert last_change(url) is None
        assert client.get(path).headers["x-cache"] == "miss"


def test_one_statement_past_the_limit_means_everything(world):
    """Migration 0019: the rows of one statement are queued before any of their triggers
    runs, so those after the row that made the transaction's scopes "everything" (more
    than 6,000 characters of scopes: each new player names p: and n:) must not add to it;
    the change is recorded as everything (NULL), not as the scopes of the rows after it."""
    url, _, _ = world
    engine = engine_for(url)
    with engine.begin() as conn:  # 1,000 players in one statement, gone again at the commit
        touched = conn.execute(
            text(
                "INSERT INTO players (surname, given_name) "
                "SELECT 'Scope', 'P' || g FROM generate_series(1, 1000) g"
            )
        ).rowcount
        conn.execute(text("DELETE FROM players WHERE surname = 'Scope'"))
    with engine.connect() as conn:
        scopes = conn.execute(
            text("SELECT scopes FROM data_changes ORDER BY n DESC LIMIT 1")
        ).scalar_one()
    engine.dispose()
    assert touched == 1000
    assert scopes is None


def test_a_list_of_another_day_a_wildcard_and_a_number_name_what_can_move_them(world):
    """Review of migration 0018: a rating list of another day shows who is published
    today, which a membership in any club decides, so any player's publication drops it
    (today's list keeps its own club's scope); a federation prefix is a prefix, not a LIKE
    pattern (``_`` lists nothing, not every club); a tournament found by its number depends
    on every tournament (one given that number as its code later would be shown)."""
    url, f, _ = world
    past = f"/api/lists?club={f['inside_club']}&date={TODAY.replace(year=TODAY.year - 1)}"
    today = f"/api/lists?club={f['inside_club']}"
    by_number = f"/api/tournaments/{f['tournament']}"
    with cached_client(url) as client:
        assert client.get("/api/lists?federation=_").json()["rows"] == []
        assert client.get("/api/lists?federation=%25").json()["rows"] == []
        warm(client, [past, today, by_number, f"/api/tournaments/{CODE}"])
        # the player outside: a membership elsewhere, nothing of the inside club
        execute(
            url,
            "UPDATE memberships SET member_number = member_number WHERE player_id = :p",
            p=f["outside"],
        )
        assert cache_states(client, [past, today, by_number]) == {
            past: "miss", today: "hit", by_number: "hit",
        }  # fmt: skip
        execute(url, "UPDATE tournaments SET name = name WHERE id = :t", t=f["other_id"])
        assert cache_states(client, [by_number, f"/api/tournaments/{CODE}"]) == {
            by_number: "miss", f"/api/tournaments/{CODE}": "hit",
        }  # fmt: skip
