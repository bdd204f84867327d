"""Requests a stranger cannot turn against the server: an anonymous or oversized upload
is refused from its headers without a byte reaching the temporary directory (a spy on it),
a body without a length is cut off at the limit, a signed-in form from another site is
refused before its body is read, the same for the JSON API; date parameters are dates;
every answer carries the security headers, no banner and, for strangers, no timing."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from ratingdb.services.users import add_user, issue_token
from ratingdb.web.app import create_app
from ratingdb.web.bodies import PUBLIC_LIMIT, UPLOAD_LIMIT
from tests.cli import run
from tests.web_support import TODAY, bearer, database, engine_for, ok

PASSWORD = "correct horse battery"
BIG = UPLOAD_LIMIT + 4 * 1024 * 1024


@pytest.fixture(scope="module")
def site(pg_server: URL) -> Iterator[tuple[URL, str]]:
    with database(pg_server, "web_bodies") as url:
        ok(["synth", "--players", "20", "--years", "1", "--seed", "3"], url)
        with Session(engine_for(url)) as session, session.begin():
            add_user(session, "anna", "officer", ["A"])
            token = issue_token(session, "anna")
        out = run(["user", "password", "anna", "--password-stdin"], url, input=PASSWORD + "\n")
        assert out.returncode == 0, out.stderr
        yield url, token


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory every spooled upload would be written to."""
    folder = tmp_path / "spooled"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def written(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def client(url: URL) -> TestClient:
    return TestClient(create_app(engine_for(url), today=lambda: TODAY))


def signed_in(url: URL) -> tuple[TestClient, str]:
    browser = client(url)
    page = browser.get("/anmelden").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    answer = browser.post(
        "/anmelden", data={"name": "anna", "password": PASSWORD, "csrf": csrf},
        follow_redirects=False,
    )  # fmt: skip
    assert answer.status_code == 303, answer.text
    overview = browser.get("/officer").text
    form = re.search(r'name="csrf" value="([^"]+)"', overview)
    assert form is not None
    return browser, form.group(1)


def upload(browser: TestClient, csrf: str, size: int, **kwargs):  # type: ignore[no-untyped-def]
    files = {"file": ("big.trf", b"x" * size, "text/plain")}
    return browser.post(
        "/officer/upload", data={"csrf": csrf}, files=files, follow_redirects=False, **kwargs
    )


def test_an_anonymous_upload_is_refused_unread(site, spy):
    url, _token = site
    answer = upload(client(url), "x" * 43, BIG)
    assert answer.status_code == 401 and "<html" in answer.text  # the page's own answer
    assert written(spy) == 0
    forged = client(url)
    forged.cookies.set("rdb_session", "not-a-session")
    assert upload(forged, "x" * 43, 3 * 1024 * 1024).status_code == 401
    admin = client(url).post("/admin/users", files={"f": ("a", b"x" * BIG)},
                             follow_redirects=False)  # fmt: skip
    assert admin.status_code == 303 and admin.headers["location"].startswith("/anmelden")
    assert written(spy) == 0


def test_an_oversized_upload_is_refused_from_its_length(site, spy):
    url, _token = site
    browser, csrf = signed_in(url)
    answer = upload(browser, csrf, BIG)
    assert answer.status_code == 413
    assert f"mehr als {UPLOAD_LIMIT} Bytes" in answer.text
    assert written(spy) == 0


def test_a_body_without_length_is_cut_off_at_the_limit(site, spy):
    url, token = site
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(BIG // 65536):
            sent += 65536
            yield b"[" * 65536

    answer = client(url).post("/api/tournaments", content=chunks(), headers=bearer(token))
    assert answer.status_code == 413 and "body" in answer.json()["error"]
    assert written(spy) == 0


def test_a_signed_in_form_from_another_site_is_refused_unread(site, spy):
    url, _token = site
    browser, csrf = signed_in(url)
    answer = upload(browser, csrf, 3 * 1024 * 1024,
                    headers={"Origin": "https://evil.example"})  # fmt: skip
    assert answer.status_code == 403 and "Sicherheitstoken" in answer.text
    assert written(spy) == 0
    same = upload(browser, csrf, 10, headers={"Origin": "http://testserver"})
    assert same.status_code in (200, 303, 422)  # read and answered by the page


def test_the_api_refuses_an_anonymous_body_unread(site, spy):
    url, token = site
    api = client(url)
    answer = api.post("/api/tournaments", content=b"{" * (3 * 1024 * 1024),
                      headers={"Content-Type": "application/json"})  # fmt: skip
    assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["error"].startswith("an API token is required")
    answer = api.post("/api/tournaments", content=b"{}", headers=bearer("rdb_forged"))
    assert answer.status_code == 401
    oversized = api.post("/api/tournaments", content=b"{" * BIG, headers=bearer(token))
    assert oversized.status_code == 413
    assert written(spy) == 0
    # a body within the limit is read and answered by the endpoint
    assert api.post("/api/tournaments", content=b"{}", headers=bearer(token)).status_code == 422


def test_public_forms_take_small_bodies_only(site):
    url, _token = site
    answer = client(url).post(
        "/anmelden",
        content=b"a" * (PUBLIC_LIMIT + 1),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 413  # fmt: skip
    calc = client(url).post("/api/calc", content=b"{" * (PUBLIC_LIMIT + 1))
    assert calc.status_code == 413 and calc.json()["error"].startswith("the request's body")


@pytest.mark.parametrize("query", ["to=0", "from=1700000000", "to=2026-13-01", "to=2026-1-1"])
def test_date_parameters_are_dates(site, query):
    url, _token = site
    answer = client(url).get(f"/api/tournaments?{query}")
    assert answer.status_code == 422
    assert "YYYY-MM-DD" in answer.text or "date" in answer.text
    page = client(url).get(f"/tournaments?{query}")
    assert page.status_code == 422
    assert client(url).get("/api/tournaments?to=2026-11-21").status_code == 200


def test_every_answer_carries_the_security_headers(site):
    url, token = site
    stranger = client(url)
    for path in ("/", "/players", "/api/players", "/docs", "/nowhere"):
        answer = stranger.get(path)
        assert answer.headers["x-content-type-options"] == "nosniff", path
        assert answer.headers["referrer-policy"] == "same-origin", path
        script = answer.headers["content-security-policy"].split("script-src")[1].split(";")[0]
        assert "unsafe-inline" not in script, path
        assert "server-timing" not in answer.headers and "server" not in answer.headers, path
    # the timing figures for a token's client and the machine itself
    assert "server-timing" in stranger.get("/api/me", headers=bearer(token)).headers
    local = TestClient(create_app(engine_for(url), today=lambda: TODAY), client=("127.0.0.1", 1))
    assert "server-timing" in local.get("/").headers


def test_an_answer_lists_at_most_a_hundred_problems():
    """A file with 40,000 faults is answered with its first 100 problems and one line for
    the rest, in the user's language."""
    from ratingdb import i18n
    from ratingdb.io.trf import TrfError
    from ratingdb.web.errors import MAX_SHOWN, describe

    problems = [(f"t.trf:{n}:1", "unknown result code") for n in range(1, 40_001)]
    error = TrfError("t.trf:1:1", "unknown result code", problems)
    with i18n.use("de"):
        status, summary, items = describe(error)
    assert status == 422 and len(items) == MAX_SHOWN + 1
    assert len(summary) < 200
    assert items[0]["line"] == 1 and items[MAX_SHOWN - 1]["line"] == MAX_SHOWN
    assert items[-1]["message"] == "und 39900 weitere Probleme"
    with i18n.use("en"):
        assert describe(error)[2][-1]["message"] == "and 39900 more problems"
