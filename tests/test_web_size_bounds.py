"""The size bounds of a tournament on the web (docs/database.md, "Size bounds"): the officer
API and the officer's upload page refuse a 100,000-player submission with its bound in the
request's language (422, nothing written, no draft kept); an administrator goes above a bound
on purpose (``allow_large``, the upload page's box that only administrators see) and the audit
log records it; an officer's ``allow_large`` is not honoured."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from tests.submit_support import World, csrf_of, sign_in, submit_world
from tests.test_size_bounds import document, trf_file
from tests.web_support import bearer, client_for, engine_for, user_token

BIG = json.dumps(document(100_000)).encode()
#: above the players' bound and quick to store
LARGE = 5001


@pytest.fixture(scope="module")
def world(pg_server: URL) -> Iterator[World]:
    with submit_world(pg_server) as w:
        yield w


def _count(world: World, sql: str, **params: Any) -> int:
    with engine_for(world.url).connect() as conn:
        return int(conn.execute(text(sql), params).scalar_one())


def _large(world: World, code: str) -> bytes:
    doc = document(LARGE)
    doc["tournament"].update(id=code, vkz=world.vkz)
    return json.dumps(doc).encode()


def test_the_api_refuses_100000_players_naming_the_bound_in_the_requests_language(world):
    client = client_for(world.url)
    officer = bearer(user_token(world.url, "api-officer", "officer", [world.vkz]))
    admin = bearer(user_token(world.url, "api-admin", "admin"))
    before = _count(world, "SELECT count(*) FROM participants")
    for headers, params in ((officer, {"lang": "en"}), (admin, {"lang": "en"}),
                            (officer, {"lang": "en", "allow_large": "true"})):  # fmt: skip
        for path in ("/api/tournaments", "/api/what-if/tournaments"):
            answer = client.post(path, params=params, content=BIG, headers=headers)
            assert answer.status_code == 422, answer.text
            error = answer.json()["errors"][0]
            assert error["path"] == "$.players"
            assert error["message"].startswith(
                "100000 players, above the bound of 5000 players per tournament"
            )
    german = client.post("/api/tournaments", params={"lang": "de"}, content=BIG, headers=admin)
    assert german.status_code == 422
    assert german.json()["errors"][0]["message"].startswith(
        "100000 Spieler, über der Obergrenze von 5000 Spielern je Turnier"
    )
    assert _count(world, "SELECT count(*) FROM participants") == before


def test_the_api_refuses_a_file_of_5000_empty_extra_rounds(world):
    client = client_for(world.url)
    officer = bearer(user_token(world.url, "api-files", "officer", [world.vkz]))
    answer = client.post(
        "/api/tournaments/trf",
        params={"lang": "en", "filename": "extra.trf", "id": "EXTRA-1", "vkz": world.vkz},
        content=trf_file(6, rounds=5001).encode(),
        headers=officer,
    )
    assert answer.status_code == 422, answer.text
    error = answer.json()["errors"][0]
    assert error["location"] == "extra.trf"
    assert error["message"].startswith("5001 rounds, above the bound of 50 rounds per tournament")
    assert _count(world, "SELECT count(*) FROM tournaments WHERE code = 'EXTRA-1'") == 0


def test_an_administrator_goes_above_a_bound_on_purpose_and_the_audit_log_says_so(world):
    client = client_for(world.url)
    admin = bearer(user_token(world.url, "api-root", "admin"))
    body = _large(world, "LARGE-API")
    refused = client.post("/api/tournaments", content=body, headers=admin)
    assert refused.status_code == 422
    answer = client.post(
        "/api/tournaments", params={"allow_large": "true"}, content=body, headers=admin
    )
    assert answer.status_code == 201, answer.text
    assert _count(world, "SELECT count(*) FROM participants p JOIN tournaments t ON "
                         "t.id = p.tournament_id WHERE t.code = 'LARGE-API'") == LARGE  # fmt: skip
    with engine_for(world.url).connect() as conn:
        entry = conn.execute(
            text("SELECT actor, details FROM audit_log WHERE action = 'above size bounds' "
                 "AND entity_id = 'LARGE-API'")
        ).one()  # fmt: skip
    assert entry.actor == "api-root"
    assert entry.details["allowed"] == [
        {"bound": "players", "high": 5000, "found": LARGE},
        {"bound": "players without a game", "high": 500, "found": LARGE - 2},
    ]


def _upload(client: Any, content: bytes, name: str, query: str = "", **fields: str) -> Any:
    csrf = csrf_of(client.get("/officer/upload").text)
    return client.post(
        f"/officer/upload{query}",
        data={"csrf": csrf, **fields},
        files={"file": (name, content, "application/json")},
        follow_redirects=False,
    )


def test_the_upload_page_refuses_a_large_file_and_offers_the_override_to_administrators(world):
    officer = client_for(world.url)
    sign_in(officer, "anna")
    assert 'name="allow_large"' not in officer.get("/officer/upload").text
    drafts = _count(world, "SELECT count(*) FROM web_drafts")
    for fields in ({}, {"allow_large": "1"}):  # an officer's box is not honoured
        page = _upload(officer, BIG, "big.json", **fields)
        assert page.status_code == 422
        assert "100000 Spieler, über der Obergrenze von 5000 Spielern je Turnier" in page.text
    english = _upload(officer, BIG, "big.json", "?lang=en")
    assert english.status_code == 422
    assert "100000 players, above the bound of 5000 players per tournament" in english.text
    assert _count(world, "SELECT count(*) FROM web_drafts") == drafts  # none kept
    root = client_for(world.url)
    sign_in(root, "root")
    assert 'name="allow_large"' in root.get("/officer/upload").text
    assert _upload(root, _large(world, "LARGE-WEB"), "large.json").status_code == 422
    answer = _upload(root, _large(world, "LARGE-WEB"), "large.json", allow_large="1")
    assert answer.status_code == 303, answer.text
    page = root.get(answer.headers["location"])
    assert page.status_code == 200, page.text
    submitted = root.post(page.url.path + "/submit", data={"csrf": csrf_of(page.text)},
                          follow_redirects=False)  # fmt: skip
    assert submitted.status_code == 303, submitted.text
    assert _count(world, "SELECT count(*) FROM audit_log WHERE action = 'above size bounds' "
                         "AND entity_id = 'LARGE-WEB' AND actor = 'root'") == 1  # fmt: skip
