"""The page cache (ratingdb/web/page_cache.py, migration 0017; docs/web.md, "The page cache"):
public pages served from memory while no change has been committed, and never a page older
than the last committed write or run."""

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
NOT_DATA = {
    "alembic_version", "api_tokens", "audit_log", "data_changes", "data_touched", "data_version",
    "sign_in_throttle", "users", "web_drafts", "web_sessions",
}  # fmt: skip


@pytest.fixture(scope="module")
def world(pg_server):
    with synth_database(pg_server) as url:
        with engine_for(url).connect() as conn:
            player = conn.execute(
                text(
                    "SELECT p.player_id FROM participants p JOIN tournaments t ON "
                    "t.id = p.tournament_id JOIN memberships m ON m.player_id = p.player_id "
                    "WHERE t.code = :c AND m.valid_to IS NULL ORDER BY 1 LIMIT 1"
                ),
                {"c": CODE},
            ).scalar_one()
        yield url, player, bearer(user_token(url, "officer-a", "officer", ["A"]))


@contextmanager
def cached_client(url: Any) -> Iterator[TestClient]:
    # the officer's writes wait for the run (night only): these tests read between the two
    app = create_app(engine_for(url), today=lambda: TODAY, cache=True, evaluate_on_submit=False)
    with TestClient(app) as client:
        yield client


def version(url: Any) -> int:
    with engine_for(url).connect() as conn:
        return int(conn.execute(text("SELECT n FROM data_version")).scalar_one())


def test_every_table_of_the_data_raises_the_version(world):
    """A table added later without the trigger would let its changes show stale pages."""
    url, _, _ = world
    with engine_for(url).connect() as conn:
        tables = set(
            conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
            .scalars()
        )  # fmt: skip
        triggered = set(
            conn.execute(
                text(
                    "SELECT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid "
                    "WHERE g.tgname = 'data_version_touch'"
                )
            ).scalars()
        )
    assert tables >= NOT_DATA
    assert triggered == tables - NOT_DATA
    assert {"players", "tournaments", "games", "rating_snapshots", "rechenmodule"} <= triggered


def test_the_version_rises_once_per_commit_and_never_for_a_rollback(world):
    url, _, _ = world
    engine = engine_for(url)
    before = version(url)
    with engine.connect() as conn:
        conn.execute(text("UPDATE players SET surname = surname WHERE id = 1"))
        conn.execute(text("UPDATE organisations SET name = name WHERE false"))
        assert version(url) == before  # not before the commit
        conn.commit()
    assert version(url) == before + 1
    with engine.connect() as conn:
        conn.execute(text("DELETE FROM games WHERE false"))
        conn.rollback()
    assert version(url) == before + 1
    with engine.connect() as conn:  # a user's sign-in data is no data of the pages
        conn.execute(text("UPDATE users SET full_name = full_name"))
        conn.commit()
    assert version(url) == before + 1


def test_a_read_after_an_officers_write_shows_the_new_data(world):
    """Served from the cache while nothing changes; after a correction (committed through
    the API) every page of the tournament shows it, in both forms."""
    url, player, officer = world
    with cached_client(url) as client:
        for path in (f"/api/tournaments/{CODE}", f"/tournaments/{CODE}", f"/api/players/{player}"):
            first, again = client.get(path), client.get(path)
            assert (first.status_code, again.status_code) == (200, 200)
            assert (first.headers["x-cache"], again.headers["x-cache"]) == ("miss", "hit")
            assert again.content == first.content
            assert again.headers["content-language"] == first.headers["content-language"]
        assert client.get(f"/api/tournaments/{CODE}").json()["tournament"]["name"] != "Renamed"
        card = client.get(f"/api/players/{player}").json()
        assert CODE in {e["tournament"] for e in card["evaluations"]}  # evaluated: on the card
        doc = document(url, CODE, name="Renamed")
        assert client.put(f"/api/tournaments/{CODE}", json=doc, headers=officer).status_code == 200
        answer = client.get(f"/api/tournaments/{CODE}")
        assert answer.headers["x-cache"] == "miss"
        assert answer.json()["tournament"]["name"] == "Renamed"
        page = client.get(f"/tournaments/{CODE}")
        assert page.headers["x-cache"] == "miss" and "Renamed" in page.text
        card = client.get(f"/api/players/{player}")
        assert card.headers["x-cache"] == "miss"
        assert CODE not in {e["tournament"] for e in card.json()["evaluations"]}  # pending now
        assert client.get(f"/api/tournaments/{CODE}").headers["x-cache"] == "hit"


def test_a_run_and_a_direct_change_in_the_database_show_at_once(world):
    """A recalculation run (another process) and a change made with SQL (no ratingdb code
    involved) raise the version too: the next read is computed anew."""
    url, player, _ = world
    with cached_client(url) as client:
        client.get(f"/api/tournaments/{CODE}")
        before = client.get(f"/api/tournaments/{CODE}")
        assert before.headers["x-cache"] == "hit"
        ok(["recalc", "--quiet"], url)
        after = client.get(f"/api/tournaments/{CODE}")
        assert after.headers["x-cache"] == "miss"
        assert after.json()["evaluated"]
        client.get(f"/api/players/{player}")
        assert client.get(f"/api/players/{player}").headers["x-cache"] == "hit"
        with engine_for(url).connect() as conn:
            conn.execute(
                text("UPDATE players SET given_name = 'Changed' WHERE id = :p"), {"p": player}
            )
            conn.commit()
        card = client.get(f"/api/players/{player}")
        assert card.headers["x-cache"] == "miss"
        assert card.json()["player"]["name"].endswith(", Changed")


def test_officers_signed_in_users_and_writes_never_use_the_cache(world):
    url, player, officer = world
    with cached_client(url) as client:
        client.get(f"/api/players/{player}")
        assert client.get(f"/api/players/{player}").headers["x-cache"] == "hit"
        assert "x-cache" not in client.get(f"/api/players/{player}", headers=officer).headers
        client.cookies.set("rdb_session", "whatever")
        assert "x-cache" not in client.get(f"/players/{player}").headers
        client.cookies.clear()
        assert "x-cache" not in client.get("/api/me", headers=officer).headers
        assert "x-cache" not in client.get("/sign-in").headers
        for _ in range(2):  # a 404 is never kept
            missing = client.get("/api/players/999999999")
            assert (missing.status_code, missing.headers["x-cache"]) == (404, "miss")


def test_languages_are_kept_apart_and_a_cookie_to_set_is_never_cached(world):
    url, player, _ = world
    with cached_client(url) as client:
        german = client.get(f"/players/{player}", headers={"Accept-Language": "de"})
        english = client.get(f"/players/{player}", headers={"Accept-Language": "en"})
        assert german.headers["content-language"] == "de"
        assert english.headers["content-language"] == "en"
        again = client.get(f"/players/{player}", headers={"Accept-Language": "en"})
        assert again.headers["x-cache"] == "hit" and again.content == english.content
        switched = client.get(f"/players/{player}?lang=en")  # sets the lang cookie
        assert "set-cookie" in switched.headers
        client.cookies.clear()
        assert client.get(f"/players/{player}?lang=en").headers["x-cache"] == "miss"


def test_without_the_data_version_nothing_is_cached(world):
    """A database the counter cannot be read from (here: a wrong address) serves every
    page uncached, never an old one."""
    from ratingdb.web.page_cache import DataVersion

    url, player, _ = world
    app = create_app(engine_for(url), today=lambda: TODAY, cache=True)
    with TestClient(app) as client:
        for middleware in app.user_middleware:
            if "version" in middleware.kwargs:
                middleware.kwargs["version"].conninfo = "postgresql:///no_such_database_x"
        cache = next(m for m in app.user_middleware if "version" in m.kwargs)
        assert isinstance(cache.kwargs["version"], DataVersion)
        for _ in range(2):
            answer = client.get(f"/api/players/{player}")
            assert answer.status_code == 200 and "x-cache" not in answer.headers


def test_the_cache_keeps_at_most_its_bytes(world, monkeypatch):
    """Least recently used out first when the bodies together would pass MAX_BYTES."""
    from ratingdb.web import page_cache

    url, player, _ = world
    paths = ("/api/tournaments?limit=5", f"/api/players/{player}")
    with cached_client(url) as client:
        sizes = [len(client.get(path).content) for path in paths]
        monkeypatch.setattr(page_cache, "MAX_BYTES", max(sizes) + 10)  # room for one
        client.get("/api/tournaments?limit=2")  # kept: the two entries above go
        for path in paths:
            client.get(path)
            assert client.get(path).headers["x-cache"] == "hit"
        assert client.get(paths[0]).headers["x-cache"] == "miss"  # the card pushed it out


def test_callers_get_a_version_read_after_they_asked_on_up_to_three_connections(world):
    """While a version query is held up (here: the table locked by another transaction),
    a caller arriving later gets a query of its own on another connection at once instead
    of waiting for the held one to end (up to three at a time; more callers share the next
    one). Every caller gets the version committed before it asked."""
    import asyncio

    from ratingdb.web.page_cache import DataVersion, conninfo_of

    url, _, _ = world
    engine = engine_for(url)
    reader = DataVersion(conninfo_of(engine))

    async def number() -> int | None:
        read = await reader.read()
        return None if read is None else read.n

    async def scenario() -> tuple[list[int | None], list[int], int | None]:
        first = await number()  # a connection opened and kept
        busy: list[int] = []
        with engine.connect() as holder:
            holder.execute(text("LOCK TABLE data_version IN ACCESS EXCLUSIVE MODE"))
            held = asyncio.ensure_future(number())
            await asyncio.sleep(0.3)
            busy.append(reader._busy)  # the held query
            later = []
            for wave in (2, 3, 2):  # callers arriving together share a query
                later += [asyncio.ensure_future(number()) for _ in range(wave)]
                await asyncio.sleep(0.3)
                busy.append(reader._busy)
            holder.execute(text("UPDATE data_version SET n = n + 1"))
            holder.commit()  # the lock released with the new version committed
        values = [first, *(await asyncio.gather(held, *later))]
        after = await number()
        await reader.close()
        return values, busy, after

    values, busy, after = asyncio.run(scenario())
    assert busy == [1, 2, 3, 3]  # the last wave waits for a connection, sharing one query
    assert values[0] is not None and after == values[0] + 1
    # the held queries waited for the lock: they read the version committed with it
    assert values[1:] == [values[0] + 1] * 8
